#!/bin/bash
# SPDX-License-Identifier: MIT
# The CNV VCF read back by bcftools: plain and bgzipped+indexed, records equal to the CNV region
# table, GT/SM consistent with the calls, region queries on the index, a mixed loss/gain region,
# and the index committed with the VCF or not at all. Usage: cnv_vcf.sh GVK DATA SYNTH
set -u
gvk=$1 data=$2 synth=$3
command -v bcftools > /dev/null || { echo "skip: bcftools is not installed (Debian: bcftools), it reads the VCF back"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
in="$data/small/input_counts.tsv.gz"
"$gvk" cnv -q --counts "$in" -o "$tmp/c.tsv" --cnvr "$tmp/r.tsv" --vcf "$tmp/v.vcf" || bad "plain VCF run"
# bcftools parses it without a word on stderr
bcftools view "$tmp/v.vcf" -Ob -o "$tmp/v.bcf" 2> "$tmp/err" && [ ! -s "$tmp/err" ] || bad "bcftools view: $(cat "$tmp/err")"
head -1 "$tmp/v.vcf" | grep -qx '##fileformat=VCFv4.3' || bad "not VCF 4.3"
grep -q '^##contig=<ID=chr2>' "$tmp/v.vcf" || bad "contig lines"
[ "$(bcftools query -l "$tmp/v.vcf" | tr '\n' ' ')" = "$(head -1 "$tmp/r.tsv" | cut -f4- | tr '\t' ' ') " ] || bad "sample names"
# one record per CNV region, CN per sample as in the region table
bcftools query -f '%CHROM\t%POS\t%END[\t%CN]\n' "$tmp/v.vcf" > "$tmp/q.tsv"
tail -n +2 "$tmp/r.tsv" | cmp -s - "$tmp/q.tsv" || { bad "records differ from --cnvr"; diff "$tmp/q.tsv" <(tail -n +2 "$tmp/r.tsv"); }
[ "$(wc -l < "$tmp/q.tsv")" -ge 5 ] || bad "too few records"
# GT: 0 where CN is 2, else the ALT allele of a loss (<DEL>) or gain (<DUP>); SVTYPE agrees
bcftools query -f '%ALT\t%SVTYPE\t%SVLEN\t%POS\t%END[\t%GT:%CN]\n' "$tmp/v.vcf" | awk -F'\t' '
	{ n = split($1, alt, ","); del = dup = 0
	  for (k = 6; k <= NF; ++k) { split($k, g, ":"); a = g[1] == 0 ? "" : alt[g[1]]
	    if ((g[2] == 2) != (g[1] == 0) || (g[2] < 2 && a != "<DEL>") || (g[2] > 2 && a != "<DUP>")) { print "GT " $0; bad = 1 }
	    del += g[2] < 2; dup += g[2] > 2 }
	  want = del && dup ? "CNV" : del ? "DEL" : "DUP"
	  if ($2 != want) { print "SVTYPE " $0; bad = 1 }
	  if ((del && !dup && $3 != -($5 - $4 + 1)) || (dup && !del && $3 != $5 - $4 + 1)) { print "SVLEN " $0; bad = 1 } }
	END { exit bad }' || bad "GT/SVTYPE/SVLEN inconsistent with CN"
# SM of a carrier is the mean of its CNV in the -o table
bcftools query -f '[%SAMPLE\t%CHROM\t%POS\t%END\t%GT\t%SM\n]' "$tmp/v.vcf" | awk -F'\t' '$5 != "0"' > "$tmp/sm.tsv"
awk -F'\t' 'NR == FNR { if (FNR > 1) { k = $1 SUBSEP $2; n[k]++; s[k, n[k]] = $3; e[k, n[k]] = $4; m[k, n[k]] = $5 } next }
	{ k = $1 SUBSEP $2; ok = 0
	  for (i = 1; i <= n[k]; ++i) if (s[k, i] <= $4 && e[k, i] >= $3 && (m[k, i] - $6) ^ 2 <= (1e-5 * (1 + m[k, i])) ^ 2) ok = 1
	  if (!ok) { print "SM " $0; bad = 1 } }
	END { exit bad }' "$tmp/c.tsv" "$tmp/sm.tsv" || bad "SM differs from the CNV means"

# bgzipped and indexed: the same records, region queries through the index
if ! "$gvk" cnv -q --counts "$in" --vcf "$tmp/v.vcf.gz" -o /dev/null 2> "$tmp/err"; then
	grep -q "without htslib" "$tmp/err" && { echo "skip: $(cat "$tmp/err")"; exit 77; }
	bad "bgzipped VCF: $(cat "$tmp/err")"
fi
[ -s "$tmp/v.vcf.gz.tbi" ] || bad "no .tbi beside the .vcf.gz"
[ "$(head -c 2 "$tmp/v.vcf.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || bad "not gzip"
bcftools query -f '%CHROM\t%POS\t%END[\t%CN]\n' "$tmp/v.vcf.gz" | cmp -s - "$tmp/q.tsv" || bad ".vcf.gz records differ"
read -r chr s e < <(awk -F'\t' 'NR == 2 { print $1, $2, $3 }' "$tmp/r.tsv")
bcftools view -H -r "$chr:$s-$e" "$tmp/v.vcf.gz" 2> "$tmp/err" | cut -f1,2 > "$tmp/reg.txt"
[ "$(cat "$tmp/reg.txt")" = "$(printf '%s\t%s' "$chr" "$s")" ] || bad "bcftools view -r $chr:$s-$e: '$(cat "$tmp/reg.txt")' $(cat "$tmp/err")"
for q in chr1 chr2; do
	want=$(awk -F'\t' -v q=$q '$1 == q' "$tmp/q.tsv" | wc -l)
	got=$(bcftools view -H -r $q "$tmp/v.vcf.gz" | wc -l)
	[ "$want" = "$got" ] || bad "bcftools view -r $q: $got records, want $want"
done
[ "$(bcftools view -H -r chr1:1-1000 "$tmp/v.vcf.gz" | wc -l)" = 0 ] || bad "empty region not empty"

# All or nothing with the index: a later output that cannot be written leaves the old pair as it was
cp "$tmp/v.vcf.gz" "$tmp/old.gz"; cp "$tmp/v.vcf.gz.tbi" "$tmp/old.tbi"
if "$gvk" cnv -q --counts "$in" --upper 0.3 --vcf "$tmp/v.vcf.gz" -o /dev/null --seg "$tmp/nodir/x.seg" 2> "$tmp/err"; then
	bad "unwritable --seg accepted"
fi
cmp -s "$tmp/old.gz" "$tmp/v.vcf.gz" && cmp -s "$tmp/old.tbi" "$tmp/v.vcf.gz.tbi" || bad "VCF or index replaced by a failed run"
ls "$tmp" | grep -q '\.tmp' && bad "temporaries left: $(ls "$tmp")"

# A matrix that names a sample twice is refused before the model runs: an error, and no file
zcat "$in" | awk -F'\t' -v OFS='\t' 'NR == 1 { $5 = $4 } { print }' > "$tmp/dup.tsv"
rm -f "$tmp/d.vcf" "$tmp/d.tsv"
"$gvk" cnv -q --counts "$tmp/dup.tsv" -o "$tmp/d.tsv" --vcf "$tmp/d.vcf" 2> "$tmp/err" && bad "duplicate sample names accepted"
grep -q "sample names must be distinct: 'S01' names samples 1 and 2" "$tmp/err" || bad "duplicate names: '$(cat "$tmp/err")'"
[ ! -e "$tmp/d.vcf" ] && [ ! -e "$tmp/d.tsv" ] || bad "duplicate names: output left"

# A region where one sample loses and another gains copies: <DEL>,<DUP>, which bcftools splits
if command -v python3 > /dev/null; then
	python3 "$synth" --scale 0.1 --window 25000 > "$tmp/syn.tsv"
	"$gvk" cnv -q --counts "$tmp/syn.tsv" --cnvr "$tmp/sr.tsv" --vcf "$tmp/syn.vcf.gz" -o /dev/null || bad "synthetic run"
	bcftools query -f '%CHROM\t%POS\t%END[\t%CN]\n' "$tmp/syn.vcf.gz" | cmp -s - <(tail -n +2 "$tmp/sr.tsv") || bad "synthetic records differ"
	mixed=$(bcftools view -H -i 'SVTYPE="CNV"' "$tmp/syn.vcf.gz" | cut -f1,5)
	[ "$mixed" = "$(printf 'chr17\t<DEL>,<DUP>')" ] || bad "mixed region: '$mixed'"
	n=$(bcftools norm -m- -r chr17 "$tmp/syn.vcf.gz" 2> "$tmp/err" | grep -vc '^#')
	[ "$n" = 2 ] || bad "bcftools norm -m- on the mixed region: $n records $(cat "$tmp/err")"
	gts=$(bcftools query -r chr17 -f '[%GT]' "$tmp/syn.vcf.gz")
	[ "$gts" = 00001200 ] || bad "mixed region GTs '$gts'"
else
	echo "note: no python3, the mixed-region check is left out"
fi
echo "$fail failed"
[ $fail -eq 0 ]
