#!/bin/bash
# SPDX-License-Identifier: MIT
# BAM read counting against getReadCountsFromBAM / getSegmentReadCountsFromBAM.
# Usage: cnv_bam.sh GVK CMP BAMDIR
set -u
gvk=$1 cmp=$2 d=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! "$gvk" cnv --count-only -q -w 5000 "$d/T1.bam" "$d/T2.bam" -o "$tmp/x" 2> "$tmp/err"; then
	if grep -q "without htslib" "$tmp/err"; then echo "skip: $(cat "$tmp/err")"; exit 77; fi
fi
fail=0
for w in 5000 25000; do
	"$gvk" cnv --count-only -q -t 2 -w $w "$d/T1.bam" "$d/T2.bam" "$d/T3.bam" -o "$tmp/c$w.tsv" || fail=$((fail + 1))
	cmp -s "$tmp/c$w.tsv" "$d/counts_WL$w.tsv" || { echo "FAIL: WL=$w"; diff "$tmp/c$w.tsv" "$d/counts_WL$w.tsv"; fail=$((fail + 1)); }
done
awk 'NR > 1 { print $1 "\t" $2 - 1 "\t" $3 }' "$d/counts_targets.tsv" > "$tmp/targets.bed"
"$gvk" cnv --count-only -q --bed "$tmp/targets.bed" "$d/T1.bam" "$d/T2.bam" "$d/T3.bam" -o "$tmp/ct.tsv" || fail=$((fail + 1))
cmp -s "$tmp/ct.tsv" "$d/counts_targets.tsv" || { echo "FAIL: targets"; diff "$tmp/ct.tsv" "$d/counts_targets.tsv"; fail=$((fail + 1)); }
# Targets on a sequence the BAMs do not have count 0.
printf 'chrA\t0\t5000\nchrZ\t0\t100\n' > "$tmp/absent.bed"
"$gvk" cnv --count-only -q --bed "$tmp/absent.bed" "$d/T1.bam" "$d/T2.bam" -o "$tmp/absent.tsv" || fail=$((fail + 1))
printf 'chr\tstart\tend\tT1\tT2\nchrA\t1\t5000\t3\t13\nchrZ\t1\t100\t0\t0\n' | cmp -s - "$tmp/absent.tsv" || { echo "FAIL: absent sequence"; fail=$((fail + 1)); }
# T1's probe reads by hand: MAPQ >= 1 and leftmost position in the window, flags ignored.
read -r a b < <(awk 'NR == 2 { print $4 } NR == 3 { print $4 }' "$tmp/c5000.tsv" | paste - -)
[ "$a" = 3 ] && [ "$b" = 2 ] || { echo "FAIL: T1 probes $a $b"; fail=$((fail + 1)); }
# Bad input: a BAM without index, a different reference dictionary, a bad BED, an unsorted BED.
cp "$d/T2.bam" "$tmp/noidx.bam"
bad() {
	local name=$1 want=$2; shift 2
	rm -f "$tmp/out.tsv"
	if "$gvk" cnv -q "$@" -o "$tmp/out.tsv" 2> "$tmp/err"; then echo "FAIL: $name accepted"; fail=$((fail + 1)); return; fi
	grep -qF -- "$want" "$tmp/err" || { echo "FAIL: $name: '$(cat "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); }
	[ ! -e "$tmp/out.tsv" ] || { echo "FAIL: $name left output"; fail=$((fail + 1)); }
}
bad noindex "noidx.bam: no index found" --count-only "$d/T1.bam" "$tmp/noidx.bam"
if command -v samtools > /dev/null; then
	sed 's/LN:3000$/LN:3001/' "$d/T2.sam" | samtools view -b -o "$tmp/dict.bam" - && samtools index "$tmp/dict.bam"
	bad dictionary "dict.bam: its reference dictionary" --count-only "$d/T1.bam" "$tmp/dict.bam"
	samtools view -H "$d/T2.sam" > "$tmp/uns.sam"; grep -v '^@' "$d/T2.sam" | sort -k4,4nr | head -50 >> "$tmp/uns.sam"
	samtools view -b -o "$tmp/unsorted.bam" "$tmp/uns.sam"
	bad unsorted "unsorted.bam: no index found" --count-only "$d/T1.bam" "$tmp/unsorted.bam"
	# CRAM: the same counts (the probe reads carry no bases, so any reference of the right lengths does)
	awk 'BEGIN { split("chrA 52345 chrB 30000 chrC 3000", a, " ");
		for (k = 1; k < 6; k += 2) { print ">" a[k]; s = ""; for (i = 0; i < a[k + 1]; ++i) { s = s "A"; if (length(s) == 60) { print s; s = "" } } if (s != "") print s } }' > "$tmp/ref.fa"
	samtools faidx "$tmp/ref.fa"
	for t in T1 T2 T3; do samtools view -C -T "$tmp/ref.fa" -o "$tmp/$t.cram" "$d/$t.bam" && samtools index "$tmp/$t.cram"; done
	"$gvk" cnv --count-only -q -w 5000 --reference "$tmp/ref.fa" "$tmp/T1.cram" "$tmp/T2.cram" "$tmp/T3.cram" -o "$tmp/cram.tsv" || fail=$((fail + 1))
	cmp -s "$tmp/cram.tsv" "$d/counts_WL5000.tsv" || { echo "FAIL: CRAM counts"; fail=$((fail + 1)); }
fi
printf 'chrA\t100\t50\n' > "$tmp/bad.bed"
bad badbed "bad.bed:1: bad BED interval" --count-only --bed "$tmp/bad.bed" "$d/T1.bam" "$d/T2.bam"
printf 'chrA\t1\t50\nchrB\t1\t50\nchrA\t60\t70\n' > "$tmp/uns.bed"
bad unsortedbed "uns.bed:3: intervals of chrA are not contiguous" --count-only --bed "$tmp/uns.bed" "$d/T1.bam" "$d/T2.bam"
# Lines the reader once took with a wrong meaning: a doubled tab (the columns shifted, end read
# from the fourth field), a coordinate past 64 bits (clamped), a sign, a NUL byte (hid the rest).
printf 'chrA\t\t100\t200\n' > "$tmp/tab2.bed"
bad doubletab "tab2.bed:1: bad BED interval" --count-only --bed "$tmp/tab2.bed" "$d/T1.bam" "$d/T2.bam"
printf 'chrA\t0\t99999999999999999999\n' > "$tmp/big.bed"
bad bigcoord "big.bed:1: bad BED interval" --count-only --bed "$tmp/big.bed" "$d/T1.bam" "$d/T2.bam"
printf 'chrA\t+10\t200\n' > "$tmp/sign.bed"
bad signcoord "sign.bed:1: bad BED interval" --count-only --bed "$tmp/sign.bed" "$d/T1.bam" "$d/T2.bam"
printf 'chrA\t0\t10\0000\n' > "$tmp/nul.bed"
bad nulbed "nul.bed:1: NUL byte in line" --count-only --bed "$tmp/nul.bed" "$d/T1.bam" "$d/T2.bam"
bad onebam "at least two samples" --count-only "$d/T1.bam"
echo "$fail failed"
[ $fail -eq 0 ]
