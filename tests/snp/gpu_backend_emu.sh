#!/bin/bash
# SPDX-License-Identifier: MIT
# The whole GPU back end (snp_gpu.cu and its kernel headers, host code included) built against a
# CPU stand-in for the CUDA runtime (emu_cuda/cuda_runtime.h: host memory, one POSIX thread per
# CUDA thread) and run through test_snp_gpu's small cases, GPU path against CPU path. Slow (minutes); not part of ctest.
# Usage: gpu_backend_emu.sh SOURCE_DIR LIBGVK_A [extra link flags, e.g. -lz -lhts]
set -eu
src=$1 lib=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The kernel headers rewritten beside the host code, where its #include lines find them first.
for f in snp_gpu.cu snp_gpu_bmma.cuh snp_gpu_kernels.cuh snp_gpu_mma.cuh; do
	perl -0pe 's/(\w+(?:<[\w, ]+>)?)<<<(.*?)>>>\((.*?)\);/emu_launch($2, [=] { $1($3); });/gs;
	           s/extern __shared__ uint64_t (\w+)\[\];/uint64_t *$1 = (uint64_t *)emu_dyn;/g' \
		"$src/src/snp/$f" > "$tmp/${f/snp_gpu.cu/snp_gpu_emu.cpp}"
done
c++ -O1 -ffp-contract=off -std=c++17 -Wno-unknown-pragmas -I"$src/tests/snp/emu_cuda" -I"$src/src/snp" -I"$src/src" -I"$src/include" \
	-c "$tmp/snp_gpu_emu.cpp" -o "$tmp/g.o"
# The GPU buffer helpers against the stand-in too (a CUDA build's copy in LIBGVK_A needs the real runtime).
cp "$src/src/common/cuda_mem.cu" "$tmp/cuda_mem_emu.cpp"
c++ -O1 -std=c++17 -I"$src/tests/snp/emu_cuda" -I"$src/src/common" -I"$src/src" -I"$src/include" \
	-c "$tmp/cuda_mem_emu.cpp" -o "$tmp/m.o"
cc -O1 -c -I"$src/src" -I"$src/include" "$src/tests/snp/test_snp_gpu.c" -o "$tmp/t.o"
c++ "$tmp/t.o" "$tmp/g.o" "$tmp/m.o" "$lib" -lpthread -lm "$@" -o "$tmp/test"
"$tmp/test" 1 small
