#!/bin/bash
# SPDX-License-Identifier: MIT
# 'gvk --version' and 'gvk <command> --version' print the version, the commit, the GPU back end
# and architectures, each optional library (a version or "yes" when built in, "none" when left
# out), the CPU kernels and this CPU's instruction sets. FEATURE=0|1 arguments are what CMake
# configured (cuda, hip, htslib, zlib, cairo, mpi, jni); each is checked against its line.
# Usage: cli_version.sh GVK [FEATURE=0|1 ...]
set -u
gvk=$1 fail=0 pass=0
shift
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# feature NAME: the line's pattern when built in, and the line when left out
declare -A on=(
	[cuda]="^GPU back end: CUDA [0-9]+\.[0-9]+" [hip]="^GPU back end: HIP" [htslib]="^htslib: [0-9]"
	[zlib]="^zlib: [0-9]" [cairo]="^cairo: [0-9]" [mpi]="^MPI: [A-Za-z]" [jni]="^GKL drop-in JNI libraries: gkl_"
)
declare -A off=(
	[cuda]="^GPU back end: (none|HIP)$" [hip]="^GPU back end: (none|CUDA .*)$" [htslib]="^htslib: none$"
	[zlib]="^zlib: none$" [cairo]="^cairo: none$" [mpi]="^MPI: none$" [jni]="^GKL drop-in JNI libraries: none$"
)
for cmd in "" pairhmm align cnv ld fastid; do
	out=$("$gvk" $cmd --version) || { bad "gvk $cmd --version: exit status"; continue; }
	for key in "^gvk [0-9]+\.[0-9]+\.[0-9]+$" "^commit: [0-9a-f]" "^GPU back end: " "^GPU architectures: " "^htslib: " \
		"^zlib: " "^cairo: " "^MPI: " "^GKL drop-in JNI libraries: " "^CPU kernels: " "^CPU kernels used: pairhmm [a-z0-9]+, align [a-z0-9]+, ld/fastid [a-z0-9]+$" "^this CPU: "; do
		if grep -qE "$key" <<< "$out"; then pass=$((pass + 1)); else bad "gvk $cmd --version lacks /$key/"; fi
	done
	for f in "$@"; do
		name=${f%%=*} v=${f#*=}
		[ -n "${on[$name]:-}" ] || { bad "unknown feature argument '$f'"; continue; }
		case $v in 1 | ON | on | TRUE | true) want=${on[$name]} ;; *) want=${off[$name]} ;; esac
		if grep -qE "$want" <<< "$out"; then pass=$((pass + 1)); else bad "gvk $cmd --version: $name=$v wants /$want/ in: $(grep -E "${on[$name]%%:*}" <<< "$out")"; fi
	done
	# the GPU architectures follow the back end
	if grep -qx "GPU back end: none" <<< "$out"; then want="^GPU architectures: none"; else want="^GPU architectures: [a-z_]+[0-9]"; fi
	if grep -qE "$want" <<< "$out"; then pass=$((pass + 1)); else bad "gvk $cmd --version: GPU architectures do not follow the back end"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
