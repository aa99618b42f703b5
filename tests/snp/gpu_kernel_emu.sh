#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs the GPU kernels under a CPU emulation (gpu_kernel_emu.cpp). Skips (77) without a C++ compiler.
# Usage: gpu_kernel_emu.sh SOURCE_DIR
set -u
src=$1
cxx=$(command -v c++ || command -v g++) || { echo "skipped: no C++ compiler"; exit 77; }
cc=$(command -v cc || command -v gcc) || { echo "skipped: no C compiler"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat "$src/src/ld/ld_gpu_kernels.cuh" "$src/src/fastid/fastid_gpu_kernels.cuh" "$src/src/ld/ld_gpu_mma.cuh" \
	"$src/src/fastid/fastid_gpu_mma.cuh" |
	sed 's/extern __shared__ uint64_t \([a-z]*\)\[\];/uint64_t *\1 = (uint64_t *)emu_dyn;/' > "$tmp/kern.inc"
grep -q emu_dyn "$tmp/kern.inc" || { echo "FAIL: kernels of ld_gpu_*.cuh / fastid_gpu_*.cuh not found"; exit 1; }
"$cc" -O1 -c -I"$src/include" "$src/src/snp/popgemm_scalar.c" -o "$tmp/ps.o" &&
	"$cc" -O1 -ffp-contract=off -c -I"$src/include" "$src/src/ld/ld_stats.c" -o "$tmp/st.o" &&
	"$cxx" -O1 -ffp-contract=off -std=c++17 -Wno-unknown-pragmas -I"$src/src" -I"$src/include" -I"$src/tests/snp/emu_cuda" -DKERNELS="\"$tmp/kern.inc\"" \
		"$src/tests/snp/gpu_kernel_emu.cpp" "$tmp/ps.o" "$tmp/st.o" -o "$tmp/emu" -lpthread -lm || { echo "FAIL: build"; exit 1; }
"$tmp/emu"
