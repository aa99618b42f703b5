#!/bin/bash
# Prepares .carry/ (git-ignored) for the GPU host, which has no Java and no package registry: a
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
du -sh .carry
