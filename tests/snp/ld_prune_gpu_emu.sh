#!/bin/bash
# SPDX-License-Identifier: MIT
# The GPU pruning path on a machine without a GPU: the GPU back end built against the CPU
# stand-in for the CUDA runtime (emu_backend.sh) and linked into test_prune_gpu, then run by
# ld_prune_gpu.sh (GPU = CPU, exactly). Usage: ld_prune_gpu_emu.sh SOURCE_DIR LIBGVK_A [extra link flags]
set -eu
src=$1 lib=$2; shift 2
command -v c++ > /dev/null || { echo "skipped: no C++ compiler for the emulated back end"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/emu_backend.sh"
emu_test "$src" "$tmp" "$src/tests/snp/test_prune_gpu.c" "$lib" "$@"
"$src/tests/snp/ld_prune_gpu.sh" "$tmp/test"
