#!/bin/bash
# SPDX-License-Identifier: MIT
# Compiles every CUDA source of gvk for an aarch64 host (NVIDIA Grace) with the cross compiler as
# nvcc's host compiler: objects only, checked to be AArch64 code. Linking gvk for such a host needs
# the toolkit's aarch64 server target (targets/sbsa-linux: its libcudart and headers), which NVIDIA
# ships in its cross-linux-sbsa repository (cuda-cross-sbsa-<version>); with it installed the
# objects use its headers, without it the x86-64 target's (docs/arm.md, GPU on ARM hosts). Exit 77
# without nvcc or the cross compiler.
# Usage: scripts/arm-cuda-compile.sh [OUT_DIR] [SM]   (defaults build-aarch64-cuda, 90)
set -uo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "SKIP: no nvcc (a CUDA toolkit; set NVCC to its nvcc)"; exit 77; }
command -v aarch64-linux-gnu-g++ > /dev/null || { echo "SKIP: no aarch64-linux-gnu-g++ (Debian: g++-aarch64-linux-gnu)"; exit 77; }
cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
out=${1:-build-aarch64-cuda} sm=${2:-90}
inc=$cuda/targets/sbsa-linux/include sbsa=yes
[ -d "$inc" ] || inc=$cuda/targets/x86_64-linux/include sbsa=no
mkdir -p "$out" || exit 1
fail=0
for cu in $(find src -name '*.cu' | sort); do
	# the numerics each engine states in its .cmake (src/pairhmm/pairhmm.cmake, src/cnv/cnv.cmake)
	case $cu in
	src/pairhmm/*) opts="-ftz=true -fmad=false -prec-div=true -prec-sqrt=true" ;;
	src/cnv/*) opts="-fmad=false -prec-div=true -prec-sqrt=true -ftz=false" ;;
	*) opts= ;;
	esac
	o=$out/$(basename "$cu" .cu).o
	if "$nvcc" -ccbin aarch64-linux-gnu-g++ -I"$inc" -Iinclude -Isrc -DGVK_HAVE_CUDA -O3 -arch=sm_$sm $opts \
		-Xcompiler -ffp-contract=off -c "$cu" -o "$o" 2> "$o.log" && readelf -h "$o" | grep -q 'Machine: *AArch64'; then
		echo "ok: $cu"
	else
		echo "FAIL: $cu"; tail -5 "$o.log"; fail=$((fail + 1))
	fi
done
if [ $sbsa = yes ]; then
	echo "CUDA sources compiled for an aarch64 host (sm_$sm, headers $inc): $fail failures; objects only (link them in a build for the target)"
else
	echo "CUDA sources compiled for an aarch64 host (sm_$sm, headers $inc): $fail failures; not linkable here: no $cuda/targets/sbsa-linux (NVIDIA's cuda-cross-sbsa)"
fi
[ $fail -eq 0 ]
