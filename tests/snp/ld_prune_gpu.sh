#!/bin/bash
# SPDX-License-Identifier: MIT
# --indep-pairwise and --indep-pairphase with the GPU counting the pairs against the CPU path, on
# filesets from gen_ld_data.py (several chromosomes, X with haploid males, MT, missing calls, and
# one without a missing call): test_prune_gpu's grid of windows (variants and kb), steps,
# thresholds and threads, pruned flags compared exactly. With GVK (a build with a GPU back end),
# also gvk ld --device gpu against --device cpu: the same .prune.in / .prune.out, byte for byte.
# The test program exits 77 (skipped) when no GPU answers.
# Usage: ld_prune_gpu.sh TEST_PRUNE_GPU [GVK]
set -u
test_bin=$1 gvk=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 "$here/gen_ld_data.py" d --samples 130 --snps 150 --chroms 1,X,2,26 --seed 5 --missing 0.03 > /dev/null || exit 1
python3 "$here/gen_ld_data.py" f --samples 70 --snps 150 --chroms 3,X --seed 6 --missing 0 > /dev/null || exit 1
for p in d f; do
	"$test_bin" "$p" || exit $?
done
[ -n "$gvk" ] || exit 0
fail=0
for opt in "--indep-pairwise 50 5 0.2" "--indep-pairwise 30kb 2 0.3" "--indep-pairphase 10 3 0.5" \
	"--indep-pairphase 100 kb 10 0.8" "--indep-pairwise 20 1 0 --threads 3"; do
	# shellcheck disable=SC2086
	"$gvk" ld -q --bfile d $opt --device cpu --out c > /dev/null 2>&1 &&
		"$gvk" ld -q --bfile d $opt --device gpu --out g > g.err 2>&1 ||
		{ echo "FAIL $opt: $(head -2 g.err)"; fail=1; continue; }
	if cmp -s c.prune.in g.prune.in && cmp -s c.prune.out g.prune.out && [ -s c.prune.out ]; then
		echo "ok gvk ld $opt: $(wc -l < g.prune.out) pruned, the same lists on the GPU"
	else
		echo "FAIL gvk ld $opt: the lists differ"; fail=1
	fi
done
exit $fail
