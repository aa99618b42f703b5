#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --clump refuses what PLINK 1.9 refuses: a report without the ID or p column, a column
# named twice, a negative p or one above 1 (inf included; the message names the file and line),
# --clump-p1/-p2/-r2/-kb out of range or not numbers, -p2 below -p1, an unsupported --clump-*
# option, and --clump with --r2: each with a message, exit 1 and no output file. Lines PLINK
# skips (NA, nan, too short) are skipped, and a run with nothing significant writes no .clumped.
# Usage: ld_clump_errors.sh GVK
set -u
gvk=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 "$here/gen_ld_data.py" d --samples 40 --snps 50 --chroms 1 || exit 1
pass=0 fail=0

# refused "REPORT-TEXT" "ARGS" PATTERN: exit 1, PATTERN in the message, nothing written
refused() {
	printf "$1" > r.txt
	"$gvk" ld --bfile d --clump r.txt $2 --out o > out.txt 2>&1
	local rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$3" out.txt && ! ls o.* > /dev/null 2>&1; then pass=$((pass + 1)); return; fi
	echo "FAIL '$1' '$2': rc $rc, $(head -1 out.txt), files: $(ls o.* 2> /dev/null)"; fail=$((fail + 1)); rm -f o.*
}

ok="SNP P\n1_3 1e-6\n"
refused "SNP Q\n1_3 1e-6\n" "" "r.txt, line 1: no p-value column (P)"
refused "ID P\n1_3 1e-6\n" "" "r.txt, line 1: no variant ID column (SNP)"
refused "SNP P P\n1_3 1e-6 1\n" "" "column 'P' appears twice"
refused "SNP P\n1_3 1e-6\n1_4 -0.5\n" "" "r.txt, line 3: negative p-value '-0.5'"
refused "SNP P\n\n1_3 1e-6\n1_4 1.5\n" "" "r.txt, line 4: p-value '1.5' is above 1"
refused "SNP P\n1_4 inf\n" "" "r.txt, line 2: p-value 'inf' is above 1"
refused "$ok" "--clump-p1 0" "clump-p1: invalid value 0"
refused "$ok" "--clump-p1 1.5" "clump-p1: invalid value 1.5"
refused "$ok" "--clump-p2 -1" "clump-p2: invalid value -1"
refused "$ok" "--clump-p1 0.01 --clump-p2 0.001" "must not be below --clump-p1"
refused "$ok" "--clump-r2 1" "clump-r2: invalid value 1"
refused "$ok" "--clump-r2 -0.1" "clump-r2: invalid value -0.1"
refused "$ok" "--clump-r2 x" "'x' is not a number"
refused "$ok" "--clump-kb 0" "clump-kb: invalid value 0"
refused "$ok" "--clump-kb -5" "clump-kb: invalid value -5"
refused "$ok" "--clump-kb" "needs a value"
refused "$ok" "--clump-verbose" "not supported"
refused "$ok" "--clump-best" "not supported"
refused "$ok" "--r2" "in a run of its own"
printf "$ok" > r.txt
"$gvk" ld --bfile d --clump r.txt,nothere.txt --out o > out.txt 2>&1
if [ $? -eq 1 ] && grep -q "nothere.txt" out.txt && ! ls o.* > /dev/null 2>&1; then pass=$((pass + 1))
else echo "FAIL: a missing second report"; fail=$((fail + 1)); fi
rm -f o.*

# skipped lines and nothing significant: exit 0, PLINK's warning, a log but no .clumped
printf "SNP P\n1_3 NA\n1_4 nan\n1_5\n1_6 abc\n1_7 0.5\n" > r.txt
"$gvk" ld --bfile d --clump r.txt --out o > out.txt 2>&1
if [ $? -eq 0 ] && [ ! -e o.clumped ] && grep -q "No significant --clump results" o.log; then pass=$((pass + 1))
else echo "FAIL: nothing significant: $(head -1 out.txt)"; fail=$((fail + 1)); fi
# a top variant the fileset lacks is a warning, and 1e-400 is p = 0
printf "SNP P\nmissing_1 1e-9\n1_3 1e-400\n" > r.txt
"$gvk" ld --bfile d --clump r.txt --out o > out.txt 2>&1
if [ $? -eq 0 ] && grep -q "'missing_1' is missing from the main dataset" o.log && awk 'NR == 2 && $3 == "1_3" && $5 == "0"' o.clumped | grep -q .; then
	pass=$((pass + 1))
else echo "FAIL: missing top variant / underflow: $(head -1 out.txt)"; fail=$((fail + 1)); fi
echo "ld_clump_errors: $pass passed, $fail failed"
[ "$fail" = 0 ]
