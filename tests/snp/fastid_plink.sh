#!/bin/bash
# SPDX-License-Identifier: MIT
# --make-fidb from a PLINK fileset against the same genotypes as VCF: plink1.9 --dummy makes the
# fileset and plink1.9 --recode vcf (keeping the .bim's A1 as ALT) the VCF. Both routes must give
# the same .fidb, byte for byte (profiles, panel, sample IDs FID_IID as plink names the VCF
# samples), and the same search tables; also with --minor, and with the two routes mixed.
# Skipped (77) without plink1.9 or without htslib. Usage: fastid_plink.sh GVK
set -u
gvk=$1
plink=$(command -v plink1.9 || command -v plink) || { echo "skipped: no plink1.9"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
: > "$tmp/empty.vcf"
if "$gvk" fastid --make-fidb "$tmp/empty.vcf" -o "$tmp/x" 2>&1 | grep -q "built without htslib"; then
	echo "skipped: this gvk was built without htslib"; exit 77
fi
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
fid() { "$gvk" fastid -q --device cpu -t 2 "$@"; }

# 61 samples (a padded .bed byte), 333 SNPs (a partial profile word), 3 % missing calls. --dummy
# makes A1 the minor allele; every other SNP gets its major allele as A1 (--a1-allele), so that
# counting A1 and counting the minor allele differ.
"$plink" --dummy 61 333 0.03 acgt --seed 5 --silent --out "$tmp/m" > /dev/null || { echo "plink --dummy failed"; exit 1; }
awk 'NR % 2 { print $2, $6 }' "$tmp/m.bim" > "$tmp/major"
"$plink" --bfile "$tmp/m" --a1-allele "$tmp/major" 2 1 --make-bed --silent --out "$tmp/d" > /dev/null ||
	{ echo "plink --a1-allele failed"; exit 1; }
"$plink" --bfile "$tmp/d" --keep-allele-order --recode vcf --silent --out "$tmp/d" > /dev/null ||
	{ echo "plink --recode vcf failed"; exit 1; }
"$plink" --bfile "$tmp/d" --keep-allele-order --recode vcf bgz --silent --out "$tmp/dz" > /dev/null ||
	{ echo "plink --recode vcf bgz failed"; exit 1; }
[ -s "$tmp/d.vcf" ] && [ -s "$tmp/dz.vcf.gz" ] || { echo "plink wrote no VCF"; exit 1; }

for minor in "" --minor; do
	tag=${minor:-alt}
	fid --make-fidb "$tmp/d" $minor -o "$tmp/p_$tag.fidb" || bad "$tag: --make-fidb PREFIX"
	fid --make-fidb "$tmp/d.bed" $minor -o "$tmp/b_$tag.fidb" || bad "$tag: --make-fidb .bed"
	fid --make-fidb "$tmp/d.vcf" $minor -o "$tmp/v_$tag.fidb" || bad "$tag: --make-fidb .vcf"
	fid --make-fidb "$tmp/dz.vcf.gz" $minor -o "$tmp/z_$tag.fidb" || bad "$tag: --make-fidb .vcf.gz"
	for f in b v z; do cmp -s "$tmp/p_$tag.fidb" "$tmp/${f}_$tag.fidb" && ok || bad "$tag: $f route differs from the PLINK prefix"; done
	# The same tables (scores and names) from either route, and from the two mixed.
	for mode in identity mixture; do
		fid --$mode -k 5 -T 40 -o "$tmp/tp" "$tmp/p_$tag.fidb" "$tmp/p_$tag.fidb" &&
		fid --$mode -k 5 -T 40 -o "$tmp/tv" "$tmp/v_$tag.fidb" "$tmp/v_$tag.fidb" &&
		fid --$mode -k 5 -T 40 -o "$tmp/tx" "$tmp/p_$tag.fidb" "$tmp/v_$tag.fidb" &&
			cmp -s "$tmp/tp" "$tmp/tv" && cmp -s "$tmp/tp" "$tmp/tx" && ok || bad "$tag $mode: tables differ"
		# Every sample finds itself at 0 in identity mode; names are the .fam's FID_IID.
		[ $mode = mixture ] && continue
		awk 'NR == FNR { name[FNR - 1] = $1 "_" $2; next } FNR > 1 && $3 == 0 && ($1 != name[$2] || $4 != name[$5]) { e = 1 }
			FNR > 1 && $3 == 0 && $6 == 0 { self++ } END { exit e || self != 61 }' FS='[ \t]+' "$tmp/d.fam" FS='\t' "$tmp/tp" &&
			ok || bad "$tag: rank-0 rows do not name the .fam samples"
	done
done
# Counting ALT and counting the minor allele are different panels wherever ALT is the major allele.
if fid -o "$tmp/mx" "$tmp/p_alt.fidb" "$tmp/v_--minor.fidb" 2> "$tmp/err"; then bad "ALT and minor panels accepted together"
else grep -qF "were made on different SNP panels; the first difference is SNP" "$tmp/err" && ok || bad "mixed panels: $(cat "$tmp/err")"; fi
echo "$pass PLINK/VCF checks passed, $fail failed"
[ $fail -eq 0 ]
