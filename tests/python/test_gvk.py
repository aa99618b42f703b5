# SPDX-License-Identifier: MIT
"""The Python package against the CLI on the bundled data, and its answers to bad arguments."""
import gzip
import math
import os
import random

import numpy as np
import pytest

import gvk


def lines(text):
	return [l for l in text.splitlines() if l.strip()]


def close_printed(a, b):
	"""a (computed) equals b as printed with 6 significant digits (%g); NaN as nan."""
	if math.isnan(a) or math.isnan(b):
		return math.isnan(a) and math.isnan(b)
	return abs(a - b) <= 5e-6 * abs(b) + 1e-300


# ---------------------------------------------------------------------------------------------- library
def test_version_features(cli):
	assert cli("--version").split()[1] == gvk.version()
	f = gvk.features()
	assert "commit" in f and "CPU kernels" in f
	assert os.path.exists(gvk.library_path)


# ---------------------------------------------------------------------------------------------- Pair-HMM
@pytest.mark.parametrize("name", ["carneiro_tiny.in", "gkl_pairhmm-testdata.txt", "edge.hex.gz",
                                  "gpupairhmm_readme_example.in"])
@pytest.mark.parametrize("flavour", ["avx512", "avx2"])
def test_pairhmm_file_equals_cli(cli, data, name, flavour):
	path = os.path.join(data, "pairhmm", "inputs", name)
	want = lines(cli("pairhmm", "-q", "--device", "cpu", "--flavour", flavour, "--tsv", path))
	got = gvk.pairhmm_file(path, device="cpu", flavour=flavour)
	assert len(got) == len(want) > 0
	for row, w in zip(got, want):
		g, r, h, v, d = w.split()
		assert (row["group"], row["read"], row["hap"], row["used_double"]) == (int(g), int(r), int(h), int(d))
		assert row["log10"] == float(v)  # printed with %.17g: exact


def read_groups(path):
	"""The group format: 'R H', R read lines (bases quals ins del gcp, Phred+33), H haplotypes."""
	with open(path) as f:
		toks = [l.split() for l in f if l.strip()]
	k, out = 0, []
	while k < len(toks):
		R, H = map(int, toks[k])
		reads = toks[k + 1:k + 1 + R]
		haps = [t[0] for t in toks[k + 1 + R:k + 1 + R + H]]
		q = [[np.frombuffer(r[i].encode(), np.uint8) - np.uint8(33) for r in reads] for i in range(1, 5)]
		out.append(([r[0] for r in reads], q, haps))
		k += 1 + R + H
	return out


def test_pairhmm_arrays_equal_cli(cli, data):
	path = os.path.join(data, "pairhmm", "inputs", "carneiro_tiny.in")
	want = np.array([float(x) for x in lines(cli("pairhmm", "-q", "--device", "cpu", path))])
	got = []
	for reads, (qual, ins, dels, gcp), haps in read_groups(path):
		out = gvk.pairhmm(reads, qual, ins, dels, gcp, haps, device="cpu", threads=2)
		assert out.shape == (len(reads), len(haps)) and out.dtype == np.float64
		got.append(out.ravel())  # read-major, as the CLI prints a group
	got = np.concatenate(got)
	assert np.array_equal(got, want)
	# bytes and uint8 arrays as sequences give the same
	reads, (qual, ins, dels, gcp), haps = read_groups(path)[0]
	alt = gvk.pairhmm([np.frombuffer(r.encode(), np.uint8) for r in reads], qual, ins, dels, gcp,
	                  [h.encode() for h in haps], device="cpu", double=True)
	assert alt.shape == (len(reads), len(haps)) and np.all(np.abs(alt - got[:alt.size].reshape(alt.shape)) < 1e-3)


def test_pairhmm_bad_arguments(data):
	q = np.full(4, 30, np.uint8)
	ok = dict(reads=["ACGT"], quals=[q], ins=[q], dels=[q], gcp=[q], haplotypes=["ACGTT"])
	assert gvk.pairhmm(**ok, device="cpu").shape == (1, 1)
	with pytest.raises(TypeError, match="dtype uint8"):
		gvk.pairhmm(**dict(ok, quals=[q.astype(np.int32)]))
	with pytest.raises(ValueError, match="shape"):
		gvk.pairhmm(**dict(ok, ins=[q[:3]]))
	with pytest.raises(ValueError, match="C-contiguous"):
		gvk.pairhmm(**dict(ok, gcp=[np.full(8, 30, np.uint8)[::2]]))
	with pytest.raises(TypeError, match="required"):
		gvk.pairhmm(**dict(ok, haplotypes=None))
	with pytest.raises(TypeError, match="numpy array"):
		gvk.pairhmm(**dict(ok, quals=[[30, 30, 30, 30]]))
	with pytest.raises(ValueError, match="1 reads"):
		gvk.pairhmm(**dict(ok, dels=[q, q]))
	with pytest.raises(ValueError, match="device"):
		gvk.pairhmm(**ok, device="tpu")
	with pytest.raises(TypeError, match="unknown option"):
		gvk.pairhmm(**ok, colour=1)
	with pytest.raises(gvk.GvkError) as e:  # the library's own check: a haplotype of length 0
		gvk.pairhmm(**dict(ok, haplotypes=[""]), device="cpu")
	assert isinstance(e.value, RuntimeError) and e.value.code == -4 and str(e.value)
	with pytest.raises(RuntimeError, match="nonexistent"):
		gvk.pairhmm_file(os.path.join(data, "nonexistent.in"), device="cpu")
	if not gvk._L.gvk_pairhmm_gpu_count():
		with pytest.raises(RuntimeError):
			gvk.pairhmm(**ok, device="gpu")


