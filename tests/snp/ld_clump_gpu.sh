#!/bin/bash
# SPDX-License-Identifier: MIT
# --clump's GPU tables against the CPU's: test_clump_gpu on a small generated fileset with X and
# two association reports (clumps and r^2 exactly). The test program exits 77 (skipped) when no
# GPU answers. Usage: ld_clump_gpu.sh TEST_CLUMP_GPU
set -eu
test_bin=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 "$here/gen_ld_data.py" d --samples 70 --snps 120 --chroms 1,X --seed 3 --assoc a.assoc > /dev/null
python3 "$here/gen_ld_data.py" e --samples 10 --snps 120 --chroms 1,X --seed 9 --assoc b.assoc > /dev/null
"$test_bin" 'd' a.assoc b.assoc
