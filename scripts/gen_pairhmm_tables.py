#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the data of src/pairhmm/pairhmm_tables.c, one .inc file per table (pairhmm_err_f32.inc,
_err_f64, _mm_f32, _mm_f64 in OUT_DIR), from dumps of Intel GKL's Phred tables (gkl_ph2pr.txt and
gkl_match_to_match.txt.gz in TABLE_DIR; the dumps are not shipped with gvk).

The values are GKL's in-memory tables (glibc 2.36 libm), shipped as bit patterns so that no
maths library of the day can change them. Usage: gen_pairhmm_tables.py TABLE_DIR OUT_DIR
"""
import gzip, sys

def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            yield line.split()

def main():
    tdir, out = sys.argv[1], sys.argv[2]
    ph = {int(r[0]): (r[1], r[3]) for r in rows(tdir + '/gkl_ph2pr.txt')}
    mm = {(int(r[0]), int(r[1])): (r[2], r[4]) for r in rows(tdir + '/gkl_match_to_match.txt.gz')}
    assert sorted(ph) == list(range(128))
    tri = []
    for hi in range(128):
        for lo in range(hi + 1):
            a, b = mm[(hi, lo)], mm[(lo, hi)]
            assert a == b, (hi, lo)
            tri.append(a)
    def emit(name, vals, per):
        with open('%s/pairhmm_%s.inc' % (out, name), 'w') as w:
            for i in range(0, len(vals), per):
                w.write('\t' + ' '.join('{0x%s},' % v for v in vals[i:i + per]) + '\n')
    emit('err_f32', [ph[q][0] for q in range(128)], 8)
    emit('err_f64', [ph[q][1] for q in range(128)], 4)
    emit('mm_f32', [t[0] for t in tri], 8)
    emit('mm_f64', [t[1] for t in tri], 4)

main()
