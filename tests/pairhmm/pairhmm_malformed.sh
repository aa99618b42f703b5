#!/bin/bash
# SPDX-License-Identifier: MIT
# Each malformed input is rejected: non-zero exit, a message naming the file (and line), and no
# output file left behind. Usage: pairhmm_malformed.sh GVK
set -u
gvk=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
q=$(printf '%s' '+++++')
# name | file content | text the message must contain [| options]
check() {
	local name=$1 content=$2 want=$3 opts=${4:-}
	printf '%b' "$content" > "$tmp/$name.txt"
	rm -f "$tmp/out.txt"
	if "$gvk" pairhmm -q $opts -o "$tmp/out.txt" "$tmp/$name.txt" 2> "$tmp/err"; then
		echo "FAIL: $name: accepted"; fail=$((fail + 1)); return
	fi
	if ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: $name: message '$(cat "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); return
	fi
	if ls "$tmp" | grep -q '^out\.txt'; then
		echo "FAIL: $name: output file left behind"; fail=$((fail + 1)); return
	fi
	pass=$((pass + 1))
}
check fieldcount "ACGTACGT ACGTA $q $q $q $q\nACGTACGT ACGTA $q $q $q\n" "fieldcount.txt:2: expected 6 or 7 fields"
check lengths "# c\nACGTACGT ACGTA $q $q ++++ $q\n" "lengths.txt:2: read has 5 bases but 4 deletion GOPs"
check lowqual "ACGTACGT ACGTA $q +\x1f+++ $q $q\n" "lowqual.txt:1: insertion GOPs: character 0x1f at position 2 is below '!'"
check badheader "2 1\nACG +++ +++ +++ +++\nACG +++ +++ +++ +++\nACGT\n2 x\n" "badheader.txt:5: expected a group header"
check emptygroup "0 1\nACGT\n" "emptygroup.txt:1: expected a group header"
check truncated "2 2\nACG +++ +++ +++ +++\nACG +++ +++ +++ +++\nACGT\n" "truncated.txt:1: group truncated"
check hapfields "1 2\nACG +++ +++ +++ +++\nACGT\nACG +++ +++ +++ +++\n" "hapfields.txt:4: expected haplotype 2"
check readfields "2 1\nACG +++ +++ +++ +++\nACG +++ +++ +++\nACGT\n" "readfields.txt:3: expected read 2"
check grouplen "1 1\nACG +++ ++ +++ +++\nACGT\n" "grouplen.txt:2: read has 3 bases but 2 insertion GOPs"
check hexbad "ACGT AC 1e1e 2d2d 2d2d 0a0g\n" "hexbad.txt:1: GCPs: '0g' at byte 2 is not a hex byte"
check hexlen "ACGT AC 1e1e 2d2d 2d2d2d 0a0a\n" "hexlen.txt:1: read has 2 bases but 3 deletion GOPs"
check lowbase "ACGTACGT ACGTA +\x1f+++ $q $q $q\n" "lowbase.txt:1: base qualities: character 0x1f"
check garbage "hello\n" "garbage.txt:1: cannot tell the input format"
# Found by fuzzing (tests/fuzz/regress/pairhmm_*), on the threaded parser: a lone number as the
# last line was read past the input's end as a header; a read line of two numbers taken for a
# header made a piece fail with "group truncated" instead of the first error; and an empty
# piece's unset line count moved the line of an error.
check lonecount "1 1\nACG +++ +++ +++ +++\nACGT\n1" "lonecount.txt:4: expected a group header" "-t 4"
check fakeheader "2 1\nACG +++ +++ +++ +++\n12 34\nACGT\n1 1\nACG +++ +++ +++ +++\nACGT\n" \
	"fakeheader.txt:3: expected read 2 of the group at line 1" "-t 4"
check emptypiece "ACGT AC 66 II II ++\r\nTTTT TT 66 IIII ++" "emptypiece.txt:2: expected 6 or 7 fields" "-t 8"
# A bad first record in a truncated gzip stream is reported as such with threads too (the
# threaded reader used to read ahead into the damage and report only that).
printf 'ACGT AC 66 II II ++\nAC 6\n' | gzip -c > "$tmp/full.gz"
head -c $(($(wc -c < "$tmp/full.gz") - 6)) "$tmp/full.gz" > "$tmp/badtrunc.gz"
if "$gvk" pairhmm -q -t 4 -o "$tmp/out.txt" "$tmp/badtrunc.gz" 2> "$tmp/err" || ! grep -qF "badtrunc.gz:2: expected 6 or 7 fields" "$tmp/err"; then
	echo "FAIL: badtrunc: $(cat "$tmp/err")"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
