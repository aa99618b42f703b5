#!/bin/bash
# SPDX-License-Identifier: MIT
# Each malformed input is rejected: non-zero exit, a message naming the file (and line or
# record), and no output file left behind. Usage: snp_malformed.sh GVK DATA
set -u
gvk=$1 data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
E=$data/ld_edge/edge13x10
# name | text the message must contain | gvk arguments... (standard input: the file $stdin, if set)
check() {
	local name=$1 want=$2; shift 2
	rm -f "$tmp"/out*
	if "$gvk" "$@" < "${stdin:-/dev/null}" > "$tmp/stdout" 2> "$tmp/err"; then
		echo "FAIL: $name: accepted"; fail=$((fail + 1)); return
	fi
	if ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: $name: message '$(cat "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); return
	fi
	if ls "$tmp" | grep -q '^out'; then
		echo "FAIL: $name: output file left behind"; fail=$((fail + 1)); return
	fi
	pass=$((pass + 1))
}
set_fileset() { cp "$E.bed" "$tmp/$1.bed"; cp "$E.bim" "$tmp/$1.bim"; cp "$E.fam" "$tmp/$1.fam"; }
ld() { check "$1" "$2" ld --bfile "$tmp/$1" --r2 square --out "$tmp/out"; }

set_fileset magic; printf '\x6c\x1c\x01' | dd of="$tmp/magic.bed" bs=1 conv=notrunc 2> /dev/null
ld magic "magic.bed: not a PLINK 1 .bed file (the first bytes must be 6c 1b 01, found 6c 1c 01)"
set_fileset emptybed; : > "$tmp/emptybed.bed"
ld emptybed "emptybed.bed: empty file"
set_fileset smajor; printf '\x6c\x1b\x00' | dd of="$tmp/smajor.bed" bs=1 conv=notrunc 2> /dev/null
ld smajor "smajor.bed: sample-major .bed (header 6c 1b 00) is not supported"
set_fileset short; head -c 30 "$E.bed" > "$tmp/short.bed"
ld short "short.bed: 30 bytes, but the .bim's 10 variants and the .fam's 13 samples need 3 + 10 x 4 = 43"
set_fileset extrasnp; echo "2 e11 0 2000 A G" >> "$tmp/extrasnp.bim"
ld extrasnp "extrasnp.bed: 43 bytes, but the .bim's 11 variants"
set_fileset extrasample; for k in 1 2 3 4; do echo "famx indx$k 0 0 1 -9" >> "$tmp/extrasample.fam"; done
ld extrasample "extrasample.bed: 43 bytes, but the .bim's 10 variants and the .fam's 17 samples need 3 + 10 x 5 = 53"
set_fileset bimfields; sed -i '3s/\tG$//' "$tmp/bimfields.bim"
ld bimfields "bimfields.bim:3: expected 6 fields (chromosome ID cM bp A1 A2), found 5"
set_fileset bimpos; sed -i '2s/2000/2k/' "$tmp/bimpos.bim"
ld bimpos "bimpos.bim:2: base-pair position '2k' is not an integer"
set_fileset bimcm; sed -i '4s/\t0\t4000/\tx\t4000/' "$tmp/bimcm.bim"
ld bimcm "bimcm.bim:4: genetic position 'x' is not a number"
set_fileset bimallele; sed -i '1s/C\tA$/A\tA/' "$tmp/bimallele.bim"
ld bimallele "bimallele.bim:1: both alleles are 'A'"
set_fileset bimempty; sed -i '5s/.*//' "$tmp/bimempty.bim"
ld bimempty "bimempty.bim:5: empty line"
set_fileset famfields; sed -i '2s/ -9$//' "$tmp/famfields.fam"
ld famfields "famfields.fam:2: expected 6 fields (FID IID father mother sex phenotype), found 5"
set_fileset famextra; sed -i '3s/$/ extra/' "$tmp/famextra.fam"
ld famextra "famextra.fam:3: expected 6 fields (FID IID father mother sex phenotype), found 7"
set_fileset famempty; sed -i '6s/.*//' "$tmp/famempty.fam"
ld famempty "famempty.fam:6: empty line"
set_fileset famdup; sed -i '4s/fam3 ind3/fam2 ind2/' "$tmp/famdup.fam"
ld famdup "famdup.fam:4: duplicate sample ID"
check nofile "nothere.fam: cannot open" ld --bfile "$tmp/nothere" --r2 --out "$tmp/out"
# PLINK's option rules.
check window_matrix "cannot be used with matrix output" ld --bfile "$E" --r2 square --ld-window 5 --out "$tmp/out"
check window_interchr "cannot be used with inter-chr" ld --bfile "$E" --r2 inter-chr --ld-window-kb 5 --out "$tmp/out"
check no_stat "give --r, --r2, --indep-pairwise, --indep-pairphase, --indep or --clump" ld --bfile "$E" --out "$tmp/out"
check bad_mod "unknown --r/--r2 modifier 'sqare'" ld --bfile "$E" --r2 sqare --out "$tmp/out"
check d_dprime "'d' cannot be used with 'dprime'" ld --bfile "$E" --r2 d dprime --out "$tmp/out"
# Bad values of the PLINK filter and selection options: exit 1, a message, no output.
check geno_range "--geno must be between 0 and 1" ld --bfile "$E" --r2 --geno 1.5 --out "$tmp/out"
check geno_word "--geno: 'x' is not a number" ld --bfile "$E" --r2 --geno x --out "$tmp/out"
check maf_zero "--maf must be > 0 and <= 0.5" ld --bfile "$E" --r2 --maf 0 --out "$tmp/out"
check maf_high "--maf must be > 0 and <= 0.5" ld --bfile "$E" --r2 --maf 0.6 --out "$tmp/out"
check ld_window_one "--ld-window needs an integer from 2 to 2147483646" ld --bfile "$E" --r2 --ld-window 1 --out "$tmp/out"
check ld_window_max "--ld-window needs an integer from 2 to 2147483646" ld --bfile "$E" --r2 --ld-window 2147483647 --out "$tmp/out"
# More of PLINK's refusals: a flag given twice, two shapes, bin with bin4, the retired single-prec.
check twice_window "--ld-window given twice" ld --bfile "$E" --r2 --ld-window 10 --ld-window 20 --out "$tmp/out"
check twice_r2 "--ld-window-r2 given twice" ld --bfile "$E" --r2 --ld-window-r2 0.5 --ld-window-r2 0.2 --out "$tmp/out"
check twice_threads "--threads given twice" ld --bfile "$E" --r2 -t 2 --threads 2 --out "$tmp/out"
check two_shapes "give one matrix shape" ld --bfile "$E" --r2 square square --out "$tmp/out"
check bin_bin4 "'bin' and 'bin4' cannot be used together" ld --bfile "$E" --r2 bin bin4 --out "$tmp/out"
check single_prec "'single-prec' is retired" ld --bfile "$E" --r2 bin single-prec --out "$tmp/out"
check memory_small "--memory needs an integer >= 64" ld --bfile "$E" --r2 --memory 1 --out "$tmp/out"
# The .bim's order (ld_plink_rules.sh has the runs PLINK accepts): a split chromosome for every
# output, positions going down for windowed tables.
set_fileset split; sed -i '5s/^1/2/' "$tmp/split.bim"
ld split "split.bim:6: chromosome 1 starts again after other chromosomes"
set_fileset unsorted; sed -i '3s/3000/9000/' "$tmp/unsorted.bim"
check unsorted "unsorted.bim:4: position lower than an earlier one on chromosome 1" ld --bfile "$tmp/unsorted" --r2 --out "$tmp/out"
check snps_dash "--snps: 'e1-' is neither a variant ID nor a range" ld --bfile "$E" --r2 --snps e1- --out "$tmp/out"
check snps_absent "--snps: variant 'nope' not found" ld --bfile "$E" --r2 --snps e1,nope --out "$tmp/out"
check snps_none "--snps needs at least one variant ID" ld --bfile "$E" --r2 --snps --out "$tmp/out"
check from_absent "--from: variant 'nope' not found" ld --bfile "$E" --r2 --from nope --to e3 --out "$tmp/out"
check from_chr "--from and --to cannot be used with --chr" ld --bfile "$E" --r2 --chr 1 --from e1 --to e3 --out "$tmp/out"
check from_snps "--snps cannot be used with --from or --to" ld --bfile "$E" --r2 --snps e1 --from e1 --out "$tmp/out"
check chr_bad "--chr: 'chr99' is not a chromosome code" ld --bfile "$E" --r2 --chr chr99 --out "$tmp/out"
check ld_snp_absent "no valid variants named by --ld-snp" ld --bfile "$E" --r2 --ld-snp nope --out "$tmp/out"
check ld_snps_order "--ld-snps: in the range e5-e2 the second variant comes first" ld --bfile "$E" --r2 --ld-snps e5-e2 --out "$tmp/out"
check ld_snp_two "give only one of --ld-snp, --ld-snps and --ld-snp-list" ld --bfile "$E" --r2 --ld-snp e1 --ld-snps e2 --out "$tmp/out"
check ld_snp_matrix "apply to table output only" ld --bfile "$E" --r2 square --ld-snp e1 --out "$tmp/out"
check keep_nofile "nokeep.txt: cannot open" ld --bfile "$E" --r2 --keep "$tmp/nokeep.txt" --out "$tmp/out"
printf 'fam1\n' > "$tmp/keep1.txt"
check keep_one_field "keep1.txt:1: --keep needs FID and IID on each line" ld --bfile "$E" --r2 --keep "$tmp/keep1.txt" --out "$tmp/out"
printf 'nobody here\n' > "$tmp/keep0.txt"
check keep_nobody "--keep $tmp/keep0.txt: no samples remain" ld --bfile "$E" --r2 --keep "$tmp/keep0.txt" --out "$tmp/out"
# A NUL byte ended a line's fields without a word (an --extract list lost the IDs after it, a
# --keep line named another sample); found in review of the parsers the fuzz targets run.
set_fileset bimnul; printf '1\te1x\t0\t1000\tC\tA\000T\n' > "$tmp/l"; sed -i "1r $tmp/l" "$tmp/bimnul.bim"; sed -i 1d "$tmp/bimnul.bim"
ld bimnul "bimnul.bim:1: NUL byte"
set_fileset famnul; printf 'fam0 ind0 0 0 2 -9\000x\n' > "$tmp/l"; sed -i "1r $tmp/l" "$tmp/famnul.fam"; sed -i 1d "$tmp/famnul.fam"
ld famnul "famnul.fam:1: NUL byte"
printf 'e1\000e2\n' > "$tmp/extnul.txt"
check extract_nul "extnul.txt:1: NUL byte" ld --bfile "$E" --r2 --extract "$tmp/extnul.txt" --out "$tmp/out"
printf 'fam1 ind1\000x\n' > "$tmp/keepnul.txt"
check keep_nul "keepnul.txt:1: NUL byte" ld --bfile "$E" --r2 --keep "$tmp/keepnul.txt" --out "$tmp/out"
set_fileset longchr; sed -i "2s/^1/$(printf 'c%.0s' $(seq 300))/" "$tmp/longchr.bim"
ld longchr "longchr.bim:2: chromosome name of 300 bytes (at most 255)"
set_fileset extrachr; sed -i '2s/^1/scaffold_9/' "$tmp/extrachr.bim"
ld extrachr "extrachr.bim:2: 'scaffold_9' is not a PLINK chromosome code (--allow-extra-chr accepts"
# A .bim of 30,000 lines read on several threads, each thread a part of the lines: an error far
# into the file names its line as one thread does, and the first bad line wins over later ones.
awk 'BEGIN { for (k = 1; k <= 30000; ++k) printf "%d\tb%d\t0\t%d\tA\tG\n", 1 + int(k / 15000), k, k * 10 }' > "$tmp/big.bim"
big() { # name, line, sed command for that line
	cp "$tmp/big.bim" "$tmp/$1.bim"; sed -i "$2$3" "$tmp/$1.bim"
	cp "$E.fam" "$tmp/$1.fam"; head -c $((3 + 30000 * 4)) /dev/zero > "$tmp/$1.bed"
}
big bigbp 27001 's/270010/27x/'
for t in 1 3 7; do check bigbp_t$t "bigbp.bim:27001: base-pair position '27x' is not an integer" ld --bfile "$tmp/bigbp" --r2 -t $t --out "$tmp/out"; done
big bigtwo 29000 's/$/ x/'; sed -i '12000s/\tA\tG$/\tA\tA/' "$tmp/bigtwo.bim"
for t in 1 4; do check bigtwo_t$t "bigtwo.bim:12000: both alleles are 'A'" ld --bfile "$tmp/bigtwo" --r2 -t $t --out "$tmp/out"; done
big bignul 25000 's/b25000/b25\x00000/'
for t in 1 5; do check bignul_t$t "bignul.bim:25000: NUL byte in line (column 6)" ld --bfile "$tmp/bignul" --r2 -t $t --out "$tmp/out"; done
big bigsplit 29999 's/^2/1/'
for t in 1 3; do check bigsplit_t$t "bigsplit.bim:29999: chromosome 1 starts again after other chromosomes" ld --bfile "$tmp/bigsplit" --r2 -t $t --out "$tmp/out"; done
big bigcr 30000 's/G$/G\r/'; printf '\r\n' >> "$tmp/bigcr.bim"
for t in 1 3; do check bigcr_t$t "bigcr.bim:30001: empty line" ld --bfile "$tmp/bigcr" --r2 -t $t --out "$tmp/out"; done
# and read whole, with '\r\n' line ends and no newline at the end: the same variants on any
# number of threads
sed 's/$/\r/' "$tmp/big.bim" | head -c -1 > "$tmp/bigok.bim"; cp "$E.fam" "$tmp/bigok.fam"
{ printf '\x6c\x1b\x01'; head -c $((30000 * 4)) /dev/urandom; } > "$tmp/bigok.bed"
for t in 1 6; do
	"$gvk" ld -q --bfile "$tmp/bigok" --r2 --ld-window-r2 0 --ld-window 2 -t $t --out "$tmp/ok$t" 2> "$tmp/err" || { echo "FAIL: bigok_t$t: $(cat "$tmp/err")"; fail=$((fail + 1)); }
