#!/bin/bash
# SPDX-License-Identifier: MIT
# `gvk serve` as a command (CPU back end): the default socket's directory and permissions, --group,
# a second server refused while one is live, a stale socket replaced, SIGTERM (summary, socket
# removed, exit 0), -v lines, and gvk pairhmm / align through it (--server and GVK_SERVER) giving
# the CPU's bytes, and without it (one warning, the same bytes). Usage: serve_cli.sh GVK DATA_DIR
set -u
gvk=$1 data=$2
tmp=$(mktemp -d /tmp/gvk-serve-cli-XXXXXX); trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# Starts a server (extra arguments passed on) logging to $tmp/$1.log; waits for its first line.
start() {
	local log=$tmp/$1.log
	shift
	"$gvk" serve --device cpu -t 2 "$@" 2> "$log" &
	srv=$!
	for _ in $(seq 200); do
		grep -q "listening on" "$log" 2> /dev/null && return 0
		kill -0 $srv 2> /dev/null || return 1
		sleep 0.05
	done
	return 1
}
stop() { kill -TERM "$1"; wait "$1"; }
mode() { stat -c %a "$1"; }

# The default socket: XDG_RUNTIME_DIR/gvk/serve.sock, directory 0700, socket 0600.
export XDG_RUNTIME_DIR=$tmp/run
mkdir -m 0700 "$XDG_RUNTIME_DIR"
start a -v && ok || bad "the server does not start: $(cat "$tmp/a.log")"
sock=$XDG_RUNTIME_DIR/gvk/serve.sock
[ -S "$sock" ] && ok || bad "no socket at $sock"
[ "$(mode "$XDG_RUNTIME_DIR/gvk")" = 700 ] && ok || bad "directory mode $(mode "$XDG_RUNTIME_DIR/gvk")"
[ "$(mode "$sock")" = 600 ] && ok || bad "socket mode $(mode "$sock")"
# A second server on the live socket is refused, and the first one keeps it.
if "$gvk" serve --device cpu 2> "$tmp/second.err"; then bad "a second server started"; else ok; fi
grep -q "already running" "$tmp/second.err" && ok || bad "second server's message: $(cat "$tmp/second.err")"
[ -S "$sock" ] && kill -0 $srv && ok || bad "the first server lost its socket"

# Clients through it, the same bytes as on the CPU; -v logs each connection.
ph=$data/pairhmm/inputs/stress_realistic.hex.gz
zcat "$data/align/random_vectors.tsv.gz" | awk -F'\t' -v OFS='\t' 'NR > 1 { print $3, $4, $5, $6, $7, $8, $9 }' > "$tmp/al.tsv"
"$gvk" pairhmm -q --device cpu -t 1 "$ph" > "$tmp/ph.cpu"
"$gvk" align -q --device cpu -t 1 "$tmp/al.tsv" > "$tmp/al.cpu"
"$gvk" pairhmm --server "$sock" -t 1 "$ph" > "$tmp/ph.srv" 2> "$tmp/ph.err" && cmp -s "$tmp/ph.cpu" "$tmp/ph.srv" && ok || bad "pairhmm --server differs"
grep -q "server:cpu" "$tmp/ph.err" && ok || bad "pairhmm's summary does not name the server: $(cat "$tmp/ph.err")"
GVK_SERVER=$sock "$gvk" align -t 1 "$tmp/al.tsv" > "$tmp/al.srv" 2> "$tmp/al.err" && cmp -s "$tmp/al.cpu" "$tmp/al.srv" && ok || bad "align with GVK_SERVER differs"
grep -q "server:cpu" "$tmp/al.err" && ok || bad "align's summary does not name the server: $(cat "$tmp/al.err")"
# Clients read the device name from the file beside the socket; without it they wait for the
# server's hello and name it all the same.
grep -q "^cpu-" "$sock.device" && ok || bad "device file: $(cat "$sock.device" 2>&1)"
mv "$sock.device" "$tmp/device.saved"
"$gvk" pairhmm --server "$sock" -t 1 "$ph" 2> "$tmp/ph2.err" | cmp -s - "$tmp/ph.cpu" && grep -q "server:cpu" "$tmp/ph2.err" && ok ||
	bad "without the device file: $(cat "$tmp/ph2.err")"
mv "$tmp/device.saved" "$sock.device"
# --device cpu leaves the server alone.
GVK_SERVER=$sock "$gvk" align --device cpu -t 1 "$tmp/al.tsv" 2>&1 > /dev/null | grep -q "server:" && bad "--device cpu used the server" || ok
grep -q "client pid .* connected" "$tmp/a.log" && grep -q "disconnected after" "$tmp/a.log" && ok || bad "-v lines: $(cat "$tmp/a.log")"

# SIGTERM: exit 0, the socket removed, a summary with the calls and the merged launches.
stop $srv && ok || bad "exit status $? after SIGTERM"
[ -e "$sock" ] || [ -e "$sock.device" ] && bad "socket or device file left after SIGTERM" || ok
grep -q "Pair-HMM 2 calls, 2000 pairs; align 1 calls, 13700 pairs" "$tmp/a.log" && ok || bad "summary: $(tail -3 "$tmp/a.log")"
grep -q "merged launches" "$tmp/a.log" && ok || bad "no merged launch sizes in the summary"

