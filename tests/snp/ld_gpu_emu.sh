#!/bin/bash
# SPDX-License-Identifier: MIT
# An LD GPU path on a machine without a GPU: the GPU back end built against the CPU stand-in for
# the CUDA runtime (emu_backend.sh, as gpu_backend_emu.sh does), linked into test_WHAT_gpu.c and
# run by ld_WHAT_gpu.sh, which compares it with the CPU path exactly (WHAT: clump, for --clump's
# tables; prune, for --indep-pairwise / --indep-pairphase).
# Usage: ld_gpu_emu.sh WHAT SOURCE_DIR LIBGVK_A [extra link flags]
set -eu
what=$1 src=$2 lib=$3; shift 3
command -v c++ > /dev/null || { echo "skipped: no C++ compiler for the emulated back end"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/emu_backend.sh"
emu_test "$src" "$tmp" "$src/tests/snp/test_${what}_gpu.c" "$lib" "$@"
"$src/tests/snp/ld_${what}_gpu.sh" "$tmp/test"
