#!/bin/bash
# SPDX-License-Identifier: MIT
# The aarch64 cross build (cmake/aarch64-linux-gnu.cmake) and its reference tests under qemu-user:
# Pair-HMM against GKL's values, align against GATK's, LD and FastID against PLINK's and FastID's,
# CNV against cn.mops (docs/arm.md). Exit 77 (a skip) without the cross compiler or qemu.
# Usage: scripts/arm-check.sh [BUILD_DIR]   (default build-aarch64)
set -uo pipefail
cd "$(dirname "$0")/.."
for t in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
	command -v $t > /dev/null || { echo "SKIP: no $t (Debian: gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user; scripts/setup.sh installs them)"; exit 77; }
done
dir=${1:-build-aarch64}
t0=$(date +%s)
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release > "$dir.cmake.log" 2>&1 &&
	cmake --build "$dir" -j "$(nproc)" > "$dir.build.log" 2>&1 || { tail -20 "$dir.cmake.log" "$dir.build.log"; echo "FAIL: the aarch64 cross build"; exit 1; }
t1=$(date +%s)
echo "aarch64 cross build: $((t1 - t0)) s"
(cd "$dir" && ctest -L reference -j "$(nproc)" --timeout 600 --output-on-failure)
rc=$?
echo "aarch64 reference tests under qemu: rc=$rc, $(($(date +%s) - t1)) s"
exit $rc
