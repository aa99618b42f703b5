#!/bin/bash
# SPDX-License-Identifier: MIT
# The main job on bundled sample data: installs what is missing, builds, and computes the Pair-HMM
# likelihoods of the "10s" dataset (3,550 real HaplotypeCaller pairs) on the GPU when there is one,
# else on the CPU. Scores go to sample-10s.scores.txt; the summary line to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
./build/src/gvk pairhmm --device auto -o sample-10s.scores.txt tests/data/pairhmm/inputs/carneiro_10s.in
echo "first scores:" && head -3 sample-10s.scores.txt
