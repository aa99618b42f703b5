#!/bin/bash
# SPDX-License-Identifier: MIT
# Wall and CPU time of gvk cnv --count-only on FILES indexed BAMs of READS reads each, for each
# thread count (default 1, 2 and every processor), with /usr/bin/time; checks that every count
# equals the one-thread count. The BAMs are made once in DIR (default a temporary directory) by
# make_bams.py and samtools. Needs python3, samtools, GNU time and a gvk built with htslib.
# Usage: bench/cnv/bam_threads.sh GVK [FILES (10)] [READS (500000)] [DIR] [THREADS ...]
set -eu -o pipefail
gvk=$1 files=${2:-10} reads=${3:-500000} dir=${4:-}
shift $(($# < 4 ? $# : 4))
threads=("$@"); [ ${#threads[@]} -gt 0 ] || threads=(1 2 $(nproc))
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$dir" ] || { dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; }
mkdir -p "$dir"
bams=()
for ((f = 1; f <= files; ++f)); do
	b="$dir/S$f.bam"
	[ -s "$b.bai" ] || { python3 "$here/make_bams.py" "$reads" "$f" | samtools view -b -o "$b" - && samtools index "$b"; }
	bams+=("$b")
done
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) processors; $files BAMs x $reads reads ($(du -ch "${bams[@]}" | tail -1 | cut -f1))"
echo "command: $gvk cnv --count-only -q -t T ${files} BAMs -o counts.tsv"
printf '%-8s %8s %8s %8s\n' threads wall_s user_s sys_s
for t in "${threads[@]}"; do
	/usr/bin/time -f "%e %U %S" -o "$dir/time" "$gvk" cnv --count-only -q -t "$t" "${bams[@]}" -o "$dir/c$t.tsv"
	read -r w u s < "$dir/time"
	printf '%-8s %8s %8s %8s\n' "$t" "$w" "$u" "$s"
	cmp -s "$dir/c${threads[0]}.tsv" "$dir/c$t.tsv" || { echo "counts of -t $t differ from -t ${threads[0]}"; exit 1; }
done
