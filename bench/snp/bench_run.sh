# SPDX-License-Identifier: MIT
# Sourced by the bench/snp scripts that time whole tools. run NAME COMMAND... runs COMMAND under
# /usr/bin/time -v REPEAT times (1 unless set; stdout to NAME.stdout, the report to NAME.time) and
# prints the fastest run's wall seconds, peak RSS and CPU seconds (user + system: on a busy machine
# the steadier figure), or why it failed (status 1).
repeat=${REPEAT:-1}
bench_once() {
	local name=$1; shift
	"${TIME_BIN:-/usr/bin/time}" -v "$@" > "$name.stdout" 2> "$name.time" || { echo "$name failed: $(tail -3 "$name.time")" >&2; return 1; }
	awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]}
		/Maximum resident/ {mb = int($2 / 1024)} /User time|System time/ {cpu += $2}
		END {print s, mb, cpu}' "$name.time"
}
run() {
	local name=$1 best="" r k; shift
	for ((k = 0; k < repeat; ++k)); do
		r=$(bench_once "$name" "$@") || return 1
		if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN {exit !(a < b)}'; then best=$r; fi
	done
	set -- $best
	printf '%-8s %8.2f s  %8d MB peak RSS  %6.2f s CPU\n' "$name" "$1" "$2" "$3"
}
