#!/bin/bash
# gvk cnv end to end: thread-count invariance, plots, and a count matrix round trip.
# Usage: cnv_cli.sh GVK DATA
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
in="$data/small/input_counts.tsv.gz"
"$gvk" cnv -q -t 1 --counts "$in" -o "$tmp/c1.tsv" --cnvr "$tmp/r1.tsv" --regions "$tmp/a" || fail=$((fail + 1))
"$gvk" cnv -q -t 3 --counts "$in" -o "$tmp/c3.tsv" --cnvr "$tmp/r3.tsv" --regions "$tmp/b" --plot "$tmp/p" || fail=$((fail + 1))
for f in c r; do cmp -s "$tmp/${f}1.tsv" "$tmp/${f}3.tsv" || { echo "FAIL: $f differs with 3 threads"; fail=$((fail + 1)); }; done
cmp -s "$tmp/a.sINI.tsv" "$tmp/b.sINI.tsv" || { echo "FAIL: sINI differs with 3 threads"; fail=$((fail + 1)); }
for s in S01 S05 S10; do
	f="$tmp/p.$s.svg"
	[ -s "$f" ] && head -c 200 "$f" | grep -q '<svg' && tail -1 "$f" | grep -q '</svg>' || { echo "FAIL: plot $s"; fail=$((fail + 1)); }
done
grep -q 'CN0' "$tmp/p.S05.svg" || { echo "FAIL: S05's CN0 deletion not drawn"; fail=$((fail + 1)); }
# Standard output and gzip input give the same CNVs as the file output.
"$gvk" cnv -q --counts "$in" > "$tmp/stdout.tsv" && cmp -s "$tmp/stdout.tsv" "$tmp/c1.tsv" || { echo "FAIL: stdout"; fail=$((fail + 1)); }
# Summary line on stderr without -q.
"$gvk" cnv --counts "$in" -o /dev/null 2> "$tmp/err"
grep -q "2000 regions x 10 samples, 9 CNVs in 6 CNV regions" "$tmp/err" || { echo "FAIL: summary '$(cat "$tmp/err")'"; fail=$((fail + 1)); }
"$gvk" cnv -h | grep -q -- "--exome" || { echo "FAIL: help"; fail=$((fail + 1)); }
echo "$fail failed"
[ $fail -eq 0 ]
