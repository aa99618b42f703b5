#!/bin/bash
# SPDX-License-Identifier: MIT
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
# On the GPU with --exact-ties: a near tie in the segmentation is settled with the CPU's EM values.
[ "$dev" = gpu ] && opts="$opts --exact-ties"
out=$("$gvk" cnv -q --device "$dev" $opts --counts "$data/small/input_counts.tsv.gz" -o "$tmp/cnvs.tsv" \
	--cnvr "$tmp/cnvr.tsv" --segments "$tmp/segments.tsv" --regions "$tmp/r" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	if [ "$dev" = gpu ] && echo "$out" | grep -qE "built without GPU support|no usable (CUDA |HIP )?GPU|: no GPU \("; then echo "skip: $out"; exit 77; fi
	echo "gvk cnv failed: $out"; exit 1
fi
fail=0
check() { "$cmp" "$@" || fail=$((fail + 1)); }
check "$tmp/cnvs.tsv" "$exp/cnvs.tsv.gz"
check "$tmp/cnvr.tsv" "$exp/cnvr.tsv.gz"
check "$tmp/segments.tsv" "$exp/segments.tsv.gz"
# Scores of neighbouring positions can agree to ~1e-14; the local-maximum filter keeps the strictly
# larger one, so seg_stat is compared strictly only because the tail probability is near correctly
# rounded. A back end whose sI/NI differs in the last bits may need --ties=2 (see test_cnv_cmp.c).
# On the GPU, sI/NI differ from the CPU's in the last bits (docs/cnv.md, GPU), so a near tie of two
# neighbouring scores may fall the other way there: seg_stat takes --ties=2 (segments stay exact).
ties=; [ "$dev" = gpu ] && ties=--ties=2
# A near tie that fell the other way removes one score from the position-wise statistic, and its
# 95 % quantile (seg_params' stat_q95, an interpolated order statistic) moves with it: then, and
# only then, that one column is left out (the CNVs and segments are still compared exactly).
q95=
for f in normalized INI sINI region_CN seg_stat individualCall seg_params; do
	if [ "$f" = seg_stat ]; then
		res=$("$cmp" "$tmp/r.$f.tsv" "$exp/$f.tsv.gz" $ties) || fail=$((fail + 1))
		echo "$res"
		echo "$res" | grep -qE ' [1-9][0-9]* near-tie flips' && q95=stat_q95 && echo "seg_params: stat_q95 not compared (near-tie flips in seg_stat)"
	else
		check "$tmp/r.$f.tsv" "$exp/$f.tsv.gz" $([ "$f" = seg_params ] && echo $q95)
	fi
done
check "$tmp/r.lambda.tsv" "$exp/em_lambda.tsv.gz"
check "$tmp/r.alpha.tsv" "$exp/em_alpha.tsv.gz"
check "$tmp/r.normalization_factors.tsv" "$exp/normalization_factors.tsv.gz" matches_package
# params: every row but the version (cn.mops' versus gvk's)
grep -v '^version' "$tmp/r.params.tsv" > "$tmp/params.tsv"; zcat "$exp/params.tsv.gz" | grep -v '^version' > "$tmp/params.exp"
check "$tmp/params.tsv" "$tmp/params.exp"
if [ -e "$exp/posterior.tsv.gz" ]; then check "$tmp/r.posterior.tsv" "$exp/posterior.tsv.gz"; fi
# Normalized counts are promised bit for bit, not merely to 1e-9.
if ! zcat "$exp/normalized.tsv.gz" | cmp -s - "$tmp/r.normalized.tsv"; then
	echo "FAIL: normalized counts not bit-identical"; fail=$((fail + 1))
fi
echo "$variant: $fail failed comparisons"
[ $fail -eq 0 ]
