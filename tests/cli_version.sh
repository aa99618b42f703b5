#!/bin/bash
# SPDX-License-Identifier: MIT
# 'gvk --version' and 'gvk <command> --version' print the version, the commit, the CUDA
# architectures, the htslib version and the CPU instruction sets. Usage: cli_version.sh GVK
set -u
gvk=$1 fail=0 pass=0
for cmd in "" pairhmm align cnv ld fastid; do
	out=$("$gvk" $cmd --version) || { echo "FAIL: gvk $cmd --version: exit status"; fail=$((fail + 1)); continue; }
	for key in "^gvk [0-9]+\.[0-9]+\.[0-9]+$" "^commit: [0-9a-f]" "^GPU architectures: " "^htslib: " "^CPU kernels: " "^this CPU: "; do
		if grep -qE "$key" <<< "$out"; then pass=$((pass + 1)); else echo "FAIL: gvk $cmd --version lacks /$key/"; fail=$((fail + 1)); fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
