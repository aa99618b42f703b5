#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --clump against plink1.9 (and plink2 when installed) on a generated fileset with LD blocks
# and an association-like p-value table: about 1% of the SNPs, in blocks around every 1,000th SNP,
# with p from 1e-3 down to 1e-12, the rest uniform. Prints wall time and peak RSS (/usr/bin/time -v)
# and compares the .clumped files byte for byte.
# usage: clump_bench.sh GVK [SAMPLES SNPS CHROMS THREADS]   (default 5000 500000 10 2)
set -u
gvk=$(readlink -f "$1")
n=${2:-5000} m=${3:-500000} nc=${4:-10} t=${5:-2}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$(mktemp -d)}
cd "$dir" || exit 1
cc -O2 -o gen_ld_bed "$here/gen_ld_bed.c" || exit 1
[ -e "b_${n}_${m}.bed" ] || ./gen_ld_bed "b_${n}_${m}" "$n" "$m" "$nc" 1 || exit 1
data=b_${n}_${m}
awk 'BEGIN { srand(7); print "CHR SNP BP P" }
	{ k = NR % 1000; p = (k < 10 || k > 990) ? 10 ^ -(3 + 9 * rand()) : rand(); printf "%s %s %s %.4g\n", $1, $2, $4, p }' \
	"$data.bim" > assoc.txt
run() {
	local name=$1; shift
	/usr/bin/time -v "$@" > "$name.stdout" 2> "$name.time" || { echo "$name failed: $(tail -3 "$name.time")"; return 1; }
	printf '%-8s %8.2f s  %8d MB peak RSS\n' "$name" \
		"$(awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]; print s}' "$name.time")" \
		"$(awk -F': ' '/Maximum resident/ {print int($2 / 1024)}' "$name.time")"
}
echo "data: $n samples x $m SNPs on $nc chromosomes; --clump with PLINK's defaults; $t threads; $(nproc) CPUs"
run plink1.9 plink1.9 --bfile "$data" --clump assoc.txt --threads "$t" --out p19
run gvk "$gvk" ld -q --bfile "$data" --clump assoc.txt -t "$t" --out g
if cmp -s p19.clumped g.clumped; then
	echo "clumps: identical ($(awk 'NF > 3 && $1 != "CHR"' g.clumped | wc -l) clumps)"
else
	echo "clumps: DIFFER"; exit 1
fi
if command -v plink2 > /dev/null; then
	run plink2 plink2 --bfile "$data" --clump assoc.txt --threads "$t" --out p2
fi
