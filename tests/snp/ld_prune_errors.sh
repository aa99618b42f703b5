#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --indep-pairwise, --indep-pairphase and --indep refuse what PLINK 1.9 refuses (window
# and step out of range, r^2 outside [0, 1), a VIF below 1, "Wkb" joined for --indep, a missing
# value), a step larger than a window of variants (which PLINK 1.9 runs past its buffers), two
# pruning options, and --r2 in the same run: each with a message naming the problem, exit 1 and
# no output file. Usage: ld_prune_errors.sh GVK
set -u
gvk=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 "$here/gen_ld_data.py" d --samples 40 --snps 50 --chroms 1 || exit 1
pass=0 fail=0

# refused "ARGS" PATTERN: exit 1, PATTERN in the message, nothing written
refused() {
	"$gvk" ld --bfile d $1 --out o > out.txt 2>&1
	local rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$2" out.txt && ! ls o.* > /dev/null 2>&1; then pass=$((pass + 1)); return; fi
	echo "FAIL '$1': rc $rc, $(head -1 out.txt), files: $(ls o.* 2> /dev/null)"; fail=$((fail + 1)); rm -f o.*
}

refused "--indep-pairwise 0 1 0.1" "window size"
refused "--indep-pairwise 1 1 0.1" "window size"
refused "--indep-pairwise 1kb 1 0.1" "window size"
refused "--indep-pairwise 5x 1 0.1" "window size"
refused "--indep-pairwise 5.5 1 0.1" "window size"
refused "--indep-pairwise 5 0 0.1" "step size"
refused "--indep-pairwise 5 x 0.1" "step size"
refused "--indep-pairwise 5 6 0.1" "step size must not exceed"
refused "--indep-pairwise 5 1 1" "threshold"
refused "--indep-pairwise 5 1 -0.1" "threshold"
refused "--indep-pairwise 5 1 nan" "threshold"
refused "--indep-pairwise 5 1" "threshold"
refused "--indep-pairwise 5 1 0.2 --r2" "separate runs"
refused "--indep-pairphase 5 1 1" "threshold"
refused "--indep-pairphase 1 1 0.5" "window size"
refused "--indep-pairphase 5 0 0.5" "step size"
refused "--indep 5 1 0.5" "VIF threshold must be at least 1"
refused "--indep 5 1 -2" "VIF threshold must be at least 1"
refused "--indep 5 1 x" "VIF threshold must be a number"
refused "--indep 5 1" "VIF threshold"
refused "--indep 1 1 2" "window size"
refused "--indep 5kb 1 2" "kb as a separate word"
refused "--indep 5 0 2" "step size"
refused "--indep 5 1 2 --indep-pairwise 5 1 0.2" "give one of"
refused "--indep 5 1 2 --r" "--indep in separate runs"
refused "--indep-pairwise 5 1 0.2 --hwe 1" "--hwe threshold"
refused "--indep-pairwise 5 1 0.2 --hwe" "--hwe needs"
refused "--indep-pairwise 5 1 0.2 --hwe 0.5 foo" "unknown option 'foo'"
refused "--indep-pairwise 5 1 0.2 --hwe 0.5 --nonfounders" "--hwe with --nonfounders"
refused "--indep-pairwise 5 1 0.2 --mind 1.5" "--mind must be"
python3 "$here/gen_ld_data.py" m --samples 20 --snps 50 --chroms 1 --missing 0.3 || exit 1
"$gvk" ld --bfile m --indep-pairwise 5 1 0.2 --mind 0 --out o > out.txt 2>&1
[ $? -eq 1 ] && grep -q "removed every sample" out.txt && ! ls o.* > /dev/null 2>&1 && pass=$((pass + 1)) ||
	{ echo "FAIL --mind 0: $(head -1 out.txt)"; fail=$((fail + 1)); }
# accepted for comparison: both lists written
"$gvk" ld -q --bfile d --indep-pairwise 5 kb 1 0.2 --out ok && [ -e ok.prune.in ] && [ -e ok.prune.out ] && [ -e ok.log ] &&
	[ $(cat ok.prune.in ok.prune.out | wc -l) -eq 50 ] && pass=$((pass + 1)) || { echo "FAIL: accepted run"; fail=$((fail + 1)); }
# -v: each phase's time on stderr, and the same lists
"$gvk" ld -v --bfile d --indep-pairwise 5 kb 1 0.2 --out okv 2> v.txt && cmp -s ok.prune.in okv.prune.in &&
	grep -q "^gvk ld: reading the input [0-9.]* s$" v.txt && grep -q "^gvk ld: pruning [0-9.]* s$" v.txt &&
	grep -q "^gvk ld: writing the lists [0-9.]* s$" v.txt && pass=$((pass + 1)) || { echo "FAIL: -v"; fail=$((fail + 1)); }
# --isa scalar: the portable kernels, the same lists (pairwise and pairphase)
for opt in "--indep-pairwise 5 kb 1 0.2" "--indep-pairphase 5 1 0.2"; do
	# shellcheck disable=SC2086
	"$gvk" ld -q --bfile d $opt --out ia && "$gvk" ld -q --bfile d $opt --isa scalar --out is && cmp -s ia.prune.in is.prune.in &&
		cmp -s ia.prune.out is.prune.out && [ -s is.prune.out ] && pass=$((pass + 1)) || { echo "FAIL: --isa scalar $opt"; fail=$((fail + 1)); }
done
echo "ld_prune_errors: $pass passed, $fail failed"
[ $fail -eq 0 ]