done
if [ -e "$tmp/ok1.ld" ] && cmp -s "$tmp/ok1.ld" "$tmp/ok6.ld" && [ "$(grep -c . "$tmp/ok1.ld")" -gt 29000 ] && grep -q '^30000 variants loaded' "$tmp/ok6.log"; then
	pass=$((pass + 1))
else
	echo "FAIL: bigok: the tables of -t 1 and -t 6 differ or lack pairs"; fail=$((fail + 1))
fi
rm -f "$tmp"/big* "$tmp"/ok*

# --device gpu without a usable GPU: the stub's message, or the GPU build's on a machine without a
# GPU ("no GPU (...)") or when the GPU does not answer;
# with a GPU the request is valid and the two checks are skipped.
nogpu=""
if ! "$gvk" ld -q --bfile "$E" --r2 --device gpu --out "$tmp/probe" 2> "$tmp/probe.err"; then
	if grep -qF "built without GPU support" "$tmp/probe.err"; then nogpu="built without GPU support"
	elif grep -qF ": no GPU (" "$tmp/probe.err"; then nogpu="--device gpu: no GPU ("
	elif grep -qF "no usable HIP GPU" "$tmp/probe.err"; then nogpu="no usable HIP GPU for the SNP engines"
	else nogpu="no usable CUDA GPU for the SNP engines"; fi
