#!/bin/bash
# SPDX-License-Identifier: MIT
# Prepares .carry/ (git-ignored) for the GPU host, which has no Java, no htslib and no package registry: a
# jlink'd JRE (java.base + java.logging, ~34 MB), the GKL jar and its dependencies, and the Java
# test clients compiled here. scripts/gpu-check.sh's jni stage uses them.
set -euo pipefail
cd "$(dirname "$0")/.."
jars=${GVK_GKL_JARS:-/usr/share/java}
rm -rf .carry/jre .carry/jars .carry/jniclasses .carry/jdk-include
mkdir -p .carry/jars .carry/jniclasses .carry/jdk-include/linux
# The JNI headers, so that the GPU host builds the drop-in libraries.
jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
cp "$jdk/include/jni.h" .carry/jdk-include/ && cp "$jdk/include/linux/jni_md.h" .carry/jdk-include/linux/
jlink --add-modules java.base,java.logging --strip-debug --no-header-files --no-man-pages --compress=2 --output .carry/jre
cp=
for j in gkl gatk-native-bindings htsjdk commons-logging; do
	cp -L "$jars/$j.jar" .carry/jars/
	cp=$cp${cp:+:}$jars/$j.jar
done
javac -nowarn --release 17 -cp "$cp" -d .carry/jniclasses tests/jni/GvkJniCheck.java tests/jni/GvkJniTime.java
# htslib and the libraries it loads (not libc/libz), for BAM counting and VCF input there.
rm -rf .carry/htslib && mkdir -p .carry/htslib/lib .carry/htslib/include
cp -r /usr/include/htslib .carry/htslib/include/
for l in $(ldd /usr/lib/x86_64-linux-gnu/libhts.so.3 | awk '$3 ~ /^\// {print $3}' | grep -vE '/(libc|libm|libz)\.so'); do cp -L "$l" .carry/htslib/lib/; done
cp -L /usr/lib/x86_64-linux-gnu/libhts.so.3 .carry/htslib/lib/ && cp .carry/htslib/lib/libhts.so.3 .carry/htslib/lib/libhts.so  # a copy: links may not travel
du -sh .carry
