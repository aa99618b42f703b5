#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk fastid --make-fidb with several threads writes the .fidb of one thread, byte for byte: VCF
# (plain, bgzip, BCF; haploid, phased and missing calls, contigs and tags the header does not
# declare, records over several read batches), --minor, a PLINK fileset; and a bad record gets
# the message of one thread.
# Usage: fastid_threads.sh GVK DATA_SNP_DIR
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
fid() { "$gvk" fastid -q --device cpu "$@"; }
# same NAME ARGS...: -t 1 against -t 2, 3 and 5
same() {
	local name=$1 t; shift
	fid -t 1 "$@" -o "$tmp/one.fidb" 2> "$tmp/err" || { echo "FAIL: $name -t 1: $(cat "$tmp/err")"; fail=$((fail + 1)); return; }
	for t in 2 3 5; do
		fid -t $t "$@" -o "$tmp/t$t.fidb" || { echo "FAIL: $name -t $t"; fail=$((fail + 1)); continue; }
		cmp -s "$tmp/one.fidb" "$tmp/t$t.fidb" || { echo "FAIL: $name: -t $t differs from -t 1"; fail=$((fail + 1)); }
	done
}
same "PLINK fileset" --make-fidb "$data/ld_phased/phased257x200_miss0.02"
if ! fid --make-fidb "$data/ld_phased/phased257x200_miss0.02.vcf.gz" -o "$tmp/x.fidb" 2> "$tmp/err"; then
	if grep -q "without htslib" "$tmp/err"; then echo "skip: VCF: $(cat "$tmp/err")"; echo "$fail failed"; [ $fail -eq 0 ]; exit; fi
fi
same "bgzip VCF" --make-fidb "$data/ld_phased/phased257x200_miss0.02.vcf.gz"
same "bgzip VCF --minor" --make-fidb "$data/ld_phased/phased257x200_miss0.02.vcf.gz" --minor
# 700 samples (11 words of profile bits), 1800 records on three contigs, one of them and an INFO
# tag not in the header (htslib adds them to the header it parses with); haploid, phased and
# missing calls.
awk 'BEGIN { srand(7); n = 700; m = 1800
	print "##fileformat=VCFv4.2"; print "##contig=<ID=1>"; print "##contig=<ID=2>"
	print "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"GT\">"
	printf "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT"; for (s = 0; s < n; ++s) printf "\ts%d", s; print ""
	split("0/0 0/1 1/1 ./. 0|1 1|0 1 0 .", g, " ")
	for (j = 0; j < m; ++j) {
		c = j < 700 ? 1 : j < 1300 ? 2 : "X"; p = 0.05 + 0.45 * rand()
		printf "%s\t%d\tv%d\tA\tG\t.\tPASS\t%s\tGT", c, 100 + 10 * j, j, j % 97 == 5 ? "NEW=" j : "."
		for (s = 0; s < n; ++s) { r = rand(); k = r < 0.01 ? 4 : (c == "X" && s % 2) ? (rand() < p ? 7 : 8) : \
			rand() < 0.1 ? 5 + (rand() < 0.5) : (rand() < p) + (rand() < p) + 1; printf "\t%s", g[k] }
		print "" } }' > "$tmp/v.vcf"
same "plain VCF" --make-fidb "$tmp/v.vcf"
same "plain VCF --minor" --make-fidb "$tmp/v.vcf" --minor
if command -v bgzip > /dev/null; then
	bgzip -c "$tmp/v.vcf" > "$tmp/v.vcf.gz"
	same "bgzip VCF 700 samples" --make-fidb "$tmp/v.vcf.gz"
	fid -t 3 --make-fidb "$tmp/v.vcf.gz" -o "$tmp/gz.fidb" && fid -t 1 --make-fidb "$tmp/v.vcf" -o "$tmp/plain.fidb" &&
		cmp -s "$tmp/gz.fidb" "$tmp/plain.fidb" || { echo "FAIL: bgzip and plain VCF differ"; fail=$((fail + 1)); }
fi
if command -v bcftools > /dev/null; then
	bcftools view -Ob -o "$tmp/v.bcf" "$tmp/v.vcf" 2> /dev/null && same "BCF" --make-fidb "$tmp/v.bcf"
fi
# Bad records: the first one in the file is named, whatever the threads.
badvcf() { # NAME LINE_NUMBER REPLACEMENT WANT
	local name=$1 at=$2 line=$3 want=$4 t
	awk -v at="$at" -v line="$line" 'NR == at { print line; next } { print }' "$tmp/v.vcf" > "$tmp/bad.vcf"
	for t in 1 2 3 5; do
		rm -f "$tmp/bad.fidb"
		if fid -t $t --make-fidb "$tmp/bad.vcf" -o "$tmp/bad.fidb" 2> "$tmp/err$t"; then echo "FAIL: $name accepted with -t $t"; fail=$((fail + 1)); fi
		[ ! -e "$tmp/bad.fidb" ] || { echo "FAIL: $name left output with -t $t"; fail=$((fail + 1)); }
		cmp -s "$tmp/err1" "$tmp/err$t" || { echo "FAIL: $name: -t $t says '$(cat "$tmp/err$t")'"; fail=$((fail + 1)); }
	done
	grep -qF -- "$want" "$tmp/err1" || { echo "FAIL: $name: '$(cat "$tmp/err1")' lacks '$want'"; fail=$((fail + 1)); }
}
badvcf "multi-allelic" 906 "$(awk 'NR == 906' "$tmp/v.vcf" | awk 'BEGIN { OFS = "\t" } { $5 = "G,T"; print }')" "record 901 (2:9100): multi-allelic"
badvcf "ploidy 3" 1500 "$(awk 'NR == 1500' "$tmp/v.vcf" | awk 'BEGIN { OFS = "\t" } { $10 = "0/1/1"; print }')" "record 1495"
badvcf "no GT" 20 "$(awk 'NR == 20' "$tmp/v.vcf" | cut -f1-8)" "record 15"
echo "$fail failed"
[ $fail -eq 0 ]
