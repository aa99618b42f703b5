#!/bin/bash
# SPDX-License-Identifier: MIT
# GATK's side on ARM: the real GKL jar in an aarch64 JVM (Debian's openjdk-17-jre-headless:arm64,
# unpacked into WORK, run under qemu-user) loads the aarch64 drop-in libraries through
# USE_LIBRARY_PATH and java.library.path, and the results are checked as on x86
# (tests/jni/jni_gkl.sh). Skips (77) without qemu, the cross toolchain's libstdc++ or the JRE.
# Usage: jni_arm.sh AARCH64_JNI_DIR DATADIR WORK MODE...
set -u
lib=$1 data=$2 work=$3
shift 3
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v qemu-aarch64 > /dev/null || { echo "SKIP: no qemu-aarch64"; exit 77; }
[ -f /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || { echo "SKIP: no aarch64 libstdc++ (g++-aarch64-linux-gnu)"; exit 77; }
mkdir -p "$work" || exit 1
jre=$work/jre/usr/lib/jvm/java-17-openjdk-arm64
# The JRE is unpacked, not installed: an arm64 JDK package would also register itself as the
# host's java.
if [ ! -x "$jre/bin/java" ]; then
	(cd "$work" && timeout 300 apt-get download -q openjdk-17-jre-headless:arm64 > /dev/null 2>&1 &&
		dpkg-deb -x openjdk-17-jre-headless_*_arm64.deb jre && rm -f openjdk-17-jre-headless_*_arm64.deb)
	[ -x "$jre/bin/java" ] || { echo "SKIP: no aarch64 JRE (apt-get download openjdk-17-jre-headless:arm64 failed)"; exit 77; }
fi
# Only libstdc++ from the cross toolchain: its C library hangs under qemu (cmake/aarch64-linux-gnu.cmake).
mkdir -p "$work/lib" "$work/bin"
ln -sf /usr/aarch64-linux-gnu/lib/libstdc++.so.6 "$work/lib/"
printf '#!/bin/sh\nexec qemu-aarch64 -E LD_LIBRARY_PATH=%s %s "$@"\n' "$work/lib" "$jre/bin/java" > "$work/bin/java"
chmod +x "$work/bin/java"
"$work/bin/java" -version > /dev/null 2>&1 || { echo "SKIP: the aarch64 JVM does not start under qemu"; exit 77; }
rc=0
for mode in "$@"; do
	out=$(PATH=$work/bin:$PATH "$src/tests/jni/jni_gkl.sh" "$lib" "$data" "$work/classes" "$mode" 2>&1)
	r=$?
	echo "$out" | grep -vE '^(WARNING|INFO): |^[A-Z][a-z]{2} [0-9]+, [0-9]{4} ' | tail -3
	if [ $r -eq 77 ]; then echo "SKIP: $mode"; [ $rc -eq 0 ] && rc=77; continue; fi
	if [ $r -ne 0 ]; then echo "FAIL: jni $mode in the aarch64 JVM"; rc=1; continue; fi
	echo "$out" | grep -q 'OVERRIDE DEFAULT: Loading libgkl_' || { echo "FAIL: jni $mode: GKL did not load gvk's libraries"; rc=1; }
done
exit $rc
