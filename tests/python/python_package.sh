#!/bin/bash
# SPDX-License-Identifier: MIT
# The Python package as a user installs it: a venv (seeing Debian's numpy and pytest), pip install
# of ./python offline, then the pytest suite against the CLI. Then from a `cmake --install` prefix
# (PREFIX/share/gvk/python, pip-installed and run in place: both load PREFIX's libgvk.so), and into
# a venv without numpy (the install works offline; the import says what to install). Skips (77)
# without python3-numpy, python3-pytest or python3-venv.
# Usage: python_package.sh BUILD_DIR SOURCE_DIR GVK_CLI LIBGVK (CMAKE in the environment: the build's)
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
# GVK_LIBRARY at install time is recorded in the wheel (the build directory may have any name).
GVK_LIBRARY=$lib "$venv/bin/python" -m pip install -q --no-index "$src/python"
# Run from outside the source tree, so that the installed package is the one imported.
cd "$build"
export GVK_LIBRARY=$lib GVK_CLI=$cli GVK_DATA=$src/tests/data
. "$src/tests/python/asan_preload.sh"
"$venv/bin/python" - <<'PY'
import gvk, os, sys
assert "site-packages" in gvk.__file__, gvk.__file__
assert os.path.samefile(gvk.library_path, os.environ["GVK_LIBRARY"]), gvk.library_path
print("gvk", gvk.version(), "from", gvk.__file__, "with", gvk.library_path)
PY
# The path recorded at install time finds the library without GVK_LIBRARY.
env -u GVK_LIBRARY "$venv/bin/python" -c "import gvk; print('recorded:', gvk.library_path)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The installed tree: the package finds the installed library, not the build's.
"${CMAKE:-cmake}" --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
inst=$(cd "$tmp/prefix" && pwd -P)
pkg=$inst/share/gvk/python
[ -f "$pkg/gvk/__init__.py" ] && [ -f "$pkg/libgvk.path" ] || { echo "FAIL: no Python package under $pkg"; exit 1; }
check_installed() { # PYTHON: imports gvk and prints the library it loaded
	env -u GVK_LIBRARY "$@" -c "import gvk; print(gvk.library_path); assert gvk.version()" > "$tmp/which" ||
		{ echo "FAIL: $* cannot import the installed gvk"; exit 1; }
	case $(cat "$tmp/which") in
		"$inst"/*/libgvk.so*) echo "installed package loads $(cat "$tmp/which")" ;;
		*) echo "FAIL: the installed package loads $(cat "$tmp/which"), not the library under $inst"; exit 1 ;;
	esac
}
PYTHONPATH=$pkg check_installed "$py"
"$py" -m venv --system-site-packages "$tmp/venv"
env -u GVK_LIBRARY "$tmp/venv/bin/python" -m pip install -q --no-index "$pkg"
check_installed "$tmp/venv/bin/python"

# An interpreter without numpy: pip --no-index installs, and the import names what to install.
"$py" -m venv "$tmp/bare"
if "$tmp/bare/bin/python" -c "import numpy" 2> /dev/null; then
	echo "numpy is importable without system site-packages: the no-numpy case is left out"
else
	"$tmp/bare/bin/python" -m pip install -q --no-index "$src/python" 2> "$tmp/pip.err" ||
		{ cat "$tmp/pip.err"; echo "FAIL: pip install --no-index without numpy"; exit 1; }
	if "$tmp/bare/bin/python" -c "import gvk" 2> "$tmp/import.err"; then
		echo "FAIL: gvk imported without numpy"; exit 1
	fi
	grep -q "gvk needs numpy.*apt-get install python3-numpy.*pip install numpy" "$tmp/import.err" ||
		{ echo "FAIL: the import without numpy says: $(tail -n 1 "$tmp/import.err")"; exit 1; }
	echo "without numpy: $(tail -n 1 "$tmp/import.err")"
fi