fi
rm -f "$tmp"/probe*
[ -z "$nogpu" ] || check gpu "$nogpu" ld --bfile "$E" --r2 --device gpu --out "$tmp/out"
# Unphased D' is a CPU computation: --device gpu refuses it with or without a GPU.
check gpu_dprime "computed on the CPU only" ld --bfile "$E" --r2 dprime --device gpu --out "$tmp/out"

# VCF input (only with htslib).
if "$gvk" ld --vcf /nonexistent.vcf --r2 --out "$tmp/out" 2>&1 | grep -q "built without htslib"; then
	echo "VCF checks skipped: this gvk was built without htslib"
else
	printf '##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description="GT">\n##FORMAT=<ID=DP,Number=1,Type=Integer,Description="DP">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\n' > "$tmp/h.vcf"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0|1\t1|1\n1\t200\tv2\tA\tG\t.\t.\t.\tDP\t5\t6\n'; } > "$tmp/nogt.vcf"
	# The phased-haplotype reader stays strict; genotypes follow PLINK's import (ld_plink_opts.sh).
	check vcf_nogt "nogt.vcf: record 2 (1:200): no GT field" ld --vcf "$tmp/nogt.vcf" --phased --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0|1\t1\n'; } > "$tmp/hap.vcf"
	check vcf_ploidy "hap.vcf: record 1 (1:100): sample s2 is haploid" ld --vcf "$tmp/hap.vcf" --phased --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0/1/1\t1/1/0\n'; } > "$tmp/tri.vcf"
	check vcf_triploid "tri.vcf: record 1 (1:100): ploidy 3" ld --vcf "$tmp/tri.vcf" --phased --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0/.\t1/1\n'; } > "$tmp/half.vcf"
	check vcf_half "half.vcf: record 1 (1:100): sample s1 has a half-missing call" ld --vcf "$tmp/half.vcf" --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n'; } > "$tmp/u_id.vcf"
	sed -i 's/\ts1\ts2$/\ta_b_c\ts2/' "$tmp/u_id.vcf"
	check vcf_id "u_id.vcf: sample ID 'a_b_c' has more than one '_'" ld --vcf "$tmp/u_id.vcf" --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t1|1\n'; } > "$tmp/unph.vcf"
	check vcf_unphased "unph.vcf: record 1 (1:100): sample s1 has an unphased heterozygous call" \
		ld --vcf "$tmp/unph.vcf" --phased --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG,T\t.\t.\t.\tGT\t0|1\t1|2\n'; } > "$tmp/multi.vcf"
	check vcf_multi "multi.vcf: record 1 (1:100): multi-allelic" fastid --make-fidb "$tmp/multi.vcf" -o "$tmp/out.fidb"
	# Found by fuzzing: GT listed in FORMAT but given no value; htslib ended the process itself
	# (in the strict reader, then again in gvk ld's PLINK import, which this case runs).
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tDP:GT\t5\t6\n'; } > "$tmp/gtnone.vcf"
	check vcf_gtnone "gtnone.vcf: record 1 (1:100): GT field without genotype values" ld --vcf "$tmp/gtnone.vcf" --r2 --out "$tmp/out"
	# Found by fuzzing: a line cut short was read as a record without alleles (a crash) or calls.
	{ cat "$tmp/h.vcf"; printf '1\t100\n'; } > "$tmp/cut.vcf"
	check vcf_cut_ref "cut.vcf: record 1 (1:100): the line ends before its REF column" ld --vcf "$tmp/cut.vcf" --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\n'; } > "$tmp/cut8.vcf"
	check vcf_cut_samples "cut8.vcf: record 1 (1:100): 0 sample columns, but the header names 2 samples" \
		ld --vcf "$tmp/cut8.vcf" --r2 --out "$tmp/out"
	# A GT allele past the record's alleles counted as ALT in the strict reader (found in review;
	# the PLINK import reads it as missing, as PLINK 1.9 does).
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0|2\t1|1\n'; } > "$tmp/gt2.vcf"
	check vcf_gt_allele "gt2.vcf: record 1 (1:100): sample s1's GT names allele 2, but the record has 2" \
		ld --vcf "$tmp/gt2.vcf" --phased --r2 --out "$tmp/out"
	check vcf_gt_allele_fidb "gt2.vcf: record 1 (1:100): sample s1's GT names allele 2" \
		fastid --make-fidb "$tmp/gt2.vcf" -o "$tmp/out.fidb"
	# Contig names: over 255 bytes an error (they were cut); two of 70 bytes that differ only at the
	# end stay two chromosomes (the strict reader cut them at 63 and paired them; found in review).
	c70=$(printf 'c%.0s' $(seq 70)) c300=$(printf 'c%.0s' $(seq 300))
	{ cat "$tmp/h.vcf"; printf '%sA\t100\tv1\tA\tG\t.\t.\t.\tGT\t0|1\t1|1\n' "$c300"; } > "$tmp/long.vcf"
	check vcf_long_chr "long.vcf: record 1: contig name of 301 bytes (at most 255)" ld --vcf "$tmp/long.vcf" --phased --r2 --out "$tmp/out"
	check vcf_long_chr_import "long.vcf: record 1: contig name of 301 bytes (at most 255)" \
		ld --vcf "$tmp/long.vcf" --allow-extra-chr --r2 --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '%s\t100\tv1\tA\tG\t.\t.\t.\tGT\t0|1\t1|1\n' "${c70}A" "${c70}B"; } > "$tmp/c70.vcf"
	if "$gvk" ld -q --vcf "$tmp/c70.vcf" --phased --r2 --ld-window-r2 0 -o "$tmp/c70.ld" 2> /dev/null && [ "$(wc -l < "$tmp/c70.ld")" = 1 ]; then
		pass=$((pass + 1))
	else
		echo "FAIL: vcf_chr70: two contigs of 70 bytes were paired"; fail=$((fail + 1))
	fi
	rm -f "$tmp/c70.ld"
	# A VCF's order as PLINK imports it: a split chromosome, positions going down in a windowed table.
	{ cat "$tmp/h.vcf"; printf '1\t100\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n2\t100\tv2\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n1\t300\tv3\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n'; } > "$tmp/vsplit.vcf"
	check vcf_split "vsplit.vcf: record 3: chromosome 1 starts again" ld --vcf "$tmp/vsplit.vcf" --r2 square --out "$tmp/out"
	{ cat "$tmp/h.vcf"; printf '1\t300\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n1\t100\tv2\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n'; } > "$tmp/vuns.vcf"
	check vcf_unsorted "vuns.vcf: record 2: position lower than an earlier one on chromosome 1" ld --vcf "$tmp/vuns.vcf" --r2 --out "$tmp/out"
	# Found by fuzzing: an empty CHROM was a contig named "".
	{ cat "$tmp/h.vcf"; printf '\t100\tv1\tA\tG\t.\t.\t.\tGT\t0|1\t1|1\n'; } > "$tmp/nochr.vcf"
	check vcf_nochr "nochr.vcf: record 1: empty CHROM" ld --vcf "$tmp/nochr.vcf" --r2 --allow-extra-chr --out "$tmp/out"
	check vcf_nochr_phased "nochr.vcf: record 1: empty CHROM" ld --vcf "$tmp/nochr.vcf" --phased --r2 --out "$tmp/out"
