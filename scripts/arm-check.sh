#!/bin/bash
# SPDX-License-Identifier: MIT
# The aarch64 cross build (cmake/aarch64-linux-gnu.cmake) and its reference tests under qemu-user:
# Pair-HMM against GKL's values, align against GATK's, LD and FastID against PLINK's and FastID's,
# CNV against cn.mops (docs/arm.md); with them the tests labelled arm (CNV's software x87 format
# and double-double t tail against x86's results, every popcount kernel against a naive count).
# Only the programs those tests run are built, so that the check fits CI's budget. QEMU_CPU picks
# the emulated CPU (default qemu's max: SVE at 512 bits; e.g. QEMU_CPU=max,sve256=on). Given the
# native build's gvk, every engine's outputs are also compared with the native ones byte for byte
# (scripts/arm-compare.sh); given its JNI folder, the GATK drop-in libraries are checked for the
# same Java entry points (tests/arm/jni_symbols.sh) and run under GKL's own jar in an aarch64 JVM
# (tests/arm/jni_arm.sh).
# Exit 77 (a skip) without the cross compiler or qemu.
# Usage: scripts/arm-check.sh [BUILD_DIR [NATIVE_GVK [NATIVE_JNI_DIR]]]   (default build-aarch64)
set -uo pipefail
cd "$(dirname "$0")/.."
for t in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
	command -v $t > /dev/null || { echo "SKIP: no $t (Debian: gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user; scripts/setup.sh installs them)"; exit 77; }
done
dir=${1:-build-aarch64} native=${2:-} jni=${3:-}
targets="gvk test_pairhmm_ref test_align_ref test_snp_ref test_snp_random test_cnv_cmp test_cnv_unit test_cnv_xf80"
[ -n "$jni" ] && targets="$targets gkl_pairhmm gkl_pairhmm_omp gkl_smithwaterman gkl_utils"
t0=$(date +%s)
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release > "$dir/arm-cmake.log" 2>&1 &&
	cmake --build "$dir" -j "$(nproc)" --target $targets > "$dir/arm-build.log" 2>&1 || { tail -20 "$dir/arm-cmake.log" "$dir/arm-build.log"; echo "FAIL: the aarch64 cross build"; exit 1; }
t1=$(date +%s)
echo "aarch64 cross build ($targets): $((t1 - t0)) s"
(cd "$dir" && ctest -L "reference|arm" -j "$(nproc)" --timeout 600 --output-on-failure)
rc=$?
t2=$(date +%s)
echo "aarch64 reference tests under qemu: rc=$rc, $((t2 - t1)) s"
if [ -n "$native" ]; then
	scripts/arm-compare.sh "$native" "$dir/emu/gvk" || rc=1
	echo "x86 / aarch64 output comparison: $(($(date +%s) - t2)) s"
fi
if [ -n "$jni" ]; then
	tests/arm/jni_symbols.sh "$jni" "$dir/jni" || rc=1
	# GKL's jar in an aarch64 JVM under qemu, loading these libraries (skipped without the JRE)
	t3=$(date +%s)
	tests/arm/jni_arm.sh "$dir/jni" "$PWD/tests/data" "$dir/jni-arm" omp sw
	r=$?
	[ $r -eq 0 ] || [ $r -eq 77 ] || rc=1
	echo "GKL in an aarch64 JVM: rc=$r, $(($(date +%s) - t3)) s"
fi
exit $rc
