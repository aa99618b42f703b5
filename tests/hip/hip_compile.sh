#!/bin/sh
# SPDX-License-Identifier: MIT
# The AMD (HIP) build of every engine's GPU code compiles, warning-free, for each target of
# GVK_HIP_ARCHS, with the flags of cmake/gvk_hip.cmake (no GPU needed: device code is compiled,
# not run), at -O3 as the build compiles them (the level first: hipcc lets a later -O3 turn the SLP
# vectorizer back on). Skips when hipcc is absent.
# Usage: hip_compile.sh SRC_DIR "ARCHS" "FLAGS" "FTZ_FLAGS" SOURCE...  (SOURCE relative to SRC_DIR/src;
# ftz:SOURCE also gets FTZ_FLAGS)
src=$1 archs=$2 flags=$3 ftzflags=$4
shift 4
command -v hipcc > /dev/null || { echo "skip: no hipcc (Debian: apt-get install hipcc libamdhip64-dev)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
targets=""
for a in $archs; do targets="$targets --offload-arch=$a"; done
fail=0
for f in "$@"; do
	extra=""
	case $f in ftz:*) f=${f#ftz:} extra=$ftzflags ;; esac
	o="$tmp/$(basename "$f" .cu).o"
	# shellcheck disable=SC2086 # flag lists split on purpose
	if ! hipcc -x hip $targets -O3 $flags $extra -Werror -I"$src/include" -I"$src/src" -c "$src/src/$f" -o "$o" \
		> "$tmp/log" 2>&1; then
		echo "FAIL: $f does not compile for$targets"
		cat "$tmp/log"
		fail=1
		continue
	fi
	if [ -s "$tmp/log" ]; then
		echo "FAIL: $f: compiler output"
		cat "$tmp/log"
		fail=1
		continue
	fi
	# Every target's code object is in the fat binary of a file that launches kernels (host-only
	# files have none).
	archs_here=""
	if grep -q "<<<" "$src/src/$f"; then archs_here=$archs; fi
	for a in $archs_here; do
		if ! grep -q "amdgcn-amd-amdhsa--$a" "$o"; then
			echo "FAIL: $f: no $a code object"
			fail=1
		fi
	done
	echo "ok: $f"
done
exit $fail
