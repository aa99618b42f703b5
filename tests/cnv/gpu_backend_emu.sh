#!/bin/bash
# SPDX-License-Identifier: MIT
# The whole GPU back end of the CNV EM (cnv_em_gpu.cu, host code included: chunking, packing,
# unpacking, shortcut overwrite, halving on out of memory) built against a CPU stand-in for the
# CUDA runtime (emu_cuda/cuda_runtime.h) and run through test_cnv_em_gpu's GPU mode. The stand-in
# uses glibc's math, so the tolerance of that mode is met with room to spare.
# Usage: gpu_backend_emu.sh SOURCE_DIR LIBGVK_A [extra link flags]
set -eu -o pipefail
src=$1 lib=$2; shift 2
command -v c++ > /dev/null && command -v perl > /dev/null || { echo "skip: needs c++ and perl"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
perl -0pe 's/(\w+<\w+>)<<<([^,]+),\s*([^,]+),\s*[^,]+,\s*.*?>>>\((.*?)\);/emu_launch($2, $3, [=] { $1($4); });/gs' \
	"$src/src/cnv/cnv_em_gpu.cu" > "$tmp/cnv_em_gpu_emu.cpp"
grep -q emu_launch "$tmp/cnv_em_gpu_emu.cpp" || { echo "the kernel launches were not rewritten"; exit 1; }
c++ -O2 -std=c++17 -ffp-contract=off -Wall -Wno-unused-function -I"$src/tests/cnv/emu_cuda" -I"$src/src/cnv" \
	-I"$src/src" -I"$src/include" -c "$tmp/cnv_em_gpu_emu.cpp" -o "$tmp/g.o"
cc -O2 -ffp-contract=off -c -I"$src/src" -I"$src/include" "$src/tests/cnv/test_cnv_em_gpu.c" -o "$tmp/t.o"
c++ "$tmp/t.o" "$tmp/g.o" "$lib" -lpthread -lm "$@" -o "$tmp/test"
"$tmp/test" gpu | tail -n 1
# Device memory for no more than a few hundred regions: the chunk is halved until it fits.
out=$(EMU_CUDA_MALLOC_LIMIT=60000 "$tmp/test" gpu 2> "$tmp/err") || { echo "$out" | tail; cat "$tmp/err"; exit 1; }
echo "$out" | tail -n 1
grep -q "GPU memory short" "$tmp/err" || { echo "no chunk halving happened"; exit 1; }
