#!/bin/bash
# SPDX-License-Identifier: MIT
# Two processes, each with a shared GPU engine and many caller threads, on one GPU at once (two
# JVMs running GATK on one host): both get every caller's exact results. Exit 77 without a GPU.
# Usage: pairhmm_multiproc.sh TEST_PAIRHMM_SHARED
set -u
bin=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" gpu 3000 16 0 > "$tmp/a" 2>&1 & a=$!
"$bin" gpu 3000 16 0 > "$tmp/b" 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
cat "$tmp/a" "$tmp/b"
[ $ra -eq 77 ] && [ $rb -eq 77 ] && exit 77
[ $ra -eq 0 ] && [ $rb -eq 0 ] && grep -q " 0 differ" "$tmp/a" && grep -q " 0 differ" "$tmp/b" || { echo "FAIL: ra=$ra rb=$rb"; exit 1; }
echo "two processes on one GPU: both exact"
