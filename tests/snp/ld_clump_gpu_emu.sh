#!/bin/bash
# SPDX-License-Identifier: MIT
# --clump's GPU path on a machine without a GPU: the GPU back end built against the CPU stand-in
# for the CUDA runtime (emu_backend.sh, as gpu_backend_emu.sh does) and run through test_clump_gpu on a small generated fileset with X and two association
# reports: GPU tables against CPU tables, clumps and r^2 exactly.
# Usage: ld_clump_gpu_emu.sh SOURCE_DIR LIBGVK_A [extra link flags]
set -eu
src=$1 lib=$2; shift 2
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
command -v c++ > /dev/null || { echo "skipped: no C++ compiler for the emulated back end"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/emu_backend.sh"
emu_test "$src" "$tmp" "$src/tests/snp/test_clump_gpu.c" "$lib" "$@"
cd "$tmp"
python3 "$src/tests/snp/gen_ld_data.py" d --samples 70 --snps 120 --chroms 1,X --seed 3 --assoc a.assoc > /dev/null
python3 "$src/tests/snp/gen_ld_data.py" e --samples 10 --snps 120 --chroms 1,X --seed 9 --assoc b.assoc > /dev/null
./test 'd' a.assoc b.assoc
