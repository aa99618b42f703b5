#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --clump against plink1.9 (and plink2 when installed) on a generated fileset with LD
# blocks and an association report with signal blocks (gen_ld_bed's ASSOC: about 1% of the SNPs
# with p < 1e-4, the rest uniform): times and peak RSS (/usr/bin/time -v), and plink1.9's and
# gvk's .clumped compared byte for byte.
# usage: clump_bench.sh GVK [SAMPLES SNPS CHROMS THREADS "CLUMP OPTIONS"]
#        (default 5000 500000 10 2 "", i.e. PLINK's --clump-p1 1e-4 --clump-p2 0.01 --clump-r2 0.5 --clump-kb 250)
set -u
gvk=$(readlink -f "$1")
n=${2:-5000} m=${3:-500000} nc=${4:-10} t=${5:-2} opts=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-$(mktemp -d)}
cd "$dir" || exit 1
data=b_${n}_${m}
if [ ! -e "$data.assoc" ]; then
	cc -O2 -pthread -o gen_ld_bed "$here/gen_ld_bed.c" || exit 1
	./gen_ld_bed "$data" "$n" "$m" "$nc" 1 "$data.assoc" || exit 1
fi
. "$here/bench_run.sh"
echo "data: $n samples x $m SNPs on $nc chromosomes, $(awk 'NR > 1 && $5 < 1e-4' "$data.assoc" | wc -l) with p < 1e-4;" \
	"--clump $opts; $t threads; $(nproc) CPUs"
run plink1.9 plink1.9 --bfile "$data" --clump "$data.assoc" $opts --threads "$t" --out p19
run gvk "$gvk" ld -q --bfile "$data" --clump "$data.assoc" $opts -t "$t" --out g
if cmp -s p19.clumped g.clumped; then
	echo ".clumped: identical ($(grep -c . g.clumped) lines, $(grep "clumps formed" g.log))"
else
	echo ".clumped: DIFFER"; exit 1
fi
if command -v plink2 > /dev/null; then
	# plink2 writes PREFIX.clumps (its own layout); only its time and clump count are reported
	if ! plink2 --clump none --out p2probe 2>&1 | grep -q "Unrecognized flag"; then
		run plink2 plink2 --bfile "$data" --clump "$data.assoc" $opts --threads "$t" --out p2 &&
			echo "plink2: $(($(grep -c . p2.clumps) - 1)) clumps (plink1.9: $(($(grep -c . p19.clumped) - 1)))"
	else
		echo "plink2: $(plink2 --version 2>&1 | head -1) has no --clump"
	fi
fi
