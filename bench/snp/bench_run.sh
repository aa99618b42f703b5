# SPDX-License-Identifier: MIT
# Sourced by the bench/snp scripts that time whole tools: run NAME COMMAND... runs COMMAND under
# /usr/bin/time -v (stdout to NAME.stdout, the report to NAME.time) and prints its wall seconds
# and peak RSS, or why it failed (status 1).
run() {
	local name=$1; shift
	/usr/bin/time -v "$@" > "$name.stdout" 2> "$name.time" || { echo "$name failed: $(tail -3 "$name.time")"; return 1; }
	printf '%-8s %8.2f s  %8d MB peak RSS\n' "$name" \
		"$(awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]; print s}' "$name.time")" \
		"$(awk -F': ' '/Maximum resident/ {print int($2 / 1024)}' "$name.time")"
}