fi

# FastID profile files.
F=$data/fastid/fastid40x500x200
printf 'FIDX' > "$tmp/magic.fidb"; tail -c +5 "$F.db.fidb" >> "$tmp/magic.fidb"
check fidb_magic "magic.fidb: not a FastID profile file" fastid -o "$tmp/out" "$tmp/magic.fidb" "$F.queries.fidb"
head -c 1000 "$F.db.fidb" > "$tmp/short.fidb"
check fidb_size "short.fidb: 1000 bytes, but 500 profiles of 4 words need 16016" fastid -o "$tmp/out" "$tmp/short.fidb" "$F.queries.fidb"
cp "$F.db.fidb" "$tmp/pad.fidb"; chmod u+w "$tmp/pad.fidb"
printf '\xff' | dd of="$tmp/pad.fidb" bs=1 seek=$((16 + 32 * 7 + 31)) conv=notrunc 2> /dev/null
check fidb_padding "pad.fidb: profile 7 has bits set beyond SNP 200" fastid -o "$tmp/out" "$tmp/pad.fidb" "$F.queries.fidb"
# Queries of another length: rewrite the SNP count of the header (200 -> 192, 3 words).
{ printf 'FIDB\x28\x00\x00\x00\xc0\x00\x00\x00\x03\x00\x00\x00'; head -c $((40 * 24)) /dev/zero; } > "$tmp/len.fidb"
check fidb_length "len.fidb: profiles have 192 SNPs but those of" fastid -o "$tmp/out" "$F.db.fidb" "$tmp/len.fidb"
# Found by fuzzing: a 16-byte database of 4352 profiles of 0 SNPs (no bytes each) passed the
# size check, and a search over four billion of them would never end.
printf 'FIDB\x00\x11\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$tmp/nosnp.fidb"
check fidb_nosnp "nosnp.fidb: header says the profiles have 0 SNPs" fastid -o "$tmp/out" "$tmp/nosnp.fidb" "$F.queries.fidb"
# Found by fuzzing: on a pipe, a header's counts are not backed by bytes, yet 65536 profiles of
# 2^22 SNPs (32 GB) were allocated before the first byte was read; now only what arrives is held.
printf 'FIDB\x00\x00\x01\x00\x00\x00\x40\x00\x00\x00\x01\x00\xff\xff\xff\xff\xff' > "$tmp/huge.fidb"
stdin=<(cat "$tmp/huge.fidb") check fidb_pipe_huge_q "standard input: ends inside profile 0 (the header says 65536 profiles)" \
	fastid -o "$tmp/out" "$F.db.fidb" -
{ printf 'FIDB\x01\x00\x00\x00\x00\x00\x40\x00\x00\x00\x01\x00'; head -c 524288 /dev/zero; } > "$tmp/q22.fidb"
stdin=<(cat "$tmp/huge.fidb") check fidb_pipe_huge_db "standard input: ends inside profile 0 (the header says 65536 profiles)" \
	fastid -o "$tmp/out" - "$tmp/q22.fidb"
