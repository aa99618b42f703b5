#!/bin/bash
# SPDX-License-Identifier: MIT
# The GATK drop-in libraries with GVK_SERVER: GKL's own Java checks (tests/jni/jni_gkl.sh modes
# pairhmm, sw and threads) pass with every call sent to a gvk serve on the CPU back end, and the
# server's summary counts their calls. Exit 77 where jni_gkl.sh skips (no JDK or jars).
# Usage: serve_jni.sh GVK JNI_GKL_SH JNI_LIBDIR DATA_DIR CLASSES_DIR
set -u
gvk=$1 jni=$2 lib=$3 data=$4 classes=$5
tmp=$(mktemp -d /tmp/gvk-serve-jni-XXXXXX); trap 'kill $srv 2> /dev/null; rm -rf "$tmp"' EXIT
sock=$tmp/s.sock
"$gvk" serve --socket "$sock" --device cpu -t 2 2> "$tmp/serve.log" &
srv=$!
for _ in $(seq 200); do grep -qs "listening on" "$tmp/serve.log" && break; sleep 0.05; done
fail=0
for mode in pairhmm sw threads; do
	GVK_SERVER=$sock "$jni" "$lib" "$data" "$classes" "$mode" > "$tmp/$mode.out" 2>&1
	rc=$?
	[ $rc = 77 ] && { cat "$tmp/$mode.out"; exit 77; }
	[ $rc = 0 ] || { echo "FAIL: $mode through the server ($rc):"; tail -20 "$tmp/$mode.out"; fail=1; }
	grep -q "^\[gvk\] warning" "$tmp/$mode.out" && { echo "FAIL: $mode warned:"; grep "^\[gvk\] warning" "$tmp/$mode.out"; fail=1; }
done
kill -TERM $srv; wait $srv
cat "$tmp/serve.log"
# GKL's Smith-Waterman calls are one pair each: the engine aligns those itself, sooner than a
# round trip (server_min_work), so only Pair-HMM's calls must have reached the server.
grep -Eq "Pair-HMM [1-9][0-9]* calls, [1-9][0-9]* pairs; align [0-9]+ calls" "$tmp/serve.log" || { echo "FAIL: the server's summary"; fail=1; }
[ $fail = 0 ] && echo "GKL's checks pass through gvk serve"
exit $fail
