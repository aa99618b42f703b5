#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SAM of a whole-genome-like sample on standard output, coordinate-sorted, for bench/cnv/bam_threads.sh:
150 bp read pairs on five sequences of 80 Mb in all, random bases and qualities (so that the BAM
compresses like a real one), MAPQ 0/37/60, one read group.
Usage: make_bams.py READS SEED | samtools view -b -o S.bam -"""
import random
import sys

reads, seed = int(sys.argv[1]), int(sys.argv[2])
random.seed(seed)
seqs = [("chr%d" % (i + 1), n) for i, n in enumerate([24_000_000, 20_000_000, 16_000_000, 12_000_000, 8_000_000])]
total = sum(n for _, n in seqs)
out = sys.stdout.write
out("@HD\tVN:1.6\tSO:coordinate\n")
for name, n in seqs:
    out("@SQ\tSN:%s\tLN:%d\n" % (name, n))
out("@RG\tID:rg\tSM:S%d\n" % seed)
bases = [''.join(random.choices("ACGT", k=150)) for _ in range(4096)]
quals = [''.join(chr(33 + random.randint(20, 40)) for _ in range(150)) for _ in range(4096)]
k = 0
for name, n in seqs:
    rows = []
    for p in sorted(random.randint(1, n - 150) for _ in range(reads * n // total)):
        k += 1
        rows.append("r%d\t%d\t%s\t%d\t%d\t150M\t=\t%d\t300\t%s\t%s\tRG:Z:rg\n" % (
            k, 99 if k & 1 else 147, name, p, random.choice((0, 60, 60, 60, 37)), p + 150,
            random.choice(bases), random.choice(quals)))
    out("".join(rows))
