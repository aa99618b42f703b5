#!/bin/bash
# SPDX-License-Identifier: MIT
# Puts the SPDX license line at the top of every source file of ours (after a #! line), in the
# comment style of the file; files that have it already are left alone, so this can be run again
# after a merge. tests/data/ (reference data) is not touched. Usage: scripts/spdx.sh [-n] (-n: list
# the files that would change, change nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
dry=0
[ "${1:-}" = -n ] && dry=1
tag="SPDX-License-Identifier: MIT"
n=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	case "$f" in
	tests/data/*) continue ;;
	*.c | *.h | *.cu | *.cuh | *.cpp | *.map) line="/* $tag */" ;;
	*.java) line="// $tag" ;;
	*.sh | *.py | *.cmake | *CMakeLists.txt | *.cmake.in | *.pc.in | .ci/run) line="# $tag" ;;
	*) continue ;;
	esac
	# Already there (near the top: after a #! line and perhaps a blank one).
	head -n 3 "$f" | grep -qF "$tag" && continue
	n=$((n + 1))
	if [ "$dry" = 1 ]; then
		echo "$f"
		continue
	fi
	tmp=$(mktemp "$f.spdx.XXXXXX")
	if head -c 2 "$f" | grep -qF '#!'; then
		{ head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } > "$tmp"
	else
		{ echo "$line"; cat "$f"; } > "$tmp"
	fi
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
done < <(git ls-files -z --cached --others --exclude-standard -- src include tests bench scripts examples cmake .ci \
	CMakeLists.txt)
echo "spdx: $n file(s) $([ "$dry" = 1 ] && echo "would change" || echo "changed")"
