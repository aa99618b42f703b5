#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A PLINK fileset PREFIX.{bed,bim,fam} with LD structure, for bench/snp/ld_tables_vs_plink.sh:
SAMPLES diploid samples x SNPS bi-allelic SNPs on CHROMS autosomes. Each haplotype is a mosaic of
FOUNDERS founder haplotypes (a copying model): at every SNP it switches to a random founder with a
probability that grows with the distance from the last SNP, and each copied allele mutates with
probability 0.5 %. Founder allele frequencies are spread over (0.02, 0.98), each SNP polymorphic among the founders, SNPs lie 1-4 kb apart
(so PLINK's default 1000 kb window holds several hundred), and 1 % of calls are missing.
Fixed seed, needs numpy.
Usage: make_ld_bfile.py PREFIX SAMPLES SNPS [CHROMS (2)] [SEED (1)]"""
import sys

import numpy as np

prefix, ns, nsnp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
nchr = int(sys.argv[4]) if len(sys.argv) > 4 else 2
rng = np.random.default_rng(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
founders, chunk = 8, 2048
nh = 2 * ns

with open(prefix + ".fam", "w") as f:
    for i in range(ns):
        f.write(f"F{i} I{i} 0 0 {1 + i % 2} -9\n")

chrom = np.repeat(np.arange(1, nchr + 1), -(-nsnp // nchr))[:nsnp]
gap = rng.integers(1000, 4000, size=nsnp)
first = np.r_[True, chrom[1:] != chrom[:-1]]
bp = np.zeros(nsnp, dtype=np.int64)
for c in range(1, nchr + 1):
    sel = chrom == c
    bp[sel] = np.cumsum(gap[sel])
with open(prefix + ".bim", "w") as f:
    for j in range(nsnp):
        f.write(f"{chrom[j]}\tsnp{j}\t{bp[j] / 1e6:.6f}\t{bp[j]}\tA\tG\n")

# PLINK .bed codes: 00 two A1 (A), 10 heterozygous, 11 two A2 (G), 01 missing.
code = np.array([3, 2, 0, 1], dtype=np.uint8)  # by the number of A1 copies; 3 = missing
pad = (-ns) % 4
state = rng.integers(0, founders, size=nh)
with open(prefix + ".bed", "wb") as f:
    f.write(bytes([0x6C, 0x1B, 1]))
    for j0 in range(0, nsnp, chunk):
        j1 = min(nsnp, j0 + chunk)
        m = j1 - j0
        freq = rng.uniform(0.02, 0.98, size=m)
        fh = (rng.random((founders, m)) < freq).astype(np.uint8)
        # every SNP polymorphic among the founders: one founder carries the minority allele at least
        mono = fh.min(axis=0) == fh.max(axis=0)
        fh[rng.integers(0, founders, size=m)[mono], np.nonzero(mono)[0]] ^= 1
        # recombination: a switch with probability 1 - exp(-gap / 200 kb), a fresh draw at a chromosome's start
        p = 1.0 - np.exp(-gap[j0:j1] / 200000.0)
        p[first[j0:j1]] = 1.0
        g = np.empty((m, ns), dtype=np.uint8)
        for k in range(m):
            sw = rng.random(nh) < p[k]
            state[sw] = rng.integers(0, founders, size=int(sw.sum()))
            h = fh[state, k] ^ (rng.random(nh) < 0.005)
            g[k] = h[0::2] + h[1::2]
        g[rng.random((m, ns)) < 0.01] = 3
        c = code[g]
        if pad:
            c = np.concatenate([c, np.zeros((m, pad), dtype=np.uint8)], axis=1)
        c = c.reshape(m, -1, 4)
        f.write((c[:, :, 0] | c[:, :, 1] << 2 | c[:, :, 2] << 4 | c[:, :, 3] << 6).astype(np.uint8).tobytes())
