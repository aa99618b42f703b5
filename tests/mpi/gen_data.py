#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Random inputs for the MPI tests and the gpu-check mpi stage (sizes from the command line).

  gen_data.py plink PREFIX SAMPLES SNPS SEED    PLINK .bed/.bim/.fam (SNP-major, 3 chromosomes)
  gen_data.py fidb FILE PROFILES SNPS SEED      version 1 .fidb (SNPS a multiple of 64)
  gen_data.py align FILE PAIRS SEED             gvk align table with a header, 2- and 7-field lines
  gen_data.py phmm FILE GROUPS SEED             pairhmm group format
  gen_data.py cnv FILE REGIONS SAMPLES SEED     cnv count matrix (5 sequences, gains and losses)
"""
import random
import struct
import sys


def plink(prefix, n, m, seed):
    rng = random.Random(seed)
    with open(prefix + ".fam", "w") as f:
        for i in range(n):
            f.write(f"F{i} I{i} 0 0 {1 + i % 2} -9\n")
    per = (m + 2) // 3
    with open(prefix + ".bim", "w") as f:
        for j in range(m):
            f.write(f"{1 + j // per}\trs{j}\t0\t{1000 + (j % per) * 997}\tA\tG\n")
    nb = (n + 3) // 4
    tail = n % 4
    # few missing calls: every 2-bit code 01 (missing) of random bytes becomes 00
    table = bytes(sum((0 if (b >> s) & 3 == 1 else ((b >> s) & 3)) << s for s in (0, 2, 4, 6)) for b in range(256))
    with open(prefix + ".bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]))
        step = max(1, (1 << 22) // nb)
        for j in range(0, m, step):
            c = min(step, m - j)
            b = bytearray(rng.randbytes(c * nb).translate(table))
            if tail:
                for k in range(c):
                    b[k * nb + nb - 1] &= (1 << (2 * tail)) - 1
            f.write(b)


def fidb(path, n, s, seed):
    rng = random.Random(seed)
    nw = (s + 63) // 64
    assert s % 64 == 0
    with open(path, "wb") as f:
        f.write(b"FIDB" + struct.pack("<III", n, s, nw))
        step = 65536
        for k in range(0, n, step):
            c = min(step, n - k)
            f.write(rng.randbytes(c * nw * 8))


def align(path, n, seed):
    rng = random.Random(seed)
    strategies = ("SOFTCLIP", "INDEL", "LEADING_INDEL", "IGNORE")
    with open(path, "w") as f:
        f.write("ref\talt\n")
        for i in range(n):
            ref = "".join(rng.choice("ACGT") for _ in range(rng.randint(10, 120)))
            alt = list(ref[rng.randint(0, 5):])
            for _ in range(rng.randint(0, 6)):
                p = rng.randrange(len(alt)) if alt else 0
                op = rng.random()
                if op < 0.4 and alt:
                    alt[p] = rng.choice("ACGT")
                elif op < 0.7:
                    alt.insert(p, rng.choice("ACGT"))
                elif alt:
                    del alt[p]
            alt = "".join(alt) or "A"
            if i % 3 == 0:
                f.write(f"{ref}\t{alt}\t10\t-15\t-30\t-5\t{rng.choice(strategies)}\n")
            else:
                f.write(f"{ref}\t{alt}\n")


def phmm(path, groups, seed):
    rng = random.Random(seed)
    q = "".join(chr(c) for c in range(40, 74))
    with open(path, "w") as f:
        for _ in range(groups):
            r, h = rng.randint(1, 6), rng.randint(1, 3)
            f.write(f"{r} {h}\n")
            for _ in range(r):
                n = rng.randint(5, 60)
                read = "".join(rng.choice("ACGT") for _ in range(n))
                bq = "".join(rng.choice(q) for _ in range(n))
                f.write(f"{read} {bq} {'I' * n} {'I' * n} {'+' * n}\n")
            for _ in range(h):
                f.write("".join(rng.choice("ACGT") for _ in range(rng.randint(10, 90))) + "\n")


def cnv(path, m, n, seed):
    rng = random.Random(seed)
    per = max(1, m // 5)
    # a few samples carry a loss or a gain of 20 to 120 windows somewhere
    events = []
    for s in range(n):
        if s % 3 == 0:
            a = rng.randrange(m)
            events.append((s, a, a + rng.randint(20, 120), rng.choice((0.05, 0.5, 1.5, 2.0))))
    with open(path, "w") as f:
        f.write("chr\tstart\tend\t" + "\t".join(f"S{s:03d}" for s in range(n)) + "\n")
        for r in range(m):
            q, k = r // per if r // per < 5 else 4, r - (r // per if r // per < 5 else 4) * per
            base = 40 + 30 * ((r * 7919) % 13) / 13
            row = []
            for s in range(n):
                mu = base * (0.8 + 0.05 * (s % 9))
                for (es, a, b, fold) in events:
                    if es == s and a <= r < b:
                        mu *= fold
                # Poisson by a normal approximation, enough for a test input
                v = int(max(0.0, rng.gauss(mu, mu ** 0.5)) + 0.5)
                row.append(str(v))
            f.write(f"chr{q + 1}\t{k * 25000 + 1}\t{(k + 1) * 25000}\t" + "\t".join(row) + "\n")


def main(a):
    if len(a) < 2:
        sys.exit(__doc__)
    kind, rest = a[0], a[1:]
    if kind == "plink":
        plink(rest[0], int(rest[1]), int(rest[2]), int(rest[3]))
    elif kind == "fidb":
        fidb(rest[0], int(rest[1]), int(rest[2]), int(rest[3]))
    elif kind == "align":
        align(rest[0], int(rest[1]), int(rest[2]))
    elif kind == "phmm":
        phmm(rest[0], int(rest[1]), int(rest[2]))
    elif kind == "cnv":
        cnv(rest[0], int(rest[1]), int(rest[2]), int(rest[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
