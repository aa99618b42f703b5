#!/bin/bash
# SPDX-License-Identifier: MIT
# The GATK drop-in libraries of the aarch64 cross build against the native ones: the same file
# names, AArch64 code, and the same exported symbols (the Java_com_intel_gkl_* entry points GKL's
# classes bind to, and JNI_OnLoad/JNI_OnUnload), read with readelf (docs/gatk.md, ARM).
# Usage: jni_symbols.sh NATIVE_JNI_DIR AARCH64_JNI_DIR
set -u
nat=$1 arm=$2
command -v readelf > /dev/null || { echo "SKIP: no readelf"; exit 77; }
exports() { readelf --dyn-syms -W "$1" | awk '$5 == "GLOBAL" && $7 != "UND" { print $4, $8 }' | sort; }
fail=0 n=0
for lib in "$nat"/libgkl_*.so; do
	name=${lib##*/}
	a=$arm/$name
	[ -f "$a" ] || { echo "FAIL: no $a"; fail=$((fail + 1)); continue; }
	readelf -h "$a" | grep -q 'Machine: *AArch64' || { echo "FAIL: $a is not AArch64 code"; fail=$((fail + 1)); continue; }
	want=$(exports "$lib") got=$(exports "$a")
	[ -n "$want" ] || { echo "FAIL: $lib exports nothing"; fail=$((fail + 1)); continue; }
	if [ "$want" = "$got" ]; then
		n=$((n + $(echo "$want" | wc -l)))
	else
		echo "FAIL: $name exports differ (< native, > aarch64):"; diff <(echo "$want") <(echo "$got") | head; fail=$((fail + 1))
	fi
done
[ -n "$(ls "$nat"/libgkl_*.so 2> /dev/null)" ] || { echo "FAIL: no libgkl_*.so in $nat"; exit 1; }
echo "JNI libraries: $n exported symbols the same on x86-64 and aarch64, $fail failures"
[ $fail -eq 0 ]
