#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call overhead of the Python package against the C library on the same data: Pair-HMM of 100k
pairs (500 reads x 200 haplotypes) and the LD matrix of 2000 samples x 20000 SNPs (generated).

Each side times the same work, best of --reps runs: create the engine, one call, destroy it. The C
side is bench_overhead_c.c, compiled here against the library gvk loaded, reading the data this
script wrote. Usage: bench_overhead.py [--threads N] [--reps N] [--snps N] [--samples N]
(run from anywhere with the package importable: installed, or PYTHONPATH=python)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import gvk

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def build_c(tmp):
	exe = os.path.join(tmp, "bench_overhead_c")
	libdir = os.path.dirname(gvk.library_path)
	cc = os.environ.get("CC", "cc")
	subprocess.run([cc, "-O2", "-std=c11", "-I", os.path.join(ROOT, "include"), os.path.join(HERE, "bench_overhead_c.c"),
	                "-o", exe, gvk.library_path, "-Wl,-rpath," + libdir], check=True)
	return exe


def run_c(exe, what, path, threads, reps):
	out = subprocess.run([exe, what, path, str(threads), str(reps)], check=True, stdout=subprocess.PIPE).stdout.split()
	return float(out[0]), float(out[1])


def interleaved(exe, what, path, threads, reps, py):
	"""Best of reps runs of each side, alternating C and Python so that both see the same load."""
	tc = tp = 1e30
	csum = psum = None
	for _ in range(reps):
		t, csum = run_c(exe, what, path, threads, 1)
		tc = min(tc, t)
		t, psum = py()
		tp = min(tp, t)
	return tc, csum, tp, psum


def pairhmm_case(tmp, exe, a, rng):
	R, H, L, HL = 500, 200, 100, 150
	acgt = np.frombuffer(b"ACGT", np.uint8)
	bases = acgt[rng.integers(0, 4, (R, L))]
	qual = rng.integers(6, 41, (R, L), dtype=np.uint8)
	ins = np.full((R, L), 45, np.uint8)
	dels = np.full((R, L), 45, np.uint8)
	gcp = np.full((R, L), 10, np.uint8)
	haps = acgt[rng.integers(0, 4, (H, HL))]
	path = os.path.join(tmp, "pairhmm.bin")
	with open(path, "wb") as f:
		f.write(np.array([R, H, L, HL], np.int32).tobytes())
		for x in (bases, qual, ins, dels, gcp, haps):
			f.write(np.ascontiguousarray(x).tobytes())
	# rows of the 2-D arrays are views: nothing is copied on the way in
	args = (list(bases), list(qual), list(ins), list(dels), list(gcp), list(haps))

	def py():
		t0 = time.perf_counter()
		out = gvk.pairhmm(*args, device="cpu", threads=a.threads)
		t = time.perf_counter() - t0
		s = 0.0
		for v in out.ravel().tolist():  # in order, as the C side sums
			s += v
		assert out.shape == (R, H)
		return t, s
	tc, csum, tp, psum = interleaved(exe, "pairhmm", path, a.threads, a.reps, py)
	assert psum == csum, (psum, csum)
	return "Pair-HMM %d x %d = %d pairs (%dx%d bp)" % (R, H, R * H, L, HL), tc, tp


def ld_case(tmp, exe, a, rng):
	m, n = a.snps, a.samples
	p = rng.uniform(0.05, 0.5, m)[:, None]
	g = (rng.random((m, n)) < p).astype(np.int8) + (rng.random((m, n)) < p).astype(np.int8)
	g[rng.random((m, n)) < 0.01] = -1
	path = os.path.join(tmp, "ld.bin")
	with open(path, "wb") as f:
		f.write(np.array([m, n], np.int64).tobytes())
		f.write(g.tobytes())

	def py():
		t0 = time.perf_counter()
		res = gvk.ld(g, device="cpu", threads=a.threads)
		t = time.perf_counter() - t0
		s = 0.0
		for k in range(0, m, 97):
			s += float(res.r[k, (k * 31) % m])
		del res  # frees the matrix (untimed, as on the C side) before the next run
		return t, s
	tc, csum, tp, psum = interleaved(exe, "ld", path, a.threads, a.reps_ld, py)
	assert psum == csum or (np.isnan(psum) and np.isnan(csum)), (psum, csum)
	return "LD r^2 matrix %d samples x %d SNPs" % (n, m), tc, tp


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--threads", type=int, default=os.cpu_count())
	ap.add_argument("--reps", type=int, default=5)
	ap.add_argument("--reps-ld", type=int, default=3)
	ap.add_argument("--snps", type=int, default=20000)
	ap.add_argument("--samples", type=int, default=2000)
	a = ap.parse_args()
	rng = np.random.default_rng(21)
	print("gvk %s, %s, %d threads, CPU, best of %d (LD: %d) runs of each, C and Python alternating" % (gvk.version(), gvk.library_path, a.threads,
	                                                                   a.reps, a.reps_ld))
	with tempfile.TemporaryDirectory() as tmp:
		exe = build_c(tmp)
		rows = [pairhmm_case(tmp, exe, a, rng), ld_case(tmp, exe, a, rng)]
	print("%-52s %10s %10s %8s" % ("workload", "C s", "Python s", "ratio"))
	worst = 0
	for name, tc, tp in rows:
		print("%-52s %10.4f %10.4f %8.3f" % (name, tc, tp, tp / tc))
		worst = max(worst, tp / tc)
	print("largest Python / C ratio: %.3f (target <= 1.05)" % worst)
	return 0


if __name__ == "__main__":
	sys.exit(main())
