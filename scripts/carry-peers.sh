#!/bin/bash
# SPDX-License-Identifier: MIT
# Prepares .carry/gpupairhmm/ (git-ignored, never committed) for the GPU host, which has nvcc but no
# network: the source of gpuPairHMM (github.com/asbschmidt/gpuPairHMM, MIT), the GPU Pair-HMM that
# scripts/gpu-check.sh's peers stage times against gvk on the same inputs and GPU. It is exported
# from a local mirror (a bare git directory) and built on the GPU host; none of it enters our tree.
# Usage: scripts/carry-peers.sh [-n]   (-n: dry run, say what would be done)
# GVK_PEERS_MIRROR: the mirror (default /work/.mirror/asbschmidt+gpuPairHMM/repo).
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0; [ "${1:-}" = -n ] && dry=1
mirror=${GVK_PEERS_MIRROR:-/work/.mirror/asbschmidt+gpuPairHMM/repo}
dest=.carry/gpupairhmm
run() { if [ $dry = 1 ]; then echo "would run: $*"; else "$@"; fi; }

git --git-dir="$mirror" rev-parse --verify -q HEAD > /dev/null || { echo "carry-peers: no git repository at $mirror" >&2; exit 1; }
# The carried tree must stay out of git: refuse if .gitignore stopped covering it.
git check-ignore -q "$dest/Makefile" || { echo "carry-peers: $dest is not ignored by git; not copying" >&2; exit 1; }
commit=$(git --git-dir="$mirror" rev-parse HEAD)
run rm -rf "$dest"
run mkdir -p "$dest"
if [ $dry = 1 ]; then
	echo "would run: git --git-dir=$mirror archive HEAD | tar -x -C $dest"
	echo "would write $dest/COMMIT: $commit"
else
	git --git-dir="$mirror" archive HEAD | tar -x -C "$dest"
	echo "$commit" > "$dest/COMMIT"
fi
# What the peers stage needs from it: the Makefile's GPUARCH/TUNINGARCH and the batch-time line.
for f in Makefile main.cu gpuworker.cuh; do
	git --git-dir="$mirror" cat-file -e "HEAD:$f" 2>/dev/null || { echo "carry-peers: $f missing in the mirror" >&2; exit 1; }
done
[ $dry = 1 ] || du -sh "$dest"
echo "gpuPairHMM $commit -> $dest (built on the GPU host by scripts/gpu-check.sh peers)"
