#!/bin/bash
# SPDX-License-Identifier: MIT
# Renders the plots shown in docs/cnv.md into docs/img/cnv/: the bundled small data set and the
# synthetic genome of tests/cnv/cnv_synth.py (3.1 Gb, events of 1 Mb and 100 kb). Needs a build
# with cairo (build/src/gvk, or GVK=path) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
gvk=${GVK:-build/src/gvk}
out=docs/img/cnv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
"$gvk" cnv -q --counts tests/data/cnv/small/input_counts.tsv.gz -o /dev/null --plot "$tmp/small"
python3 tests/cnv/cnv_synth.py > "$tmp/synth.tsv"
"$gvk" cnv -q --counts "$tmp/synth.tsv" -o /dev/null --plot "$tmp/synth"
for f in small.S05.genome small.S07.chr1 small.cohort synth.SYN02.genome synth.SYN01.chr2 synth.cohort; do
	cp "$tmp/$f.png" "$out/$f.png"
done
ls -l "$out"
