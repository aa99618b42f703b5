#!/bin/bash
# SPDX-License-Identifier: MIT
# The whole GPU back end (src/snp/snp_gpu.cu, src/ld/ld_gpu.cu, src/fastid/fastid_gpu.cu and their
# kernel headers, host code included) built against a CPU stand-in for the CUDA runtime (emu_cuda/cuda_runtime.h: host memory, one POSIX thread per
# CUDA thread) and run through test_snp_gpu's small cases, GPU path against CPU path. Slow (minutes); not part of ctest.
# Usage: gpu_backend_emu.sh SOURCE_DIR LIBGVK_A [extra link flags, e.g. -lz -lhts]
set -eu
src=$1 lib=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/emu_backend.sh"
emu_test "$src" "$tmp" "$src/tests/snp/test_snp_gpu.c" "$lib" "$@"
"$tmp/test" 1 small
