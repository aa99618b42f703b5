#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per matrix cell in the inner loops of the Pair-HMM and Smith-Waterman kernels, counted
# from the compiled objects of an x86-64 build (AVX-512) and an aarch64 build (NEON):
#   bench/arm/insn_count.sh [X86_BUILD [ARM_BUILD]]   (default build-h and build-aarch64)
# A kernel's inner loop is the smallest loop (a backward branch and its target) whose body holds the
# loop's signature: a fused multiply-add for the fused Pair-HMM, at least five multiplies and no
# fused multiply-add for the unfused one, at least four integer maxima for Smith-Waterman. Cells per
# iteration are the kernel's lanes. Prints a Markdown table.
set -eu
X86=${1:-build-h}
ARM=${2:-build-aarch64}
obj() { echo "$1/src/CMakeFiles/gvkobj.dir/$2.c.o"; }
for f in "$(obj "$X86" pairhmm/pairhmm_avx512)" "$(obj "$X86" align/align_avx512)" \
         "$(obj "$ARM" pairhmm/pairhmm_neon)" "$(obj "$ARM" align/align_neon)"; do
	[ -f "$f" ] || { echo "insn_count.sh: $f missing (build both trees first)" >&2; exit 1; }
done
DX=$(mktemp -d)
trap 'rm -rf "$DX"' EXIT
objdump -d --no-show-raw-insn "$(obj "$X86" pairhmm/pairhmm_avx512)" > "$DX/phmm_x86.s"
objdump -d --no-show-raw-insn "$(obj "$X86" align/align_avx512)" > "$DX/sw_x86.s"
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$(obj "$ARM" pairhmm/pairhmm_neon)" > "$DX/phmm_arm.s"
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$(obj "$ARM" align/align_neon)" > "$DX/sw_arm.s"
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

def count(path, sym, want):
    fns = functions(path)
    names = [n for n in fns if n == sym or n.startswith(sym + '.')]
    sizes = [inner(fns[n], want) for n in names]
    sizes = [s for s in sizes if s]
    return min(sizes) if sizes else None

fma = lambda b: any(('fmadd' in m or m == 'fmla') for m in b)
mul = lambda b: not fma(b) and sum(m.startswith(('vmulp', 'fmul')) for m in b) >= 5
smax = lambda b: sum(m.startswith(('vpmaxs', 'smax')) for m in b) >= 4

rows = [
    ('Pair-HMM float, fused (GKL AVX-512)', 'phmm', 'kern_f', fma, 16, 4),
    ('Pair-HMM float, unfused (GKL AVX)', 'phmm', 'kern_f', mul, 16, 4),
    ('Pair-HMM double, fused', 'phmm', 'kern_d', fma, 8, 2),
    ('Pair-HMM double, unfused', 'phmm', 'kern_d', mul, 8, 2),
    ('SW, pairs in 32-bit lanes', 'sw', ('fill16', 'fill4'), smax, 16, 4),
    ('SW, pairs in 16-bit lanes', 'sw', ('fill32', 'fill8n'), smax, 32, 8),
    ('SW, one pair by anti-diagonals', 'sw', ('fill_diag', 'fill_diag4'), smax, 16, 4),
]
print('| inner loop | AVX-512 insns / iteration | lanes | per cell | NEON insns / iteration | lanes | per cell | NEON / AVX-512 |')
print('|---|---:|---:|---:|---:|---:|---:|---:|')
for name, kind, sym, want, lx, la in rows:
    sx, sa = (sym, sym) if isinstance(sym, str) else sym
    nx = count(f'{d}/{kind}_x86.s', sx, want)
    na = count(f'{d}/{kind}_arm.s', sa, want)
    if nx is None or na is None:
        print(f'| {name} | {nx} | {lx} | - | {na} | {la} | - | - |')
        continue
    px, pa = nx / lx, na / la
    print(f'| {name} | {nx} | {lx} | {px:.2f} | {na} | {la} | {pa:.2f} | {pa / px:.1f} |')
PY
