#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --indep-pairwise (or --indep-pairphase, --indep) against plink1.9 (and plink2 when
# installed) on a generated fileset with LD blocks: times and peak RSS (/usr/bin/time -v), and the
# lists compared byte for byte.
# usage: prune_bench.sh GVK [SAMPLES SNPS CHROMS THREADS "W S R2" OPTION]
#   (default 5000 500000 10 2 "50 5 0.2" --indep-pairwise; e.g. "50 5 2" --indep for VIF)
# REPEAT=N in the environment runs each tool N times and reports its fastest run
# (on a shared machine the fastest is the least disturbed); BENCH_DIR keeps the data between calls.
# GVK_DEVICE=gpu (or another --device value) also runs gvk ld --device GVK_DEVICE in the same run,
# beside the default one, and compares its lists too (e.g. on the GPU machine:
# GVK_DEVICE=gpu prune_bench.sh build/gvk 10000 1000000 22 16).
set -u
gvk=$(readlink -f "$1")
n=${2:-5000} m=${3:-500000} nc=${4:-10} t=${5:-2} win=${6:-50 5 0.2} opt=${7:---indep-pairwise}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$(mktemp -d)}
cd "$dir" || exit 1
cc -O2 -pthread -o gen_ld_bed "$here/gen_ld_bed.c" || exit 1
[ -e "b_${n}_${m}.bed" ] || ./gen_ld_bed "b_${n}_${m}" "$n" "$m" "$nc" 1 || exit 1
data=b_${n}_${m}
. "$here/bench_run.sh"
echo "data: $n samples x $m SNPs on $nc chromosomes; $opt $win; $t threads; $(nproc) CPUs"
run plink1.9 plink1.9 --bfile "$data" $opt $win --threads "$t" --out p19
run gvk "$gvk" ld -q --bfile "$data" $opt $win -t "$t" --out g
if cmp -s p19.prune.in g.prune.in && cmp -s p19.prune.out g.prune.out; then
	echo "lists: identical ($(wc -l < g.prune.in) kept, $(wc -l < g.prune.out) removed)"
else
	echo "lists: DIFFER"; exit 1
fi
dev=${GVK_DEVICE:-}
if [ -n "$dev" ]; then
	run "gvk-$dev" "$gvk" ld -q --bfile "$data" $opt $win -t "$t" --device "$dev" --out gd
	if cmp -s p19.prune.in gd.prune.in && cmp -s p19.prune.out gd.prune.out; then
		echo "lists with --device $dev: identical"
	else
		echo "lists with --device $dev: DIFFER"; exit 1
	fi
fi
if command -v plink2 > /dev/null && [ "$opt" = --indep-pairwise ]; then # plink2 has only this one
	run plink2 plink2 --bfile "$data" $opt $win --threads "$t" --out p2
	if cmp -s p19.prune.in p2.prune.in && cmp -s p19.prune.out p2.prune.out; then
		echo "plink2 lists: the same as plink1.9's"
	else
		echo "plink2 lists: differ from plink1.9's ($(wc -l < p2.prune.in) kept)"
	fi
fi
