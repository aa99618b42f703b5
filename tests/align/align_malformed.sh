#!/bin/bash
# SPDX-License-Identifier: MIT
# Each malformed input is rejected: non-zero exit, a message naming the file and line, and no
# output file left behind. Usage: align_malformed.sh GVK
set -u
gvk=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
# name | file content | text the message must contain | extra options
check() {
	local name=$1 content=$2 want=$3 opts=${4:-}
	printf '%b' "$content" > "$tmp/$name.tsv"
	rm -f "$tmp/out.tsv"
	if "$gvk" align -q $opts -o "$tmp/out.tsv" "$tmp/$name.tsv" 2> "$tmp/err"; then
		echo "FAIL: $name: accepted"; fail=$((fail + 1)); return
	fi
	if ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: $name: message '$(cat "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); return
	fi
	if ls "$tmp" | grep -q '^out\.tsv'; then
		echo "FAIL: $name: output file left behind"; fail=$((fail + 1)); return
	fi
	pass=$((pass + 1))
}
good='ACGTACGT\tACGA\t3\t-1\t-4\t-3\tSOFTCLIP\n'
check emptyref "\tACGT\t3\t-1\t-4\t-3\tSOFTCLIP\n" "emptyref.tsv:1: empty ref sequence"
check emptyalt "${good}ACGT\t\t3\t-1\t-4\t-3\tINDEL\n" "emptyalt.tsv:2: empty alt sequence"
check emptyalt2 "ACGT\t\n" "emptyalt2.tsv:1: empty alt sequence"
check onefield "${good}ACGTACGT\n" "onefield.tsv:2: expected 2 or 7 tab-separated fields"
check sixfields "ACGT\tACG\t3\t-1\t-4\tSOFTCLIP\n" "sixfields.tsv:1: expected 2 or 7 tab-separated fields" 
check eightfields "ACGT\tACG\t3\t-1\t-4\t-3\tSOFTCLIP\tx\n" "eightfields.tsv:1: expected 2 or 7"
check emptyline "${good}\n${good}" "emptyline.tsv:2: expected 2 or 7 tab-separated fields"
check spaces "ACGT ACG 3 -1 -4 -3 SOFTCLIP\n" "spaces.tsv:1: expected 2 or 7"
check strategy "ACGT\tACG\t3\t-1\t-4\t-3\tSOFTCLIPS\n" "strategy.tsv:1: unknown strategy 'SOFTCLIPS'"
check strategycode "ACGT\tACG\t3\t-1\t-4\t-3\t13\n" "strategycode.tsv:1: unknown strategy '13'"
check notint "ACGT\tACG\t3\t-1x\t-4\t-3\tINDEL\n" "notint.tsv:1: mismatch '-1x' is not an integer"
check bigint "ACGT\tACG\t3\t-1\t-4\t-99999999999\tINDEL\n" "bigint.tsv:1: gap_extend '-99999999999' is not an integer"
check posgap "ACGT\tACG\t3\t-1\t4\t-3\tINDEL\n" "posgap.tsv:1: mismatch, gap_open and gap_extend must be <= 0"
check negmatch "ACGT\tACG\t-3\t-1\t-4\t-3\tINDEL\n" "negmatch.tsv:1: match -3 outside 0..65536"
check bigmatch "ACGT\tACG\t65537\t-1\t-4\t-3\tINDEL\n" "bigmatch.tsv:1: match 65537 outside 0..65536"
check hugepen "ACGT\tACG\t3\t-1\t-300000000\t-3\tINDEL\n" "hugepen.tsv:1: mismatch, gap_open and gap_extend must be >= -2^28"
check overflow "ACGTACGTACGT\tACG\t3\t-1\t-100000000\t-100000000\tINDEL\n" "overflow.tsv:1: gap penalties too large for 12 bases under INDEL"
long=$(head -c 32768 /dev/zero | tr '\0' 'A')
check toolong "ACGT\t${long}\n" "toolong.tsv:1: alt of 32768 bases is longer than the limit of 32767"
check toolongref "${good}${long}C\tACGT\t3\t-1\t-4\t-3\tINDEL\n" "toolongref.tsv:2: ref of 32769 bases is longer than the limit of 32767"
check nul "ACGT\tA\0CG\n" "nul.tsv:1: NUL byte"
check latebad "${good}${good}${good}ACGT\tACG\t3\t-1\t-4\n" "latebad.tsv:4:"
check latebadchunk "${good}${good}${good}ACGT\tACG\t3\t-1\t-4\n" "latebadchunk.tsv:4:" "--chunk 1"
# The longest allowed sequence is accepted.
printf 'ACGT\t%s\n' "${long:1}" > "$tmp/maxlen.tsv"
"$gvk" align -q --overhang INDEL "$tmp/maxlen.tsv" | grep -q "^1M3D32766I	0	" && pass=$((pass + 1)) || { echo "FAIL: 32767 bases rejected or misaligned"; fail=$((fail + 1)); }
# A missing input and an unwritable output.
if "$gvk" align -q "$tmp/none.tsv" 2> "$tmp/err" || ! grep -q "none.tsv: cannot open" "$tmp/err"; then
	echo "FAIL: missing file"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
printf "$good" > "$tmp/good.tsv"
if "$gvk" align -q -o "$tmp/nodir/out.tsv" "$tmp/good.tsv" 2> "$tmp/err" || ! grep -q "nodir/out.tsv: cannot write" "$tmp/err"; then
	echo "FAIL: unwritable output"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
"$gvk" align -q "$tmp/good.tsv" > /dev/null && pass=$((pass + 1)) || { echo "FAIL: good input rejected"; fail=$((fail + 1)); }
# Bad options: each refused with a message.
for o in "-t 0" "--device tpu" "--preset NEW" "--overhang SOFT" "--scores 1,2,3" "--scores 1,-1,-1,x" "--isa sse" "--chunk 0"; do
	if "$gvk" align $o "$tmp/good.tsv" > /dev/null 2> "$tmp/err" || ! grep -q "gvk align" "$tmp/err"; then
		echo "FAIL: option '$o' accepted or silent"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
done
"$gvk" align --preset NEW "$tmp/good.tsv" 2>&1 | grep -q "unknown preset 'NEW'" && pass=$((pass + 1)) || { echo "FAIL: preset message"; fail=$((fail + 1)); }
"$gvk" align --overhang SOFT "$tmp/good.tsv" 2>&1 | grep -q "unknown overhang strategy 'SOFT'" && pass=$((pass + 1)) || { echo "FAIL: overhang message"; fail=$((fail + 1)); }
"$gvk" align --scores 1,2,-1,-1 "$tmp/good.tsv" 2>&1 | grep -q "good.tsv:1: mismatch, gap_open and gap_extend must be <= 0" && pass=$((pass + 1)) || { echo "FAIL: --scores validated per line"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
