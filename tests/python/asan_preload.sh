# SPDX-License-Identifier: MIT
# Sourced by the Python tests: a sanitizer build's libgvk needs its runtime loaded before the
# interpreter's own libraries; Python's allocations are not ours to leak-check. Needs $lib.
if ldd "$lib" 2> /dev/null | grep -q libasan; then
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	[ -f "$asan" ] || { echo "SKIP: libgvk.so is built with ASan and libasan.so was not found"; exit 77; }
	ubsan=$(${CC:-cc} -print-file-name=libubsan.so); [ -f "$ubsan" ] || ubsan=
	export LD_PRELOAD="$asan${ubsan:+ $ubsan}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
