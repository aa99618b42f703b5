#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds and runs the whole test suite through ctest. GPU tests run when
# a GPU is usable and are skipped (with the reason) otherwise. GVK_BUILD_TYPE=Sanitize runs the
# suite under AddressSanitizer and UBSan in build-sanitize/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${GVK_BUILD_TYPE:-}" = Sanitize ]; then
	export GVK_BUILD_DIR=${GVK_BUILD_DIR:-build-sanitize}
	export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
	scripts/build.sh -DGVK_GPU=off
else
	scripts/build.sh
fi
dir=${GVK_BUILD_DIR:-build}
rc=0
(cd "$dir" && ctest --output-on-failure -j "$(nproc)") 2>&1 | tee "$dir/ctest-output.txt" || rc=$?
# ctest lists skipped tests by name only; their reasons are in the log.
python3 scripts/skip-summary.py "$dir" "$dir/ctest-output.txt" || true
exit $rc
