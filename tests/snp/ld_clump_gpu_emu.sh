#!/bin/bash
# SPDX-License-Identifier: MIT
# --clump's GPU path on a machine without a GPU: the GPU back end built against the CPU stand-in
# for the CUDA runtime (emu_backend.sh, as gpu_backend_emu.sh does), linked into test_clump_gpu
# and run by ld_clump_gpu.sh: GPU tables against CPU tables, clumps and r^2 exactly.
# Usage: ld_clump_gpu_emu.sh SOURCE_DIR LIBGVK_A [extra link flags]
set -eu
src=$1 lib=$2; shift 2
command -v c++ > /dev/null || { echo "skipped: no C++ compiler for the emulated back end"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/emu_backend.sh"
emu_test "$src" "$tmp" "$src/tests/snp/test_clump_gpu.c" "$lib" "$@"
"$src/tests/snp/ld_clump_gpu.sh" "$tmp/test"
