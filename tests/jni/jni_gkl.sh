#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the Java client GvkJniCheck against gvk's GKL drop-in libraries through the real GKL jar.
# usage: jni_gkl.sh LIBDIR DATADIR WORKDIR MODE [ARG...]; exit 77 (skip) without a JDK or the jars.
# MODE: pairhmm | omp | double | sw | threads [N] | errors | time [GKL_LIBDIR [PAIRS [THREADS [ROUNDS]]]]
set -u
lib=$1 data=$2 work=$3 mode=$4
shift 4
jars=${GVK_GKL_JARS:-/usr/share/java}
# The test installs what it lacks where it can (root, apt-get; GVK_JNI_APT=0 turns that off). On a
# machine without package access apt-get fails quickly and the test skips.
missing=
command -v javac >/dev/null 2>&1 || missing=1
for j in gkl gatk-native-bindings htsjdk commons-logging; do [ -f "$jars/$j.jar" ] || missing=1; done
if [ -n "$missing" ] && [ "${GVK_JNI_APT:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing a JDK and the GKL jars with apt-get" >&2
	DEBIAN_FRONTEND=noninteractive timeout 240 apt-get install -y -qq --no-install-recommends default-jdk-headless \
		libgkl-java libhtsjdk-java libgatk-native-bindings-java libcommons-logging-java >/dev/null 2>&1
fi
# A machine with only a JRE (the GPU host gets a jlink'd one) runs classes compiled elsewhere and
# copied into WORKDIR.
prebuilt=
[ -f "$work/GvkJniCheck.class" ] && [ -f "$work/GvkJniTime.class" ] && command -v java >/dev/null 2>&1 && prebuilt=1
command -v javac >/dev/null 2>&1 || [ -n "$prebuilt" ] || { echo "SKIP: no JDK (apt-get install default-jdk-headless)"; exit 77; }
cp=
for j in gkl gatk-native-bindings htsjdk commons-logging; do
	f=$jars/$j.jar
	[ -f "$f" ] || { echo "SKIP: $f missing (apt-get install libgkl-java libgatk-native-bindings-java libhtsjdk-java libcommons-logging-java)"; exit 77; }
	cp=$cp${cp:+:}$f
done
dir=$(dirname "$0")
mkdir -p "$work"
# One compile shared by the tests; a lock keeps parallel ctest runs from racing on it.
command -v javac >/dev/null 2>&1 && (
	flock 9
	for c in GvkJniCheck GvkJniTime; do
		if [ ! -f "$work/$c.class" ] || [ "$dir/$c.java" -nt "$work/$c.class" ]; then
			javac -nowarn -cp "$cp" -d "$work" "$dir/$c.java" || exit 1
		fi
	done
) 9>"$work/.lock" || { command -v javac >/dev/null 2>&1 && { echo "FAIL: javac"; exit 1; }; }
if [ "$mode" = time ]; then
	# time GKL_LIBDIR [PAIRS [THREADS [ROUNDS]]]: gvk against GKL's own library in one JVM. The GKL
	# jar is given to a class loader of its own, so it stays off the class path.
	gkl=${1:-/usr/lib/jni}
	[ -f "$gkl/libgkl_pairhmm_omp.so" ] || { echo "SKIP: GKL's libgkl_pairhmm_omp.so not in $gkl (apt-get install libgkl-jni)"; exit 77; }
	[ $# -gt 0 ] && shift
	USE_LIBRARY_PATH=1 exec java -Xss8m -cp "$work:$jars/gatk-native-bindings.jar:$jars/commons-logging.jar" GvkJniTime \
		"$data" "$jars/gkl.jar" "$lib" "$gkl" "$@"
fi
# Exactly as GATK is run with a replacement GKL: USE_LIBRARY_PATH and java.library.path.
USE_LIBRARY_PATH=1 exec java -Xss8m -Djava.library.path="$lib" -cp "$work:$cp" GvkJniCheck "$mode" "$data" "$lib" "$@"
