#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk fastid end to end on inputs made here: --make-fidb from a PLINK fileset (prefix and .bed
# path), scores against a count of the genotypes, sample IDs in the tables, a refused SNP panel
# mismatch naming the first differing SNP, .fidb files on standard input, a version 1 file
# beside a version 2 one, VCF sample names (htslib builds), and the command-line errors.
# Usage: fastid_cli.sh GVK
set -u
gvk=$1
tmp=${KEEP_TMP:-$(mktemp -d)}; [ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
fid() { "$gvk" fastid -q --device cpu -t 2 "$@"; }

# mkset PREFIX N M SEED [ID_OF_SNP_0]: a PLINK fileset of N samples x M SNPs with random codes
# (missing ones too); PREFIX.codes keeps the codes, one line per SNP. Sample 4 has its father,
# sample 3, in the set, so it is not a founder and must still get a profile.
mkset() {
	local p=$1 n=$2 m=$3 line j s
	RANDOM=$4
	: > "$p.codes"
	for ((j = 0; j < m; ++j)); do
		line=""
		for ((s = 0; s < n; ++s)); do line+="$((RANDOM % 4)) "; done
		echo "$line" >> "$p.codes"
	done
	awk -v m="$m" -v id0="${5:-snp0}" 'BEGIN { for (j = 0; j < m; ++j)
		printf "%d\t%s\t0\t%d\tG\tA\n", 1 + (j >= m / 2), j ? "snp" j : id0, 1000 + 17 * j }' > "$p.bim"
	awk -v n="$n" 'BEGIN { for (s = 0; s < n; ++s)
		printf "fam%d ind%d %s 0 %d -9\n", int(s / 3), s, s == 4 ? "ind3" : "0", 1 + s % 2 }' > "$p.fam"
	# .bed: magic, then per SNP ceil(N/4) bytes, sample k in bits 2(k mod 4) and up.
	printf "\\154\\033\\001$(awk '{ for (b = 0; b * 4 < NF; ++b) { v = 0
		for (k = 3; k >= 0; --k) v = v * 4 + (b * 4 + k < NF ? $(b * 4 + k + 1) : 0)
		printf "\\%03o", v } }' "$p.codes")" > "$p.bed"
}
N=9 M=70
mkset "$tmp/a" $N $M 11

# --make-fidb from the prefix and from the .bed and .fam paths (htslib never sees them).
fid --make-fidb "$tmp/a" -o "$tmp/a.fidb" && ok || bad "--make-fidb PREFIX"
fid --make-fidb "$tmp/a.bed" -o "$tmp/a_bed.fidb" && cmp -s "$tmp/a.fidb" "$tmp/a_bed.fidb" && ok ||
	bad "--make-fidb PREFIX.bed differs from PREFIX"
fid --make-fidb "$tmp/a.fam" -o "$tmp/a_fam.fidb" && cmp -s "$tmp/a.fidb" "$tmp/a_fam.fidb" && ok ||
	bad "--make-fidb PREFIX.fam differs from PREFIX"
[ "$(head -c 4 "$tmp/a.fidb")" = FID2 ] && ok || bad "--make-fidb did not write a version 2 file"

# Every score against a count from the codes: the bit is set for codes 0 and 2 (A1 carried),
# not for 3 (two A2) or 1 (missing). IDs are FID_IID.
awk '{ for (s = 1; s <= NF; ++s) bit[NR, s] = ($s == 0 || $s == 2) }
	END { for (q = 1; q <= NF; ++q) for (d = 1; d <= NF; ++d) { i = 0; m = 0
		for (j = 1; j <= NR; ++j) { i += bit[j, q] != bit[j, d]; m += bit[j, d] && !bit[j, q] }
		print q - 1, d - 1, i, m } }' "$tmp/a.codes" | sort -k1,1n -k2,2n > "$tmp/want_scores"
awk '{ print $1 "_" $2 }' "$tmp/a.fam" > "$tmp/a.names"
for mode in identity mixture; do
	fid --$mode -k $N -T 1000 -o "$tmp/top" -H "$tmp/hits" "$tmp/a.fidb" "$tmp/a.fidb" || { bad "$mode search"; continue; }
	col=$([ $mode = identity ] && echo 3 || echo 4)
	# Every (query, db) once in the top-N lists and once in the hits, with the counted score.
	awk -v OFS=' ' 'NR > 1 { print $2, $5, $6 }' "$tmp/top" | sort -k1,1n -k2,2n > "$tmp/got_top"
	awk -v OFS=' ' 'NR > 1 { print $2, $4, $5 }' "$tmp/hits" | sort -k1,1n -k2,2n > "$tmp/got_hits"
	awk -v c=$col '{ print $1, $2, $c }' "$tmp/want_scores" > "$tmp/want"
	cmp -s "$tmp/want" "$tmp/got_top" && cmp -s "$tmp/want" "$tmp/got_hits" && ok || bad "$mode scores differ from the codes"
	# Each row names its query and database samples as the .fam does.
	[ "$(head -1 "$tmp/top")" = "$(printf 'query_id\tquery\trank\tdb_id\tdb\tscore')" ] && ok || bad "top-K header"
	[ "$(head -1 "$tmp/hits")" = "$(printf 'query_id\tquery\tdb_id\tdb\tscore')" ] && ok || bad "hits header"
	awk -F'\t' 'NR == FNR { name[FNR - 1] = $0; next }
		FNR > 1 && ($1 != name[$2] || $4 != name[$5]) { print "row " FNR ": " $0; e = 1 } END { exit e }' \
		"$tmp/a.names" "$tmp/top" && ok || bad "$mode top-K names"
	awk -F'\t' 'NR == FNR { name[FNR - 1] = $0; next }
		FNR > 1 && ($1 != name[$2] || $3 != name[$4]) { print "row " FNR ": " $0; e = 1 } END { exit e }' \
		"$tmp/a.names" "$tmp/hits" && ok || bad "$mode hit names"
