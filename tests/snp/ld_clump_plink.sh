#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --clump against PLINK 1.9 itself: the same command line through plink1.9 and gvk ld
# must write the same .clumped, byte for byte, over a grid of --clump-p1/-p2/-r2/-kb,
# --clump-allow-overlap, --clump-verbose, several files (--clump-index-first), other column names
# and the QC filters, on filesets from gen_ld_data.py (LD blocks, missing calls, duplicated SNPs,
# several chromosomes, X with haploid males) with association files from its --assoc (signal
# blocks, NA, tied p-values, a duplicated id, ids the fileset lacks), three seeds. With a GPU
# build on a GPU machine the runs take the GPU's tables (device auto), one per seed the CPU's.
# Skips (77) without plink1.9 or python3. Usage: ld_clump_plink.sh GVK
set -u
gvk=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/plink_peer.sh"

# same DATA plink-options...: the same .clumped (present, with at least one clump row); $gx: options
# for gvk only
gx=
same() {
	local d=$1; shift
	rm -f p.clumped g.clumped
	"$plink" --bfile "$d" "$@" --out p > p.out 2>&1
	"$gvk" ld -q --bfile "$d" "$@" $gx --out g > g.out 2>&1
	if [ ! -s p.clumped ]; then
		echo "FAIL $d $*: plink wrote no .clumped: $(grep -m1 -i -e error -e warning p.out)"; fail=$((fail + 1))
	elif [ ! -e g.clumped ]; then
		echo "FAIL $d $*: gvk wrote no .clumped: $(head -1 g.out)"; fail=$((fail + 1))
	elif cmp -s p.clumped g.clumped; then
		pass=$((pass + 1))
	else
		echo "FAIL $d $*: .clumped differs ($(wc -l < p.clumped) vs $(wc -l < g.clumped) lines)"; fail=$((fail + 1))
		diff p.clumped g.clumped | head -6
	fi
}

for seed in 1 2 3; do
	chroms=$([ $seed = 2 ] && echo 3,X,1 || echo 1,2,X)
	python3 "$here/gen_ld_data.py" "d$seed" --seed "$seed" --samples $((90 + 40 * seed)) --snps 400 \
		--chroms "$chroms" --missing 0.0$((seed * 2)) --assoc "a$seed.assoc" || exit 1
	# a second report on the same variants, and the first with other column names and tabs
	python3 "$here/gen_ld_data.py" "e$seed" --seed $((seed + 10)) --samples 20 --snps 400 --chroms "$chroms" \
		--assoc "b$seed.assoc" || exit 1
	awk 'NR == 1 {$2 = "ID"; $9 = "PVAL"} {print}' OFS='\t' "a$seed.assoc" > "c$seed.assoc"
	a=a$seed.assoc
	same "d$seed" --clump $a
	for o in "--clump-p1 0.001 --clump-p2 0.05" "--clump-r2 0.1" "--clump-r2 0" "--clump-r2 0.9 --clump-kb 50" \
		"--clump-kb 0.001" "--clump-kb 3" "--clump-kb 100000" "--clump-p1 1 --clump-p2 1 --clump-r2 0.3" \
		"--clump-p1 0.01 --clump-p2 0.01" "--clump-allow-overlap" "--clump-allow-overlap --clump-r2 0.05 --clump-p2 0.5" \
		"--clump-verbose" "--clump-verbose --clump-r2 0.1 --clump-p2 0.2" "--clump-verbose --clump-allow-overlap"; do
		same "d$seed" --clump $a $o
	done
	same "d$seed" --clump $a,b$seed.assoc
	same "d$seed" --clump $a b$seed.assoc --clump-r2 0.2
	same "d$seed" --clump $a,b$seed.assoc --clump-index-first --clump-p2 0.1
	same "d$seed" --clump $a,b$seed.assoc --clump-verbose --clump-allow-overlap
	# small windows: many components, whole ones per thread
	same "d$seed" --clump $a --clump-kb 3 --clump-p1 0.01 --threads 2
	same "d$seed" --clump $a,b$seed.assoc --clump-kb 3 --clump-p1 0.01 --clump-p2 0.05 --clump-verbose --threads 3
	same "d$seed" --clump c$seed.assoc --clump-field PVAL P --clump-snp-field SNP ID
	same "d$seed" --clump $a --maf 0.05 --geno 0.1 --hwe 1e-6
	same "d$seed" --clump $a --keep-allele-order --clump-verbose
	same "d$seed" --clump $a --chr 2,23 --threads 1
	same "d$seed" --clump $a --threads 3 --clump-r2 0.2
	# the CPU tables also on a machine where the default (auto) takes the GPU's
	gx="--device cpu"
	same "d$seed" --clump $a,b$seed.assoc --clump-verbose --clump-r2 0.1
	gx=
done
echo "ld_clump_plink: $pass passed, $fail failed"
[ $fail -eq 0 ]
