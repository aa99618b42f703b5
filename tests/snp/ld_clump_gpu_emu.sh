#!/bin/bash
# SPDX-License-Identifier: MIT
# --clump's GPU path on a machine without a GPU: the GPU back end (snp_gpu.cu and its kernel
# headers) built against the CPU stand-in for the CUDA runtime (emu_cuda/, as gpu_backend_emu.sh
# does) and run through test_clump_gpu on a small generated fileset with X and two association
# reports: GPU tables against CPU tables, clumps and r^2 exactly.
# Usage: ld_clump_gpu_emu.sh SOURCE_DIR LIBGVK_A [extra link flags]
set -eu
src=$1 lib=$2; shift 2
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
command -v c++ > /dev/null || { echo "skipped: no C++ compiler for the emulated back end"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in snp_gpu.cu snp_gpu_bmma.cuh snp_gpu_kernels.cuh snp_gpu_mma.cuh snp_gpu_clump.cuh; do
	perl -0pe 's/(\w+(?:<[\w, ]+>)?)<<<(.*?)>>>\((.*?)\);/emu_launch($2, [=] { $1($3); });/gs;
	           s/extern __shared__ uint64_t (\w+)\[\];/uint64_t *$1 = (uint64_t *)emu_dyn;/g' \
		"$src/src/snp/$f" > "$tmp/${f/snp_gpu.cu/snp_gpu_emu.cpp}"
done
c++ -O1 -ffp-contract=off -std=c++17 -Wno-unknown-pragmas -I"$src/tests/snp/emu_cuda" -I"$src/src/snp" -I"$src/src" \
	-I"$src/include" -c "$tmp/snp_gpu_emu.cpp" -o "$tmp/g.o"
cp "$src/src/common/cuda_mem.cu" "$tmp/cuda_mem_emu.cpp"
c++ -O1 -std=c++17 -I"$src/tests/snp/emu_cuda" -I"$src/src/common" -I"$src/src" -I"$src/include" \
	-c "$tmp/cuda_mem_emu.cpp" -o "$tmp/m.o"
cc -O1 -c -I"$src/src" -I"$src/include" "$src/tests/snp/test_clump_gpu.c" -o "$tmp/t.o"
c++ "$tmp/t.o" "$tmp/g.o" "$tmp/m.o" "$lib" -lpthread -lm "$@" -o "$tmp/test"
cd "$tmp"
python3 "$src/tests/snp/gen_ld_data.py" d --samples 70 --snps 120 --chroms 1,X --seed 3 --assoc a.assoc > /dev/null
python3 "$src/tests/snp/gen_ld_data.py" e --samples 10 --snps 120 --chroms 1,X --seed 9 --assoc b.assoc > /dev/null
./test 'd' a.assoc b.assoc
