#!/bin/bash
# SPDX-License-Identifier: MIT
# BAM counting with several threads gives the counts of one thread, byte for byte: more files
# than threads, fewer (a file split into parts through its index), windows and BED targets (some
# overlapping), and the same error message for bad files.
# Usage: cnv_bam_threads.sh GVK BAMDIR
set -u
gvk=$1 d=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! "$gvk" cnv --count-only -q "$d/T1.bam" "$d/T2.bam" -o "$tmp/x" 2> "$tmp/err"; then
	if grep -q "without htslib" "$tmp/err"; then echo "skip: $(cat "$tmp/err")"; exit 77; fi
fi
command -v samtools > /dev/null || { echo "skip: samtools not found (needed to write test BAMs)"; exit 77; }
fail=0
# Five samples of random 100 bp reads on the test sequences, many across window and part
# boundaries, MAPQ 0..60, some unmapped; sample 5 has reads on chrA only.
for s in 1 2 3 4 5; do
	awk -v s=$s 'BEGIN { srand(s); print "@HD\tVN:1.6\tSO:coordinate"
		split("chrA 52345 chrB 30000 chrC 3000", a, " "); for (k = 1; k < 6; k += 2) print "@SQ\tSN:" a[k] "\tLN:" a[k + 1]
		print "@RG\tID:g\tSM:R" s
		for (k = 1; k < 6; k += 2) { if (s == 5 && k > 1) break; n = int(a[k + 1] / 40); p = 0
			for (i = 0; i < n; ++i) { p += int(rand() * 80); if (p > a[k + 1] - 100) p = a[k + 1] - 100
				printf "r%d_%d\t%d\t%s\t%d\t%d\t100M\t*\t0\t0\t*\t*\tRG:Z:g\n", k, i, rand() < 0.05 ? 4 : 0, a[k], p + 1, int(rand() * 61) } } }' \
		| samtools view -b -o "$tmp/R$s.bam" - && samtools index "$tmp/R$s.bam" || { echo "FAIL: cannot write R$s.bam"; exit 1; }
done
printf 'chrA\t0\t30000\nchrA\t100\t200\nchrA\t150\t9000\nchrA\t40000\t52345\nchrB\t10\t29990\nchrB\t5000\t5001\nchrC\t0\t3000\nchrZ\t0\t50\n' > "$tmp/t.bed"
same() { # name, gvk arguments: -t 1 against -t 2, 3 and 7
	local name=$1; shift
	"$gvk" cnv --count-only -q -t 1 "$@" -o "$tmp/one.tsv" || { echo "FAIL: $name -t 1"; fail=$((fail + 1)); return; }
	for t in 2 3 7; do
		"$gvk" cnv --count-only -q -t $t "$@" -o "$tmp/t$t.tsv" || { echo "FAIL: $name -t $t"; fail=$((fail + 1)); continue; }
		cmp -s "$tmp/one.tsv" "$tmp/t$t.tsv" || { echo "FAIL: $name: -t $t differs from -t 1"; diff "$tmp/one.tsv" "$tmp/t$t.tsv" | head -5; fail=$((fail + 1)); }
	done
}
five=("$tmp"/R{1,2,3,4,5}.bam)
for w in 100 777 5000 25000 60000; do
	same "two files -w $w" -w $w "$tmp/R1.bam" "$tmp/R2.bam"
	same "five files -w $w" -w $w "${five[@]}"
done
same "min-mapq 0" -w 1000 --min-mapq 0 "${five[@]}"
same "min-mapq 30" -w 1000 --min-mapq 30 "$tmp/R3.bam" "$tmp/R4.bam"
same "BED targets" --bed "$tmp/t.bed" "${five[@]}"
same "BED targets, two files" --bed "$tmp/t.bed" "$tmp/R1.bam" "$tmp/R5.bam"
same "test data" -w 5000 "$d/T1.bam" "$d/T2.bam" "$d/T3.bam"
# The counts are the real ones, not only the same: the test data's reference counts with -t 3.
if [ -f "$d/counts_WL5000.tsv" ]; then
	"$gvk" cnv --count-only -q -t 3 -w 5000 "$d/T1.bam" "$d/T2.bam" "$d/T3.bam" -o "$tmp/ref.tsv"
	cmp -s "$tmp/ref.tsv" "$d/counts_WL5000.tsv" || { echo "FAIL: -t 3 counts differ from counts_WL5000.tsv"; fail=$((fail + 1)); }
fi
# Bad files: the message of one thread, naming the first bad file (no index, then a truncated one).
cp "$tmp/R4.bam" "$tmp/noidx.bam"
head -c 8000 "$tmp/R2.bam" > "$tmp/cut.bam" && cp "$tmp/R2.bam.bai" "$tmp/cut.bam.bai"
for t in 1 2 3 7; do
	rm -f "$tmp/bad.tsv"
	if "$gvk" cnv --count-only -q -t $t "$tmp/R1.bam" "$tmp/cut.bam" "$tmp/R3.bam" "$tmp/noidx.bam" -o "$tmp/bad.tsv" 2> "$tmp/err$t"; then
		echo "FAIL: bad files accepted with -t $t"; fail=$((fail + 1))
	fi
	[ ! -e "$tmp/bad.tsv" ] || { echo "FAIL: bad files left output with -t $t"; fail=$((fail + 1)); }
	cmp -s "$tmp/err1" "$tmp/err$t" || { echo "FAIL: -t $t says '$(cat "$tmp/err$t")', -t 1 '$(cat "$tmp/err1")'"; fail=$((fail + 1)); }
done
grep -q "cut.bam" "$tmp/err1" || { echo "FAIL: the error does not name cut.bam: $(cat "$tmp/err1")"; fail=$((fail + 1)); }
echo "$fail failed"
[ $fail -eq 0 ]
