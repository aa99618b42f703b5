#!/bin/bash
# SPDX-License-Identifier: MIT
# Wall and CPU time of gvk fastid --make-fidb from a bgzip VCF of SAMPLES profiles x SNPS SNPs and
# from the same genotypes as a PLINK fileset, for each thread count (default 1, 2 and every
# processor), with /usr/bin/time; checks that every .fidb equals the one-thread one. The inputs
# are made once in DIR (default a temporary directory) by make_vcf.py, bgzip and, when
# installed, plink1.9. Needs python3 with numpy ($PYTHON, else python3 or /usr/bin/python3), bgzip, GNU time and a gvk built with htslib.
# Usage: bench/snp/fidb_threads.sh GVK [SAMPLES (200000)] [SNPS (1000)] [DIR] [THREADS ...]
set -eu -o pipefail
gvk=$1 ns=${2:-200000} nsnp=${3:-1000} dir=${4:-}
shift $(($# < 4 ? $# : 4))
threads=("$@"); [ ${#threads[@]} -gt 0 ] || threads=(1 2 $(nproc))
# shellcheck source=bench_common.sh
. "$(dirname "$0")/bench_common.sh"
vcf="$dir/p${ns}x$nsnp.vcf.gz"
[ -s "$vcf" ] || "$py" "$here/make_vcf.py" "$ns" "$nsnp" 1 | bgzip > "$vcf"
inputs=("$vcf")
if command -v plink1.9 > /dev/null; then
	[ -s "$dir/p.bed" ] || plink1.9 --vcf "$vcf" --keep-allele-order --make-bed --out "$dir/p" > /dev/null
	inputs+=("$dir/p")
fi
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) processors; $ns profiles x $nsnp SNPs"
printf '%-10s %-8s %8s %8s %8s\n' input threads wall_s user_s sys_s
for in in "${inputs[@]}"; do
	kind=$([ "$in" = "$vcf" ] && echo vcf.gz || echo plink)
	echo "command: $gvk fastid -q --make-fidb $in -o out.fidb -t T"
	for t in "${threads[@]}"; do
		/usr/bin/time -f "%e %U %S" -o "$dir/time" "$gvk" fastid -q --make-fidb "$in" -o "$dir/$kind$t.fidb" -t "$t"
		read -r w u s < "$dir/time"
		printf '%-10s %-8s %8s %8s %8s\n' "$kind" "$t" "$w" "$u" "$s"
		cmp -s "$dir/$kind${threads[0]}.fidb" "$dir/$kind$t.fidb" || { echo "-t $t differs from -t ${threads[0]}"; exit 1; }
	done
done
