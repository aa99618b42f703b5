#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per unit of work in the inner loops of the Pair-HMM, Smith-Waterman and popcount
# kernels, counted from the compiled objects of an x86-64 build (AVX-512) and an aarch64 build
# (NEON, SVE at 256 and 512 bits):
#   bench/arm/insn_count.sh [X86_BUILD [ARM_BUILD]]   (default build-h and build-aarch64)
# A kernel's inner loop is the smallest loop (a backward branch and its target) whose body holds the
# loop's signature: a fused multiply-add for the fused Pair-HMM, at least five multiplies and no
# fused multiply-add for the unfused one, at least four integer maxima for Smith-Waterman, nine
# popcounts for LD's nine plane intersections, a popcount and an exclusive or for FastID. The unit
# is a matrix cell (Pair-HMM, SW: the kernel's lanes per iteration) or a 64-bit word of one pair
# (popcounts: the words of a vector, times the columns or profiles one iteration serves: AVX-512's
# FastID loop 8 profiles, SVE's 4). The SVE popcount loops are vector-length agnostic: the same
# instructions cover 4 words at 256 bits, 8 at 512.
# Prints a Markdown table: instructions per iteration / units per iteration = per unit.
set -eu
X86=${1:-build-h}
ARM=${2:-build-aarch64}
obj() { echo "$1/src/CMakeFiles/gvkobj.dir/$2.c.o"; }
DX=$(mktemp -d)
trap 'rm -rf "$DX"' EXIT
for k in x86:pairhmm/pairhmm_avx512 x86:align/align_avx512 x86:snp/popgemm_avx512 arm:pairhmm/pairhmm_neon \
         arm:align/align_neon arm:snp/popgemm_neon arm:pairhmm/pairhmm_sve256 arm:pairhmm/pairhmm_sve512 arm:snp/popgemm_sve; do
	b=$X86 dump=objdump
	[ "${k%%:*}" = arm ] && b=$ARM dump=aarch64-linux-gnu-objdump
	f=$(obj "$b" "${k#*:}")
	[ -f "$f" ] || { echo "insn_count.sh: $f missing (build both trees first)" >&2; exit 1; }
	$dump -d --no-show-raw-insn "$f" > "$DX/$(basename "${k#*:}").s"
done
python3 - "$DX" <<'PY'
import re, sys
d = sys.argv[1]

def functions(path):
    """{symbol: [(address, mnemonic, operands)]} from objdump -d output."""
    fns, cur = {}, None
    for line in open(path):
        m = re.match(r'^[0-9a-f]+ <([^>]+)>:', line)
        if m:
            cur = fns.setdefault(m.group(1), [])
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$', line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return fns

def loops(ins):
    """(start, end) index ranges of loops closed by a backward branch to an address in the function."""
    at = {a: k for k, (a, _, _) in enumerate(ins)}
    out = []
    for k, (a, mn, ops) in enumerate(ins):
        if not (mn.startswith('j') or mn.startswith('b') or mn in ('cbz', 'cbnz', 'tbz', 'tbnz')):
            continue
        m = re.match(r'^([0-9a-f]+)\b', ops.split(',')[-1].strip())
        if m and int(m.group(1), 16) in at and int(m.group(1), 16) <= a:
            out.append((at[int(m.group(1), 16)], k))
    return out

def inner(ins, want):
    best = None
    for s, e in loops(ins):
        body = [mn for _, mn, _ in ins[s:e + 1]]
        if want(body) and (best is None or e - s < best[1] - best[0]):
            best = (s, e)
    return None if best is None else best[1] - best[0] + 1

def count(obj, syms, want):
    fns = functions(f'{d}/{obj}.s')
    names = [n for n in fns if any(n == s or n.startswith(s + '.') for s in syms)]
    sizes = [inner(fns[n], want) for n in names]
    sizes = [s for s in sizes if s]
    return min(sizes) if sizes else None

fused = lambda b: any(m.startswith('vfmadd') or m in ('fmla', 'fmad') for m in b)
mul = lambda b: not fused(b) and sum(m.startswith(('vmulp', 'fmul')) for m in b) >= 5
smax = lambda b: sum(m.startswith(('vpmaxs', 'smax')) for m in b) >= 4
pcnt = lambda m: m in ('vpopcntq', 'cnt')
nine = lambda b: sum(pcnt(m) for m in b) >= 9
xor = lambda b: any(pcnt(m) for m in b) and any(m in ('vpxorq', 'vpxord', 'eor') for m in b)

# name, signature, (symbols, units / iteration) for AVX-512, NEON, SVE 256, SVE 512 (None: no such kernel)
rows = [
    ('Pair-HMM float, fused (GKL AVX-512)', fused, (['kern_f'], 16), (['kern_f'], 4), (['kern_f'], 8), (['kern_f'], 16)),
    ('Pair-HMM float, unfused (GKL AVX)', mul, (['kern_f'], 16), (['kern_f'], 4), (['kern_f'], 8), (['kern_f'], 16)),
    ('Pair-HMM double, fused', fused, (['kern_d'], 8), (['kern_d'], 2), (['kern_d'], 4), (['kern_d'], 8)),
    ('Pair-HMM double, unfused', mul, (['kern_d'], 8), (['kern_d'], 2), (['kern_d'], 4), (['kern_d'], 8)),
    ('SW, pairs in 32-bit lanes', smax, (['fill16'], 16), (['fill4'], 4), None, None),
    ('SW, pairs in 16-bit lanes', smax, (['fill32'], 32), (['fill8n'], 8), None, None),
    ('SW, one pair by anti-diagonals', smax, (['fill_diag'], 16), (['fill_diag4'], 4), None, None),
    ('LD, nine plane intersections (per word of a pair)', nine, (['tab_row'], 8), (['nine', 'tab_row'], 2),
     (['nine', 'tab_row'], 4), (['nine', 'tab_row'], 8)),
    ('FastID, XOR popcount (per word of a pair)', xor, (['fid_row'], 64), (['fid_row'], 2), (['fid_row'], 16),
     (['fid_row'], 32)),
]
objs = {'Pair': ('pairhmm_avx512', 'pairhmm_neon', 'pairhmm_sve256', 'pairhmm_sve512'),
        'SW, ': ('align_avx512', 'align_neon', None, None),
        'LD, ': ('popgemm_avx512', 'popgemm_neon', 'popgemm_sve', 'popgemm_sve'),
        'Fast': ('popgemm_avx512', 'popgemm_neon', 'popgemm_sve', 'popgemm_sve')}
print('| inner loop | AVX-512 | NEON | SVE 256-bit | SVE 512-bit | NEON / AVX-512 | SVE 512 / AVX-512 |')
print('|---|---:|---:|---:|---:|---:|---:|')
for name, want, *cols in rows:
    cells, per = [], []
    for obj, col in zip(objs[name[:4]], cols):
        n = count(obj, col[0], want) if col else None
        per.append(n / col[1] if n else None)
        cells.append(f'{n} / {col[1]} = {n / col[1]:.2f}' if n else '-')
    ratio = lambda a, b: f'{a / b:.1f}' if a and b else '-'
    print(f'| {name} | ' + ' | '.join(cells) + f' | {ratio(per[1], per[0])} | {ratio(per[3], per[0])} |')
PY
