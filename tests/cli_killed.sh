#!/bin/bash
# SPDX-License-Identifier: MIT
# What a run killed outright (SIGKILL) leaves is repaired by the next run on the same output: a
# temporary of a process of this host that no longer runs is removed, one of another host left;
# a run killed between the renames of its commit (GVK_TEST_KILL_COMMIT=N: SIGKILL after N renames)
# leaves a journal, and the next run puts the half-replaced set back as it was, or completes it
# when every output was already in, and says so once. Usage: cli_killed.sh GVK DATA_DIR
set -u
gvk=$1 data=$2 fail=0 pass=0
ok() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }
dir=$(mktemp -d) && trap 'kill -9 $(jobs -p) 2> /dev/null; rm -rf "$dir"' EXIT && cd "$dir" || exit 1
counts=$data/cnv/small/input_counts.tsv.gz
host=$(hostname | tr -c 'A-Za-z0-9.\n-' '_')
strays() { ls -A | grep -e '\.tmp[0-9]' -e '\.old[0-9]' -e '\.commit[0-9]'; }

# kill -9 while gvk ld writes a large matrix: the temporary stays, the next run removes it.
python3 "$(dirname "$0")/make_big_bfile.py" big
echo old > out.ld
"$gvk" ld -q --device cpu -t 1 --bfile big --r2 square -o out.ld &
pid=$!
for _ in $(seq 200); do [ -n "$(ls | grep '^out\.ld\.tmp')" ] && break; sleep 0.1; done
sleep 0.3
kill -9 $pid; wait $pid 2> /dev/null
ok "ld killed mid-write leaves its temporary" '[ -n "$(ls | grep "^out\.ld\.tmp$pid\.0\.")" ] && [ "$(cat out.ld)" = old ]'
echo partial > out.ld.tmp999999.0.another-host
"$gvk" ld --device cpu --bfile "$data/snp/ld_dummy/dummy203x800" --r2 -o out.ld 2> err.txt
ok "the next ld run succeeds" '[ $? -eq 0 ] && [ "$(cat out.ld)" != old ]'
ok "it removes the dead run's temporary and says so" 'grep -q "out.ld: removed 1 temporary left by a killed run" err.txt && [ -z "$(ls | grep "^out\.ld\.tmp$pid")" ]'
ok "another host's temporary is left alone" '[ -e out.ld.tmp999999.0.another-host ]'
rm -f out.ld.tmp999999.0.another-host

# A dead process's temporary in the older form, without the host.
dead=$(sh -c 'echo $$')
echo partial > "a.tsv.tmp$dead.0"
"$gvk" cnv -q --counts "$counts" -o a.tsv 2> err.txt
ok "a temporary without a host is this host's" '[ $? -eq 0 ] && [ ! -e "a.tsv.tmp$dead.0" ] && grep -q "removed 1 temporary" err.txt'

# Killed after the first of two renames: a.tsv new, b.tsv old, the journal beside both.
echo old a > a.tsv; echo old b > b.tsv
(GVK_TEST_KILL_COMMIT=1 "$gvk" cnv -q --counts "$counts" -o a.tsv --seg b.tsv; exit $?) 2> /dev/null
st=$?
ok "the hook kills the commit half-way" '[ $st -eq 137 ] && [ "$(cat a.tsv)" != "old a" ] && [ "$(cat b.tsv)" = "old b" ] && [ -n "$(strays)" ]'
# The next run on a.tsv fails later (/dev/full), after it repaired the set.
"$gvk" cnv -q --counts "$counts" -o a.tsv --cnvr /dev/full 2> err.txt
ok "the next run puts the set back and says so" 'grep -q "a.tsv: process [0-9]* was killed while it replaced its outputs; they are put back" err.txt'
ok "both files as before the killed run" '[ "$(cat a.tsv)" = "old a" ] && [ "$(cat b.tsv)" = "old b" ] && [ -z "$(strays)" ]'
ok "said once" '[ "$(grep -c killed err.txt)" -eq 1 ]'

# Killed after both renames, before its clean-up: the next run completes the commit.
(GVK_TEST_KILL_COMMIT=2 "$gvk" cnv -q --counts "$counts" -o a.tsv --seg b.tsv; exit $?) 2> /dev/null
st=$?
ok "killed after every rename" '[ $st -eq 137 ] && [ -n "$(strays)" ]'
"$gvk" cnv -q --counts "$counts" -o b.tsv --cnvr /dev/full 2> err.txt
ok "the next run completes the commit and says so" 'grep -q "its replacement of them is completed" err.txt && [ -z "$(strays)" ]'
ok "both files new" 'head -1 a.tsv | grep -q "^sample" && head -1 b.tsv | grep -q "^ID"'

# gvk ld with --out: the table and the log are one set; killed between them, repaired together.
echo old ld > o.ld; echo old log > o.log
(GVK_TEST_KILL_COMMIT=1 "$gvk" ld --device cpu --bfile "$data/snp/ld_dummy/dummy203x800" --r2 --out o; exit $?) 2> /dev/null
ok "ld killed between the .ld and the .log" '[ $? -eq 137 ] && [ "$(cat o.log)" = "old log" ] && [ "$(cat o.ld)" != "old ld" ]'
"$gvk" ld --device cpu --bfile "$data/snp/ld_dummy/dummy203x800" --r2 --out o 2> err.txt
ok "the next ld run repairs the set and writes both" '[ $? -eq 0 ] && grep -q "put back" err.txt && grep -q "^gvk" o.log && [ -z "$(strays)" ]'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
