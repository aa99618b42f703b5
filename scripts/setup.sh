#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs what building and testing gvk needs on Debian/Ubuntu, if missing. Safe to run again.
set -euo pipefail
need=()
command -v cc >/dev/null || need+=(build-essential)
command -v cmake >/dev/null || need+=(cmake)
command -v python3 >/dev/null || need+=(python3)
command -v gzip >/dev/null || need+=(gzip)
# clang (with libFuzzer) builds the fuzz targets of tests/fuzz; without it their tests skip.
# hipcc and libamdhip64-dev: the AMD (HIP) compile test of tests/hip (docs/hip.md).
# With arm64 added, Debian's dpkg -s wants the host's zlib named with its architecture.
host=$(dpkg --print-architecture 2>/dev/null || true)
for pkg in clang help2man man-db hipcc libamdhip64-dev "zlib1g-dev${host:+:$host}" libhts-dev pkg-config samtools bcftools tabix libcairo2-dev plink1.9 default-jdk-headless libgkl-java libgkl-jni libhtsjdk-java libgatk-native-bindings-java libcommons-logging-java libopenmpi-dev openmpi-bin python3-numpy python3-pytest python3-venv python3-pip; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
# The aarch64 cross build and its tests under qemu-user (tests/arm, docs/arm.md): the cross
# compilers, qemu, and the target's zlib and C library (libc6:arm64, whose loader qemu runs the
# tests with) from Debian's arm64 architecture.
cross=()
for pkg in gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user zlib1g-dev:arm64; do
	dpkg -s "$pkg" >/dev/null 2>&1 || cross+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && [ ${#cross[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
	echo "setup: please install: ${need[*]} ${cross[*]}" >&2
	exit 0
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "setup: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || true
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || {
	echo "setup: some packages could not be installed (${need[*]}); building with what is there" >&2
}
# In a second step, so that a mirror without arm64 costs only the cross tests (they skip).
if [ ${#cross[@]} -gt 0 ]; then
	echo "setup: installing ${cross[*]}" >&2
	$sudo dpkg --add-architecture arm64 && $sudo apt-get update -qq >/dev/null || true
	$sudo apt-get install -y -qq --no-install-recommends "${cross[@]}" >/dev/null ||
		echo "setup: the aarch64 cross tools could not be installed (${cross[*]}); the cross tests skip" >&2
fi
