#!/bin/bash
# SPDX-License-Identifier: MIT
# Normalization whatever the counts' magnitude: the variance/mean mode's density grid grows with
# it. The 6 x 3 matrix with one count of 10,000 / 30,000 / 1,000,000 (grids of 2^18..2^24 points)
# and the small matrix x 100 run and normalize within LIMIT seconds each (default 30: the O(G^2) sum
# took minutes or never ended; test_cnv_unit kde bounds the processor time); a count of 2^32 needs a
# grid beyond the bound: a clear error, exit 1, no output. Usage: cnv_norm_scale.sh GVK DATA [LIMIT]
set -u
gvk=$1 data=$2 limit=${3:-30}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# Runs gvk cnv on $1 with outputs under $tmp/$2; checks the normalization seconds of the summary.
run() {
	local in=$1 name=$2
	if ! "$gvk" cnv -t 2 --counts "$in" -o "$tmp/$name.cnvs" --regions "$tmp/$name" 2> "$tmp/$name.err"; then
		bad "$name: $(cat "$tmp/$name.err")"; return 1
	fi
	local s
	s=$(sed -n 's/.*(counts [0-9.]*, normalization \([0-9.]*\),.*/\1/p' "$tmp/$name.err")
	echo "$name: normalization $s s"
	[ -n "$s" ] && awk -v s="$s" -v l="$limit" 'BEGIN { exit !(s < l) }' || bad "$name: normalization took '$s' s (limit $limit)"
}
# The issue's matrix: sample B's third count is $1.
m63() {
	printf 'chr\tstart\tend\tA\tB\tC\n'
	printf 'chr1\t1\t100\t5\t6\t7\nchr1\t101\t200\t8\t6\t7\nchr1\t201\t300\t5\t%s\t7\n' "$1"
	printf 'chr1\t301\t400\t9\t6\t4\nchr1\t401\t500\t5\t3\t7\nchr1\t501\t600\t5\t6\t12\n'
}
# count, user grid points the normalization must report
for c in "10000 152967" "30000 456957" "1000000 15200292"; do
	set -- $c
	m63 "$1" > "$tmp/m$1.tsv"
	run "$tmp/m$1.tsv" "m$1" || continue
	n=$(awk -F'\t' 'NR == 2 { print $8 }' "$tmp/m$1.normalization_factors.tsv")
	[ "$n" = "$2" ] || bad "m$1: density grid of $n points, expected $2"
done
zcat "$data/small/input_counts.tsv.gz" |
	awk 'BEGIN { FS = OFS = "\t" } NR > 1 { for (i = 4; i <= NF; ++i) $i = $i * 100 } { print }' > "$tmp/small100.tsv"
run "$tmp/small100.tsv" small100
# The grid's bound: refused with the sequence, u and the size it would need; nothing written.
m63 4294967296 > "$tmp/m2p32.tsv"
if "$gvk" cnv --counts "$tmp/m2p32.tsv" -o "$tmp/cap.cnvs" --cnvr "$tmp/cap.cnvr" --regions "$tmp/cap" 2> "$tmp/stderr_cap"; then
	bad "count 2^32 accepted"
else
	[ $? -eq 1 ] || bad "count 2^32: exit status not 1"
	want="normalization: sequence chr1: the density grid would need 68719476736 points (95% quantile of variance/mean = 6.52806e+08)"
	grep -qF "$want" "$tmp/stderr_cap" || bad "count 2^32: message '$(cat "$tmp/stderr_cap")'"
	! ls "$tmp" | grep -q '^cap\.[a-z]' || bad "count 2^32: output left behind: $(ls "$tmp" | grep '^cap\.' | tr '\n' ' ')"
fi
echo "$fail failed"
[ $fail -eq 0 ]