done
# Sample 4 (not a founder) is there, under its own name.
fid -k 1 -o "$tmp/top1" "$tmp/a.fidb" "$tmp/a.fidb" && grep -q "^fam1_ind4	4	0	fam1_ind4	4	0$" "$tmp/top1" && ok ||
	bad "the non-founder's profile"

# A panel mismatch is refused, naming the first differing SNP as each file has it; no output.
cp "$tmp/a.bed" "$tmp/b.bed"; cp "$tmp/a.fam" "$tmp/b.fam"
awk -v OFS='\t' 'NR == 38 { $2 = "rs777" } NR == 60 { $5 = "T" } { print }' "$tmp/a.bim" > "$tmp/b.bim"
awk -v OFS='\t' 'NR == 13 { $5 = "A"; $6 = "G" } { print }' "$tmp/a.bim" > "$tmp/c.bim"
cp "$tmp/a.bed" "$tmp/c.bed"; cp "$tmp/a.fam" "$tmp/c.fam"
fid --make-fidb "$tmp/b" -o "$tmp/b.fidb" && fid --make-fidb "$tmp/c" -o "$tmp/c.fidb" || bad "--make-fidb b, c"
mismatch() {
	local name=$1 q=$2 want=$3
	rm -f "$tmp/out"
	if fid -o "$tmp/out" "$tmp/a.fidb" "$q" 2> "$tmp/err"; then bad "$name: accepted"; return; fi
	grep -qF -- "$want" "$tmp/err" && [ ! -e "$tmp/out" ] && ok || bad "$name: '$(cat "$tmp/err")' lacks '$want' (or output left)"
}
mismatch "panel ID" "$tmp/b.fidb" "first difference is SNP 37: rs777 (2:1629, G/A) in $tmp/b.fidb, snp37 (2:1629, G/A) in $tmp/a.fidb"
mismatch "panel alleles" "$tmp/c.fidb" "first difference is SNP 12: snp12 (1:1204, A/G) in $tmp/c.fidb, snp12 (1:1204, G/A) in $tmp/a.fidb"
fid -o "$tmp/out" "$tmp/a.fidb" - < "$tmp/c.fidb" 2> "$tmp/err"
grep -qF "standard input and $tmp/a.fidb were made on different SNP panels" "$tmp/err" && ok || bad "stdin mismatch: $(cat "$tmp/err")"

# Standard input: queries, the database, and a --make-fidb pipe; the same tables as from files.
fid -k 3 -T 20 -o "$tmp/ref" "$tmp/a.fidb" "$tmp/a.fidb" || bad "file search"
fid -k 3 -T 20 "$tmp/a.fidb" - < "$tmp/a.fidb" > "$tmp/s1" && cmp -s "$tmp/ref" "$tmp/s1" && ok || bad "queries redirected from a file"
cat "$tmp/a.fidb" | fid -k 3 -T 20 "$tmp/a.fidb" - > "$tmp/s2" && cmp -s "$tmp/ref" "$tmp/s2" && ok || bad "queries through a pipe"
cat "$tmp/a.fidb" | fid -k 3 -T 20 --block 2 - "$tmp/a.fidb" > "$tmp/s3" && cmp -s "$tmp/ref" "$tmp/s3" && ok ||
	bad "database through a pipe"
fid --make-fidb "$tmp/a" -o - | fid -k 3 -T 20 "$tmp/a.fidb" - > "$tmp/s4" && cmp -s "$tmp/ref" "$tmp/s4" && ok ||
	bad "--make-fidb -o - piped into a search"
{ cat "$tmp/a.fidb"; printf x; } | fid "$tmp/a.fidb" - > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -qF "standard input: more bytes after the last sample ID" "$tmp/err" && ok || bad "trailing byte on a pipe: $(cat "$tmp/err")"
head -c -3 "$tmp/a.fidb" | fid "$tmp/a.fidb" - > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -qF "standard input: ends inside the sample IDs" "$tmp/err" && ok || bad "truncated pipe: $(cat "$tmp/err")"

