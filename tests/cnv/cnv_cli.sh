#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk cnv end to end: thread-count invariance, plots, and a count matrix round trip.
# Usage: cnv_cli.sh GVK DATA
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
in="$data/small/input_counts.tsv.gz"
"$gvk" cnv -q -t 1 --counts "$in" -o "$tmp/c1.tsv" --cnvr "$tmp/r1.tsv" --regions "$tmp/a" || fail=$((fail + 1))
"$gvk" cnv -q -t 3 --counts "$in" -o "$tmp/c3.tsv" --cnvr "$tmp/r3.tsv" --regions "$tmp/b" --plot "$tmp/p" --plot-format svg || fail=$((fail + 1))
for f in c r; do cmp -s "$tmp/${f}1.tsv" "$tmp/${f}3.tsv" || { echo "FAIL: $f differs with 3 threads"; fail=$((fail + 1)); }; done
cmp -s "$tmp/a.sINI.tsv" "$tmp/b.sINI.tsv" || { echo "FAIL: sINI differs with 3 threads"; fail=$((fail + 1)); }
for s in S01 S05 S10; do
	f="$tmp/p.$s.genome.svg"
	[ -s "$f" ] && head -c 200 "$f" | grep -q '<svg' && tail -1 "$f" | grep -q '</svg>' || { echo "FAIL: plot $s"; fail=$((fail + 1)); }
done
[ -s "$tmp/p.S05.chr1.svg" ] || { echo "FAIL: S05's chr1 panel (CN0 deletion) not drawn"; fail=$((fail + 1)); }
# Standard output and gzip input give the same CNVs as the file output.
"$gvk" cnv -q --counts "$in" > "$tmp/stdout.tsv" && cmp -s "$tmp/stdout.tsv" "$tmp/c1.tsv" || { echo "FAIL: stdout"; fail=$((fail + 1)); }
# Summary line on stderr without -q.
"$gvk" cnv --counts "$in" -o "$tmp/summary.tsv" 2> "$tmp/err"
grep -q "2000 regions x 10 samples, 9 CNVs in 6 CNV regions" "$tmp/err" || { echo "FAIL: summary '$(cat "$tmp/err")'"; fail=$((fail + 1)); }
# A documented variable whose value is not one is an error naming it, and nothing is written.
GVK_CNV_GPU_CHUNK=0 "$gvk" cnv -q --counts "$in" -o "$tmp/envbad.tsv" 2> "$tmp/err"
[ $? -ne 0 ] && grep -q "GVK_CNV_GPU_CHUNK must be a whole number" "$tmp/err" && [ ! -e "$tmp/envbad.tsv" ] ||
	{ echo "FAIL: GVK_CNV_GPU_CHUNK=0 '$(cat "$tmp/err")'"; fail=$((fail + 1)); }
# A header of sample names only is a plain matrix: same calls as --matrix on the full file.
zcat "$in" | cut -f4- > "$tmp/plain.tsv"
"$gvk" cnv -q --counts "$tmp/plain.tsv" -o "$tmp/plain.cnvs" || fail=$((fail + 1))
"$gvk" cnv -q --matrix --counts "$in" -o "$tmp/matrix.cnvs" || fail=$((fail + 1))
cmp -s "$tmp/plain.cnvs" "$tmp/matrix.cnvs" || { echo "FAIL: plain matrix differs from --matrix"; fail=$((fail + 1)); }
zcat "$data/small/cnmops_matrix_input/cnvs.tsv.gz" | cut -f1-4,7 > "$tmp/mexp"
cut -f1-4,7 "$tmp/plain.cnvs" | cmp -s - "$tmp/mexp" || { echo "FAIL: plain matrix CNVs differ from the reference"; fail=$((fail + 1)); }
# Every non-default model path runs and writes well-formed tables.
for o in "--norm 0" "--norm 2" "--norm-type mean" "--norm-type median" "--norm-type quant" "--norm-type mode" \
	"--size-factor median" "--size-factor quant" "--size-factor mode" "--use-median" "--log-domain" "--seg-alpha 30" \
	"--folds 0.025,0.5,1,1.5,2 --prior-impact 3 --cyc 5" "--min-read-count 0 --min-width 1 --upper 0.3 --lower -0.5"; do
	if ! "$gvk" cnv -q $o --counts "$in" -o "$tmp/o.tsv" --cnvr "$tmp/or.tsv" --segments "$tmp/os.tsv" 2> "$tmp/err"; then
		echo "FAIL: '$o': $(cat "$tmp/err")"; fail=$((fail + 1)); continue
	fi
	n=$(awk -F'\t' 'NR > 1 && NF != 7' "$tmp/o.tsv" "$tmp/os.tsv" | wc -l)
	segs=$(($(wc -l < "$tmp/os.tsv") - 1))
	[ "$n" -eq 0 ] && [ "$segs" -ge 20 ] || { echo "FAIL: '$o': malformed output"; fail=$((fail + 1)); }
done
"$gvk" cnv -h | grep -q -- "--exome" || { echo "FAIL: help"; fail=$((fail + 1)); }
echo "$fail failed"
[ $fail -eq 0 ]
