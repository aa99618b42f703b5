#!/bin/bash
# SPDX-License-Identifier: MIT
# End-to-end checks of `gvk align`: every reference file through the CLI (default = gatk_gkl_*,
# --raw = gkl_*, --java = gatk_java_*, --java --raw = java_dp_*), the header line, -o, stdin, gzip
# input, --preset/--scores/--overhang, threads, --device. Usage: align_cli.sh GVK DATA_DIR
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# input.tsv (ref alt match mismatch gap_open gap_extend strategy, with header) and the expected
# 'cigar<TAB>offset' of each column pair, from a reference file.
prepare() {
	zcat -f "$1" | awk -F'\t' -v OFS='\t' -v dir="$tmp" '
		NR == 1 { for (k = 1; k <= NF; ++k) c[$k] = k
		          r = ("padded_ref" in c) ? c["padded_ref"] : c["ref"]; a = ("padded_alt" in c) ? c["padded_alt"] : c["alt"]
		          print "ref", "alt", "match", "mismatch", "gap_open", "gap_extend", "strategy" > dir "/in.tsv"; next }
		{ print $r, $a, $c["match"], $c["mismatch"], $c["gap_open"], $c["gap_extend"], $c["strategy"] > dir "/in.tsv"
		  n = split("gatk_gkl gkl gatk_java java_dp", cols, " ")
		  for (k = 1; k <= n; ++k) print $c[cols[k] "_cigar"], $c[cols[k] "_offset"] > dir "/exp." cols[k] }'
}
for f in unit_tests.tsv known_differences.tsv cutoff_regime.tsv hc_calculatecigar_cases.tsv long_vectors.tsv.gz \
	exhaustive_small.tsv.gz random_vectors.tsv.gz; do
	prepare "$data/$f"
	for mode in "gatk_gkl:" "gkl:--raw" "gatk_java:--java" "java_dp:--java --raw"; do
		col=${mode%%:*} opts=${mode#*:}
		if ! "$gvk" align -q -t 2 $opts "$tmp/in.tsv" > "$tmp/out"; then bad "$f $col: exit status"; continue; fi
		if cut -f1,2 "$tmp/out" | cmp -s - "$tmp/exp.$col"; then ok; else bad "$f $col: $(cut -f1,2 "$tmp/out" | diff - "$tmp/exp.$col" | grep -c '^<') lines differ"; fi
	done
done
prepare "$data/random_vectors.tsv.gz"
exp=$tmp/exp.gatk_gkl
"$gvk" align -q -t 2 "$tmp/in.tsv" > "$tmp/ref.out"
# The score column: an integer on every line, and the same on every path.
awk -F'\t' 'NF != 3 || $3 !~ /^-?[0-9]+$/ { e = 1 } END { exit e }' "$tmp/ref.out" && ok || bad "score column"
"$gvk" align -q -t 1 --isa scalar -o "$tmp/o.tsv" "$tmp/in.tsv" && cmp -s "$tmp/o.tsv" "$tmp/ref.out" && ok || bad "-o / -t 1 / scalar"
ls "$tmp" | grep -q 'o\.tsv\..*tmp' && bad "temporary file left behind" || ok
"$gvk" align -q - < "$tmp/in.tsv" | cmp -s - "$tmp/ref.out" && ok || bad "stdin input"
gzip -c "$tmp/in.tsv" > "$tmp/in.tsv.gz"; "$gvk" align -q "$tmp/in.tsv.gz" | cmp -s - "$tmp/ref.out" && ok || bad "gzip input"
tail -n +2 "$tmp/in.tsv" | "$gvk" align -q --chunk 7 - | cmp -s - "$tmp/ref.out" && ok || bad "no header, small chunks"
# --preset / --overhang apply to two-field lines and override seven-field ones.
awk -F'\t' -v OFS='\t' 'NR > 1 && $3 == 10 && $4 == -15 && $7 == "SOFTCLIP" { print $1, $2 }' "$tmp/in.tsv" > "$tmp/two.tsv"
awk -F'\t' -v OFS='\t' 'NR > 1 && $3 == 10 && $4 == -15 && $7 == "SOFTCLIP" { print $1, $2, 1, -1, -1, -1, "INDEL" }' "$tmp/in.tsv" > "$tmp/seven.tsv"
awk -F'\t' -v OFS='\t' 'NR > 1 && $3 == 10 && $4 == -15 && $7 == "SOFTCLIP" { print $1, $2, $3, $4, $5, $6, $7 }' "$tmp/in.tsv" | "$gvk" align -q - > "$tmp/want.out"
[ -s "$tmp/want.out" ] || bad "no ALIGNMENT_TO_BEST_HAPLOTYPE SOFTCLIP pairs in the data"
"$gvk" align -q --preset ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS --overhang SOFTCLIP "$tmp/two.tsv" | cmp -s - "$tmp/want.out" && ok || bad "--preset/--overhang on two-field lines"
"$gvk" align -q -p alignment_to_best_haplotype_sw_parameters --overhang softclip "$tmp/seven.tsv" | cmp -s - "$tmp/want.out" && ok || bad "--preset/--overhang override"
"$gvk" align -q --scores 10,-15,-30,-5 --overhang 9 "$tmp/seven.tsv" | cmp -s - "$tmp/want.out" && ok || bad "--scores"
# Two-field lines default to NEW_SW_PARAMETERS and SOFTCLIP.
printf 'ref\talt\nGGGGGGTTTTTT\tAAACCCTTTTTT\nAAACCCCC\tCCCCCGGG\n' | "$gvk" align -q - > "$tmp/d.out"
printf '6I6M\t6\t885\n5M3S\t3\t1000\n' | cmp -s - "$tmp/d.out" && ok || bad "two-field defaults: $(tr '\n' ' ' < "$tmp/d.out")"
# Spec examples: issue 6576 under the four strategies, the leftmost gap placement.
printf 'GGGGGGTTTTTT\tAAACCCTTTTTT\t1\t-4\t-6\t-1\tSOFTCLIP\nGGGGGGTTTTTT\tAAACCCTTTTTT\t1\t-4\t-6\t-1\tIGNORE\nCAAAAC\tCAAC\t3\t-1\t-4\t-3\tINDEL\nACGT\tGTAC\t3\t-1\t-4\t-3\tSOFTCLIP\n' > "$tmp/spec.tsv"
"$gvk" align -q "$tmp/spec.tsv" | cut -f1,2 | tr '\t\n' ' ;' > "$tmp/spec.out"
[ "$(cat "$tmp/spec.out")" = "11S1M 0;12M -11;1M2D3M 0;2S2M 0;" ] && ok || bad "spec examples: $(cat "$tmp/spec.out")"
"$gvk" align -q --device cpu "$tmp/spec.tsv" > /dev/null && ok || bad "--device cpu"
"$gvk" align -q --device auto "$tmp/spec.tsv" > /dev/null && ok || bad "--device auto"
# --device gpu: the GPU when there is one (the same answers), else an error and no output; auto
# on a machine without a GPU says nothing of it (the summary line names the device).
if "$gvk" align -q --device gpu "$tmp/in.tsv" > "$tmp/gpu.out" 2> "$tmp/err"; then
	cmp -s "$tmp/gpu.out" "$tmp/ref.out" && ok || bad "--device gpu"
else
	grep -qE "no usable GPU for align|^gvk align: --device gpu: no GPU \(" "$tmp/err" && ok || bad "--device gpu message: $(cat "$tmp/err")"
fi
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
	"$gvk" align --device auto "$tmp/in.tsv" 2> "$tmp/err" > /dev/null
	[ "$(grep -c . "$tmp/err")" = 1 ] && grep -q "^gvk align: .*cpu-" "$tmp/err" && ok || bad "auto without a GPU: $(cat "$tmp/err")"
fi
GVK_ALIGN_GPU_EMULATE=1 "$gvk" align -q --device gpu --chunk 3000 "$tmp/in.tsv" 2> /dev/null | cmp -s - "$tmp/ref.out" && ok || bad "--device gpu (emulated)"
GVK_ALIGN_GPU_EMULATE=1 "$gvk" align -q --device gpu --raw --java "$tmp/in.tsv" 2> /dev/null | cut -f1,2 | cmp -s - "$tmp/exp.java_dp" && ok || bad "--device gpu --raw --java (emulated)"
"$gvk" align "$tmp/spec.tsv" 2>&1 > /dev/null | grep -q '^gvk align: 4 pairs' && ok || bad "summary line"
"$gvk" align -h | grep -q -- '--overhang' && ok || bad "-h"
"$gvk" -h | grep -q '^  align' && ok || bad "command listed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