# A version 1 file (the same profiles without panel and IDs) beside a version 2 one: searched,
# with a warning, its profiles named by index.
p=$(od -An -t u8 -j 16 -N 8 "$tmp/a.fidb" | tr -d ' ')
{ printf 'FIDB'; head -c 16 "$tmp/a.fidb" | tail -c 12; tail -c +$((41 + p)) "$tmp/a.fidb" | head -c $((N * 2 * 8)); } > "$tmp/a1.fidb"
"$gvk" fastid --device cpu -k 3 -T 20 -o "$tmp/v1" "$tmp/a.fidb" "$tmp/a1.fidb" 2> "$tmp/err" || bad "version 1 queries"
grep -qF "warning: $tmp/a1.fidb has no SNP panel" "$tmp/err" && ok || bad "no warning for a version 1 file: $(cat "$tmp/err")"
awk -F'\t' -v OFS='\t' '$1 != "query_id" { $1 = $2 } { print }' "$tmp/ref" > "$tmp/ref_v1"
cmp -s "$tmp/ref_v1" "$tmp/v1" && ok || bad "version 1 queries: tables differ beyond the query names"

# VCF input names the samples as its header does (htslib builds only).
printf '##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description="GT">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tAda L\tbob\tcy\n1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t0/0\t1/1\n1\t20\tv2\tC\tT\t.\t.\t.\tGT\t0/0\t1/1\t./.\n1\t30\t.\tG\tA\t.\t.\t.\tGT\t1/1\t0/1\t0/0\n' > "$tmp/s.vcf"
if fid --make-fidb "$tmp/s.vcf" -o "$tmp/s.fidb" 2> "$tmp/err"; then
	fid -k 1 -o "$tmp/vt" "$tmp/s.fidb" "$tmp/s.fidb" &&
		[ "$(cut -f1,4,6 "$tmp/vt" | tail -n +2 | tr '\t\n' ',;')" = "Ada L,Ada L,0;bob,bob,0;cy,cy,0;" ] && ok ||
		bad "VCF sample names: $(cat "$tmp/vt")"
	# ALT carriers: Ada L has v1 and v3, bob v2 and v3, cy v1.
	fid -k 3 -o "$tmp/vt" "$tmp/s.fidb" "$tmp/s.fidb" &&
		[ "$(awk 'NR > 1 && $2 == 0 { printf "%s:%s ", $4, $6 }' FS='\t' "$tmp/vt")" = "Ada L:0 cy:1 bob:2 " ] && ok ||
		bad "VCF scores: $(cat "$tmp/vt")"
elif grep -qF "built without htslib" "$tmp/err"; then echo "VCF checks skipped: this gvk was built without htslib"
else bad "--make-fidb VCF: $(cat "$tmp/err")"; fi

# Command-line errors: exit status 1 and a line saying what is missing.
argerr() {
	local want=$1; shift
	"$gvk" fastid "$@" > /dev/null 2> "$tmp/err" < /dev/null
	local rc=$?
	[ $rc -eq 1 ] && grep -qF -- "gvk fastid: $want" "$tmp/err" && ok || bad "fastid $*: exit $rc, '$(cat "$tmp/err")' lacks '$want'"
}
argerr "--make-fidb needs -o FILE" --make-fidb "$tmp/a"
argerr "--make-fidb needs a file name, but the next argument is the option '--minor'" --make-fidb --minor "$tmp/x.vcf.gz" -o "$tmp/o"
argerr "--minor needs --make-fidb" --minor "$tmp/a.fidb" "$tmp/a.fidb"
argerr "--make-fidb needs a value" --make-fidb
argerr "-o needs a value" "$tmp/a.fidb" "$tmp/a.fidb" -o
argerr "--threshold needs a value" "$tmp/a.fidb" "$tmp/a.fidb" --threshold
argerr "--make-fidb takes no database or query file, but got '$tmp/a.fidb'" --make-fidb "$tmp/a" -o "$tmp/o" "$tmp/a.fidb"
argerr "needs a database and a query file" -k 3
argerr "needs a query file after the database '$tmp/a.fidb'" "$tmp/a.fidb"
argerr "takes one database and one query file, but got a third" "$tmp/a.fidb" "$tmp/a.fidb" "$tmp/a.fidb"
argerr "the database and the queries cannot both come from standard input" - -
argerr "--hits needs --threshold" -H "$tmp/h" "$tmp/a.fidb" "$tmp/a.fidb"
argerr "unknown option '--bogus'" --bogus "$tmp/a.fidb" "$tmp/a.fidb"
argerr "$tmp/none: no such VCF/BCF file, nor a PLINK fileset $tmp/none.bed/.bim/.fam" --make-fidb "$tmp/none" -o "$tmp/o"
[ ! -e "$tmp/o" ] && ok || bad "an output was written after a command-line error"

echo "$pass fastid checks passed, $fail failed"
[ $fail -eq 0 ]
