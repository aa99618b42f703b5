#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs gvk ld / gvk fastid as the reference data's PLINK and FastID commands were run and
# compares every output with the reference (test_snp_ref: README tolerances; FastID lists
# byte for byte). Cases whose files are not in DATA are skipped; at least MIN must run.
# DEVICE (cpu by default) is passed as --device; gpu skips (77) when no GPU is usable.
# Usage: snp_ref.sh GVK TEST_SNP_REF DATA MIN [DEVICE]
set -u
gvk=$1 ref=$2 data=$3 min=$4 dev=${5:-cpu}
[ -d "$data" ] || { echo "no reference data at $data"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ "$dev" = gpu ]; then
	E=ld_edge/edge13x10
	if ! "$gvk" ld -q --bfile "$data/$E" --r2 --device gpu --out "$tmp/probe" 2> "$tmp/probe.err"; then
		if grep -qE "built without GPU support|no usable (CUDA|HIP) GPU|: no GPU \(" "$tmp/probe.err"; then
			echo "skipped: $(cat "$tmp/probe.err")"; exit 77
		fi
	fi
fi
ran=0 fail=0
have() { for f in "$@"; do [ -e "$data/$f" ] || return 1; done; }
ok() { ran=$((ran + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# ld CASE_DIR/STEM EXPECTED KIND(text|bin4|bin8) gvk-ld-options...
ld() {
	local stem=$1 exp=$2 kind=$3; shift 3
	have "$stem.bed" "$stem.bim" "$stem.fam" "$exp" || return 0
	rm -f "$tmp"/out.*
	if ! "$gvk" ld --device "$dev" -q -t 2 --bfile "$data/$stem" "$@" --out "$tmp/out"; then bad "gvk ld $* ($exp)"; return; fi
	local out=$tmp/out.ld
	[ "$kind" = text ] || out=$tmp/out.ld.bin
	case $kind in
	text) "$ref" text "$out" "$data/$exp" || { bad "$exp"; return; } ;;
	bin4) "$ref" bin "$out" "$data/$exp" 4 || { bad "$exp"; return; } ;;
	bin8) "$ref" bin "$out" "$data/$exp" 8 || { bad "$exp"; return; } ;;
	esac
	ok
}
all="--ld-window 99999 --ld-window-kb 99999999 --ld-window-r2 0"
E=ld_edge/edge13x10
ld $E $E.r2_table.ld text --r2 $all
ld $E $E.r_table.ld text --r $all
ld $E $E.r2_interchr.ld text --r2 inter-chr --ld-window-r2 0
ld $E $E.r_square.ld text --r square
ld $E $E.r2_square.ld text --r2 square
ld $E $E.r2_square0.ld text --r2 square0
ld $E $E.r2_triangle.ld text --r2 triangle
ld $E $E.r2_square_spaces.ld text --r2 square spaces
ld $E $E.r_square_bin4.ld.bin bin4 --r square bin4
ld $E $E.r_square_bin8.ld.bin bin8 --r square bin
ld $E $E.r2_triangle_bin4.ld.bin bin4 --r2 triangle bin4
ld $E $E.r2_freqs_phase.ld text --r2 with-freqs in-phase $all
D=ld_dummy/dummy203x800
ld $D $D.r2_allpairs.ld.gz text --r2 $all
ld $D $D.r2_square.ld.gz text --r2 square
ld $D $D.r_square.ld.gz text --r square
ld $D $D.r2_default.ld text --r2
ld $D $D.r2_win10.ld.gz text --r2 --ld-window-r2 0
ld $D $D.r_win10.ld.gz text --r --ld-window-r2 0
for D in ld_dummy/dummy203x400_nomiss ld_phased/phased401x300 ld_phased/phased257x200_miss0.02; do
	ld $D $D.r2_square.ld.gz text --keep-allele-order --r2 square
	ld $D $D.r_square.ld.gz text --keep-allele-order --r square
