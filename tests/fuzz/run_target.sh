#!/bin/bash
# SPDX-License-Identifier: MIT
# ctest's side of the fuzz targets (tests/fuzz/CMakeLists.txt).
#   run_target.sh build SRC BIN CC        builds tests/fuzz/clang into BIN with CC
#   run_target.sh run SRC BIN TARGET SECS runs TARGET's regression inputs, then fuzzes SECS seconds
# from its seed corpus; findings go to BIN/findings/TARGET/ (scripts/fuzz.sh saves them in the
# source tree instead). Exits 77 when the target was not built (no htslib for the VCF and BAM
# header targets).
set -uo pipefail
mode=$1 src=$2 bin=$3
if [ "$mode" = build ]; then
	cmake -S "$src/tests/fuzz/clang" -B "$bin" -DCMAKE_C_COMPILER="$4" -DCMAKE_BUILD_TYPE= > "$bin.configure.log" 2>&1 ||
		{ cat "$bin.configure.log"; exit 1; }
	exec cmake --build "$bin" -j "$(nproc)"
fi
t=$4 secs=$5
exe=$bin/fuzz_$t
if [ ! -x "$exe" ]; then
	if [ -f "$bin/targets.txt" ] && ! grep -qx "$t" "$bin/targets.txt"; then
		echo "fuzz_$t was not built (the clang build found no htslib): skipped"
		exit 77
	fi
	echo "fuzz_$t: $exe missing (did fuzz_build fail?)"
	exit 1
fi
reg=$src/tests/fuzz/regress/$t
out=$bin/findings/$t
work=$bin/work/$t
rm -rf "$work" && mkdir -p "$work" "$out"
# htslib reserves a BCF record's declared sizes (two 32-bit fields, up to 4 GiB each) before it
# reads the record; on a short file those pages are never touched, so resident memory, not one
# malloc, is the bound that matters (docs/fuzzing.md).
opts=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=8200 -artifact_prefix="$out/")
shopt -s nullglob
inputs=("$reg"/*)
if [ ${#inputs[@]} -gt 0 ]; then
	echo "fuzz_$t: ${#inputs[@]} regression inputs"
	"$exe" "${opts[@]}" "${inputs[@]}" > "$bin/$t.regress.log" 2>&1 ||
		{ tail -40 "$bin/$t.regress.log"; echo "fuzz_$t: a regression input fails again"; exit 1; }
fi
dirs=("$src/tests/fuzz/corpus/$t")
[ -d "$reg" ] && dirs+=("$reg")
if ! "$exe" "${opts[@]}" -max_total_time="$secs" -print_final_stats=1 "$work" "${dirs[@]}" > "$bin/$t.log" 2>&1; then
	tail -40 "$bin/$t.log"
	echo "fuzz_$t: finding saved in $out/ (minimize it, fix it, move it to tests/fuzz/regress/$t/)"
	exit 1
fi
grep -E '^Done|number_of_executed_units' "$bin/$t.log"
exit 0
