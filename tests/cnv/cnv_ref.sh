#!/bin/bash
# Runs gvk cnv on the reference counts for one cn.mops variant and compares every reference file.
# Usage: cnv_ref.sh GVK CMP DATA VARIANT [DEVICE]
set -u
gvk=$1 cmp=$2 data=$3 variant=$4 dev=${5:-cpu}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exp=$data/small/$variant
case $variant in
cnmops_default) opts="--posterior" ;;
exomecn_default) opts="--exome --posterior" ;;
cnmops_matrix_input) opts="--matrix" ;;
*) echo "unknown variant $variant"; exit 2 ;;
esac
out=$("$gvk" cnv -q --device "$dev" $opts --counts "$data/small/input_counts.tsv.gz" -o "$tmp/cnvs.tsv" \
	--cnvr "$tmp/cnvr.tsv" --segments "$tmp/segments.tsv" --regions "$tmp/r" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	if [ "$dev" = gpu ] && echo "$out" | grep -q "built without GPU support"; then echo "skip: $out"; exit 77; fi
	echo "gvk cnv failed: $out"; exit 1
fi
fail=0
check() { "$cmp" "$@" || fail=$((fail + 1)); }
check "$tmp/cnvs.tsv" "$exp/cnvs.tsv.gz"
check "$tmp/cnvr.tsv" "$exp/cnvr.tsv.gz"
check "$tmp/segments.tsv" "$exp/segments.tsv.gz"
# seg_stat: near-equal neighbouring scores may swap in the local-maximum filter (see
# test_cnv_cmp.c); stat_q95 moves with them. Every integer consequence is still compared exactly.
check "$tmp/r.seg_stat.tsv" "$exp/seg_stat.tsv.gz" --ties=2
check "$tmp/r.seg_params.tsv" "$exp/seg_params.tsv.gz" stat_q95
for f in normalized INI sINI region_CN individualCall; do
	check "$tmp/r.$f.tsv" "$exp/$f.tsv.gz"
done
check "$tmp/r.lambda.tsv" "$exp/em_lambda.tsv.gz"
check "$tmp/r.alpha.tsv" "$exp/em_alpha.tsv.gz"
check "$tmp/r.normalization_factors.tsv" "$exp/normalization_factors.tsv.gz" matches_package
if [ -e "$exp/posterior.tsv.gz" ]; then check "$tmp/r.posterior.tsv" "$exp/posterior.tsv.gz"; fi
# Normalized counts are promised bit for bit, not merely to 1e-9.
if ! zcat "$exp/normalized.tsv.gz" | cmp -s - "$tmp/r.normalized.tsv"; then
	echo "FAIL: normalized counts not bit-identical"; fail=$((fail + 1))
fi
echo "$variant: $fail failed comparisons"
[ $fail -eq 0 ]
