#!/bin/bash
# SPDX-License-Identifier: MIT
# A rank that fails under mpirun with NP ranks: bad input in one rank's part, or a rank killed
# with SIGKILL (GVK_TEST_KILL_RANK=R:N: rank R kills itself at its N-th agreement with the
# others). Every case must end the whole job within a bounded time (no rank left waiting), with
# a non-zero status, a message naming the rank and the cause, no output file (an existing one
# left as it was) and no temporary beside it.
# Usage: mpi_faults.sh GVK DATA NP
set -u
gvk=$1 data=$2 np=$3
here=$(cd "$(dirname "$0")" && pwd)
gvk=$(cd "$(dirname "$gvk")" && pwd)/$(basename "$gvk") data=$(cd "$data" && pwd)
command -v mpirun > /dev/null || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi=(mpirun --oversubscribe --allow-run-as-root -np "$np")
if ! "${mpi[@]}" true > "$tmp/mpirun.err" 2>&1; then echo "SKIP: mpirun cannot start $np processes here: $(head -3 "$tmp/mpirun.err")"; exit 77; fi
fail=0 n=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
last=$((np - 1))
limit=120 # seconds: a job left hanging is a failure

# dies NAME OUT PATTERN... -- ARGS: gvk ARGS under mpirun fails within the limit, its stderr has
# every PATTERN (extended regular expressions), OUT (an existing file before the run) is left as
# it was, and the directory holds nothing new.
dies() {
	local name=$1 out=$2; shift 2
	local pats=()
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	n=$((n + 1))
	rm -rf "$tmp/F"; mkdir "$tmp/F"
	echo "an earlier result" > "$tmp/F/$out"
	local t0=$SECONDS st=0
	(cd "$tmp/F" && timeout -k 10 $limit "${mpi[@]}" "$gvk" "$@" > stdout 2> stderr) || st=$?
	if [ $st = 0 ]; then bad "$name: accepted under $np ranks"; return; fi
	# mpirun itself exits 137 (128 + SIGKILL) when a rank was killed: time tells a hang apart
	[ $((SECONDS - t0)) -ge $limit ] && { bad "$name: still running after $limit s (a rank left waiting)"; return; }
	for p in "${pats[@]}"; do
		grep -Eq -- "$p" "$tmp/F/stderr" || bad "$name: no '$p' in: $(grep -v '^-*$' "$tmp/F/stderr" | head -4)"
	done
	[ "$(cat "$tmp/F/$out")" = "an earlier result" ] || bad "$name: the existing $out was touched"
	local left
	left=$(cd "$tmp/F" && ls -A | grep -v -x -e stdout -e stderr -e "$out")
	[ -z "$left" ] || bad "$name: left behind: $left"
	echo "ok: $name ($((SECONDS - t0)) s, status $st)"
}

gen=$here/gen_data.py
python3 "$gen" plink "$tmp/g" 120 3000 1 && python3 "$gen" fidb "$tmp/db.fidb" 5001 256 2 &&
	python3 "$gen" fidb "$tmp/q.fidb" 17 256 3 && python3 "$gen" align "$tmp/al.tsv" 3000 4 &&
	python3 "$gen" phmm "$tmp/ph.in" 2000 5 && python3 "$gen" cnv "$tmp/cnv.tsv" 4000 12 6 ||
	{ echo "FAIL: generating inputs"; exit 1; }

# a rank killed: mpirun names it and the signal; the others are ended, rank 0's temporaries removed
killed="rank $last .*(signal 9|Killed)"
for at in 1 2; do
	GVK_TEST_KILL_RANK=$last:$at dies "ld table, rank $last killed at its agreement $at" out.ld "$killed" -- \
		ld --bfile "$tmp/g" --r2 --ld-window 20 --ld-window-r2 0 --out out
	GVK_TEST_KILL_RANK=$last:$at dies "ld square bin4, rank $last killed at its agreement $at" out.ld.bin "$killed" -- \
		ld --bfile "$tmp/g" --r square bin4 --out out
done
GVK_TEST_KILL_RANK=1:1 dies "ld --indep-pairwise, rank 1 killed" out.prune.in "rank 1 .*(signal 9|Killed)" -- \
	ld --bfile "$tmp/g" --indep-pairwise 50 5 0.01 --out out
GVK_TEST_KILL_RANK=$last:1 dies "fastid, rank $last killed" top.tsv "$killed" -- fastid -o top.tsv "$tmp/db.fidb" "$tmp/q.fidb"
GVK_TEST_KILL_RANK=$last:2 dies "cnv, rank $last killed in the model" cnv.tsv "$killed" -- cnv -q --counts "$tmp/cnv.tsv" -o cnv.tsv
GVK_TEST_KILL_RANK=$last:1 dies "pairhmm, rank $last killed" out.txt "$killed" -- pairhmm -o out.txt "$tmp/ph.in"
GVK_TEST_KILL_RANK=$last:1 dies "align, rank $last killed" out.tsv "$killed" -- align -o out.tsv "$tmp/al.tsv"

# bad input that only one rank's part holds: that rank's message names it and the cause
cp "$tmp/al.tsv" "$tmp/bad.tsv"; printf 'ACGT\tACGT\t1\n' >> "$tmp/bad.tsv"
dies "align, bad last line" out.tsv "expected 2 or 7" "rank $last of $np failed on its share of .*bad.tsv" -- align -o out.tsv "$tmp/bad.tsv"
cp "$tmp/ph.in" "$tmp/bad.in"; printf '2 1\nACGT IIII IIII IIII ++++\n' >> "$tmp/bad.in"
dies "pairhmm, truncated last group" out.txt "gvk pairhmm" "rank $last of $np failed on its share" -- pairhmm -o out.txt "$tmp/bad.in"
# a database cut short: the last ranks' slices end inside a profile
head -c 100000 "$tmp/db.fidb" > "$tmp/short.fidb"
dies "fastid, database cut short (last ranks' slices)" top.tsv "rank [0-9]+: .*(ends inside|cut short|short|end)" -- \
	fastid -o top.tsv "$tmp/short.fidb" "$tmp/q.fidb"
cp "$tmp/cnv.tsv" "$tmp/badc.tsv"; printf 'chr5\t1\t2\tx\n' >> "$tmp/badc.tsv"
dies "cnv, bad count matrix row" cnv.tsv "gvk cnv: .*badc.tsv" -- cnv --counts "$tmp/badc.tsv" -o cnv.tsv
head -c 5000 "$tmp/g.bed" > "$tmp/short.bed"; cp "$tmp/g.bim" "$tmp/short.bim"; cp "$tmp/g.fam" "$tmp/short.fam"
dies "ld, .bed cut short" out.ld "gvk ld: rank [0-9]+: .*short.bed" -- ld --bfile "$tmp/short" --r2 --out out

echo "$n checks under $np ranks, $fail failed"
[ $fail -eq 0 ]
