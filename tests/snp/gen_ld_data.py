#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PLINK 1 fileset with real LD structure, for the pruning tests and benchmarks.

A copying model (Li-Stephens style): each haplotype is a mosaic of a few founder haplotypes,
switching founder with a small probability between neighbouring SNPs, plus rare mutations, so
nearby SNPs are correlated in blocks. Missing calls at random, some monomorphic SNPs, ties in
allele frequency (duplicated SNPs), several chromosomes, and X with haploid males.

usage: gen_ld_data.py PREFIX [--samples N] [--snps M] [--chroms 1,2,X] [--seed S] [--missing P]
                       [--assoc FILE]

--assoc writes a PLINK .assoc-like p-value table for --clump: blocks of strongly associated SNPs,
the rest uniform, with NA p-values, a duplicated id, ids absent from the fileset and exact ties.
"""
import argparse
import random


def chrom_haps(rng, n_hap, m, n_founders, switch, mut):
    freq = [rng.uniform(0.05, 0.95) for _ in range(m)]
    founders = [[1 if rng.random() < freq[j] else 0 for j in range(m)] for _ in range(n_founders)]
    haps = []
    for _ in range(n_hap):
        f = rng.randrange(n_founders)
        h = []
        for j in range(m):
            if j and rng.random() < switch:
                f = rng.randrange(n_founders)
            h.append(founders[f][j] ^ (1 if rng.random() < mut else 0))
        haps.append(h)
    return haps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("prefix")
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--snps", type=int, default=600, help="SNPs per chromosome")
    p.add_argument("--chroms", default="1,2,X")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--missing", type=float, default=0.01)
    p.add_argument("--assoc", help="also write a p-value table for --clump here")
    a = p.parse_args()
    rng = random.Random(a.seed)
    n = a.samples
    sex = [rng.randint(1, 2) for _ in range(n)]  # 1 male, 2 female
    # a few samples with many missing calls (--mind)
    bad = [0.3 if rng.random() < 0.05 else 0.0 for _ in range(n)]
    bim, rows = [], []
    for c in a.chroms.split(","):
        m = a.snps
        h = chrom_haps(rng, 2 * n, m, 8, 0.02, 0.002)
        haploid = c in ("X", "23")
        pos = 0
        prev = None
        for j in range(m):
            g = []
            for s in range(n):
                if haploid and sex[s] == 1:
                    # haploid males: homozygous calls, a few heterozygous ones (PLINK sets them missing)
                    g.append(1 if rng.random() < 0.02 else 2 * h[2 * s][j])
                else:
                    g.append(h[2 * s][j] + h[2 * s + 1][j])
            if prev is not None and rng.random() < 0.05:
                g = list(prev)  # duplicates: exact ties in MAF, r^2 = 1
            if rng.random() < 0.01:
                g = [0] * n  # monomorphic
            elif rng.random() < 0.03:
                g = [1 if rng.random() < 0.4 else x for x in g]  # excess heterozygotes (--hwe)
            prev = g
            rate = a.missing * rng.uniform(0, 3)
            row = [1 if rng.random() < rate + bad[s] else (0, 2, 3)[x] for s, x in enumerate(g)]
            pos += rng.randint(50, 4000)
            bim.append(f"{c}\t{c}_{j + 1}\t0\t{pos}\tA\tG\n")
            rows.append(row)
    with open(a.prefix + ".bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]))
        for row in rows:
            row = row + [0] * ((-n) % 4)
            f.write(bytes(row[k] | row[k + 1] << 2 | row[k + 2] << 4 | row[k + 3] << 6 for k in range(0, len(row), 4)))
    with open(a.prefix + ".bim", "w") as f:
        f.writelines(bim)
    with open(a.prefix + ".fam", "w") as f:
        for i in range(n):
            f.write(f"F{i + 1}\tI{i + 1}\t0\t0\t{sex[i]}\t-9\n")
    if a.assoc:
        write_assoc(a.assoc, bim, random.Random(a.seed * 7919 + 1))


def write_assoc(path, bim, rng):
    """Blocks of small p-values around a few hit SNPs, the rest uniform; NA, ties, a repeated id
    and ids the fileset lacks, as real association output has them."""
    m = len(bim)
    p = [rng.random() for _ in range(m)]
    for _ in range(max(1, m // 150)):
        c = rng.randrange(m)
        top = 10 ** -rng.uniform(4, 12)
        for j in range(max(0, c - 15), min(m, c + 16)):
            p[j] = min(p[j], top * 10 ** (abs(j - c) * rng.uniform(0.1, 0.6)))
    for j in rng.sample(range(m), max(1, m // 100)):
        p[j] = None
    for j in rng.sample(range(m), max(1, m // 200)):
        k = min(m - 1, j + 1)
        p[k] = p[j]  # exact ties in p
    lines = [" CHR         SNP         BP   A1      F_A      F_U   A2        CHISQ            P           OR\n"]
    for j, row in enumerate(bim):
        c, snp, _, bp = row.split("\t")[:4]
        pv = "NA" if p[j] is None else f"{p[j]:.4g}"
        lines.append(f"{c:>4} {snp:>11} {bp:>10}    A   0.3000   0.2000    G        1.234 {pv:>12}        1.500\n")
    lines.append(f"{1:>4} {'absent_1':>11} {1:>10}    A   0.3000   0.2000    G        1.234 {'1e-9':>12}        1.500\n")
    lines.append(f"{1:>4} {'absent_2':>11} {2:>10}    A   0.3000   0.2000    G        1.234 {'0.5':>12}        1.500\n")
    dup = lines[1 + rng.randrange(m)]
    lines.append(dup)
    with open(path, "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
