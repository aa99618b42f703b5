#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --clump refuses what PLINK 1.9 refuses: a report without the named id or p column, an
# empty report, a duplicated column header, a negative p-value or one above 1 (file and line
# named), bad --clump-p1/-p2/-r2/-kb values, --clump options without --clump, and the options gvk
# does not support. Each: a message naming the problem, exit 1 and no output file. Lines whose p
# is not a number (NA) are skipped, and a report without significant lines writes no .clumped,
# as in PLINK. Usage: ld_clump_errors.sh GVK
set -u
gvk=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 "$here/gen_ld_data.py" d --samples 40 --snps 80 --chroms 1 --assoc a.assoc || exit 1
pass=0 fail=0

# refused "ARGS" PATTERN: exit 1, PATTERN in the message, nothing written
refused() {
	"$gvk" ld --bfile d $1 --out o > out.txt 2>&1
	local rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$2" out.txt && ! ls o.* > /dev/null 2>&1; then pass=$((pass + 1)); return; fi
	echo "FAIL '$1': rc $rc, $(head -1 out.txt), files: $(ls o.* 2> /dev/null)"; fail=$((fail + 1)); rm -f o.*
}
# line N of a.assoc with its p (column 9) set to V, into FILE
setp() { awk -v n="$1" -v v="$2" 'NR == n {$9 = v} {print}' a.assoc > "$3"; }

awk 'NR == 1 {$2 = "ID"} {print}' a.assoc > noid.assoc
awk 'NR == 1 {$9 = "PVAL"} {print}' a.assoc > nop.assoc
awk 'NR == 1 {$3 = "P"} {print}' a.assoc > dup.assoc
printf '\n  \n' > empty.assoc
setp 7 -0.5 neg.assoc
setp 9 1.5 big.assoc
setp 9 inf inf.assoc
refused "--clump noid.assoc" "noid.assoc: no variant ID field"
refused "--clump nop.assoc" "nop.assoc: no p-value field"
refused "--clump nop.assoc --clump-field P" "no p-value field"
refused "--clump dup.assoc" "duplicate column header 'P'"
refused "--clump empty.assoc" "empty.assoc is empty"
refused "--clump missing.assoc" "cannot open missing.assoc"
refused "--clump neg.assoc" "neg.assoc line 7: negative p-value '-0.5'"
refused "--clump big.assoc" "big.assoc line 9: p-value '1.5' is above 1"
refused "--clump inf.assoc" "inf.assoc line 9: p-value 'inf' is above 1"
refused "--clump a.assoc,neg.assoc" "neg.assoc line 7"
refused "--clump a.assoc --clump-p1 0" "--clump-p1: invalid value '0'"
refused "--clump a.assoc --clump-p1 1.5" "--clump-p1: invalid value"
refused "--clump a.assoc --clump-p1 x" "give a number"
refused "--clump a.assoc --clump-p2 2" "--clump-p2: invalid value"
refused "--clump a.assoc --clump-p1 0.01 --clump-p2 0.001" "must not be below --clump-p1"
refused "--clump a.assoc --clump-r2 1" "--clump-r2: invalid value '1'"
refused "--clump a.assoc --clump-r2 nan" "--clump-r2: invalid value"
refused "--clump a.assoc --clump-kb 0" "--clump-kb: invalid value '0'"
refused "--clump a.assoc --clump-kb -5" "--clump-kb: invalid value"
refused "--clump a.assoc --clump-kb" "needs a value"
refused "--clump" "needs at least one value"
refused "--clump-p1 0.01" "--clump-p1 must be used with --clump"
refused "--clump a.assoc --clump-best" "--clump-best is not supported"
refused "--clump a.assoc --clump-replicate" "not supported"
refused "--clump a.assoc --clump-range r.txt" "not supported"
refused "--clump a.assoc --r2" "separate runs"
refused "--clump a.assoc --indep-pairwise 5 1 0.2" "separate runs"

# skipped lines: NA and other non-numbers; no significant line: a warning and no .clumped
awk 'NR > 1 {$9 = "NA"} {print}' a.assoc > na.assoc
"$gvk" ld --bfile d --clump na.assoc --out o > out.txt 2>&1
if [ $? -eq 0 ] && grep -q "no significant --clump results" out.txt && [ ! -e o.clumped ] &&
	grep -q "No significant --clump results" o.log; then pass=$((pass + 1))
else echo "FAIL: a report of NA: $(head -1 out.txt)"; fail=$((fail + 1)); fi
rm -f o.*
# ids the fileset lacks: PLINK's warnings, the first three on stderr
"$gvk" ld --bfile d --clump a.assoc --out o > out.txt 2>&1
if [ $? -eq 0 ] && [ "$(grep -c "is missing from the main dataset" out.txt)" = 3 ] && [ -s o.clumped ] &&
	grep -q "'absent_0' is missing" o.log; then pass=$((pass + 1))
else echo "FAIL: absent ids: $(head -3 out.txt)"; fail=$((fail + 1)); fi
echo "ld_clump_errors: $pass passed, $fail failed"
[ $fail -eq 0 ]
