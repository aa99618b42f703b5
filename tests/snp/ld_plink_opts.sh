#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld against PLINK 1.9 itself: the same command line through plink1.9 and gvk ld must write
# the same .ld file, byte for byte. Covers the sample and variant selection options, --ld-snp*,
# unphased D / D' (d, dprime, dprime-signed), the PHASE column, X with males, and VCF import
# (multi-allelic, haploid, missing-GT, contig names, sample IDs). Data come from plink1.9 --dummy
# and from VCFs written here. Skips (77) without plink1.9. Usage: ld_plink_opts.sh GVK
set -u
gvk=$1
plink=${PLINK:-plink1.9}
command -v "$plink" > /dev/null || { echo "skipped: $plink is not installed (scripts/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0 skipped=0
# A gvk without htslib (the aarch64 cross build) cannot read VCF: those cases are skipped, named below.
htslib=$("$gvk" --version | grep -c '^htslib: [0-9]')

# Cases PLINK refuses: gvk must refuse them too (exit 1, no output).
refused=" from_to_chroms extra_refused vcf_refused "

# same NAME plink-options...: both tools with --out p_NAME / g_NAME; the .ld files must be equal,
# or, for the cases in $refused, both runs must fail.
same() {
	local n=$1; shift
	if [ "$htslib" = 0 ] && [[ " $* " == *" --vcf "* ]]; then skipped=$((skipped + 1)); return; fi
	"$plink" "$@" --out "p_$n" > "p_$n.out" 2>&1
	"$gvk" ld -q "$@" --out "g_$n" > "g_$n.out" 2>&1
	local rc=$? pf gf
	pf=$(ls "p_$n".ld* 2> /dev/null | head -1)
	gf=$(ls "g_$n".ld* 2> /dev/null | head -1)
	if [ -z "$pf" ] && [ -z "$gf" ] && [ $rc -eq 1 ] && [[ $refused == *" $n "* ]]; then pass=$((pass + 1)); return; fi
	if [ -z "$pf" ] || [ -z "$gf" ]; then
		echo "FAIL $n: plink output '${pf}', gvk output '${gf}' (rc $rc): $(grep -m1 -i error "p_$n.out") / $(head -1 "g_$n.out")"
		fail=$((fail + 1)); return
	fi
	if cmp -s <(zcat -f "$pf") <(zcat -f "$gf"); then pass=$((pass + 1)); return; fi
	echo "FAIL $n: $* differs from plink1.9:"; diff <(zcat -f "$pf") <(zcat -f "$gf") | head -4
	fail=$((fail + 1))
}

# The 38-row PHASE case: pairs with r = 0 pair A1 with A2, as PLINK prints them.
"$plink" --dummy 203 800 0.02 acgt --seed 20240601 --make-bed --out d800 > /dev/null || exit 1
same phase --bfile d800 --r2 with-freqs in-phase --ld-window-r2 0

# 150 samples x 300 SNPs: chromosomes 1, 2 and X (last), every fifth sample male, some samples
# with parents (non-founders), positions 1 kb apart, cM rising.
"$plink" --dummy 150 300 0.03 acgt --seed 11 --make-bed --out d > /dev/null || exit 1
awk 'BEGIN { OFS = "\t" } { $1 = NR <= 120 ? 1 : NR <= 220 ? 2 : 23; $3 = NR * 0.013; $4 = NR * 1000; print }' d.bim > t && mv t d.bim
awk 'NR % 5 == 0 { $5 = 1 } NR % 17 == 0 { $3 = "per0" } NR % 23 == 0 { $3 = "per1"; $4 = "per2" } { print }' d.fam > t && mv t d.fam
awk 'NR % 3 == 0 { print $1, $2 }' d.fam > keep.txt
awk 'NR % 4 == 1 { print $1 "\t" $2 }' d.fam > remove.txt
awk 'NR % 7 == 0 { print $2 }' d.bim > extract.txt
printf 'snp5 snp40\nsnp222\nsnp299 nosuch\n' > ldlist.txt
W0="--ld-window-r2 0"

same base --bfile d --r2 with-freqs in-phase $W0
same keep --bfile d --r2 with-freqs $W0 --keep keep.txt
same remove --bfile d --r in-phase with-freqs $W0 --remove remove.txt
same keep_remove --bfile d --r2 $W0 --keep keep.txt --remove remove.txt
same maf --bfile d --r2 with-freqs $W0 --maf 0.45
same maf_default --bfile d --r2 $W0 --maf
same geno --bfile d --r2 $W0 --geno 0.03
same geno_maf_keep --bfile d --r2 with-freqs $W0 --geno 0.02 --maf 0.46 --keep keep.txt
same snps --bfile d --r2 $W0 --snps snp3-snp30,snp50 snp100-snp90 snp250
same from_to --bfile d --r2 $W0 --from snp150 --to snp130
same from_only --bfile d --r2 $W0 --from snp290
same from_to_chroms --bfile d --r2 $W0 --from snp10 --to snp150
same chr --bfile d --r2 $W0 --chr 2,X
same extract --bfile d --r2 $W0 --extract extract.txt --chr 1-2
same ld_snp --bfile d --r2 $W0 --ld-snp snp100
same ld_snp_interchr --bfile d --r2 inter-chr $W0 --ld-snp snp100
same ld_snps --bfile d --r2 $W0 --ld-snps snp10-snp20,snp119 snp121
same ld_snps_window --bfile d --r2 $W0 --ld-snps snp10-snp20 --ld-window 4 --ld-window-kb 2.5
same ld_snp_list --bfile d --r2 in-phase $W0 --ld-snp-list ldlist.txt
same ld_snps_filters --bfile d --r2 with-freqs in-phase $W0 --ld-snps snp1-snp60 --maf 0.45 --keep keep.txt
same make_founders --bfile d --r2 $W0 --make-founders
same nonfounders --bfile d --r2 with-freqs in-phase $W0 --nonfounders
same keep_allele_order --bfile d --r with-freqs in-phase $W0 --keep-allele-order
same square_x --bfile d --r square
same bin4_x --bfile d --r2 triangle bin4
# Unphased D and D' (PLINK's haplotype-frequency estimate).
same dprime --bfile d800 --r2 dprime $W0
same dprime_x --bfile d --r2 dprime $W0
same dprime_signed --bfile d --r dprime-signed $W0
same d --bfile d --r2 d $W0
same dprime_cols --bfile d --r2 dprime in-phase with-freqs $W0 --keep keep.txt
same dprime_interchr --bfile d --r2 dprime inter-chr --ld-window-r2 0.02
same dprime_chr_x --bfile d --r dprime-signed $W0 --chr X
same dprime_ld_snps --bfile d --r2 dprime $W0 --ld-snps snp221-snp230
same dprime_ld_list --bfile d --r2 dprime inter-chr --ld-window-r2 0.05 --ld-snp-list ldlist.txt
same dprime_cm --bfile d --r2 dprime $W0 --ld-window-cm 1.2 --ld-snps snp3-snp9,snp12,snp200-snp204
same dprime_make_founders --bfile d --r2 dprime $W0 --make-founders --maf 0.3

# Y (first), MT, XY, X and an autosome, with males, females and unknown sex.
"$plink" --dummy 120 200 0.04 acgt --seed 21 --make-bed --out y > /dev/null || exit 1
awk 'BEGIN { OFS = "\t" } { $1 = NR <= 50 ? 24 : NR <= 90 ? 26 : NR <= 120 ? 25 : NR <= 150 ? 23 : 3; $4 = NR * 500; print }' y.bim > t && mv t y.bim
awk 'NR % 3 == 0 { $5 = 1 } NR % 7 == 0 { $5 = 0 } { print }' y.fam > t && mv t y.fam
same y --bfile y --r2 with-freqs in-phase $W0
same y_square --bfile y --r square
same y_geno_maf --bfile y --r2 with-freqs $W0 --geno 0.05 --maf 0.3
same y_dprime --bfile y --r2 dprime with-freqs $W0
same y_dprime_interchr --bfile y --r dprime-signed inter-chr --ld-window-r2 0.05
same y_dprime_ld_snps --bfile y --r2 dprime $W0 --ld-snps snp3-snp8,snp130

# Contig names: PLINK refuses them unless --allow-extra-chr, and stops reading a --chr list at one.
"$plink" --dummy 30 12 0.02 acgt --seed 9 --make-bed --out e > /dev/null || exit 1
awk 'BEGIN { OFS = "\t" } { c = NR > 10 ? "0" : NR > 8 ? "chr5" : NR > 6 ? "scaffold_7" : NR > 3 ? "chrUn_gl1" : "1"; $1 = c; print }' e.bim > t && mv t e.bim
same extra_refused --bfile e --r2 $W0
same extra --bfile e --r2 $W0 --allow-extra-chr
same extra_chr --bfile e --r2 $W0 --allow-extra-chr --chr 5,chrUn_gl1
same extra_chr_cut --bfile e --r2 $W0 --allow-extra-chr --chr chrUn_gl1,5

# VCFs: multi-allelic records (the most common ALT is kept, other alleles are missing), haploid
# calls (homozygous), X and Y (sex unknown from a VCF: Y has no calls), a record without GT, a
# contig name, IDs split at '_' by default and kept whole with --double-id.
awk -v ns=40 'BEGIN {
	srand(5)
	print "##fileformat=VCFv4.2"
	split("1 2 X Y chrUn_gl000220 MT", chr, " "); split("30 10 20 5 4 4", cnt, " ")
	for (c = 1; c <= 6; ++c) printf "##contig=<ID=%s>\n", chr[c]
	print "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"GT\">"
	print "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"DP\">"
	printf "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT"
	for (s = 0; s < ns; ++s) printf "\t%s", s % 3 ? "F" s "_I" s : "S" s
	printf "\n"
	split("A C G T", base, " "); pos = 1000
	for (c = 1; c <= 6; ++c)
		for (k = 0; k < cnt[c]; ++k) {
			pos += 100 + int(rand() * 30000); nalt = rand() < 0.6 ? 1 : 2 + int(rand() * 2)
			r = 1 + int(rand() * 4); alt = ""
			for (a = 1; a <= nalt; ++a) alt = alt (a > 1 ? "," : "") base[(r + a - 1) % 4 + 1]
			printf "%s\t%d\t%s\t%s\t%s\t.\t.\t.\t%s", chr[c], pos, rand() < 0.9 ? chr[c] "_" k : ".", base[r], alt, (c == 1 && k == 3) ? "DP" : "GT"
			for (s = 0; s < ns; ++s) {
				if (c == 1 && k == 3) { printf "\t%d", 1 + int(rand() * 30); continue }
				if ((chr[c] == "X" || chr[c] == "Y") && s % 2 == 0 && rand() < 0.9) {
					printf "\t%s", rand() < 0.05 ? "." : int(rand() * (nalt + 1)); continue
				}
				if (rand() < 0.05) { printf "\t./."; continue }
				printf "\t%d%s%d", int(rand() * rand() * (nalt + 0.999)), rand() < 0.5 ? "/" : "|", int(rand() * rand() * (nalt + 0.999))
			}
			printf "\n"
		}
}' > v.vcf
awk '/^#CHROM/ { for (i = 10; i <= NF; i += 2) { n = split($i, p, "_"); print (n == 2 ? p[1] " " p[2] : $i " " $i) } }' v.vcf > vkeep.txt
awk '/^#CHROM/ { for (i = 11; i <= NF; i += 2) print $i, $i }' v.vcf > vkeep_double.txt
XC="--allow-extra-chr"
same vcf_refused --vcf v.vcf --r2 $W0
same vcf --vcf v.vcf --r2 with-freqs in-phase $W0 $XC
same vcf_r --vcf v.vcf --r $W0 $XC --keep-allele-order
same vcf_square --vcf v.vcf --r2 square $XC
same vcf_dprime --vcf v.vcf --r2 dprime in-phase $W0 $XC
same vcf_keep --vcf v.vcf --r2 with-freqs $W0 $XC --keep vkeep.txt
same vcf_double_id --vcf v.vcf --r2 $W0 $XC --double-id --keep vkeep_double.txt
same vcf_chr --vcf v.vcf --r2 $W0 $XC --chr X,chrUn_gl000220
same vcf_maf_geno --vcf v.vcf --r2 $W0 $XC --maf 0.2 --geno 0.1
same vcf_interchr --vcf v.vcf --r2 inter-chr --ld-window-r2 0.1 $XC
# Odd records: ALT '.', REF N, three-allele and 0/1/. calls, a haploid call on an autosome, ten
# ALT alleles (PLINK keeps only REF homozygotes there), GT:DP, a two-ALT tie.
{
	printf '##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description="GT">\n'
	printf '##FORMAT=<ID=DP,Number=1,Type=Integer,Description="DP">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT'
	for s in 0 1 2 3 4 5 6 7 8 9 10 11; do printf '\ts%d' $s; done; printf '\n'
	row() { local pos=$1 id=$2 ref=$3 alt=$4 fmt=$5; shift 5; printf '1\t%s\t%s\t%s\t%s\t.\t.\t.\t%s' "$pos" "$id" "$ref" "$alt" "$fmt"; printf '\t%s' "$@"; printf '\n'; }
	row 100 a A G GT 0/1 1\|1 0\|0 0/1 0/0 1/1 0/1 1/1 0/0 0/0 0/1 1/1
	row 200 dotalt A . GT 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0
	row 300 nref N C GT 0/1 1/1 0/0 0/1 0/0 1/1 0/1 1/1 0/0 0/0 0/1 0/1
	row 400 tri C T GT 0/1/1 1/1 0/0 0/1/. 0/0 1/1 0/1 1/1 0/0 ./. 0/1 1
	row 500 many TT A,C,G,T,AA,AC,AG,AT,CA,CC,CG GT 0/11 11/11 0/0 10/11 0/0 11\|1 0/11 1/1 0/0 0/0 0/1 0/11
	row 600 gtdp G A GT:DP 0/1:3 1/1:4 0/0:2 0/1:9 0/0:1 1/1:5 0/1:7 1/1:3 0/0:2 0/0:8 0/1:6 0/1:4
	row 700 tie A C,G GT 1/2 1/1 2/2 0/1 0/2 0/0 1/2 0/0 0/0 0/0 0/1 0/2
	row 800 b C T GT 0/1 1/1 0/0 1/1 0/0 0/1 0/1 1/1 0/0 0/1 0/1 1/1
} > odd.vcf
same odd --vcf odd.vcf --r2 with-freqs in-phase $W0
same odd_square --vcf odd.vcf --r square
same odd_dprime --vcf odd.vcf --r2 dprime $W0

# The log is written with the output, and says what was kept.
"$gvk" ld -q --bfile d --r2 $W0 --keep keep.txt --maf 0.45 --out logged 2> /dev/null
for want in "--keep keep.txt" "--keep: 50 people remaining." "variants removed due to minor allele threshold(s)" \
	"people pass filters and QC." "--r2 to logged.ld ... done."; do
	grep -qF -- "$want" logged.log || { echo "FAIL log: no '$want' in logged.log"; fail=$((fail + 1)); }
done

echo "$pass outputs byte-identical to $("$plink" --version 2> /dev/null | head -1), $fail failures"
[ $skipped -eq 0 ] || echo "skipped: $skipped VCF cases (this gvk was built without htslib)"
[ $fail -eq 0 ]
