#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints each skipped test of the last ctest run with its reason (the line of its output that starts
with 'SKIP'; every skipping test prints one), then one closing line 'ctest: N passed, N failed,
N skipped'. Usage: skip-summary.py BUILD_DIR [CTEST_OUTPUT]. With CTEST_OUTPUT (what ctest printed),
the tests ctest marked "(Skipped)" are listed too when they printed no SKIP line, as "no reason
printed", so that none is counted as passed."""
import re
import sys

log = open(f"{sys.argv[1]}/Testing/Temporary/LastTest.log", errors="replace").read()
skipped = []
total = failed = 0
for sec in re.split(r"\n-{58}\n\n", log):
    m = re.search(r"^\d+/\d+ Test: (\S+)$", sec, re.M)
    out = re.search(r"Output:\n-+\n(.*?)<end of output>", sec, re.S)
    if not m:
        continue
    total += 1
    failed += "Test Passed" not in sec
    if not out:
        continue
    reason = next((l for l in out.group(1).splitlines() if l.upper().startswith("SKIP")), None)
    if reason and "Test Passed" in sec:
        skipped.append((m.group(1), reason))
if len(sys.argv) > 2:
    marked = re.findall(r"Test +#\d+: (\S+) \.*\s*\*?Skipped", open(sys.argv[2], errors="replace").read())
    have = {name for name, _ in skipped}
    skipped += [(name, "no reason printed") for name in marked if name not in have]
if skipped:
    print(f"\n{len(skipped)} tests skipped:")
    for name, reason in sorted(skipped):
        print(f"  {name}: {reason}")
print(f"ctest: {total - failed - len(skipped)} passed, {failed} failed, {len(skipped)} skipped")
