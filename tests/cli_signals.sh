#!/bin/bash
# SPDX-License-Identifier: MIT
# Interrupted runs and failing second outputs leave every output path as it was: SIGINT and
# SIGTERM end a command with 130 / 143 and no temporary left, and a command whose later output
# cannot be written (/dev/full) does not replace its earlier ones.
# A signal ignored when gvk starts stays ignored (nohup): SIGHUP set to be ignored leaves a run
# to finish. Usage: cli_signals.sh GVK DATA_DIR (tests/data)
set -u
# Job control, so that the commands started in the background here take SIGINT as a terminal's
# foreground job would, instead of inheriting it ignored as a script's background commands do.
set -m
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# Waits (up to 20 s) for a file matching the glob to exist.
wait_for() {
	for _ in $(seq 200); do
		for f in $1; do [ -e "$f" ] && return 0; done
		sleep 0.1
	done
	return 1
}

# kill_check NAME SIGNAL WANT_STATUS TEMP_GLOB -- command...: runs the command in the background,
# signals it once its temporary exists (or at once when TEMP_GLOB is "-"), and checks the
# exit status, that out.* kept its old content and that no temporary is left.
kill_check() {
	local name=$1 sig=$2 want=$3 glob=$4; shift 5
	printf 'old\n' > "$tmp/out.keep"
	cp "$tmp/out.keep" "$tmp/out.txt"
	"$@" &
	local pid=$!
	if [ "$glob" != - ] && ! wait_for "$glob"; then bad "$name: no temporary appeared"; kill -9 $pid; wait $pid; return; fi
	[ "$glob" = - ] && sleep 0.5
	kill -s "$sig" $pid
	wait $pid
	local st=$?
	[ "$st" -eq "$want" ] || bad "$name: exit status $st, expected $want"
	cmp -s "$tmp/out.keep" "$tmp/out.txt" || bad "$name: existing output changed"
	local left; left=$(ls "$tmp" | grep '\.tmp[0-9]' || true)
	[ -z "$left" ] || bad "$name: temporaries left: $left"
	rm -f "$tmp"/*.tmp[0-9]*
	[ "$st" -eq "$want" ] && cmp -s "$tmp/out.keep" "$tmp/out.txt" && [ -z "$left" ] && ok
}

# A FIFO that delivers a little input and then stays open (feed), or that delivers the same input
# again and again (feed_forever), keeps a command running with its output temporary open.
feed() {
	rm -f "$tmp/in.fifo"
	mkfifo "$tmp/in.fifo"
	{ cat "$1"; exec sleep 60; } > "$tmp/in.fifo" &
	feeder=$!
}
feed_forever() {
	rm -f "$tmp/in.fifo"
	mkfifo "$tmp/in.fifo"
	{ for _ in $(seq 100000); do cat "$1" || break; done; } > "$tmp/in.fifo" 2> /dev/null &
	feeder=$!
}
phmm="$data/pairhmm/inputs/carneiro_tiny.in"
for sig in INT TERM; do
	want=$([ $sig = INT ] && echo 130 || echo 143)
	feed_forever "$phmm"
	kill_check "pairhmm SIG$sig" $sig $want "$tmp/out.txt.tmp*" -- "$gvk" pairhmm -q --device cpu -o "$tmp/out.txt" "$tmp/in.fifo"
	kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
	printf 'ref\talt\nACGTACGTAC\tACGTTCGTAC\n' > "$tmp/al.tsv"
	feed "$tmp/al.tsv"
	kill_check "align SIG$sig" $sig $want "$tmp/out.txt.tmp*" -- "$gvk" align -q --device cpu -o "$tmp/out.txt" "$tmp/in.fifo"
	kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
	# cnv and fastid read all their input before they open an output: interrupted while reading.
	feed <(zcat "$data/cnv/small/input_counts.tsv.gz" | head -100)
	kill_check "cnv SIG$sig" $sig $want - -- "$gvk" cnv -q --counts "$tmp/in.fifo" -o "$tmp/out.txt" --cnvr "$tmp/out.cnvr"
	kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
done

# Any other signal that ends a process cleans up the same way.
feed_forever "$phmm"
kill_check "pairhmm SIGUSR1" USR1 138 "$tmp/out.txt.tmp*" -- "$gvk" pairhmm -q --device cpu -o "$tmp/out.txt" "$tmp/in.fifo"
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null

# nohup: SIGHUP ignored at the start stays ignored, and the run finishes once its input ends.
feed_forever "$phmm"
(trap '' HUP; exec "$gvk" pairhmm -q --device cpu -o "$tmp/nohup.txt" "$tmp/in.fifo") &
pid=$!
wait_for "$tmp/nohup.txt.tmp*" || bad "nohup: no temporary appeared"
kill -HUP $pid
sleep 0.3
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
wait $pid
st=$?
if [ $st -eq 0 ] && [ -s "$tmp/nohup.txt" ]; then ok; else bad "pairhmm with SIGHUP ignored: exit status $st"; fi

# ld: a large square matrix is written while it is computed.
python3 "$(dirname "$0")/make_big_bfile.py" "$tmp/big"
for sig in INT TERM; do
	want=$([ $sig = INT ] && echo 130 || echo 143)
	kill_check "ld SIG$sig" $sig $want "$tmp/out.txt.tmp*" -- "$gvk" ld -q --device cpu -t 1 --bfile "$tmp/big" --r2 square -o "$tmp/out.txt"
done

# A later output that cannot be written: the earlier ones keep their old content.
cp "$tmp/out.keep" "$tmp/a.tsv"
if "$gvk" cnv -q --counts "$data/cnv/small/input_counts.tsv.gz" -o "$tmp/a.tsv" --cnvr /dev/full 2> "$tmp/err"; then
	bad "cnv --cnvr /dev/full: accepted"
elif ! cmp -s "$tmp/out.keep" "$tmp/a.tsv"; then bad "cnv: -o replaced although --cnvr failed"
elif ! grep -q "No space left" "$tmp/err"; then bad "cnv: message '$(cat "$tmp/err")'"
else ok; fi
fdb="$data/snp/fastid/fastid40x500x200"
cp "$tmp/out.keep" "$tmp/a.tsv"
if "$gvk" fastid -q --device cpu -k 3 -T 8 -o "$tmp/a.tsv" -H /dev/full "$fdb.db.fidb" "$fdb.queries.fidb" 2> "$tmp/err"; then
	bad "fastid -H /dev/full: accepted"
elif ! cmp -s "$tmp/out.keep" "$tmp/a.tsv"; then bad "fastid: -o replaced although -H failed"
else ok; fi
# The same with a writable second output commits both.
if "$gvk" fastid -q --device cpu -k 3 -T 8 -o "$tmp/a.tsv" -H "$tmp/h.tsv" "$fdb.db.fidb" "$fdb.queries.fidb" &&
   grep -q "^query" "$tmp/a.tsv" && grep -q "^query" "$tmp/h.tsv"; then ok; else bad "fastid: both outputs"; fi
[ -z "$(ls "$tmp" | grep '\.tmp[0-9]')" ] || bad "temporaries left at the end"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
