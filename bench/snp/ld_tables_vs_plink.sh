#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld against plink1.9 on the LD tables PLINK 1.9 writes (--r, --r2 and their modifiers), side by
# side on one fileset with LD structure (make_ld_bfile.py: SAMPLES x SNPS on two chromosomes, made
# once in DIR), with the same thread count for both. Each command runs RUNS times, alternating the
# two programs, its output removed before each run; the table gives the fastest wall time of each
# (bash's time), plink1.9's time over gvk's, and whether the two outputs are identical (cmp; for
# gz, the decompressed text). Exits non-zero when any output differs.
# Needs python3 with numpy ($PYTHON, else python3 or /usr/bin/python3), plink1.9, gzip.
# Usage: bench/snp/ld_tables_vs_plink.sh GVK [SAMPLES (5000)] [SNPS (50000)] [DIR] [RUNS (3)] [THREADS ...]
set -eu -o pipefail
gvk=$1 ns=${2:-5000} nsnp=${3:-50000} dir=${4:-} runs=${5:-3}
shift $(($# < 5 ? $# : 5))
threads=("$@"); [ ${#threads[@]} -gt 0 ] || threads=(2 1)
# shellcheck source=bench_common.sh
. "$(dirname "$0")/bench_common.sh"
in="$dir/ld${ns}x$nsnp"
[ -s "$in.bed" ] || "$py" "$here/make_ld_bfile.py" "$in" "$ns" "$nsnp"
# subsets for the all-pairs shapes: every 10th SNP (inter-chr) and every 20th (square)
awk 'NR % 10 == 1 {print $2}' "$in.bim" > "$dir/every10"
awk 'NR % 20 == 1 {print $2}' "$in.bim" > "$dir/every20"

tables=(
	"--r2"
	"--r2 --ld-window 100 --ld-window-r2 0"
	"--r2 dprime"
	"--r2 dprime --ld-window-r2 0"
	"--r"
	"--r2 with-freqs"
	"--r2 inter-chr --ld-window-r2 0.5 --extract $dir/every10"
	"--r2 square --extract $dir/every20"
	"--r2 gz"
)

# fastest wall seconds of one run of "$@" into the global $best, its output removed first
best=
run_min() {
	local out=$1
	shift
	rm -f "$out"*
	local t TIMEFORMAT=%3R
	t=$( { time "$@" > /dev/null 2>&1; } 2>&1) || { echo "failed: $*" >&2; exit 1; }
	best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
}

# the output of a run, as text
text() { case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; }

echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) processors; $ns samples x $nsnp SNPs; $($gvk --version 2>&1 | head -1); $(plink1.9 --version | head -1)"
echo "gvk: $gvk ld --bfile IN OPTIONS --threads T --out OUT; plink1.9 --bfile IN OPTIONS --threads T --out OUT; fastest of $runs"
printf '| %-58s | %s | %8s | %8s | %6s | %s |\n' options threads gvk_s plink_s ratio identical
status=0
for t in "${threads[@]}"; do
	for opts in "${tables[@]}"; do
		# shellcheck disable=SC2086 # the options are words
		ext=.ld; case " $opts " in *" gz "*) ext=.ld.gz ;; esac
		gbest= pbest=
		for ((k = 0; k < runs; ++k)); do
			best=$gbest; run_min "$dir/g" "$gvk" ld -q --bfile "$in" $opts --threads "$t" --out "$dir/g"; gbest=$best
			best=$pbest; run_min "$dir/p" plink1.9 --bfile "$in" $opts --threads "$t" --out "$dir/p"; pbest=$best
		done
		same=yes
		cmp -s <(text "$dir/g$ext") <(text "$dir/p$ext") || { same=NO; status=1; }
		printf '| %-58s | %7s | %8s | %8s | %5.2fx | %s |\n' "${opts//$dir\//}" "$t" "$gbest" "$pbest" \
			"$(awk -v g="$gbest" -v p="$pbest" 'BEGIN { print (g > 0 ? p / g : 0) }')" "$same"
	done
done
exit $status
