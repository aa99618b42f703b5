#!/bin/bash
# SPDX-License-Identifier: MIT
# Configures and builds gvk into build/ (Release; CUDA engines when nvcc is found).
# Extra arguments go to cmake, e.g. scripts/build.sh -DGVK_GPU=off. GVK_BUILD_DIR names another
# build directory; GVK_BUILD_TARGET builds that target alone (e.g. gvk) instead of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${GVK_BUILD_DIR:-build}
[ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null && export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=${GVK_BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)" ${GVK_BUILD_TARGET:+--target "$GVK_BUILD_TARGET"}
