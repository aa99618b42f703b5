#!/bin/bash
# SPDX-License-Identifier: MIT
# BED and SEG outputs against the TSV tables, and the plots: which files, valid PNG and SVG, calls
# drawn at a visible width on a genome-sized x-axis. Usage: cnv_outputs.sh GVK DATA SYNTH
set -u
gvk=$1 data=$2 synth=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
in="$data/small/input_counts.tsv.gz"
"$gvk" cnv -q --counts "$in" -o "$tmp/c.tsv" --segments "$tmp/s.tsv" --calls-bed "$tmp/b.bed" --seg "$tmp/x.seg" || bad "run"

# BED: the CNVs, 0-based starts, by position
head -1 "$tmp/b.bed" | grep -qx $'#chrom\tstart\tend\tsample\tCN' || bad "BED header"
grep -v '^#' "$tmp/b.bed" | awk -F'\t' -v OFS='\t' '{ print $4, $1, $2 + 1, $3, $5 }' | sort > "$tmp/b.cmp"
tail -n +2 "$tmp/c.tsv" | awk -F'\t' -v OFS='\t' '{ print $1, $2, $3, $4, $7 }' | sort > "$tmp/c.cmp"
cmp -s "$tmp/b.cmp" "$tmp/c.cmp" || { bad "BED differs from the CNVs"; diff "$tmp/b.cmp" "$tmp/c.cmp"; }
[ -s "$tmp/c.cmp" ] || bad "no CNVs"
grep -v '^#' "$tmp/b.bed" | awk -F'\t' '$1 == p && $2 < s { exit 1 } { p = $1; s = $2 }' || bad "BED not sorted by position"

# SEG: every segment, 1-based as the TSV, grouped by sample, seg.mean = the mean to 6 digits
head -1 "$tmp/x.seg" | grep -qx $'ID\tchrom\tloc.start\tloc.end\tnum.mark\tseg.mean' || bad "SEG header"
[ "$(($(wc -l < "$tmp/x.seg") - 1))" = "$(($(wc -l < "$tmp/s.tsv") - 1))" ] || bad "SEG has not every segment"
awk -F'\t' 'NR == FNR { if (FNR > 1) m[$1 SUBSEP $2 SUBSEP $3 SUBSEP $4] = $5; next }
	FNR > 1 { k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
	  if (!(k in m) || (m[k] - $6) ^ 2 > (1e-5 * (1 + (m[k] < 0 ? -m[k] : m[k]))) ^ 2 || $5 != ($4 - $3 + 1) / 25000) { print "SEG " $0; bad = 1 }
	  if ($1 != prev && ($1 in seen)) { print "sample " $1 " not together"; bad = 1 }
	  seen[$1] = 1; prev = $1; marks[$1] += $5 }
	END { for (s in marks) if (marks[s] != 2000) { print s " has " marks[s] " marks"; bad = 1 }; exit bad }' \
	"$tmp/s.tsv" "$tmp/x.seg" || bad "SEG differs from the segments"

# Plots
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() {
	if command -v xmllint > /dev/null; then xmllint --noout "$1" 2> /dev/null
	else python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$1" 2> /dev/null; fi && grep -q '<svg' "$1"
}
png=1
if ! "$gvk" cnv -q --counts "$in" -o /dev/null --plot "$tmp/p" --plot-format png,svg 2> "$tmp/err"; then
	if grep -q "built without cairo" "$tmp/err"; then
		png=0; echo "note: built without cairo: PNG plots are refused, SVG checked alone"
		[ ! -e "$tmp/p.cohort.svg" ] || bad "a refused plot run wrote files"
		"$gvk" cnv -q --counts "$in" -o /dev/null --plot "$tmp/p" --plot-format svg || bad "SVG plots"
	else bad "plots: $(cat "$tmp/err")"; fi
