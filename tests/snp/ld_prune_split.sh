#!/bin/bash
# SPDX-License-Identifier: MIT
# test_prune_split on filesets from gen_ld_data.py: several chromosomes (X with haploid males),
# missing calls, and one without a missing call.
# Usage: ld_prune_split.sh TEST_PRUNE_SPLIT
set -u
test_bin=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
python3 "$here/gen_ld_data.py" d --samples 120 --snps 1500 --chroms 1,X,2 --seed 11 --missing 0.03 > /dev/null || exit 1
python3 "$here/gen_ld_data.py" f --samples 60 --snps 1200 --chroms 4 --seed 12 --missing 0 > /dev/null || exit 1
for p in d f; do
	"$test_bin" "$p" || exit 1
done
