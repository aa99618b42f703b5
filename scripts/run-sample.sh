#!/bin/bash
# SPDX-License-Identifier: MIT
# The main job on bundled sample data: installs what is missing, builds, and computes the Pair-HMM
# likelihoods of the "10s" dataset (3,550 real HaplotypeCaller pairs) on the GPU when there is one,
# else on the CPU. Scores go to sample-10s.scores.txt; the summary line to stderr.
#
# GPU code is compiled only where an NVIDIA GPU is present (/dev/nvidia0, or `nvidia-smi -L`
# succeeds), since compiling the CUDA kernels takes most of a first run, or when asked for:
# GVK_GPU=cuda|hip|auto|off in the environment, or as a cmake argument (every argument goes on to
# scripts/build.sh, e.g. scripts/run-sample.sh -DGVK_GPU=cuda). A build without GPU code goes to
# build-cpu/, so that build/ keeps what scripts/test.sh builds there (CUDA whenever nvcc is found);
# GVK_BUILD_DIR names another directory. Only the gvk executable is built.
set -euo pipefail
cd "$(dirname "$0")/.."
gpu=${GVK_GPU:-}
for a in "$@"; do
	case $a in -DGVK_GPU=* | -DGVK_GPU:STRING=*) gpu=${a#*=} ;; esac
done
if [ -z "$gpu" ]; then
	gpu=off
	{ [ -e /dev/nvidia0 ] || nvidia-smi -L > /dev/null 2>&1; } && gpu=auto
	[ "$gpu" = off ] && echo "run-sample: no NVIDIA GPU here, building without GPU code (GVK_GPU=cuda builds it)" >&2
fi
dir=build
[ "$gpu" = off ] && dir=build-cpu
export GVK_BUILD_DIR=${GVK_BUILD_DIR:-$dir}
scripts/setup.sh
GVK_BUILD_TARGET=gvk scripts/build.sh -DGVK_GPU="$gpu" "$@"
"./$GVK_BUILD_DIR/src/gvk" pairhmm --device auto -o sample-10s.scores.txt tests/data/pairhmm/inputs/carneiro_10s.in
echo "first scores:" && head -3 sample-10s.scores.txt
