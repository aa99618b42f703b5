#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld --clump against PLINK 1.9 itself: the same command line through plink1.9 and gvk ld must
# write the same .clumped, byte for byte, over a grid of --clump-p1/-p2/-r2/-kb, field names,
# several reports, --clump-allow-overlap, threads and the QC filters, on filesets from
# gen_ld_data.py (LD blocks, missing calls, X with haploid males) with p-value tables from its
# --assoc (associated blocks, NA, ties, a repeated ID, IDs the fileset lacks), three seeds.
# Skips (77) without plink1.9 or python3. Usage: ld_clump_plink.sh GVK
set -u
gvk=$1
here=$(cd "$(dirname "$0")" && pwd)
plink=${PLINK:-plink1.9}
command -v "$plink" > /dev/null || { echo "skipped: $plink is not installed (scripts/setup.sh installs it)"; exit 77; }
command -v python3 > /dev/null || { echo "skipped: python3 is needed to write the test data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0

# same DATA plink-options...: both write the same .clumped, or neither writes one
same() {
	local d=$1; shift
	rm -f p.clumped g.clumped
	"$plink" --bfile "$d" "$@" --out p > p.out 2>&1
	"$gvk" ld -q --bfile "$d" "$@" --out g > g.out 2>&1
	if [ ! -e p.clumped ] && [ ! -e g.clumped ] && grep -q "No significant" p.out; then
		pass=$((pass + 1))
	elif [ -s p.clumped ] && cmp -s p.clumped g.clumped; then
		pass=$((pass + 1))
	else
		echo "FAIL $d $*: plink $(grep -m1 -iE 'error|clumps formed' p.out) / gvk $(head -1 g.out)"; fail=$((fail + 1))
	fi
}

for seed in 1 2 3; do
	python3 "$here/gen_ld_data.py" "d$seed" --seed "$seed" --samples $((90 + 40 * seed)) --snps 400 \
		--chroms "$([ $seed = 2 ] && echo 3,X,1 || echo 1,2,X)" --missing 0.0$((seed * 2)) --assoc "a$seed.assoc" || exit 1
	python3 "$here/gen_ld_data.py" "e$seed" --seed "$((seed + 10))" --samples 10 --snps 400 \
		--chroms "$([ $seed = 2 ] && echo 3,X,1 || echo 1,2,X)" --assoc "b$seed.assoc" || exit 1
	a=a$seed.assoc
	same "d$seed" --clump "$a"
	same "d$seed" --clump "$a" --clump-p1 0.001 --clump-p2 0.05
	same "d$seed" --clump "$a" --clump-p1 1 --clump-p2 1 --clump-r2 0.2
	same "d$seed" --clump "$a" --clump-r2 0 --clump-kb 20
	same "d$seed" --clump "$a" --clump-r2 0.8 --clump-kb 1000
	same "d$seed" --clump "$a" --clump-kb 3.5 --clump-r2 0.1
	same "d$seed" --clump "$a" --clump-allow-overlap --clump-r2 0.3
	same "d$seed" --clump "$a" --clump-allow-overlap --clump-p1 0.01 --clump-p2 0.5 --clump-r2 0.2
	same "d$seed" --clump "$a,b$seed.assoc" --clump-p1 0.001
	same "d$seed" --clump "b$seed.assoc,$a" --clump-r2 0.3 --clump-allow-overlap
	same "d$seed" --clump "$a" --maf 0.05 --geno 0.05 --threads 2
	same "d$seed" --clump "$a" --chr 2,23 --threads 3
	# other column names: the first of the names given that the header has
	sed '1s/ SNP / ID /; 1s/ P / PVAL /' "$a" > r.assoc
	same "d$seed" --clump r.assoc --clump-snp-field MARKER ID --clump-field Q PVAL
done
echo "ld_clump_plink: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
