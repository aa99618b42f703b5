#!/bin/bash
# SPDX-License-Identifier: MIT
# After a GPU EM, sequences whose segmentation meets a near tie get their EM redone on the CPU and
# are segmented again (cnv_call). GVK_CNV_FORCE_REDO (the option force_redo) takes that path after a
# CPU EM: the path must run on the reference exome data and change no output. The note saying so is
# an INFO message, shown without -q. Usage: cnv_redo.sh GVK DATA_DIR
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
in=$data/small/input_counts.tsv.gz
"$gvk" cnv -q --device cpu --exome --posterior --counts "$in" -o "$tmp/a.tsv" --segments "$tmp/a.seg" --regions "$tmp/a" || exit 1
GVK_CNV_FORCE_REDO=1 "$gvk" cnv --device cpu --exome --posterior --counts "$in" -o "$tmp/b.tsv" --segments "$tmp/b.seg" \
	--regions "$tmp/b" 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q "EM was recomputed on the CPU" "$tmp/err" || { echo "FAIL: the redo path did not run: $(cat "$tmp/err")"; exit 1; }
fail=0
for f in a.tsv a.seg $(cd "$tmp" && ls a.*.tsv); do
	cmp -s "$tmp/$f" "$tmp/b${f#a}" || { echo "FAIL: $f differs after the redo"; fail=1; }
done
[ $fail -eq 0 ] && echo "PASS: $(cat "$tmp/err")"
exit $fail
