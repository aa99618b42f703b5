#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds and runs test_warp_emu.cpp: the Pair-HMM GPU kernels on a simulated warp of 32 and 64
# lanes against the CPU engine (the tables and the scalar kernel come from libgvk.a).
# Usage: warp_emu.sh SRC_DIR LIBGVK_A [EXTRA_FLAGS]   (EXTRA_FLAGS: the library's -fsanitize=...)
src=$1 lib=$2 extra=${3:-}
cxx=$(command -v c++ || command -v g++) || { echo "skip: no C++ compiler"; exit 77; }
case $(uname -m) in x86_64|amd64) ;; *) echo "skip: the test sets x86's MXCSR for flush-to-zero"; exit 77 ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$cxx" -O2 -std=c++17 -ffp-contract=off -Wall -Wextra -Wno-unknown-pragmas -Wno-unused-parameter -DPHMM_GPU_BLOCK=64 $extra \
	-I"$src/src" -I"$src/include" -I"$src/tests/hip" "$src/tests/hip/test_warp_emu.cpp" "$lib" -lpthread -lm \
	-o "$tmp/test" || exit 1
"$tmp/test" 7
