#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang into build-fuzz/ (tests/fuzz/clang) and fuzzes each for
# the given seconds (default 60), starting from its seed corpus (tests/fuzz/corpus/T) and its
# regression inputs (tests/fuzz/regress/T). New crashes, leaks, timeouts (over 10 s) and
# out-of-memory inputs are saved in tests/fuzz/regress/T/. Prints per target the executions, the
# findings and libFuzzer's exit status; exits non-zero when any target found something.
# Usage: scripts/fuzz.sh [seconds-per-target] [target ...]
# GVK_FUZZ_JOBS=2 fuzzes two targets at a time (one core each). GVK_FUZZ_RUNS=N runs N executions
# per target instead of a time (the seconds are then ignored).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
dir=${GVK_FUZZ_DIR:-build-fuzz}
jobs=${GVK_FUZZ_JOBS:-1}
cc=${CC_FUZZ:-clang}
if ! command -v "$cc" >/dev/null; then
	echo "fuzz: $cc not found (scripts/setup.sh installs clang)" >&2
	exit 2
fi
cmake -S tests/fuzz/clang -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE= >/dev/null || exit 2
cmake --build "$dir" -j "$(nproc)" >/dev/null || { echo "fuzz: the build failed" >&2; exit 2; }
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < "$dir/targets.txt"

# One target: its own work corpus (the committed seeds stay as they are), findings saved under
# regress/; a summary line in $dir/logs/T.sum.
run_one() {
	local t=$1 work=$dir/work/$t reg=tests/fuzz/regress/$t log=$dir/logs/$t.log
	mkdir -p "$work" "$reg" "$dir/logs"
	rm -f "$log" "$dir/logs/$t.sum"
	local before after rc
	before=$(ls "$reg" | wc -l)
	local limit=(-max_total_time="$secs")
	[ -n "${GVK_FUZZ_RUNS:-}" ] && limit=(-runs="$GVK_FUZZ_RUNS")
	"$dir/fuzz_$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$reg/" "$work" "tests/fuzz/corpus/$t" "$reg" > "$log" 2>&1
	rc=$?
	after=$(ls "$reg" | wc -l)
	local execs
	execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
	printf '%-14s executions %10s  new findings %d  exit %d\n' "$t" "${execs:-?}" $((after - before)) "$rc" > "$dir/logs/$t.sum"
	[ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]
}

status=0
running=0
for t in "${targets[@]}"; do
	if [ ! -x "$dir/fuzz_$t" ]; then
		echo "fuzz: no target $t (built: $(tr '\n' ' ' < "$dir/targets.txt"))" >&2
		status=1
		continue
	fi
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
for t in "${targets[@]}"; do
	[ -f "$dir/logs/$t.sum" ] && cat "$dir/logs/$t.sum"
done
if [ "$status" -ne 0 ]; then
	echo "fuzz: findings; see $dir/logs/ and the new files in tests/fuzz/regress/" >&2
	for t in "${targets[@]}"; do
		[ -f "$dir/logs/$t.log" ] || continue
		grep -aHE 'FUZZ FINDING|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$dir/logs/$t.log" | head -5 >&2
	done
fi
exit "$status"
