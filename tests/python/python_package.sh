#!/bin/bash
# SPDX-License-Identifier: MIT
# The Python package as a user installs it: a venv (seeing Debian's numpy and pytest), pip install
# of ./python offline, then the pytest suite against the CLI. Skips (77) without python3-numpy,
# python3-pytest or python3-venv. Usage: python_package.sh BUILD_DIR SOURCE_DIR GVK_CLI LIBGVK
set -euo pipefail
build=$1 src=$2 cli=$3 lib=$4
py=${GVK_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || { echo "SKIP: $py not found (install python3)"; exit 77; }
for mod in numpy pytest venv ensurepip; do
	"$py" -c "import $mod" 2>/dev/null || {
		echo "SKIP: $py lacks the module $mod (apt-get install python3-numpy python3-pytest python3-venv)"
		exit 77
	}
done
venv=$build/python-venv
rm -rf "$venv"
"$py" -m venv --system-site-packages "$venv"
export PYTHONDONTWRITEBYTECODE=1 PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
"$venv/bin/python" -m pip install -q --no-index "$src/python"
# Run from outside the source tree, so that the installed package is the one imported.
cd "$build"
export GVK_LIBRARY=$lib GVK_CLI=$cli GVK_DATA=$src/tests/data
# A sanitizer build's library needs its runtime loaded before the interpreter's own libraries;
# Python's allocations are not ours to leak-check.
if ldd "$lib" 2> /dev/null | grep -q libasan; then
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	[ -f "$asan" ] || { echo "SKIP: libgvk.so is built with ASan and libasan.so was not found"; exit 77; }
	ubsan=$(${CC:-cc} -print-file-name=libubsan.so); [ -f "$ubsan" ] || ubsan=
	export LD_PRELOAD="$asan${ubsan:+ $ubsan}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
"$venv/bin/python" - <<'PY'
import gvk, os, sys
assert "site-packages" in gvk.__file__, gvk.__file__
assert os.path.samefile(gvk.library_path, os.environ["GVK_LIBRARY"]), gvk.library_path
print("gvk", gvk.version(), "from", gvk.__file__, "with", gvk.library_path)
PY
# The path recorded at install time finds the library without GVK_LIBRARY.
env -u GVK_LIBRARY "$venv/bin/python" -c "import gvk; print('recorded:', gvk.library_path)"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python"
