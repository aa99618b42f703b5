#!/bin/bash
# SPDX-License-Identifier: MIT
# Malformed count matrices and options are rejected: non-zero exit, a message naming the file and
# line, and no output file left behind. Usage: cnv_malformed.sh GVK DATA
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
check() {
	local name=$1 content=$2 want=$3; shift 3
	printf '%b' "$content" > "$tmp/$name.tsv"
	rm -f "$tmp/out.tsv" "$tmp/cnvr.tsv"
	if "$gvk" cnv -q "$@" --counts "$tmp/$name.tsv" -o "$tmp/out.tsv" --cnvr "$tmp/cnvr.tsv" 2> "$tmp/err"; then
		echo "FAIL: $name: accepted"; fail=$((fail + 1)); return
	fi
	if ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: $name: message '$(cat "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); return
	fi
	if ls "$tmp" | grep -q -e '^out\.tsv' -e '^cnvr\.tsv'; then
		echo "FAIL: $name: output file left behind"; fail=$((fail + 1)); return
	fi
	pass=$((pass + 1))
}
h='chr\tstart\tend\tA\tB\tC\n'
check noninteger "${h}chr1\t1\t100\t5\t6\t7\nchr1\t101\t200\t5\t6.5\t7\n" "noninteger.tsv:3: sample B: '6.5' is not a non-negative integer count"
check negative "${h}chr1\t1\t100\t5\t-6\t7\n" "negative.tsv:2: sample B: '-6' is not a non-negative integer count"
check text "${h}chr1\t1\t100\t5\tNA\t7\n" "text.tsv:2: sample B: 'NA' is not"
check huge "${h}chr1\t1\t100\t5\t9007199254740993\t7\n" "huge.tsv:2: sample B: count 9007199254740993 is above 2^53"
check empty_field "${h}chr1\t1\t100\t5\t\t7\n" "empty_field.tsv:2: sample B: '' is not"
check ragged_short "${h}chr1\t1\t100\t5\t6\t7\nchr1\t101\t200\t5\t6\n" "ragged_short.tsv:3: expected 6 tab-separated fields as in the header, found 5"
check ragged_long "${h}chr1\t1\t100\t5\t6\t7\t8\n" "ragged_long.tsv:2: expected 6 tab-separated fields as in the header, found 7"
check one_sample "chr\tstart\tend\tA\nchr1\t1\t100\t5\n" "one_sample.tsv:1: cn.mops needs at least two samples, the header names 1"
check one_sample_matrix "A\n5\n6\n" "one_sample_matrix.tsv:1: cn.mops needs at least two samples, the header names 1"
check no_rows "${h}" "no_rows.tsv: no regions after the header"
check empty_file "" "empty_file.tsv: empty file"
check bad_coord "${h}chr1\tx\t100\t5\t6\t7\n" "bad_coord.tsv:2: bad coordinates"
check reversed "${h}chr1\t200\t100\t5\t6\t7\n" "reversed.tsv:2: bad coordinates"
check noncontiguous "${h}chr1\t1\t100\t5\t6\t7\nchr2\t1\t100\t5\t6\t7\nchr1\t101\t200\t5\t6\t7\n" "noncontiguous.tsv:4: the rows of sequence chr1 are not contiguous"
# A NUL byte in the header line (it used to hide fields from the splitter and crash).
check nul_header "chr\tst\0rt\tend\tA\tB\tC\nchr1\t1\t100\t5\t6\t7\n" "nul_header.tsv:1: NUL byte in line (column 7)"
check nul_header_matrix "A\tB\0\tC\n1\t2\t3\n" "nul_header_matrix.tsv:1: NUL byte in line (column 4)"
# Not tab-separated: the whole header is one field
check csv "chr,start,end,A,B\nchr1,1,100,5,6\n" "csv.tsv:1: the header has one field; the matrix must be tab-separated (this one looks comma-separated)"
check spaces "chr start end A B\nchr1 1 100 5 6\n" "spaces.tsv:1: the header has one field; the matrix must be tab-separated (this one looks space-separated)"
check csv_plain "A,B,C\n1,2,3\n" "csv_plain.tsv:1: the header has one field; the matrix must be tab-separated"
# A last line without '\n' in a file of whole pages (found by fuzzing: the parser ended the line
# with a NUL written one byte past the input, past the mapping here). A valid input: it must run,
# and a bad count on that line must still be reported with its line.
awk 'BEGIN { printf "chr\tstart\tend\tA\tB\n"; n = 18; for (i = 0; 4096 - n > 80; ++i) { l = sprintf("chr1\t%d\t%d\t%d\t%d\n", 1000 * i + 1, 1000 * i + 1000, 50 + i % 7, 52 + i % 5); printf "%s", l; n += length(l) }
	tail = sprintf("\t1\t1000\t51\t57"); name = "chr2"; while (n + length(name) + length(tail) < 4096) name = name "x"; printf "%s%s", name, tail }' > "$tmp/page.tsv"