# ---------------------------------------------------------------------------------------------- align
def test_align_equals_cli(cli, data, tmp_path):
	rows = []
	with open(os.path.join(data, "align", "unit_tests.tsv")) as f:
		next(f)
		rows += [l.rstrip("\n").split("\t")[2:9] for l in f if l.strip()]
	with gzip.open(os.path.join(data, "align", "random_vectors.tsv.gz"), "rt") as f:
		next(f)
		rows += [l.rstrip("\n").split("\t")[2:9] for l in f if l.strip()]
	inp = tmp_path / "pairs.tsv"
	inp.write_text("".join("\t".join(r) + "\n" for r in rows))
	want = [l.split("\t") for l in lines(cli("align", "-q", "--device", "cpu", inp))]
	cols = list(zip(*rows))
	cig, off, sc = gvk.align(cols[0], cols[1], match=np.array(cols[2], np.int64), mismatch=np.array(cols[3], int),
	                         gap_open=np.array(cols[4], int), gap_extend=np.array(cols[5], int), overhang=cols[6],
	                         device="cpu")
	assert len(cig) == len(want) == len(rows) > 1000
	assert off.dtype == np.int32 and sc.dtype == np.int32
	for k, w in enumerate(want):
		assert (cig[k], int(off[k]), int(sc[k])) == (w[0], int(w[1]), int(w[2])), rows[k]
	# a preset and one strategy for every pair, the Java flavour and the raw aligner
	for extra, flags in (({}, []), ({"java": True}, ["--java"]), ({"raw": True}, ["--raw"])):
		two = tmp_path / "two.tsv"
		two.write_text("".join("%s\t%s\n" % (r[0], r[1]) for r in rows[:200]))
		want = [l.split("\t") for l in lines(cli("align", "-q", "--device", "cpu", "--preset", "STANDARD_NGS",
		                                         "--overhang", "INDEL", *flags, two))]
		cig, off, sc = gvk.align(cols[0][:200], cols[1][:200], preset="STANDARD_NGS", overhang="INDEL", **extra)
		assert [(c, int(o), int(s)) for c, o, s in zip(cig, off, sc)] == [(w[0], int(w[1]), int(w[2])) for w in want]


def test_align_bad_arguments():
	with pytest.raises(ValueError, match="refs has 2"):
		gvk.align(["A", "C"], ["A"])
	with pytest.raises(ValueError, match="preset"):
		gvk.align(["A"], ["A"], preset="NOPE")
	with pytest.raises(ValueError, match="overhang"):
		gvk.align(["A"], ["A"], overhang="SIDEWAYS")
	with pytest.raises(TypeError, match="all of"):
		gvk.align(["A"], ["A"], match=1)
	with pytest.raises(TypeError, match="required"):
		gvk.align(None, ["A"])
	with pytest.raises(TypeError, match="str, bytes"):
		gvk.align([1], ["A"])
	with pytest.raises(gvk.GvkArgError) as e:  # the library's limits: an empty sequence
		gvk.align(["ACGT"], [""], device="cpu")
	assert isinstance(e.value, ValueError) and "0" in str(e.value)
	with pytest.raises(ValueError):
		gvk.align(["A"], ["A"], match=1, mismatch=1, gap_open=0, gap_extend=0)  # mismatch > 0
	with pytest.raises(ValueError, match="isa"):
		gvk.align(["A"], ["A"], isa="sse9")