printf 'ACGT\0AC\n' > "$tmp/binary.txt"
check binary "\x1f\x8b\x08\x00garbage" "binary.txt: read error"
# Large files take the multi-threaded parser (chunks of 65536 pairs and more): a bad header half
# way through a 50,000-pair file once crashed it when a reused chunk fell back to the serial parser.
big() {
	local name=$1 bad=$2 want=$3
	# 100-bp reads: a block of the parser then holds about 12,000 pairs, so the bad group (pair
	# 40,000) is met after several chunks, in a reused one.
	awk -v bad="$bad" 'BEGIN { r = ""; q = ""; for (i = 0; i < 25; ++i) { r = r "ACGT"; q = q "++++" }
		for (g = 1; g <= 25000; ++g) { print (g == 20000 ? bad : "2 1"); for (k = 0; k < 2; ++k) print r, q, q, q, q; print r } }' > "$tmp/$name.txt"
	rm -f "$tmp/out.txt"
	if "$gvk" pairhmm -q -t 4 --chunk 65536 -o "$tmp/out.txt" "$tmp/$name.txt" 2> "$tmp/err"; then
		echo "FAIL: $name: accepted"; fail=$((fail + 1)); return
	fi
	grep -qF -- "$want" "$tmp/err" || { echo "FAIL: $name: message '$(cat "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); return; }
	[ -e "$tmp/out.txt" ] && { echo "FAIL: $name: output file left behind"; fail=$((fail + 1)); return; }
	pass=$((pass + 1))
}
big bigheader "2 x" "bigheader.txt:79997: expected a group header"
big bigcount "3 1" "bigcount.txt:80000: expected read 3 of the group at line 79997"
big bigshort "1 1" "bigshort.txt:79999: expected haplotype 1"
# A missing input and an unwritable output.
if "$gvk" pairhmm -q "$tmp/none.txt" 2> "$tmp/err" || ! grep -q "none.txt: cannot open" "$tmp/err"; then
	echo "FAIL: missing file"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
printf "ACGT ACG +++ +++ +++ +++\n" > "$tmp/good.txt"
if "$gvk" pairhmm -q -o "$tmp/nodir/out.txt" "$tmp/good.txt" 2> "$tmp/err" || ! grep -q "nodir/out.txt: cannot write" "$tmp/err"; then
	echo "FAIL: unwritable output"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# An empty input (or only comments) gives an empty output and success.
printf '# nothing\n' > "$tmp/empty.txt"
"$gvk" pairhmm -q -o "$tmp/empty.out" "$tmp/empty.txt" && [ -f "$tmp/empty.out" ] && [ ! -s "$tmp/empty.out" ] && pass=$((pass + 1)) || { echo "FAIL: empty input"; fail=$((fail + 1)); }
# A bad record in a later chunk (parsed while the first is computed) still fails the run.
{ for i in $(seq 1 30); do echo "ACGT ACG +++ +++ +++ +++"; done; echo "ACGT ACG +++ +++ ++ +++"; } > "$tmp/late2.txt"
if "$gvk" pairhmm -q --chunk 8 -o "$tmp/late2.out" "$tmp/late2.txt" 2> "$tmp/err" || ! grep -q "late2.txt:31:" "$tmp/err" || [ -e "$tmp/late2.out" ]; then
	echo "FAIL: bad record in a later chunk"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# A good file still works, and a bad record after good ones leaves no output.
"$gvk" pairhmm -q "$tmp/good.txt" > /dev/null && pass=$((pass + 1)) || { echo "FAIL: good input rejected"; fail=$((fail + 1)); }
check latebad "ACGT ACG +++ +++ +++ +++\nACGT ACG +++ +++ +++ +++\nACGT ACG +++ +++ ++ +++\n" "latebad.txt:3:"
for o in "-t 0" "--device tpu" "--flavour sse" "--format xml" "--chunk 0"; do
	if "$gvk" pairhmm $o "$tmp/good.txt" > /dev/null 2>&1; then echo "FAIL: option '$o' accepted"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
