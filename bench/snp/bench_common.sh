# SPDX-License-Identifier: MIT
# Sourced by the bench/snp scripts after they set $dir (may be empty): $here (this folder), $dir
# (made, or a temporary directory removed at exit) and $py, a python3 with numpy ($PYTHON, else
# python3, else /usr/bin/python3, since a pyenv python3 may lack numpy).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -n "$dir" ] || { dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; }
mkdir -p "$dir"
py=${PYTHON:-python3}
"$py" -c "import numpy" 2> /dev/null || py=/usr/bin/python3
