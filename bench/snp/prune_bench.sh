#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --indep-pairwise (or --indep-pairphase, --indep) against plink1.9 (and plink2 when
# installed) on a generated fileset with LD blocks: times and peak RSS (/usr/bin/time -v), and the
# lists compared byte for byte.
# usage: prune_bench.sh GVK [SAMPLES SNPS CHROMS THREADS "W S R2" OPTION]
#   (default 5000 500000 10 2 "50 5 0.2" --indep-pairwise; e.g. "50 5 2" --indep for VIF)
# REPEAT=N in the environment runs each tool N times and reports its fastest run
# (on a shared machine the fastest is the least disturbed); BENCH_DIR keeps the data between calls.
set -u
gvk=$(readlink -f "$1")
n=${2:-5000} m=${3:-500000} nc=${4:-10} t=${5:-2} win=${6:-50 5 0.2} opt=${7:---indep-pairwise}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$(mktemp -d)}
cd "$dir" || exit 1
cc -O2 -o gen_ld_bed "$here/gen_ld_bed.c" || exit 1
[ -e "b_${n}_${m}.bed" ] || ./gen_ld_bed "b_${n}_${m}" "$n" "$m" "$nc" 1 || exit 1
data=b_${n}_${m}
repeat=${REPEAT:-1}
# once NAME COMMAND...: "seconds MB cpu" (wall time, peak RSS, user + system seconds) of one run
once() {
	local name=$1; shift
	/usr/bin/time -v "$@" > "$name.stdout" 2> "$name.time" || { echo "$name failed: $(tail -3 "$name.time")" >&2; return 1; }
	awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]}
		/Maximum resident/ {mb = int($2 / 1024)} /User time|System time/ {cpu += $2}
		END {print s, mb, cpu}' "$name.time"
}
# run NAME COMMAND...: the fastest of REPEAT runs: its wall seconds, peak RSS and CPU seconds (on a
# busy machine the CPU time is the steadier figure)
run() {
	local name=$1 best="" r k; shift
	for ((k = 0; k < repeat; ++k)); do
		r=$(once "$name" "$@") || return 1
		if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN {exit !(a < b)}'; then best=$r; fi
	done
	set -- $best
	printf '%-8s %8.2f s  %8d MB peak RSS  %6.2f s CPU\n' "$name" "$1" "$2" "$3"
}
echo "data: $n samples x $m SNPs on $nc chromosomes; $opt $win; $t threads; $(nproc) CPUs"
run plink1.9 plink1.9 --bfile "$data" $opt $win --threads "$t" --out p19
run gvk "$gvk" ld -q --bfile "$data" $opt $win -t "$t" --out g
if cmp -s p19.prune.in g.prune.in && cmp -s p19.prune.out g.prune.out; then
	echo "lists: identical ($(wc -l < g.prune.in) kept, $(wc -l < g.prune.out) removed)"
else
	echo "lists: DIFFER"; exit 1
fi
if command -v plink2 > /dev/null && [ "$opt" = --indep-pairwise ]; then # plink2 has only this one
	run plink2 plink2 --bfile "$data" $opt $win --threads "$t" --out p2
	if cmp -s p19.prune.in p2.prune.in && cmp -s p19.prune.out p2.prune.out; then
		echo "plink2 lists: the same as plink1.9's"
	else
		echo "plink2 lists: differ from plink1.9's ($(wc -l < p2.prune.in) kept)"
	fi
fi