# No server: one warning, then the same bytes from the CPU.
"$gvk" pairhmm --server "$sock" -t 1 "$ph" > "$tmp/ph.none" 2> "$tmp/none.err" && cmp -s "$tmp/ph.cpu" "$tmp/ph.none" && ok || bad "pairhmm without a server differs"
[ "$(grep -c "gvk serve cannot be used" "$tmp/none.err")" = 1 ] && ok || bad "no server: $(cat "$tmp/none.err")"

# A stale socket (the server killed) is replaced by the next server.
start b -v && kill -KILL $srv && wait $srv 2> /dev/null
[ -S "$sock" ] && ok || bad "no stale socket after SIGKILL"
start c && ok || bad "a stale socket is not replaced: $(cat "$tmp/c.log")"
"$gvk" pairhmm --server "$sock" -q -t 1 "$ph" | cmp -s - "$tmp/ph.cpu" && ok || bad "the new server does not serve"
stop $srv

# A file that is not a socket is never removed.
echo keep > "$tmp/file"
"$gvk" serve --device cpu --socket "$tmp/file" 2> "$tmp/file.err" && bad "served on a regular file" || ok
grep -q "not a socket" "$tmp/file.err" && [ "$(cat "$tmp/file")" = keep ] && ok || bad "regular file: $(cat "$tmp/file.err")"

# --group: directory 0750, socket 0660, owned by the group.
grp=$(id -gn)
start d --group "$grp" && ok || bad "--group $grp: $(cat "$tmp/d.log")"
[ "$(mode "$XDG_RUNTIME_DIR/gvk")" = 750 ] && [ "$(mode "$sock")" = 660 ] && [ "$(stat -c %G "$sock")" = "$grp" ] && ok ||
	bad "--group modes: $(mode "$XDG_RUNTIME_DIR/gvk") $(mode "$sock") $(stat -c %G "$sock")"
stop $srv
"$gvk" serve --group no-such-group-gvk 2> "$tmp/g.err" && bad "an unknown group accepted" || ok
grep -q "no group 'no-such-group-gvk'" "$tmp/g.err" && ok || bad "unknown group: $(cat "$tmp/g.err")"

# Peer credentials (root only: another user is needed): a user who is not the server's is refused
# even when the socket's mode lets it connect, and computes on its own; a member of --group is served.
if [ "$(id -u)" = 0 ] && command -v runuser > /dev/null && runuser -u nobody -- test -x "$gvk" 2> /dev/null; then
	pub=$(mktemp -d /tmp/gvk-serve-peer-XXXXXX) && chmod 755 "$pub" && cp "$ph" "$pub/ph.gz" && chmod 644 "$pub/ph.gz"
	start f --socket "$pub/s.sock" -v && chmod 666 "$pub/s.sock"
	runuser -u nobody -- "$gvk" pairhmm --server "$pub/s.sock" -t 1 "$pub/ph.gz" 2> "$tmp/nobody.err" | cmp -s - "$tmp/ph.cpu" && ok || bad "another user's values differ"
	grep -q "gvk serve cannot be used" "$tmp/nobody.err" && ok || bad "another user was not refused: $(cat "$tmp/nobody.err")"
	stop $srv
	grep -q "refused a connection from pid .*, uid $(id -u nobody)" "$tmp/f.log" && ok || bad "no refusal logged: $(cat "$tmp/f.log")"
	start g --socket "$pub/s.sock" --group "$(id -gn)"
	runuser -u nobody -g "$(id -gn)" -- "$gvk" pairhmm --server "$pub/s.sock" -t 1 "$pub/ph.gz" 2> "$tmp/member.err" | cmp -s - "$tmp/ph.cpu" && ok || bad "a group member's values differ"
	grep -q "server:cpu" "$tmp/member.err" && ok || bad "a group member was not served: $(cat "$tmp/member.err")"
	stop $srv
	rm -rf "$pub"
else
	echo "peer credentials: skipped (needs root and runuser)"
fi

# Options out of range are refused before anything starts.
for o in "--merge-contexts 0" "--merge-contexts 17" "--merge-wait-us -1" "--merge-wait-us x" "-t 0" "--device tpu" "--gpu a" "--gpu-wait x"; do
	"$gvk" serve --socket "$tmp/o.sock" $o 2> "$tmp/o.err" && bad "$o accepted" || ok
	grep -q "^gvk serve: " "$tmp/o.err" && [ ! -e "$tmp/o.sock" ] && ok || bad "$o: $(cat "$tmp/o.err")"
done
start e --socket "$tmp/e.sock" --merge-contexts 2 --merge-wait-us 100 --gpu-wait block && ok || bad "merge options: $(cat "$tmp/e.log")"
"$gvk" pairhmm --server "$tmp/e.sock" -q -t 1 "$ph" | cmp -s - "$tmp/ph.cpu" && ok || bad "with merge options the values differ"
stop $srv

# Without XDG_RUNTIME_DIR: /tmp/gvk-UID (not created here when it exists already).
unset XDG_RUNTIME_DIR
"$gvk" serve -h | grep -q "tmp/gvk-UID/serve.sock" && ok || bad "-h does not name the default socket"
# --device gpu: serves where there is a GPU (stopped by timeout), else one line and status 1.
timeout 5 "$gvk" serve --device gpu --socket "$tmp/g.sock" 2> "$tmp/gpu.err"
rc=$?
if [ $rc = 124 ]; then ok; else [ $rc = 1 ] && grep -q "^gvk serve: --device gpu: no" "$tmp/gpu.err" && ok || bad "--device gpu without a GPU ($rc): $(cat "$tmp/gpu.err")"; fi

echo "serve_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
