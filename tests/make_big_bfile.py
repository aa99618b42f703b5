# SPDX-License-Identifier: MIT
# A PLINK fileset PREFIX.{bed,bim,fam} large enough that gvk ld's square matrix takes a moment to
# write (96 samples x 6000 SNPs, fixed seed): the signal and killed-run tests stop gvk mid-write.
# Usage: python3 make_big_bfile.py PREFIX
import random
import sys

p = sys.argv[1]
random.seed(7)
n, m = 96, 6000
with open(p + ".fam", "w") as f:
    for i in range(n):
        f.write(f"F{i} I{i} 0 0 1 -9\n")
with open(p + ".bim", "w") as f:
    for j in range(m):
        f.write(f"1\trs{j}\t0\t{j + 1}\tA\tG\n")
with open(p + ".bed", "wb") as f:
    f.write(bytes([0x6c, 0x1b, 1]))
    for j in range(m):
        f.write(bytes(random.choice((0, 2, 3)) | random.choice((0, 2, 3)) << 2 | random.choice((0, 2, 3)) << 4
                      | random.choice((0, 2, 3)) << 6 for _ in range(n // 4)))