if [ "$(wc -c < "$tmp/page.tsv")" -ne 4096 ] || ! "$gvk" cnv -q --counts "$tmp/page.tsv" -o "$tmp/page.out" 2> "$tmp/err"; then
	echo "FAIL: page-sized input without a final newline: $(cat "$tmp/err")"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
check page_bad "$(head -c 4095 "$tmp/page.tsv")x" "page_bad.tsv:" 
# Counts are doubles: beyond 2^53 they would silently turn into other numbers.
check above_2p53 "${h}chr1\t1\t100\t5\t6\t7\nchr1\t101\t200\t5\t9007199254740993\t7\n" "above_2p53.tsv:3: sample B: count 9007199254740993 is above 2^53"
check huge_count "${h}chr1\t1\t100\t5\t123456789012345678901234567890\t7\n" "huge_count.tsv:2: sample B: count 123456789012345678901234567890 is above 2^53"
check zero_sample "${h}chr1\t1\t100\t5\t0\t7\nchr1\t101\t200\t5\t0\t7\n" "sample B has no reads at all"
# A bad line far down still leaves nothing behind.
{ printf "$h"; zcat "$data/small/input_counts.tsv.gz" | awk -F'\t' 'NR > 1 && NR < 1500 { print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }'; printf 'chr2\t1\t2\t1\t2\n'; } > "$tmp/late.txt"
check late "$(cat "$tmp/late.txt")\n" "late.tsv:1500: expected 6 tab-separated fields"
# Parsing in parallel (blocks split among threads) reports the first bad line of the file, whichever
# thread meets it, and a sequence-order error before a later format error.
for t in 1 3 7; do
	check "late_t$t" "$(cat "$tmp/late.txt")\n" "late_t$t.tsv:1500: expected 6 tab-separated fields" -t $t
	{ printf "$h"; awk 'NR >= 2 && NR < 1000' "$tmp/late.txt"; printf 'chr0\t1\t2\t1\t2\t3\n'; awk 'NR >= 2 && NR < 1500' "$tmp/late.txt"; printf 'chr2\t1\t2\t1\n'; } > "$tmp/mixed.txt"
	check "mixed_t$t" "$(cat "$tmp/mixed.txt")\n" "mixed_t$t.tsv:1001: the rows of sequence chr1 are not contiguous" -t $t
done
# Missing input, unwritable output, bad options.
if "$gvk" cnv -q --counts "$tmp/none.tsv" 2> "$tmp/err" || ! grep -q "none.tsv: cannot open" "$tmp/err"; then
	echo "FAIL: missing file"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
good="$data/small/input_counts.tsv.gz"
if "$gvk" cnv -q --counts "$good" -o "$tmp/nodir/out.tsv" 2> "$tmp/err" || ! grep -q "nodir/out.tsv: cannot be written" "$tmp/err"; then
	echo "FAIL: unwritable output"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
rm -f "$tmp/out.tsv"
if "$gvk" cnv -q --counts "$good" -o "$tmp/out.tsv" --cnvr "$tmp/nodir/cnvr.tsv" 2> /dev/null || [ -e "$tmp/out.tsv" ]; then
	echo "FAIL: second output unwritable but first kept"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
for o in "-t 0" "--device tpu" "--norm 3" "--norm-type min" "--cyc 0" "--folds 0.5,2" "--min-width 0" "--posterior"; do
	if "$gvk" cnv -q $o --counts "$good" > /dev/null 2>&1; then echo "FAIL: option '$o' accepted"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
done
# --device gpu: the GPU, or (none usable) exit status 1, one line saying why and no output file;
# --device auto without a GPU says nothing at all.
rm -f "$tmp/gpu.tsv"
"$gvk" cnv -q --device gpu --counts "$good" -o "$tmp/gpu.tsv" 2> "$tmp/err"; rc=$?
if [ $rc -eq 0 ]; then [ -s "$tmp/gpu.tsv" ] && pass=$((pass + 1)) || { echo "FAIL: --device gpu wrote nothing"; fail=$((fail + 1)); }
elif [ $rc -eq 1 ] && [ ! -e "$tmp/gpu.tsv" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
	grep -qE "^gvk cnv: --device gpu: (no usable GPU \(built without GPU support for this engine \(cnv\)\)|no GPU \(.+\)|no usable (CUDA|HIP) GPU \(cnv\): .+)$" "$tmp/err"; then
	pass=$((pass + 1))
	"$gvk" cnv -q --device auto --counts "$good" -o "$tmp/auto.tsv" 2> "$tmp/err" && [ ! -s "$tmp/err" ] && [ -s "$tmp/auto.tsv" ] &&
		pass=$((pass + 1)) || { echo "FAIL: --device auto without a GPU: $(cat "$tmp/err")"; fail=$((fail + 1)); }
else echo "FAIL: --device gpu: exit $rc: $(cat "$tmp/err")"; fail=$((fail + 1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
