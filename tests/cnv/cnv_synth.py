#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a synthetic read-count matrix for gvk cnv: a human-sized genome (GRCh38 autosomes and
chrX, optionally scaled down) in fixed windows, samples with their own library sizes, and planted
copy-number events of 1 Mb and 100 kb, among them one region where one sample loses and another
gains copies. Counts are Poisson around depth x CN/2 x a per-window factor shared by the samples.

Usage: cnv_synth.py [--scale F] [--window BP] [--samples N] [--seed S] [--truth FILE] > counts.tsv
"""
import argparse
import math
import random
import sys

# GRCh38 lengths in bp
CONTIGS = [("chr1", 248956422), ("chr2", 242193529), ("chr3", 198295559), ("chr4", 190214555),
           ("chr5", 181538259), ("chr6", 170805979), ("chr7", 159345973), ("chr8", 145138636),
           ("chr9", 138394717), ("chr10", 133797422), ("chr11", 135086622), ("chr12", 133275309),
           ("chr13", 114364328), ("chr14", 107043718), ("chr15", 101991189), ("chr16", 90338345),
           ("chr17", 83257441), ("chr18", 80373285), ("chr19", 58617616), ("chr20", 64444167),
           ("chr21", 46709983), ("chr22", 50818468), ("chrX", 156040895)]

# (sample index, contig, position as a fraction of the contig, length, copy number); event lengths
# stay as they are when the genome is scaled, so that small genomes keep 1 Mb and 100 kb events.
EVENTS = [(0, "chr2", 0.30, 1000000, 1), (1, "chr5", 0.55, 100000, 0), (2, "chr8", 0.40, 1000000, 3),
          (3, "chr12", 0.70, 100000, 4), (4, "chr17", 0.35, 1000000, 0), (5, "chr17", 0.35, 1000000, 3),
          (6, "chrX", 0.20, 1000000, 1), (7, "chr20", 0.50, 100000, 3), (1, "chr1", 0.60, 2000000, 3)]


def poisson(rng, lam):
    """Poisson draw: Knuth's product method for small means, a rounded normal for large ones."""
    if lam < 30:
        limit, k, p = math.exp(-lam), 0, rng.random()
        while p > limit:
            k += 1
            p *= rng.random()
        return k
    return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="contig lengths times this (default 1)")
    ap.add_argument("--window", type=int, default=25000, help="window length in bp (default 25000)")
    ap.add_argument("--samples", type=int, default=8, help="number of samples, at least 8 (default 8)")
    ap.add_argument("--depth", type=float, default=120, help="mean count of a window at CN2 (default 120)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truth", help="write the planted events here (sample chr start end CN, 1-based)")
    a = ap.parse_args()
    if a.samples < 8:
        sys.exit("cnv_synth.py: --samples must be at least 8 (the events use samples 1-8)")
    rng = random.Random(a.seed)
    names = ["SYN%02d" % (s + 1) for s in range(a.samples)]
    library = [rng.uniform(0.7, 1.3) for _ in names]
    events = []
    for s, chrom, frac, length, cn in EVENTS:
        size = int(dict(CONTIGS)[chrom] * a.scale)
        start = int(frac * size) // a.window * a.window + 1
        events.append((s, chrom, start, min(size, start + length - 1), cn))
    out = sys.stdout
    out.write("chr\tstart\tend\t" + "\t".join(names) + "\n")
    for chrom, full in CONTIGS:
        size = int(full * a.scale)
        mine = [e for e in events if e[1] == chrom]
        for start in range(1, size + 1, a.window):
            end = min(size, start + a.window - 1)
            site = math.exp(rng.gauss(0, 0.15))  # mappability/GC: the same in every sample
            row = []
            for s in range(a.samples):
                cn = 2
                for e in mine:
                    if e[0] == s and start <= e[3] and end >= e[2]:
                        cn = e[4]
                lam = a.depth * library[s] * site * (end - start + 1) / a.window * max(cn, 0.05) / 2
                row.append(str(poisson(rng, lam)))
            out.write("%s\t%d\t%d\t%s\n" % (chrom, start, end, "\t".join(row)))
    if a.truth:
        with open(a.truth, "w") as f:
            f.write("sample\tchr\tstart\tend\tCN\n")
            for s, chrom, start, end, cn in events:
                f.write("%s\t%s\t%d\t%d\t%d\n" % (names[s], chrom, start, end, cn))


if __name__ == "__main__":
    main()
