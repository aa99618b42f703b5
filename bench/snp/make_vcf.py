#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A VCF of SAMPLES samples x SNPS bi-allelic SNPs on standard output, for bench/snp/fidb_threads.sh:
diploid GT with Hardy-Weinberg frequencies (ALT 5-50 %), 1 % missing. Needs numpy.
Usage: make_vcf.py SAMPLES SNPS SEED | bgzip > people.vcf.gz"""
import sys

import numpy as np

ns, nsnp, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
out = sys.stdout.buffer
out.write(b"##fileformat=VCFv4.2\n##contig=<ID=1,length=250000000>\n")
out.write(b'##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n')
out.write(("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + "\t".join("s%d" % i for i in range(ns)) + "\n").encode())
gts = np.array([b"0/0\t", b"0/1\t", b"1/1\t", b"./.\t"], dtype="S4")
for j in range(nsnp):
    p = rng.uniform(0.05, 0.5)
    w = np.array([(1 - p) ** 2, 2 * p * (1 - p), p * p]) * 0.99
    row = gts[rng.choice(4, size=ns, p=np.append(w, 0.01))].tobytes()
    out.write(b"1\t%d\tsnp%d\tA\tG\t.\tPASS\t.\tGT\t" % (1000 * (j + 1), j) + row[:-1] + b"\n")
