#!/bin/bash
# SPDX-License-Identifier: MIT
# Command-line conventions every command shares: -t takes a whole positive number only; -h to a
# full device fails; 'gvk help CMD' is 'gvk CMD -h'; option errors name 'gvk CMD'; one file (or
# standard output) named for two outputs is refused with nothing written; a link is written
# through; a bgzipped VCF on a contig of 2^29 bases or more gets FILE.csi, and a stale index of
# the other kind goes. Usage: cli_outputs.sh GVK DATA_DIR
set -u
gvk=$1 data=$2 fail=0 pass=0
ok() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT && cd "$dir" || exit 1
counts=$data/cnv/small/input_counts.tsv.gz

for cmd in pairhmm align cnv ld fastid; do
	for t in 1x 99999999999 0 abc; do
		"$gvk" $cmd -t $t in.txt > out.txt 2> err.txt
		ok "gvk $cmd -t $t refused" '[ $? -ne 0 ] && grep -q -- "^gvk $cmd: -t" err.txt'
	done
	if [ -w /dev/full ]; then
		"$gvk" $cmd -h > /dev/full 2> err.txt
		ok "gvk $cmd -h > /dev/full fails" '[ $? -ne 0 ] && grep -q "write error" err.txt'
	fi
	"$gvk" help $cmd > help.txt
	ok "gvk help $cmd is gvk $cmd -h" '[ $? -eq 0 ] && grep -q "^Usage: gvk $cmd" help.txt'
done
"$gvk" cnv --no-such-option > /dev/null 2> err.txt
ok "option errors name the command" 'grep -q "^gvk cnv: unrecognized option" err.txt'

"$gvk" cnv -q --counts "$counts" -o same.tsv --seg same.tsv 2> err.txt
ok "one file for two outputs refused" '[ $? -ne 0 ] && grep -q "named for two outputs" err.txt && [ ! -e same.tsv ]'
"$gvk" cnv -q --counts "$counts" --seg - > out.txt 2> err.txt
ok "standard output for two outputs refused" '[ $? -ne 0 ] && grep -q "standard output is named for two outputs" err.txt && [ ! -s out.txt ]'

"$gvk" fastid -T 1 -o dup.tsv -H ./dup.tsv db.fidb q.fidb 2> err.txt
ok "fastid: one file for -o and --hits refused" '[ $? -ne 0 ] && grep -q "named for two outputs" err.txt && [ ! -e dup.tsv ]'

echo old > target.tsv && ln -s target.tsv link.tsv
"$gvk" cnv -q --counts "$counts" -o link.tsv
ok "a link is written through" '[ $? -eq 0 ] && [ -L link.tsv ] && head -1 target.tsv | grep -q "^sample"'

if "$gvk" --version | grep -q '^htslib: [0-9]'; then
	# Coordinates past 2^29 need a CSI index; the .tbi of an earlier file must not stay beside it.
	zcat "$counts" | awk -F'\t' -v OFS='\t' 'NR > 1 { $2 += 600000000; $3 += 600000000 } { print }' > big.tsv
	echo stale > big.vcf.gz.tbi
	"$gvk" cnv -q --counts big.tsv -o /dev/null --vcf big.vcf.gz
	ok "CSI index for long contigs" '[ $? -eq 0 ] && [ -s big.vcf.gz.csi ] && [ ! -e big.vcf.gz.tbi ]'
	if command -v bcftools > /dev/null; then
		region=$(bcftools view -H big.vcf.gz | head -1 | cut -f1)
		ok "bcftools reads a region through the CSI index" '[ -n "$region" ] && bcftools view -H -r "$region" big.vcf.gz 2> /dev/null | grep -q .'
	else
		echo "skipped: the bcftools region query (no bcftools)"
	fi
	"$gvk" cnv -q --counts "$counts" -o /dev/null --vcf small.vcf.gz
	ok "TBI index for ordinary contigs" '[ $? -eq 0 ] && [ -s small.vcf.gz.tbi ] && [ ! -e small.vcf.gz.csi ]'
else
	echo "skipped: the VCF index checks (built without htslib)"
fi
ok "no temporaries left" '! ls -A | grep -q -e "\.tmp" -e "\.old"'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
