#!/bin/bash
# SPDX-License-Identifier: MIT
# The pytest suite with Python's debug allocator (PYTHONMALLOC=malloc_debug): a write past a buffer
# the package allocated (a ctypes struct shorter than the library's) aborts the interpreter when the
# buffer is freed. Run from the source tree's package. Skips (77) without python3-numpy or
# python3-pytest. Usage: python_malloc_debug.sh SOURCE_DIR GVK_CLI LIBGVK
set -euo pipefail
src=$1 cli=$2 lib=$3
py=${GVK_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || { echo "SKIP: $py not found (install python3)"; exit 77; }
for mod in numpy pytest; do
	"$py" -c "import $mod" 2>/dev/null || {
		echo "SKIP: $py lacks the module $mod (apt-get install python3-numpy python3-pytest)"
		exit 77
	}
done
export PYTHONMALLOC=malloc_debug PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$src/python
export GVK_LIBRARY=$lib GVK_CLI=$cli GVK_DATA=$src/tests/data
. "$src/tests/python/asan_preload.sh"
cd "$(mktemp -d)"
trap 'rm -rf "$PWD"' EXIT
exec "$py" -X dev -m pytest -q -p no:cacheprovider "$src/tests/python"