done
# The text tables must also match byte for byte (PLINK's column layout).
for c in "r2_table.ld:--r2 $all" "r_table.ld:--r $all" "r2_interchr.ld:--r2 inter-chr --ld-window-r2 0" \
         "r2_freqs_phase.ld:--r2 with-freqs in-phase $all" "r2_square.ld:--r2 square" "r2_square_spaces.ld:--r2 square spaces"; do
	have "$E.${c%%:*}" "$E.bed" || continue
	"$gvk" ld --device "$dev" -q --bfile "$data/$E" ${c#*:} --out "$tmp/b" && cmp "$tmp/b.ld" "$data/$E.${c%%:*}" && ok || bad "byte layout ${c%%:*}"
done

# --bed/--bim/--fam instead of --bfile, and -o instead of --out.
if have "$E.bed" "$E.r2_table.ld"; then
	"$gvk" ld --device "$dev" -q --bed "$data/$E.bed" --bim "$data/$E.bim" --fam "$data/$E.fam" --r2 $all -o "$tmp/named.txt" &&
		cmp "$tmp/named.txt" "$data/$E.r2_table.ld" && ok || bad "--bed/--bim/--fam with -o"
fi

# --extract / --exclude / --chr: all-pairs tables are the reference rows between kept SNPs.
if have "$E.bed" "$E.r2_interchr.ld"; then
	printf 'e1 e3\ne7\te9\n' > "$tmp/list"
	sel='$3=="e1"||$3=="e3"||$3=="e7"||$3=="e9"'
	selb='$6=="e1"||$6=="e3"||$6=="e7"||$6=="e9"'
	"$gvk" ld --device "$dev" -q --bfile "$data/$E" --r2 inter-chr --ld-window-r2 0 --extract "$tmp/list" --out "$tmp/f" &&
		awk "NR == 1 || (($sel) && ($selb))" "$data/$E.r2_interchr.ld" | cmp - "$tmp/f.ld" && ok || bad "--extract"
	"$gvk" ld --device "$dev" -q --bfile "$data/$E" --r2 inter-chr --ld-window-r2 0 --exclude "$tmp/list" --chr 1-2 --out "$tmp/f" &&
		awk "NR == 1 || (!($sel) && !($selb))" "$data/$E.r2_interchr.ld" | cmp - "$tmp/f.ld" && ok || bad "--exclude"
	"$gvk" ld --device "$dev" -q --bfile "$data/$E" --r2 inter-chr --ld-window-r2 0 --chr 2 --out "$tmp/f" &&
		awk 'NR == 1 || ($1 == 2 && $4 == 2)' "$data/$E.r2_interchr.ld" | cmp - "$tmp/f.ld" && ok || bad "--chr"
fi

# The gz modifier writes PREFIX.ld.gz with the same content.
D=ld_dummy/dummy203x800
if have "$D.bed" "$D.r2_win10.ld.gz"; then
	"$gvk" ld --device "$dev" -q --bfile "$data/$D" --r2 gz --ld-window-r2 0 --out "$tmp/g" && [ -s "$tmp/g.ld.gz" ] && [ ! -e "$tmp/g.ld" ] &&
		"$ref" text "$tmp/g.ld.gz" "$data/$D.r2_win10.ld.gz" && ok || bad "gz modifier"
fi

# Phased haplotype statistics (docs/snp.md, "Phased haplotypes"), from the .hap text, against our reference and PLINK 2.
for P in ld_phased/phased401x300 ld_phased/phased257x200_miss0.02; do
	have "$P.hap.gz" "$P.hapref.tsv.gz" || continue
	v=""; have "$P.r2phased.vcor.gz" && v="$data/$P.r2phased.vcor.gz"
	"$ref" hap "$data/$P.hap.gz" "$data/$P.hapref.tsv.gz" $v && ok || bad "$P haplotype LD"
done

# VCF input (builds with htslib): the same genotype matrices, and phased D / D' / r as a table.
if "$gvk" ld --device "$dev" --vcf /nonexistent.vcf --r2 --out "$tmp/x" 2>&1 | grep -q "built without htslib"; then
	echo "VCF checks skipped: this gvk was built without htslib"
else
	for P in ld_phased/phased401x300 ld_phased/phased257x200_miss0.02; do
		have "$P.vcf.gz" "$P.r2_square.ld.gz" || continue
		"$gvk" ld --device "$dev" -q --vcf "$data/$P.vcf.gz" --keep-allele-order --r2 square --out "$tmp/v" &&
			"$ref" text "$tmp/v.ld" "$data/$P.r2_square.ld.gz" && ok || bad "$P --vcf r2 square"
		have "$P.hapref.tsv.gz" || continue
		"$gvk" ld --device "$dev" -q --vcf "$data/$P.vcf.gz" --keep-allele-order --phased --r d dprime-signed inter-chr \
			--ld-window-r2 0 --out "$tmp/p" || { bad "$P --phased"; continue; }
		awk 'NR > 1 { print $3, $6, $7, $8, $9 }' "$tmp/p.ld" > "$tmp/p.ours"
		gzip -dc "$data/$P.hapref.tsv.gz" | awk 'NR > 1 && $12 != "nan" { print $1, $3, $12, $11, $14 }' > "$tmp/p.ref"
		"$ref" text "$tmp/p.ours" "$tmp/p.ref" && ok || bad "$P --phased table"
	done
fi

# FastID: full score matrices on every kernel; top-10 and threshold lists from the CLI.
# The reference lists have the columns 'query rank db score' and 'query db score'. gvk adds the
# sample IDs, and a version 1 .fidb (as the reference profiles are) names each profile by its
# index: the expected rows are the reference rows with each index repeated as the ID. A reference
# with another header is refused rather than converted.
named_top() {
	awk -F'\t' -v OFS='\t' 'NR == 1 { if ($0 != "query\trank\tdb\tscore") exit 1
		print "query_id", "query", "rank", "db_id", "db", "score"; next } { print $1, $1, $2, $3, $3, $4 }' "$1" > "$2"
}
named_hits() {
	awk -F'\t' -v OFS='\t' 'NR == 1 { if ($0 != "query\tdb\tscore") exit 1
		print "query_id", "query", "db_id", "db", "score"; next } { print $1, $1, $2, $2, $3 }' "$1" > "$2"
}
for c in fastid40x500x200:8:2 fastid64x10000x1024:16:3; do
	IFS=: read -r n ti tm <<< "$c"
	F=fastid/$n
	have "$F.db.fidb" "$F.queries.fidb" || continue
	if have "$F.identity.scores" "$F.mixture.scores"; then
		"$ref" fastid "$data/$F.queries.fidb" "$data/$F.db.fidb" "$data/$F.identity.scores" "$data/$F.mixture.scores" \
			&& ok || bad "$n scores"
	fi
	for m in identity:$ti mixture:$tm; do
		mode=${m%%:*} t=${m#*:}
		have "$F.top10_$mode.tsv" "$F.hits_${mode}_le$t.tsv" || continue
		if ! named_top "$data/$F.top10_$mode.tsv" "$tmp/want_top" ||
		   ! named_hits "$data/$F.hits_${mode}_le$t.tsv" "$tmp/want_hits"; then
			bad "$n $mode: reference lists without the expected header"; continue
		fi
		# scalar and AVX-512 kernels; the database whole and in blocks of 3 and 997 profiles
		for run in "--isa auto" "--isa scalar" "--block 3" "--block 997"; do
			rm -f "$tmp"/top "$tmp"/hits
			if "$gvk" fastid --device "$dev" -q -t 2 $run --$mode -k 10 -T "$t" -o "$tmp/top" -H "$tmp/hits" \
				"$data/$F.db.fidb" "$data/$F.queries.fidb" &&
				cmp "$tmp/top" "$tmp/want_top" && cmp "$tmp/hits" "$tmp/want_hits"; then
				ok
			else
				bad "$n $mode top-10 / threshold ($run)"
			fi
		done
	done
done
echo "$ran reference checks passed, $fail failed"
[ $fail -eq 0 ] && [ $ran -ge "$min" ]
