#!/bin/bash
# SPDX-License-Identifier: MIT
# Sample names from @RG SM of BAMs made here (the file name when a BAM has none, said once),
# duplicate and mixed samples rejected, BED contigs named unlike the BAM's rejected, and the
# progress line on a terminal. Usage: cnv_bam_names.sh GVK BAMDIR
set -u
gvk=$1 d=$2
command -v samtools > /dev/null || { echo "skip: samtools is not installed (Debian: samtools), it makes the test BAMs"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! "$gvk" cnv --count-only -q "$d/T1.bam" "$d/T2.bam" -o "$tmp/x" 2> "$tmp/err"; then
	grep -q "without htslib" "$tmp/err" && { echo "skip: $(cat "$tmp/err")"; exit 77; }
fi
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# name.bam from sample t's SAM with read groups "ID:SM ..." (none: no @RG)
mkbam() {
	local name=$1 t=$2; shift 2
	{ samtools view -H "$d/$t.sam"
	  for rg in "$@"; do printf '@RG\tID:%s\tSM:%s\n' "${rg%%:*}" "${rg#*:}"; done
	  samtools view "$d/$t.sam" | awk -v rg="${1:+${1%%:*}}" 'BEGIN { OFS = "\t" } { if (rg != "") $0 = $0 "\tRG:Z:" rg; print }'
	} | samtools view -b -o "$tmp/$name.bam" - && samtools index "$tmp/$name.bam"
}
mkbam a T1 "r1:NA12878"
mkbam b T2 "r2:NA12891" "r3:NA12891"
mkbam c T3
mkbam twice T3 "r4:NA12878"
mkbam mixed T3 "r5:HG001" "r6:HG002"
"$gvk" cnv --count-only -w 5000 "$tmp/a.bam" "$tmp/b.bam" "$tmp/c.bam" -o "$tmp/n.tsv" 2> "$tmp/err" || bad "run: $(cat "$tmp/err")"
[ "$(head -1 "$tmp/n.tsv")" = "$(printf 'chr\tstart\tend\tNA12878\tNA12891\tc')" ] || bad "names '$(head -1 "$tmp/n.tsv")'"
# the counts do not depend on the names
cut -f4- "$tmp/n.tsv" | tail -n +2 | cmp -s - <(cut -f4- "$d/counts_WL5000.tsv" | tail -n +2) || bad "counts changed"
[ "$(grep -c 'no @RG SM' "$tmp/err")" = 1 ] && grep -q "c.bam; sample names taken from the file name" "$tmp/err" || bad "note: '$(cat "$tmp/err")'"
"$gvk" cnv --count-only -q "$tmp/a.bam" "$tmp/b.bam" -o "$tmp/n.tsv" 2> "$tmp/err"; [ ! -s "$tmp/err" ] || bad "-q not quiet: $(cat "$tmp/err")"
# a full run names the VCF's samples from SM too
if command -v bcftools > /dev/null; then
	"$gvk" cnv -q -w 5000 --min-width 1 "$tmp/a.bam" "$tmp/b.bam" "$tmp/c.bam" -o /dev/null --vcf "$tmp/v.vcf" || bad "VCF run"
	[ "$(bcftools query -l "$tmp/v.vcf" | tr '\n' ' ')" = "NA12878 NA12891 c " ] || bad "VCF samples '$(bcftools query -l "$tmp/v.vcf")'"
	grep -q '^##contig=<ID=chrA,length=52345>' "$tmp/v.vcf" || bad "VCF contig lengths from the BAM header"
fi
# errors: a message, exit status 1, no output
err_case() {
	local name=$1 want=$2; shift 2
	rm -f "$tmp/out.tsv"
	"$gvk" cnv -q "$@" -o "$tmp/out.tsv" 2> "$tmp/err"
	local rc=$?
	[ $rc = 1 ] || bad "$name: exit status $rc"
	grep -qF -- "$want" "$tmp/err" || bad "$name: '$(cat "$tmp/err")' lacks '$want'"
	[ ! -e "$tmp/out.tsv" ] || bad "$name: output left"
}
err_case duplicate "a.bam and $tmp/twice.bam are both sample 'NA12878'" --count-only "$tmp/a.bam" "$tmp/b.bam" "$tmp/twice.bam"
err_case samefile "a.bam and $tmp/a.bam are both sample 'NA12878'" "$tmp/a.bam" "$tmp/a.bam"
err_case mixed "mixed.bam: read groups of two samples ('HG001', 'HG002'" --count-only "$tmp/a.bam" "$tmp/mixed.bam"
printf 'A\t0\t5000\nB\t0\t3000\n' > "$tmp/nochr.bed"
err_case nochr "BED contig 'A' is not in $tmp/a.bam's header (it has 'chrA', 'chrB', 'chrC'; 'chrA' would match); rename the contigs of $tmp/nochr.bed" \
	--bed "$tmp/nochr.bed" "$tmp/a.bam" "$tmp/b.bam"
printf 'chrQ\t0\t5000\n' > "$tmp/none.bed"
err_case nonebed "none of the contigs of $tmp/none.bed ('chrQ') is in $tmp/a.bam's header" --bed "$tmp/none.bed" "$tmp/a.bam" "$tmp/b.bam"
# a target on a contig the BAMs lack, beside ones they have: counts 0, with a note
printf 'chrA\t0\t5000\nchrZ\t0\t100\n' > "$tmp/some.bed"
"$gvk" cnv --count-only --bed "$tmp/some.bed" "$tmp/a.bam" "$tmp/b.bam" -o "$tmp/s.tsv" 2> "$tmp/err" || bad "absent contig rejected"
grep -q "BED contig 'chrZ' is not in .*a.bam's header; its targets count 0" "$tmp/err" || bad "absent contig note: '$(cat "$tmp/err")'"
# progress on a terminal only
if command -v script > /dev/null; then
	script -qec "'$gvk' cnv --count-only -w 5000 '$tmp/a.bam' '$tmp/b.bam' -o '$tmp/t.tsv'" /dev/null > "$tmp/tty.txt" 2>&1
	grep -q "counting reads: 100.0% (2/2 files" "$tmp/tty.txt" || bad "no progress line on a terminal: '$(cat "$tmp/tty.txt")'"
	"$gvk" cnv --count-only -w 5000 "$tmp/a.bam" "$tmp/b.bam" -o "$tmp/t.tsv" 2> "$tmp/err"
	grep -q "counting reads" "$tmp/err" && bad "progress line without a terminal"
fi
echo "$fail failed"
[ $fail -eq 0 ]
