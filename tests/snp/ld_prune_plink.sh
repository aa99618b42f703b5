#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --indep-pairwise, --indep-pairphase and --indep (VIF) against PLINK 1.9 itself: the
# same command line through plink1.9 and
# gvk ld must write the same .prune.in and .prune.out, byte for byte, over a grid of windows
# (variant counts and kb), steps, thresholds (0 included) and filters, on filesets with real LD
# blocks, missing calls, monomorphic and duplicated SNPs (MAF and r^2 ties), several chromosomes,
# X with haploid males (some heterozygous), and MT, from gen_ld_data.py with three seeds.
# --mind, --geno, --hwe (midp, include-nonctrl) and --maf before pruning, .irem included.
# Skips (77) without plink1.9 or python3. Usage: ld_prune_plink.sh GVK
set -u
gvk=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/plink_peer.sh"

# same DATA plink-options...: both lists equal, and not trivially empty; the genotyping rate
# (gvk's first pass over the .bed, before the windows read it again) as PLINK logs it
same() {
	local d=$1; shift
	rm -f p.irem g.irem
	"$plink" --bfile "$d" "$@" --out p > p.out 2>&1
	"$gvk" ld -q --bfile "$d" "$@" --out g > g.out 2>&1
	if [ -e p.irem ] || [ -e g.irem ]; then
		cmp -s p.irem g.irem || { echo "FAIL $d $*: .irem differs"; fail=$((fail + 1)); return; }
	fi
	local rp rg
	rp=$(awk '/^Total genotyping rate/ {print $NF}' p.log) rg=$(awk '/^Total genotyping rate/ {print $NF}' g.log)
	if [ "$rp" != "$rg" ]; then
		echo "FAIL $d $*: genotyping rate $rp (plink) / $rg (gvk)"
		fail=$((fail + 1))
	elif [ ! -s p.prune.in ] || [ ! -e g.prune.in ]; then
		echo "FAIL $d $*: plink $(grep -m1 -i error p.out) / gvk $(head -1 g.out)"; fail=$((fail + 1))
	elif cmp -s p.prune.in g.prune.in && cmp -s p.prune.out g.prune.out; then
		pass=$((pass + 1))
	else
		echo "FAIL $d $*: lists differ ($(wc -l < p.prune.out) vs $(wc -l < g.prune.out) pruned)"; fail=$((fail + 1))
	fi
	rm -f p.prune.* g.prune.* p.log g.log
}

for seed in 1 2 3; do
	python3 "$here/gen_ld_data.py" "d$seed" --seed "$seed" --samples $((90 + 40 * seed)) --snps 300 \
		--chroms "$([ $seed = 2 ] && echo 3,X,1,26 || echo 1,2,X,26)" --missing 0.0$((seed * 2)) || exit 1
	for w in "50 5 0.2" "10 3 0.5" "2 1 0.1" "7 7 0.05" "20 1 0" "30kb 2 0.3" "100 kb 10 0.8" "1 kb 1 0.1"; do
		same "d$seed" --indep-pairwise $w
	done
	same "d$seed" --indep-pairwise 50 5 0.2 --maf 0.05 --geno 0.1
	same "d$seed" --indep-pairwise 20 4 0.3 --keep-allele-order
	same "d$seed" --indep-pairwise 50 5 0.2 --threads 1
	same "d$seed" --indep-pairwise 50 5 0.2 --threads 3
	same "d$seed" --indep-pairwise 20 4 0.3 --chr 2,23
	# PLINK's QC line and the filters alone, in its order (--mind, --geno, --hwe, --maf); .irem too
	same "d$seed" --maf 0.05 --geno 0.1 --mind 0.1 --hwe 1e-6 --indep-pairwise 50 5 0.2
	same "d$seed" --hwe 0.01 midp --indep-pairwise 10 2 0.3
	same "d$seed" --hwe 0.001 include-nonctrl --mind --indep-pairwise 40kb 1 0.4
	same "d$seed" --mind 0.2 --hwe 1e-4 midp --geno 0.05 --indep-pairwise 50 5 0.2
	# r^2 from haplotype frequencies (X males one haplotype; a threshold of 0 prunes any D != 0)
	for w in "50 5 0.2" "10 3 0.5" "2 1 0.1" "20 1 0" "30kb 2 0.3" "100 kb 10 0.8"; do
		same "d$seed" --indep-pairphase $w
	done
	same "d$seed" --maf 0.05 --mind 0.1 --hwe 1e-6 --indep-pairphase 20 4 0.3 --threads 2
	# VIF: windows in variants and kb, a VIF of 1 (any correlation), steps as large as the window
	for w in "50 5 2" "10 2 1.5" "2 1 1.3" "20 20 1.05" "30 kb 3 4" "1 kb 1 1.2" "5 1 1" "50 5 10"; do
		same "d$seed" --indep $w
	done
	same "d$seed" --geno 0.1 --maf 0.02 --indep 30 3 2 --keep-allele-order
	same "d$seed" --indep 20 4 1.5 --chr 2,23 --threads 3
done
# a single-variant chromosome stays in (never compared), chromosome 0 is in neither list
awk 'NR == 1 {$1 = 0} NR > 600 && NR < 900 {$1 = 5} NR == 900 {$1 = 6} {print}' OFS='\t' d1.bim > d1b.bim
cp d1.bed d1b.bed && cp d1.fam d1b.fam
same d1b --indep-pairwise 20 4 0.3
# the QC filters apply to --r2 tables as well: same .ld and .irem
for f in "--mind 0.1" "--hwe 1e-4 midp --maf 0.05"; do
	rm -f p.irem g.irem
	"$plink" --bfile d3 $f --r2 --out p > p.out 2>&1
	"$gvk" ld -q --bfile d3 $f --r2 --out g > g.out 2>&1
	if [ -s p.ld ] && cmp -s p.ld g.ld && { [ ! -e p.irem ] || cmp -s p.irem g.irem; }; then pass=$((pass + 1))
	else echo "FAIL --r2 $f: .ld or .irem differs"; fail=$((fail + 1)); fi
done
echo "ld_prune_plink: $pass passed, $fail failed"
[ $fail -eq 0 ]