# ---------------------------------------------------------------------------------------------- LD
def read_bed(prefix):
	"""A SNP-major .bed as an int8 n_snps x n_samples matrix of A1 copies (-1 missing)."""
	with open(prefix + ".fam") as f:
		n = sum(1 for l in f if l.strip())
	with open(prefix + ".bed", "rb") as f:
		raw = np.frombuffer(f.read(), np.uint8)[3:]
	per = (n + 3) // 4
	raw = raw.reshape(-1, per)
	codes = np.stack([(raw >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(raw.shape[0], -1)[:, :n]
	return np.choose(codes, np.array([2, -1, 1, 0], np.int8)).astype(np.int8)


def test_ld_matrix_equals_cli(cli, data):
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x400_nomiss")
	for stat, r2 in (("--r2", True), ("--r", False)):
		want = [[float(x) for x in l.split()] for l in lines(cli("ld", "--bfile", prefix, stat, "square", "-o", "-",
		                                                         "-q", "--device", "cpu"))]
		res = gvk.ld(prefix, r2=r2, device="cpu")
		assert res.r.shape == (len(want), len(want)) and res.r2 == r2 and res.n_samples == 203
		assert all(close_printed(res.r[i, j], w) for i, row in enumerate(want) for j, w in enumerate(row))
		assert res.snps["id"][:2] == ["snp0", "snp1"] and res.snps["bp"].dtype == np.int64
	# the same genotypes as a matrix (every sample a founder here): r^2 does not depend on A1
	g = read_bed(prefix)
	m = gvk.ld(g, device="cpu", threads=2)
	assert m.snps is None and np.array_equal(m.r, res_r2(prefix))
	t = gvk.ld(np.ascontiguousarray(g.T), layout="sample_major", device="cpu")
	assert np.array_equal(t.r, m.r)


def res_r2(prefix):
	return gvk.ld(prefix, device="cpu").r


def ld_table_rows(text):
	out = lines(text)[1:]
	return [l.split() for l in out]


def test_ld_table_equals_cli(cli, data):
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x800")
	for stat, r2 in (("--r", False), ("--r2", True)):
		want = ld_table_rows(cli("ld", "--bfile", prefix, stat, "--ld-window-r2", "0", "--ld-window", "5", "-o",
		                         "-", "-q", "--device", "cpu"))
		got = gvk.ld(prefix, table=True, r2=r2, window_r2=0, window_snps=5, device="cpu")
		assert len(got) == len(want) > 100
		for k, w in enumerate(want):
			assert (str(got["chr_a"][k]), int(got["bp_a"][k]), str(got["snp_a_id"][k])) == (w[0], int(w[1]), w[2])
			assert (str(got["chr_b"][k]), int(got["bp_b"][k]), str(got["snp_b_id"][k])) == (w[3], int(w[4]), w[5])
			assert close_printed(float(got["r2" if r2 else "r"][k]), float(w[6]))
	# a genotype matrix with positions: the same pairs as the r^2 matrix of the same data
	g = read_bed(os.path.join(data, "snp", "ld_dummy", "dummy203x400_nomiss"))
	full = gvk.ld(g, device="cpu").r
	tab = gvk.ld(g, table=True, window_r2=0.0, window_snps=3, bp=np.arange(len(g), dtype=np.int64) * 10,
	             chrom=["1"] * len(g), device="cpu")
	assert len(tab) == 2 * len(g) - 3
	assert np.array_equal(np.asarray(tab["r2"]), full[np.asarray(tab["snp_a"]), np.asarray(tab["snp_b"])])


def test_ld_prune_equals_cli(cli, data, tmp_path):
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x800")
	for args, kw in ((("50", "5", "0.2"), {}), (("20kb", "1", "0.05"), {"window_kb": True}), (("10", "10", "0"), {})):
		out = str(tmp_path / "p")
		cli("ld", "--bfile", prefix, "--indep-pairwise", *args, "--out", out, "-q")
		with open(out + ".prune.in") as f:
			want_in = f.read().split()
		with open(out + ".prune.out") as f:
			want_out = f.read().split()
		kept, removed = gvk.ld_prune(prefix, int(args[0].rstrip("kb")), int(args[1]), float(args[2]), device="cpu", **kw)
		assert kept == want_in and removed == want_out and len(kept) + len(removed) == 800
	with pytest.raises(gvk.GvkArgError, match="step"):
		gvk.ld_prune(prefix, 5, 6, 0.2)
	with pytest.raises(gvk.GvkArgError, match="r2"):
		gvk.ld_prune(prefix, 5, 1, 1.0)
	# --indep-pairphase and --indep through the same call
	for mode, flag, args in (("pairphase", "--indep-pairphase", ("20", "2", "0.02")), ("vif", "--indep", ("20", "2", "1.02"))):
		out = str(tmp_path / "q")
		cli("ld", "--bfile", prefix, flag, *args, "--out", out, "-q")
		with open(out + ".prune.out") as f:
			want_out = f.read().split()
		kept, removed = gvk.ld_prune(prefix, int(args[0]), int(args[1]), float(args[2]), mode=mode, device="cpu")
		assert removed == want_out and len(removed) > 0 and len(kept) + len(removed) == 800
	with pytest.raises(gvk.GvkArgError, match="VIF"):
		gvk.ld_prune(prefix, 5, 1, 0.5, mode="vif")
	with pytest.raises(gvk.GvkArgError, match="mode"):
		gvk.ld_prune(prefix, mode="pairs")


def test_ld_clump_equals_cli(cli, data, tmp_path):
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x800")
	rng = random.Random(7)
	assoc = str(tmp_path / "a.assoc")
	with open(prefix + ".bim") as f, open(assoc, "w") as out:
		out.write("CHR SNP BP P\n")
		for k, line in enumerate(f):
			c, sid, _, bp = line.split()[:4]
			p = rng.random() * (1e-6 if k % 97 < 12 else 1)
			out.write("%s %s %s %.4g\n" % (c, sid, bp, p))
		out.write("1 not_there 1 1e-9\n")
	for flags, kw in (((), {}), (("--clump-r2", "0.1", "--clump-p2", "0.5"), {"r2": 0.1, "p2": 0.5}),
	                  (("--clump-allow-overlap", "--clump-kb", "50"), {"allow_overlap": True, "kb": 50})):
		out = str(tmp_path / "c")
		cli("ld", "--bfile", prefix, "--clump", assoc, *flags, "--out", out, "-q")
		with open(out + ".clumped") as f:
			rows = [line.split() for line in f.read().splitlines()[1:] if line.strip()]
		clumps, missing = gvk.ld_clump(prefix, assoc, device="cpu", **kw)
		assert missing == ["not_there"] and len(clumps) == len(rows) > 3
		for c, row in zip(clumps, rows):
			members = [] if row[11] == "NONE" else row[11].split(",")
			assert (c.chr, c.file, c.index, c.bp) == (row[0], int(row[1]), row[2], int(row[3]))
			assert sum(c.counts) == int(row[5]) and list(c.counts) == [int(x) for x in row[6:11]]
			assert ["%s(%d)" % (m, fi) for m, fi, _ in c.members] == members
			assert all(abs(r) > kw.get("r2", 0.5) for _, _, r in c.members)
	with pytest.raises(gvk.GvkArgError, match="p2"):
		gvk.ld_clump(prefix, assoc, p1=0.01, p2=0.001)
	with pytest.raises(gvk.GvkArgError, match="kb"):
		gvk.ld_clump(prefix, assoc, kb=0)
	with pytest.raises(gvk.GvkError, match="no p-value field"):
		gvk.ld_clump(prefix, assoc, p_field="PVAL,PV")


def test_ld_bad_arguments(data):
	g = np.zeros((3, 4), np.int8)
	with pytest.raises(TypeError, match="int8"):
		gvk.ld(g.astype(np.int16))
	with pytest.raises(ValueError, match="2 dimensions"):
		gvk.ld(np.zeros(4, np.int8))
	with pytest.raises(ValueError, match="C-contiguous"):
		gvk.ld(np.zeros((4, 6), np.int8)[:, ::2])
	with pytest.raises(TypeError, match="None"):
		gvk.ld(None)
	with pytest.raises(gvk.GvkArgError, match="SNP"):
		gvk.ld(np.full((3, 4), 3, np.int8), device="cpu")  # the library names the bad value
	with pytest.raises(ValueError, match="window_snps"):
		gvk.ld(g, window_snps=1)
	with pytest.raises(ValueError, match="layout"):
		gvk.ld(g, layout="diagonal")
	with pytest.raises(ValueError, match="bp"):
		gvk.ld(g, table=True, bp=np.arange(2, dtype=np.int64))
	with pytest.raises(RuntimeError, match="nothing_here"):
		gvk.ld(os.path.join(data, "nothing_here"))


# ---------------------------------------------------------------------------------------------- the gvk ld job
LD_JOB_CASES = [  # gvk ld's options, and the same run as ld_job keywords
	(["--r2", "--ld-window", "5", "--ld-window-r2", "0"], dict(r2=True, window_snps=5, window_r2=0)),
	(["--r", "square", "--from", "snp10", "--to", "snp60", "--maf", "0.05"],
	 {"r2": False, "shape": "square", "from": "snp10", "to": "snp60", "maf": 0.05}),
	(["--r2", "dprime", "--snps", "snp3-snp40", "snp100", "--ld-window-r2", "0"],
	 dict(r2=True, dprime="abs", snps=["snp3-snp40", "snp100"], window_r2=0)),
	(["--indep-pairwise", "20", "2", "0.02"], dict(prune=dict(window=20, step=2, r2=0.02))),
	(["--clump", "../a.assoc", "--clump-r2", "0.1"], dict(clump_files="../a.assoc", clump_r2=0.1)),
]


def write_assoc(bim, path):
	"""An association report of the fileset's variants, a few of them significant."""
	rng = random.Random(7)
	with open(bim) as f, open(path, "w") as out:
		out.write("CHR SNP BP P\n")
		for k, line in enumerate(f):
			c, sid, _, bp = line.split()[:4]
			out.write("%s %s %s %.4g\n" % (c, sid, bp, rng.random() * (1e-6 if k % 97 < 12 else 1)))


def files_of(d):
	return {f: (d / f).read_bytes() for f in sorted(os.listdir(d)) if (d / f).is_file()}


@pytest.mark.parametrize("flags,kw", LD_JOB_CASES)
def test_ld_job_equals_cli(cli, data, tmp_path, monkeypatch, flags, kw):
	"""Every file of the job (table or lists, and the log, given the same command line to echo) as gvk ld writes it."""
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x800")
	argv = ["ld", "--bfile", prefix] + flags + ["--out", "x", "--device", "cpu", "-q"]
	write_assoc(prefix + ".bim", tmp_path / "a.assoc")
	(tmp_path / "cli").mkdir()
	(tmp_path / "py").mkdir()
	monkeypatch.chdir(tmp_path / "cli")
	cli(*argv)
	monkeypatch.chdir(tmp_path / "py")
	s = gvk.ld_job(bfile=prefix, out_prefix="x", device="cpu", argv=argv, **kw)
	want, got = files_of(tmp_path / "cli"), files_of(tmp_path / "py")
	assert sorted(got) == sorted(want) and "x.log" in got
	for f in want:
		assert got[f] == want[f], f
	assert isinstance(s, gvk.LdJobSummary) and s.n_samples == 203 and s.log_path == "x.log" and s.writes
	assert s.kernel.startswith("cpu")
	if "prune" in kw:
		assert s.n_pruned == len(got["x.prune.out"].split()) > 0 and s.n_snps == 800
	elif "clump_files" in kw:
		assert s.n_clumps == len(lines(got["x.clumped"].decode())) - 1 > 3
	else:
		assert s.out == "x.ld" and s.pairs > 0 and not s.no_table
	if "shape" in kw:
		assert s.n_snps == len(got["x.ld"].splitlines()) <= 51  # --from snp10 --to snp60, then --maf
	elif "window_snps" in kw:
		assert s.written == len(got["x.ld"].splitlines()) - 1 == s.pairs and s.n_snps == 800


def test_ld_job_bad_options(data, tmp_path, monkeypatch):
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x800")
	monkeypatch.chdir(tmp_path)
	assert gvk.ld_job_check(bfile=prefix, r2=True, window_snps=3) is None
	with pytest.raises(gvk.GvkArgError, match="window_snps"):
		gvk.ld_job_check(bfile=prefix, r2=True, window_snps=1)
	with pytest.raises(gvk.GvkArgError, match="window_snps"):
		gvk.ld_job(bfile=prefix, r2=True, window_snps=1)
	with pytest.raises(gvk.GvkArgError, match="--r2"):  # no run asked for
		gvk.ld_job(bfile=prefix)
	with pytest.raises(gvk.GvkArgError, match="square"):  # PLINK's rule: no window with a matrix
		gvk.ld_job(bfile=prefix, r2=True, shape="square", window_snps=5)
	with pytest.raises(gvk.GvkError, match="nothing_here"):
		gvk.ld_job(bfile=os.path.join(data, "nothing_here"), r2=True, device="cpu")
	assert os.listdir(tmp_path) == []  # refused before any file was made
	with pytest.raises(TypeError, match="unknown option"):
		gvk.ld_job(bfile=prefix, r2=True, colour=1)
	with pytest.raises(TypeError, match="n_snps"):
		gvk.ld_job(bfile=prefix, r2=True, n_snps=3)
	with pytest.raises(ValueError, match="shape"):
		gvk.ld_job(bfile=prefix, r2=True, shape="diamond")
	with pytest.raises(ValueError, match="mode"):
		gvk.ld_job(bfile=prefix, prune=dict(window=5, step=1, r2=0.2, mode="pairs"))
	with pytest.raises(ValueError, match="NUL"):
		gvk.ld_job(bfile=prefix + "\0x", r2=True)


# ---------------------------------------------------------------------------------------------- FastID
def read_fidb(path):
	"""Version 1 .fidb: 'FIDB', n profiles, n_snp, words per profile (uint32 each), then the profiles."""
	with open(path, "rb") as f:
		raw = f.read()
	assert raw[:4] == b"FIDB"
	n, n_snp, w = np.frombuffer(raw[4:16], np.uint32)
	prof = np.frombuffer(raw, np.uint64, count=int(n) * int(w), offset=16).reshape(int(n), int(w))
	return prof, int(n_snp)


@pytest.mark.parametrize("mode", ["identity", "mixture"])
def test_fastid_equals_cli(cli, data, mode):
	base = os.path.join(data, "snp", "fastid", "fastid40x500x200")
	db, n_snp = read_fidb(base + ".db.fidb")
	q, n_snp_q = read_fidb(base + ".queries.fidb")
	assert n_snp == n_snp_q
	thr = 8 if mode == "identity" else 2
	out = lines(cli("fastid", "-q", "--device", "cpu", "--" + mode, "-k", 7, "-T", thr, base + ".db.fidb",
	                base + ".queries.fidb"))
	top = [l.split("\t") for l in out if l.count("\t") == 5 and not l.startswith("query_id")]
	hits = [l.split("\t") for l in out if l.count("\t") == 4 and not l.startswith("query_id")]
	res = gvk.fastid(q, db, n_snp, topk=7, threshold=thr, mixture=mode == "mixture", device="cpu")
	assert res.top.shape == (len(q), 7) and res.pairs == len(q) * len(db)
	got = [(int(h["query"]), rank, int(h["db"]), int(h["score"])) for row in res.top for rank, h in enumerate(row)]
	assert got == [(int(t[1]), int(t[2]), int(t[4]), int(t[5])) for t in top]
	assert [(int(h["query"]), int(h["db"]), int(h["score"])) for h in res.hits] == \
		[(int(t[1]), int(t[3]), int(t[4])) for t in hits]
	assert len(hits) > 0


@pytest.fixture
def fastid_files(cli, data, tmp_path):
	"""gvk fastid's tables of the bundled search and its .fidb of a PLINK fileset."""
	base = os.path.join(data, "snp", "fastid", "fastid40x500x200")
	bfile = os.path.join(data, "snp", "ld_dummy", "dummy203x400_nomiss")
	cli("fastid", "-q", "--device", "cpu", "-k", 7, "-T", 8, "-o", tmp_path / "top.tsv", "-H", tmp_path / "hits.tsv",
	    base + ".db.fidb", base + ".queries.fidb")
	cli("fastid", "-q", "--make-fidb", bfile, "-o", tmp_path / "made.fidb")
	return base, bfile, tmp_path


def test_fastid_db_equals_cli(fastid_files, tmp_path):
	base, bfile, cli_dir = fastid_files
	with gvk.FastidDb.make(bfile) as made:
		made.write(tmp_path / "py.fidb")
		info = made.info
	assert (tmp_path / "py.fidb").read_bytes() == (cli_dir / "made.fidb").read_bytes()
	assert (info.n, info.n_snp, info.has_panel, info.whole) == (203, 400, True, True) and info.panel_hash
	back = gvk.FastidDb.read(tmp_path / "py.fidb")
	assert back.info.panel_hash == info.panel_hash and len(back) == 203
	with open(bfile + ".fam") as f:
		fam = ["%s_%s" % tuple(l.split()[:2]) for l in f]  # FID_IID
	assert [back.id(i) for i in range(203)] == fam and back.id(203) is None
	q, db = gvk.FastidDb.read(base + ".queries.fidb"), gvk.FastidDb.open(base + ".db.fidb")
	assert (db.info.whole, db.info.seekable, db.info.has_panel, db.info.n) == (False, True, False, 500)
	res = gvk.fastid_search_db(q, db, topk=7, threshold=8, device="cpu")
	res.write_top(tmp_path / "top.tsv")
	res.write_hits(tmp_path / "hits.tsv")
	for f in ("top.tsv", "hits.tsv"):
		assert (tmp_path / f).read_bytes() == (cli_dir / f).read_bytes(), f
	qa, n_snp = read_fidb(base + ".queries.fidb")
	da, _ = read_fidb(base + ".db.fidb")
	arr = gvk.fastid(qa, da, n_snp, topk=7, threshold=8, device="cpu")
	assert np.array_equal(res.top, arr.top) and np.array_equal(res.hits, arr.hits) and len(res.hits) > 0
	assert res.pairs == 40 * 500 and res.kernel.startswith("cpu")
	# a database read whole, a block of 7 profiles at a time; and a slice of an opened one
	whole = gvk.fastid_search_db(q, gvk.FastidDb.read(base + ".db.fidb"), topk=7, threshold=8, block=7, device="cpu")
	assert np.array_equal(whole.top, arr.top) and np.array_equal(whole.hits, arr.hits)
	part = gvk.FastidDb.open(base + ".db.fidb")
	part.range(100, 300)
	sl = gvk.fastid_search_db(q, part, topk=7, device="cpu")
	want = gvk.fastid(qa, np.ascontiguousarray(da[100:300]), n_snp, topk=7, device="cpu")
	assert np.array_equal(sl.top["db"], want.top["db"] + 100) and np.array_equal(sl.top["score"], want.top["score"])
	assert sl.pairs == 40 * 200


def test_fastid_db_errors(fastid_files, tmp_path):
	base, bfile, _ = fastid_files
	for call in (gvk.FastidDb.read, gvk.FastidDb.open, gvk.FastidDb.make):
		with pytest.raises(gvk.GvkError, match="no_such"):
			call(str(tmp_path / "no_such.fidb"))
	q, made = gvk.FastidDb.read(base + ".queries.fidb"), gvk.FastidDb.make(bfile)
	with pytest.raises(gvk.GvkError, match="200 SNPs") as e:  # 200 SNPs against 400
		q.match(made)
	assert e.value.code == -2 and "dummy203x400_nomiss" in str(e.value)
	with pytest.raises(gvk.GvkError, match="400"):
		gvk.fastid_search_db(q, made, device="cpu")
	with pytest.raises(gvk.GvkArgError, match="not a range"):
		made.range(5, 2)
	with pytest.raises(gvk.GvkArgError, match="no SNP panel"):  # a version 1 file has no panel to write
		q.write(tmp_path / "v1.fidb")
	assert not (tmp_path / "v1.fidb").exists()
	with pytest.raises(gvk.GvkError, match="/dev/full"):
		made.write("/dev/full")
	with pytest.raises(gvk.GvkError, match="cannot create.*|.*no_dir") as e:
		made.write(tmp_path / "no_dir" / "x.fidb")
	assert str(tmp_path / "no_dir" / "x.fidb") in str(e.value) and e.value.code == -1
	db = gvk.FastidDb.open(base + ".db.fidb")
	res = gvk.fastid_search_db(q, db, device="cpu")
	with pytest.raises(gvk.GvkArgError, match="already"):  # once per opened database
		db.read_ids(res)
	with pytest.raises(gvk.GvkError, match="/dev/full"):
		res.write_top("/dev/full")
	with pytest.raises(ValueError, match="fastid_search_db"):  # profiles as arrays have no IDs
		gvk.fastid(np.zeros((1, 1), np.uint64), np.zeros((2, 1), np.uint64), 10).write_top(tmp_path / "t.tsv")
	with pytest.raises(TypeError, match="FastidDb"):
		gvk.fastid_search_db(q, base + ".db.fidb")
	with gvk.FastidDb.read(base + ".queries.fidb") as closed:
		pass
	with pytest.raises(ValueError, match="closed"):
		closed.info
	res.write_hits(tmp_path / "h.tsv")  # the result keeps its databases open
	assert (tmp_path / "h.tsv").read_text().startswith("query_id")


def test_fastid_bad_arguments():
	q = np.zeros((2, 1), np.uint64)
	with pytest.raises(TypeError, match="uint64"):
		gvk.fastid(q.astype(np.int64), q, 10)
	with pytest.raises(ValueError, match="words"):
		gvk.fastid(np.zeros((2, 2), np.uint64), q, 10)
	with pytest.raises(TypeError, match="None"):
		gvk.fastid(q, None, 10)
	with pytest.raises(gvk.GvkArgError, match="profile"):
		gvk.fastid(q, np.full((2, 1), 1 << 40, np.uint64), 10, device="cpu")  # bits past n_snp
	with pytest.raises(gvk.GvkArgError):
		gvk.fastid(q, q, 10, topk=0)  # neither a top list nor a threshold
	with pytest.raises(ValueError, match="n_snp"):
		gvk.fastid(q, q, 0)


# ---------------------------------------------------------------------------------------------- CNV
def rows_of(table, cols):
	return [tuple(table[c][k] for c in cols) for k in range(len(table[cols[0]]))]


def cli_table(text):
	ls = lines(text)
	return ls[0].split("\t"), [l.split("\t") for l in ls[1:]]


def check_cnv(res, cnvs, cnvr, segs):
	for table, (head, want) in ((res.cnvs, cnvs), (res.segments, segs)):
		assert head == ["sample", "chr", "start", "end", "mean", "median", "CN"]
		got = sorted(rows_of(table, head))
		want = sorted((w[0], w[1], int(w[2]), int(w[3]), float(w[4]), float(w[5]), int(w[6])) for w in want)
		assert got == want and len(got) > 0  # %.17g: exact
	head, want = cnvr
	assert head[:3] == ["chr", "start", "end"] and head[3:] == res.samples
	assert rows_of(res.cnvr, head) == [(w[0], int(w[1]), int(w[2])) + tuple(int(x) for x in w[3:]) for w in want]


def test_cnv_equals_cli(cli, data, tmp_path):
	path = os.path.join(data, "cnv", "small", "input_counts.tsv.gz")
	for exome, flags in ((False, []), (True, ["--exome"])):
		cnvr, segs = tmp_path / "cnvr.tsv", tmp_path / "segs.tsv"
		cnvs = cli_table(cli("cnv", "-q", "--device", "cpu", "--counts", path, "--cnvr", cnvr, "--segments", segs,
		                     *flags))
		want = (cnvs, cli_table(cnvr.read_text()), cli_table(segs.read_text()))
		res = gvk.cnv(gvk.cnv_counts_file(path), exome=exome, device="cpu")
		check_cnv(res, want[0], want[1], want[2])
		# the same counts as arrays, region rows (int64) and sample runs (float64)
		with gzip.open(path, "rt") as f:
			head = f.readline().split()
			rows = [l.split() for l in f]
		x = np.array([[int(v) for v in r[3:]] for r in rows], np.int64)
		kw = dict(samples=head[3:], seq_names=[r[0] for r in rows], start=np.array([int(r[1]) for r in rows]),
		          end=np.array([int(r[2]) for r in rows]), exome=exome, device="cpu")
		check_cnv(gvk.cnv(x, **kw), want[0], want[1], want[2])
		res2 = gvk.cnv(np.asfortranarray(x, dtype=np.float64), **kw)
		check_cnv(res2, want[0], want[1], want[2])
		assert res2.norm.shape == (x.shape[1], x.shape[0]) and res2.cnvr_cn.shape[1] == x.shape[1]


def test_cnv_options_equal_cli(cli, data):
	path = os.path.join(data, "cnv", "small", "input_counts.tsv.gz")
	head, want = cli_table(cli("cnv", "-q", "--device", "cpu", "--counts", path, "--min-width", 2, "--upper", 0.4,
	                           "--norm-type", "mean", "--folds", "0.025,0.5,1,1.5,2,2.5"))
	res = gvk.cnv(gvk.cnv_counts_file(path), min_width=2, upper=0.4, norm_type="mean",
	              folds=[0.025, 0.5, 1, 1.5, 2, 2.5], device="cpu")
	assert sorted(rows_of(res.cnvs, head)) == sorted(
		(w[0], w[1], int(w[2]), int(w[3]), float(w[4]), float(w[5]), int(w[6])) for w in want)


def test_cnv_writers_equal_cli(cli, data, tmp_path, monkeypatch):
	"""Every file gvk cnv writes, from gvk.cnv's result, byte for byte (SVG plots: gvk's own, which the
	command writes with GVK_CNV_PLAIN_SVG set; PNG where cairo is built)."""
	path = os.path.join(data, "cnv", "small", "input_counts.tsv.gz")
	cairo = bool(gvk.feature_flags() & 16)  # GVK_FEATURE_CAIRO
	c, p = tmp_path / "cli", tmp_path / "py"
	c.mkdir(), p.mkdir()
	monkeypatch.setenv("GVK_CNV_PLAIN_SVG", "1")
	cli("cnv", "-q", "--device", "cpu", "--counts", path, "-o", c / "cnvs.tsv", "--cnvr", c / "cnvr.tsv", "--segments",
	    c / "segs.tsv", "--calls-bed", c / "calls.bed", "--seg", c / "x.seg", "--counts-out", c / "counts.tsv",
	    "--vcf", c / "cnv.vcf", "--regions", c / "R", "--posterior", "--plot", c / "P", "--plot-format",
	    "png,svg" if cairo else "svg")
	res = gvk.cnv(gvk.cnv_counts_file(path), keep_posterior=True, device="cpu")
	for name, table in (("cnvs.tsv", "cnvs"), ("cnvr.tsv", "cnvr"), ("segs.tsv", "segments"), ("calls.bed", "calls_bed"),
	                    ("x.seg", "seg")):
		res.write_table(p / name, table)
	res.write_counts(p / "counts.tsv")
	res.write_vcf(p / "cnv.vcf")
	res.write_regions(p / "R")
	res.plot(p / "P", png=cairo, svg=True, plain_svg=True)
	want, got = files_of(c), files_of(p)
	assert sorted(got) == sorted(want) and "R.posterior.tsv" in got and "P.cohort.svg" in got
	for f in want:
		assert got[f] == want[f], f
	assert gvk.cnv_table_suffix("normalized") == ".normalized.tsv" and gvk.cnv_table_suffix("cnvs") is None
	# the counts written read back as the same counts
	again = gvk.cnv(gvk.cnv_counts_file(p / "counts.tsv"), device="cpu")
	again.write_table(p / "again.tsv")
	assert (p / "again.tsv").read_bytes() == want["cnvs.tsv"]


def test_cnv_writers_errors(data, tmp_path):
	path = os.path.join(data, "cnv", "small", "input_counts.tsv.gz")
	counts = gvk.cnv_counts_file(path)
	res = gvk.cnv(counts, device="cpu")
	with pytest.raises(gvk.GvkError, match="/dev/full") as e:
		res.write_table("/dev/full", "segments")
	assert e.value.code == -1
	missing = tmp_path / "no_dir" / "x.tsv"
	with pytest.raises(gvk.GvkError, match="cannot create") as e:
		res.write_table(missing)
	assert str(missing) in str(e.value)
	with pytest.raises(gvk.GvkArgError, match="posterior"):  # a result without keep_posterior
		res.write_table(tmp_path / "post.tsv", "posterior")
	assert not (tmp_path / "post.tsv").exists()  # nothing half-written is left
	with pytest.raises(ValueError, match="table must be one of"):
		res.write_table(tmp_path / "t.tsv", "histogram")
	with pytest.raises(gvk.GvkError, match="no_dir") as e:
		res.write_vcf(tmp_path / "no_dir" / "x.vcf")
	assert e.value.code == -1
	with pytest.raises(gvk.GvkArgError, match="png"):
		res.plot(tmp_path / "P", png=False, svg=False)
	with pytest.raises(ValueError, match="contigs"):
		res.plot(tmp_path / "P", svg=True, contigs="some")
	if gvk.feature_flags() & 16:  # GVK_FEATURE_CAIRO
		res.plot(tmp_path / "P", contigs="none")
		assert (tmp_path / "P.cohort.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
		assert not list(tmp_path.glob("P.*.chr*.png")) and not list(tmp_path.glob("*.svg"))
	else:
		with pytest.raises(gvk.GvkError, match="cairo") as e:
			res.plot(tmp_path / "P")
		assert e.value.code == -6 and not list(tmp_path.glob("P.*"))
	with pytest.raises(gvk.GvkError, match="/dev/full"):
		gvk.cnv_counts_write(counts, "/dev/full")
	with pytest.raises(TypeError, match="cnv_counts_file"):
		gvk.cnv_counts_write(np.ones((3, 2)), tmp_path / "c.tsv")
	if gvk.feature_flags() & 4:  # GVK_FEATURE_HTSLIB: bgzipped and indexed
		res.write_vcf(tmp_path / "x.vcf.gz")
		assert gzip.open(tmp_path / "x.vcf.gz", "rt").readline().startswith("##fileformat=VCFv4.3")
		assert (tmp_path / "x.vcf.gz.tbi").exists()


def test_cnv_bad_arguments(data):
	x = np.ones((20, 3), np.float64)
	with pytest.raises(TypeError, match="float64 or int64"):
		gvk.cnv(x.astype(np.float32))
	with pytest.raises(ValueError, match="2-dimensional"):
		gvk.cnv(np.ones(5))
	with pytest.raises(ValueError, match="contiguous"):
		gvk.cnv(np.ones((20, 6))[:, ::2])
	with pytest.raises(TypeError, match="None"):
		gvk.cnv(None)
	with pytest.raises(gvk.GvkArgError, match="negative"):
		gvk.cnv(-x)
	with pytest.raises(gvk.GvkArgError):
		gvk.cnv(np.ones((20, 1)))  # one sample
	with pytest.raises(ValueError, match="together"):
		gvk.cnv(x, start=np.arange(20, dtype=np.int64))
	with pytest.raises(ValueError, match="samples"):
		gvk.cnv(x, samples=["a"])
	with pytest.raises(gvk.GvkArgError):
		gvk.cnv(x, cyc=0)
	with pytest.raises(ValueError, match="norm_type"):
		gvk.cnv(x, norm_type="weird")
	with pytest.raises(TypeError, match="unknown option"):
		gvk.cnv(x, flavour=1)
	with pytest.raises(RuntimeError, match="missing.tsv"):
		gvk.cnv_counts_file(os.path.join(data, "missing.tsv"))


# ---------------------------------------------------------------------------------------------- GIL
def test_gil_released_during_compute():
	"""While a thread runs a long library call, this thread keeps running (no gap as long as the call)."""
	import threading
	import time
	g = np.random.default_rng(5).integers(0, 3, (4000, 1000), dtype=np.int8)
	out = []
	t0 = time.perf_counter()
	gvk.ld(g, device="cpu", threads=1)
	alone = time.perf_counter() - t0
	th = threading.Thread(target=lambda: out.append(gvk.ld(g, device="cpu", threads=1).r[0, 1]))
	last, gap = time.perf_counter(), 0.0
	th.start()
	while th.is_alive():
		now = time.perf_counter()
		gap, last = max(gap, now - last), now
	th.join()
	assert len(out) == 1
	assert gap < max(0.5 * alone, 0.05), (gap, alone)


# ---------------------------------------------------------------------------------------------- layouts
def test_struct_layouts_match_library():
	"""Every ctypes struct and numpy record of the package has the library's size and field offsets, and a
	declaration that differs is refused, naming the struct and the field."""
	import ctypes
	from gvk import _lib
	table = _lib.check_structs(gvk._L, gvk.library_path)
	assert {c._c_name_ for c in _lib.STRUCTS} <= set(table)
	assert ctypes.sizeof(_lib.PairhmmOpts) == table["gvk_pairhmm_opts_t"][0]
	assert ctypes.sizeof(_lib.AlignOpts) == table["gvk_align_opts_t"][0]

	def refused(fields, *words):
		cls = type("Bad", (ctypes.Structure,), {"_c_name_": "gvk_align_opts_t", "_fields_": fields})
		with pytest.raises(ImportError) as e:
			_lib.check_structs(gvk._L, "lib", [cls])
		for w in ("gvk_align_opts_t",) + words:
			assert w in str(e.value)
	ints = [(n, ctypes.c_int) for n in ("flavour", "raw", "threads", "device", "isa", "gpu", "gpu_chunk_mb")]
	refused(ints + [("log", _lib.Log)], "gpu_min_work", "missing")  # the declaration before the fix
	refused(ints + [("gpu_min_work", ctypes.c_float), ("log", _lib.Log)], "gpu_min_work", "offset")
	refused(ints + [("gpu_min_work", ctypes.c_double), ("log", _lib.Log), ("server", ctypes.c_char_p),
	                ("gpu_lock", ctypes.c_char_p), ("server_min_work", ctypes.c_double), ("spare", ctypes.c_int)],
	        "spare", "not in the library")
	with pytest.raises(ImportError, match="gvk_nothing_t"):
		_lib.check_layout("gvk_nothing_t", "X", (4, {}), table, "lib")


def test_options_land_in_their_fields():
	"""Each Pair-HMM and align option is where the library reads it (offsets from the library's table)."""
	import ctypes
	from gvk import _lib
	table = _lib.library_layout(gvk._L)
	o = gvk._pairhmm_opts({"shared": 1, "merge_wait_us": 7, "merge_contexts": 3, "gpu_gap_share": 0,
	                       "gpu_min_work": 2.5, "gpu": 1})
	f = table["gvk_pairhmm_opts_t"][1]
	for name, want in (("shared", 1), ("merge_wait_us", 7), ("merge_contexts", 3), ("gpu_gap_share", 0), ("gpu", 1)):
		assert ctypes.c_int.from_buffer(o, f[name][0]).value == want, name
	assert ctypes.c_double.from_buffer(o, f["gpu_min_work"][0]).value == 2.5


def test_numbers_checked_against_c_ranges():
	q = np.zeros((1, 1), np.uint64)
	for call in (lambda: gvk.align(["A"], ["A"], match=2 ** 32 + 3, mismatch=-1, gap_open=-4, gap_extend=-3),
	             lambda: gvk.align(["A", "C"], ["A", "C"], match=[1, 2 ** 32 + 3], mismatch=-1, gap_open=-4,
	                               gap_extend=-3),
	             lambda: gvk.fastid(q, q, 2 ** 32 + 64), lambda: gvk.fastid(q, q, 60, topk=2 ** 31),
	             lambda: gvk.ld(np.zeros((3, 4), np.int8), window_snps=2 ** 63),
	             lambda: gvk.ld(np.zeros((3, 4), np.int8), gpu_mem=-1)):
		with pytest.raises(OverflowError) as e:
			call()
		assert isinstance(e.value, ValueError) and "out of range" in str(e.value)
	with pytest.raises(OverflowError, match="match = 4294967299"):
		gvk.align(["A"], ["A"], match=2 ** 32 + 3, mismatch=-1, gap_open=-4, gap_extend=-3)
	with pytest.raises(OverflowError, match=r"match\[1\]"):
		gvk.align(["A", "C"], ["A", "C"], match=np.array([1, 2 ** 32 + 3]), mismatch=-1, gap_open=-4, gap_extend=-3)
	with pytest.raises(OverflowError, match="n_snp"):
		gvk.fastid(q, q, 2 ** 32 + 64)
	with pytest.raises(ValueError, match="integer"):
		gvk.align(["A"], ["A"], match=1.5, mismatch=-1, gap_open=-4, gap_extend=-3)
	with pytest.raises(ValueError, match="prior_impact"):
		gvk.cnv(np.ones((5, 3)), prior_impact=10 ** 400)
	# threads: 0 (all processors) up to gvk.MAX_THREADS, for every engine
	q4 = np.full(4, 30, np.uint8)
	for call in (lambda t: gvk.pairhmm(["ACGT"], [q4], [q4], [q4], [q4], ["ACGT"], device="cpu", threads=t),
	             lambda t: gvk.align(["A"], ["A"], device="cpu", threads=t),
	             lambda t: gvk.ld(np.zeros((3, 4), np.int8), device="cpu", threads=t),
	             lambda t: gvk.fastid(q, q, 60, device="cpu", threads=t),
	             lambda t: gvk.cnv(np.ones((5, 3)), device="cpu", threads=t),
	             lambda t: gvk.cnv_counts_file("x.tsv", threads=t)):
		for bad in (100000, gvk.MAX_THREADS + 1, -1):
			with pytest.raises(ValueError, match="threads = %d: give 0" % bad):
				call(bad)


def test_paths_and_names(data, tmp_path):
	import pathlib
	path = os.path.join(data, "pairhmm", "inputs", "carneiro_tiny.in")
	want = gvk.pairhmm_file(path, device="cpu")
	for p in (path.encode(), pathlib.Path(path)):
		assert np.array_equal(gvk.pairhmm_file(p, device="cpu"), want)
	prefix = os.path.join(data, "snp", "ld_dummy", "dummy203x400_nomiss")
	assert np.array_equal(gvk.ld(prefix.encode(), device="cpu").r, gvk.ld(pathlib.Path(prefix), device="cpu").r,
	                      equal_nan=True)
	counts = os.path.join(data, "cnv", "small", "input_counts.tsv.gz")
	assert gvk.cnv_counts_file(counts.encode()).ptr.N == gvk.cnv_counts_file(pathlib.Path(counts)).ptr.N
	for call in (lambda: gvk.pairhmm_file(path + "\0x"), lambda: gvk.ld(prefix + "\0y"),
	             lambda: gvk.cnv_counts_file(counts.encode() + b"\0")):
		with pytest.raises(ValueError, match="NUL"):
			call()
	with pytest.raises(TypeError, match="path"):
		gvk.pairhmm_file(3.5)
	x = np.ones((5, 3))
	with pytest.raises(ValueError, match=r"samples\[1\] contains a NUL"):
		gvk.cnv(x, samples=["a", "b\0c", "d"])
	with pytest.raises(ValueError, match="NUL"):
		gvk.cnv(x, seq_names=["1\0"] * 5, start=np.arange(5, dtype=np.int64) + 1, end=np.arange(5, dtype=np.int64) + 1)
	with pytest.raises(ValueError, match="NUL"):
		gvk.ld(np.zeros((3, 4), np.int8), table=True, chrom=["1", "1\0", "2"])
	with pytest.raises(ValueError, match="NUL"):
		gvk.align(["A"], ["A"], preset="STANDARD_NGS\0x")


def test_duplicate_sample_names_refused(tmp_path):
	"""In Python before anything is computed, and by the library's gvk_cnv_run before its model runs."""
	import ctypes
	x = np.ones((20, 3))
	with pytest.raises(ValueError, match="'a' is given twice"):
		gvk.cnv(x, samples=["a", "b", "a"])
	f = tmp_path / "dup.tsv"
	f.write_text("chr\tstart\tend\tS1\tS2\tS1\n" + "".join("1\t%d\t%d\t5\t6\t7\n" % (i * 10 + 1, i * 10 + 10)
	                                                         for i in range(20)))
	c = gvk.cnv_counts_file(f)
	with pytest.raises(ValueError, match="'S1' is given twice"):
		gvk.cnv(c, device="cpu")
	p = ctypes.POINTER(gvk._lib.CnvResult)()
	with gvk._Engine("gvk_cnv", gvk._cnv_opts(False, {"device": "cpu"})) as e:
		with pytest.raises(gvk.GvkArgError, match="sample names must be distinct: 'S1' names samples 1 and 3"):
			gvk._call(gvk._L.gvk_cnv_run, e.e, ctypes.byref(c.ptr), ctypes.byref(p))
	assert not p