fi
exts=svg; [ $png = 1 ] && exts="png svg"
# a genome panel per sample, a contig panel per contig with a call of that sample, one cohort plot
want=$(tail -n +2 "$tmp/c.tsv" | cut -f1,2 | sort -u | awk -F'\t' '{ print "p." $1 "." $2 }'
       for s in $(tail -n +2 "$tmp/s.tsv" | cut -f1 | sort -u); do echo "p.$s.genome"; done; echo p.cohort)
for e in $exts; do
	got=$(cd "$tmp" && ls p.*."$e" | sed "s/\.$e\$//" | sort)
	[ "$got" = "$(echo "$want" | sort)" ] || { bad "plot files ($e)"; diff <(echo "$got") <(echo "$want" | sort); }
done
for f in "$tmp"/p.*; do
	case $f in *.png) is_png "$f" || bad "$f is not a PNG";; *.svg) is_svg "$f" || bad "$f is not well-formed SVG";; esac
done
# the SVG written without cairo: well-formed, with its text as text
GVK_CNV_PLAIN_SVG=1 "$gvk" cnv -q --counts "$in" -o /dev/null --plot "$tmp/q" --plot-format svg --plot-contigs none || bad "plain SVG run"
[ "$(cd "$tmp" && ls q.* | wc -l)" = 11 ] || bad "--plot-contigs none: $(cd "$tmp" && ls q.*)"
for f in "$tmp"/q.*.svg; do is_svg "$f" || bad "$f (plain) is not well-formed SVG"; done
grep -q '>S05: 1 CNV<' "$tmp/q.S05.genome.svg" || bad "plain SVG title"
GVK_CNV_PLAIN_SVG=1 "$gvk" cnv -q --counts "$in" -o /dev/null --plot "$tmp/a" --plot-format svg --plot-contigs all || bad "--plot-contigs all"
[ "$(cd "$tmp" && ls a.*.chr[12].svg | wc -l)" = 20 ] || bad "--plot-contigs all: not 2 contigs x 10 samples"
grep -q '>CN0<' "$tmp/a.S05.chr1.svg" || bad "S05's CN0 deletion not labelled"
# A genome-sized x-axis (3.1 Gb): each call, 100 kb to 2 Mb, is at least 3 pixels wide in the heatmap
if command -v python3 > /dev/null; then
	python3 "$synth" > "$tmp/syn.tsv"
	fmt=svg; [ $png = 1 ] && fmt=png,svg
	GVK_CNV_PLAIN_SVG=1 "$gvk" cnv -q --counts "$tmp/syn.tsv" -o "$tmp/syn.cnv" --plot "$tmp/g" --plot-format $fmt --plot-contigs none || bad "synthetic genome"
	calls=$(($(wc -l < "$tmp/syn.cnv") - 1))
	# the calls' rectangles: copy-number colours, less the legend's 14-pixel swatches
	drawn=$(grep -E 'fill="#(b2182b|ef8a62|67a9cf|2166ac|542788)"/>' "$tmp/g.cohort.svg" | grep -v 'width="14.00"' | grep -oE 'width="[0-9.]+"' | tr -dc '0-9.\n' | awk '$1 >= 2.99' | wc -l)
	[ "$calls" -ge 8 ] && [ "$drawn" = "$calls" ] || bad "synthetic genome: $calls calls, $drawn drawn at least 3 px wide"
	[ $png = 0 ] || is_png "$tmp/g.cohort.png" || bad "synthetic PNG"
fi
# A plot that cannot be written (its directory would be under a file) leaves no other output
rm -f "$tmp/k.tsv"
touch "$tmp/afile"
"$gvk" cnv -q --counts "$in" -o "$tmp/k.tsv" --plot "$tmp/afile/p" 2> "$tmp/err" && bad "unwritable plot accepted"
[ ! -e "$tmp/k.tsv" ] || bad "-o written although the plots failed"
"$gvk" cnv -q --counts "$in" --plot "$tmp/p" --plot-format gif 2> "$tmp/err" && bad "--plot-format gif accepted"
grep -q -- "--plot-format must be" "$tmp/err" || bad "bad --plot-format message"
echo "$fail failed"
[ $fail -eq 0 ]
