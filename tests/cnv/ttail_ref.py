#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reference values of the segmentation's Student-t tail, log P(T_df > t), for test_cnv_unit ttail:
the exact log(2 P) = log I_{df/(df+t^2)}(df/2, 1/2) from mpmath at 60 digits, rounded to double,
then minus log 2 in double as gvk (and R) take it. A case whose exact value lies within 1e-25
relative of the midpoint between two doubles is marked 'close' (either neighbour is accepted).
Usage: ttail_ref.py > tests/data/cnv/unit/ttail_mpmath.tsv"""
import math
import random

import mpmath

mpmath.mp.dps = 60
LN2 = 0.6931471805599453


def log_two_tail(t, df):
    t, df = mpmath.mpf(t), mpmath.mpf(df)
    if t == 0:
        return mpmath.mpf(0)
    x = df / (df + t * t)
    return mpmath.log(mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, x, regularized=True))


def main():
    ts = [0.0, 1e-8, 0.01, 0.1, 0.5, 1.0, 1.7, 3.0, 6.0, 12.0, 40.0, 1e3, 1e6, 1e60]
    dfs = [0.05, 0.3, 1.0, 2.5, 7.3, 19.9, 20.0, 42.7, 59.5, 60.0, 61.2, 150.3, 1000.1, 1e5]
    cases = [(t, d) for t in ts for d in dfs]
    rng = random.Random(44)
    for _ in range(300):  # scores near log 2 (the near ties of the data) and beyond
        d = math.exp(rng.uniform(math.log(0.5), math.log(500)))
        t = rng.choice([rng.uniform(0, 0.05), rng.uniform(0, 3), math.exp(rng.uniform(-3, 4))])
        cases.append((t, d))
    print("# t\tdf\tlog P(T_df > t) (%.17g)\tclose: exact value within 1e-25 of a rounding midpoint")
    for t, d in cases:
        v = log_two_tail(t, d)
        r = float(v)  # mpmath rounds to nearest
        lo, hi = sorted((r, math.nextafter(r, math.inf if v > r else -math.inf)))
        mid = (mpmath.mpf(lo) + mpmath.mpf(hi)) / 2
        close = v != 0 and abs(v - mid) <= 1e-25 * abs(v)
        print("%r\t%r\t%.17g\t%d" % (t, d, r - LN2, close))


main()
