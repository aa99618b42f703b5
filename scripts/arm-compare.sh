#!/bin/bash
# SPDX-License-Identifier: MIT
# Every engine's outputs on the reference inputs of tests/data, from the native (x86) gvk and from
# the aarch64 cross build under qemu-user: the files must be equal byte for byte (docs/arm.md).
# Covers Pair-HMM (both flavours, --double), align (GKL, --raw, --java), LD (tables, matrices,
# binary, D', pruning), FastID (identity, mixture, threshold hits) and CNV (every output file).
# CNV's R-style long double sums are the x87 format on every target (src/cnv/cnv_xf80.c) and its
# near-tie t tail is double-double arithmetic of IEEE operations only (src/cnv/cnv_ttail_dd.c), so
# CNV files are held to the same rule.
# Usage: scripts/arm-compare.sh NATIVE_GVK AARCH64_GVK   (the second may be an emu/ wrapper)
# Exit 0 all equal, 1 a difference or a failed run, 77 without an aarch64 gvk that runs here.
set -u
x86=$(realpath "$1") arm=$(realpath "$2")
cd "$(dirname "$0")/.." || exit 1
data=$PWD/tests/data
"$arm" --version > /dev/null 2>&1 || { echo "SKIP: $arm does not run here"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
same=0 differ=0

# run NAME gvk-arguments...: both builds in their own folder (outputs named with the word OUT);
# every file each writes, and its standard output, must be equal.
run() {
	local n=$1; shift
	local b rc
	for b in x86 arm; do
		mkdir -p "$tmp/$b/$n"
		(cd "$tmp/$b/$n" && "${!b}" "${@//OUT/out}" > stdout 2> stderr)
		rc=$?
		[ $rc -eq 0 ] || { echo "FAIL $n: the $b build exited $rc: $(head -2 "$tmp/$b/$n/stderr")"; differ=$((differ + 1)); return; }
		rm -f "$tmp/$b/$n/stderr" "$tmp/$b/$n"/*.log
	done
	local f ok=1
	for f in $(ls "$tmp/x86/$n"); do
		if cmp -s "$tmp/x86/$n/$f" "$tmp/arm/$n/$f"; then same=$((same + 1)); continue; fi
		echo "FAIL $n: $f differs"; ok=0
	done
	[ $ok -eq 1 ] || differ=$((differ + 1))
}

ph=$data/pairhmm/inputs
for in in carneiro_tiny.in carneiro_10s.in edge.hex.gz gkl_pairhmm-testdata.txt gpupairhmm_readme_example.in \
	stress_random.hex.gz stress_realistic.hex.gz; do
	for fl in avx512 avx2; do run "pairhmm_${in%%.*}_$fl" pairhmm -q -t 2 --device cpu --flavour $fl --tsv "$ph/$in"; done
	run "pairhmm_${in%%.*}_double" pairhmm -q -t 2 --device cpu --double "$ph/$in"
done

# align: each reference file's columns as 'ref alt scores strategy' lines
for f in unit_tests.tsv known_differences.tsv cutoff_regime.tsv hc_calculatecigar_cases.tsv long_vectors.tsv.gz \
	exhaustive_small.tsv.gz random_vectors.tsv.gz; do
	zcat -f "$data/align/$f" | awk -F'\t' -v OFS='\t' '
		NR == 1 { for (k = 1; k <= NF; ++k) c[$k] = k
		          r = ("padded_ref" in c) ? c["padded_ref"] : c["ref"]; a = ("padded_alt" in c) ? c["padded_alt"] : c["alt"]; next }
		{ print $r, $a, $c["match"], $c["mismatch"], $c["gap_open"], $c["gap_extend"], $c["strategy"] }' > "$tmp/${f%%.*}.tsv"
	for mode in gkl:"" raw:--raw java:--java; do
		run "align_${f%%.*}_${mode%%:*}" align -q -t 2 --device cpu ${mode#*:} "$tmp/${f%%.*}.tsv"
	done
done

snp=$data/snp
for set in ld_dummy/dummy203x800 ld_dummy/dummy203x400_nomiss ld_edge/edge13x10 ld_phased/phased257x200_miss0.02; do
	b=$snp/$set s=${set##*/}
	run "ld_${s}_r2" ld --bfile "$b" --r2 with-freqs in-phase --ld-window-r2 0 --out OUT
	run "ld_${s}_r_dprime" ld --bfile "$b" --r dprime-signed --ld-window 30 --out OUT
	run "ld_${s}_square" ld --bfile "$b" --r2 square --out OUT
	run "ld_${s}_bin4" ld --bfile "$b" --r bin4 --out OUT
	run "ld_${s}_prune" ld --bfile "$b" --indep-pairwise 50 5 0.2 --out OUT
done

fid=$snp/fastid/fastid40x500x200
run fastid_identity fastid -t 2 --device cpu --identity -k 10 -T 8 "$fid.db.fidb" "$fid.queries.fidb"
run fastid_mixture fastid -t 2 --device cpu --mixture -k 10 -T 2 "$fid.db.fidb" "$fid.queries.fidb"
run fastid_make fastid --make-fidb "$snp/ld_dummy/dummy203x800" -o OUT.fidb

counts=$data/cnv/small/input_counts.tsv.gz
for v in "default:--posterior" "exome:--exome --posterior" "matrix:--matrix"; do
	run "cnv_${v%%:*}" cnv -q -t 2 --device cpu ${v#*:} --counts "$counts" -o OUT.cnvs.tsv --cnvr OUT.cnvr.tsv \
		--segments OUT.segments.tsv --regions OUT
done

echo "x86 and aarch64 builds: $same output files byte-identical, $differ runs differ or failed"
[ $differ -eq 0 ]
