# SPDX-License-Identifier: MIT
# Sourced by the tests that run PLINK 1.9 beside gvk ld (ld_prune_plink.sh, ld_clump_plink.sh):
# plink is PLINK (plink1.9 unless set), the test skips (77) without it or python3, and runs in a
# temporary directory removed at exit, with the pass and fail counters at 0.
plink=${PLINK:-plink1.9}
command -v "$plink" > /dev/null || { echo "skipped: $plink is not installed (scripts/setup.sh installs it)"; exit 77; }
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