[ -z "$nogpu" ] || check fidb_gpu "$nogpu" fastid --device gpu -o "$tmp/out" "$F.db.fidb" "$F.queries.fidb"

# Version 2 files (panel and sample IDs), made from the edge set: 13 profiles of 10 SNPs, the
# panel at byte 40 starting "1<TAB>e1<TAB>1000<TAB>C<TAB>A<LF>", 141 bytes; the IDs last.
"$gvk" fastid -q --make-fidb "$E" -o "$tmp/v2.fidb" || { echo "FAIL: --make-fidb of the edge set"; exit 1; }
size=$(stat -c %s "$tmp/v2.fidb")
# fid2 NAME OFFSET BYTES MESSAGE: the file with BYTES (printf escapes) written at OFFSET is refused.
fid2() {
	cp "$tmp/v2.fidb" "$tmp/$1.fidb"
	printf "$3" | dd of="$tmp/$1.fidb" bs=1 seek=$2 conv=notrunc 2> /dev/null
	check "$1" "$1.fidb: $4" fastid -o "$tmp/out" "$tmp/v2.fidb" "$tmp/$1.fidb"
}
fid2 fid2_magic 3 'X' "not a FastID profile file (no 'FIDB' or 'FID2' header)"
fid2 fid2_words 12 '\002' "header says 10 SNPs but 2 words per profile (need 1)"
fid2 fid2_nosnp 8 '\000\000\000\000\000' "header says the profiles have 0 SNPs"
fid2 fid2_panel_len 16 '\005' "header says 10 SNPs but a panel of 5 bytes"
fid2 fid2_ids_len 24 '\001' "header says 13 profiles but 1 bytes of sample IDs"
fid2 fid2_size 24 '\377' "421 bytes, but the header's 141-byte panel, 13 profiles of 1 words and 255 bytes of sample IDs need 540"
fid2 fid2_hash 40 '3' "the SNP panel hashes to"
fid2 fid2_fields 41 ' ' "SNP panel, SNP 0: 4 fields, need 5"
fid2 fid2_pos 45 '0' "SNP panel, SNP 0: position '0000' is not a plain decimal number"
fid2 fid2_ctl 50 '\001' "SNP panel, SNP 0: control byte 0x01 in the allele 1"
fid2 fid2_nul 50 '\000' "SNP panel, SNP 0: NUL byte"
fid2 fid2_panel_end 180 'x' "SNP panel ends inside the line of SNP 9"
fid2 fid2_pad $((181 + 8 * 5 + 7)) '\200' "profile 5 has bits set beyond SNP 10"
fid2 fid2_id_ctl $((size - 2)) '\033' "the sample ID of profile 12 has control byte 0x1b"
fid2 fid2_id_end $((size - 1)) 'x' "sample IDs end inside the ID of profile 12"
fid2 fid2_id_empty $((size - 12)) '\n' "the sample ID of profile 12 is empty"

echo "$pass malformed inputs rejected, $fail failures"
[ $fail -eq 0 ]
