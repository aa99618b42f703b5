#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk ld where PLINK 1.9 ends a run without a table (one variant left, fewer than two founders),
# refuses a .bim's order (split chromosome; positions or cM going down in a windowed table), and
# where its --ld-window-cm limit is widened for a chromosome's first window only. The filesets are
# written here (8 samples, every variant the same calls, so every r^2 is 1); the expected rows are
# those plink1.9 v1.90b6.26 writes for them. Where plink1.9 is installed the same runs go through
# it too and must leave the same files. Usage: ld_plink_rules.sh GVK
set -u
gvk=$1
plink=${PLINK:-plink1.9}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# fileset NAME: NAME.bim from standard input; NAME.fam of 8 founders; NAME.bed of as many variants.
fileset() {
	cat > "$1.bim"
	for i in 0 1 2 3 4 5 6 7; do echo "F$i I$i 0 0 1 -9"; done > "$1.fam"
	{ printf '\x6c\x1b\x01'; for _ in $(seq "$(wc -l < "$1.bim")"); do printf '\xb8\xe2'; done; } > "$1.bed"
}
# run NAME gvk-ld-arguments...: gvk ld with --out g_NAME; rc, stderr in g_NAME.err.
run() {
	local n=$1; shift
	rm -f g_"$n".*
	"$gvk" ld "$@" --out "g_$n" > /dev/null 2> "g_$n.err"
	echo $? > "g_$n.rc"
}
rc_is() { [ "$(cat "g_$1.rc")" = "$2" ] || bad "$1: exit status $(cat "g_$1.rc"), expected $2: $(head -c 300 "g_$1.err")"; }
has() { grep -qF -- "$3" "$2" && ok || bad "$1: $2 lacks '$3'"; }
absent() { [ ! -e "$2" ] && ok || bad "$1: $2 was written"; }
# pairs NAME FILE EXPECTED: the SNP_A-SNP_B pairs of a table, space-separated.
pairs() {
	local got
	got=$(awk 'NR > 1 { printf "%s%s-%s", s, $3, $6; s = " " }' "$2")
	[ "$got" = "$3" ] && ok || bad "$1: pairs '$got', expected '$3'"
}
# like_plink NAME plink-arguments...: plink1.9 (when installed) leaves the same .ld files (or none).
like_plink() {
	local n=$1; shift
	command -v "$plink" > /dev/null || return 0
	rm -f p_"$n".*
	"$plink" "$@" --out "p_$n" > /dev/null 2>&1
	local e
	for e in ld ld.gz ld.bin; do
		if [ -e "p_$n.$e" ] || [ -e "g_$n.$e" ]; then
			cmp -s <(zcat -f "p_$n.$e" 2> /dev/null) <(zcat -f "g_$n.$e" 2> /dev/null) && ok || bad "$n: .$e differs from plink1.9's"
		fi
	done
}

# The cM layout of a chromosome start (0.2614 - 0.2613 is over 0.0001 in floating point, but
# within PLINK's once-more widened limit) and of later pairs just as far apart, which PLINK
# compares exactly: only the first pair and the pairs well within 0.0001 cM are in windows.
fileset eps <<'EOF'
1	rs1	0.2613	1000	A	C
1	rs2	0.2614	2000	A	C
1	rs3	0.2616	3000	A	C
1	rs4	0.2617	4000	A	C
1	rs5	0.2643	5000	A	C
1	rs6	0.2644	6000	A	C
1	rs7	0.3036	7000	A	C
1	rs8	0.3037	8000	A	C
1	rs9	3.0663	9000	A	C
1	rs10	3.0664	10000	A	C
1	rs11	3.6283	11000	A	C
1	rs12	3.6284	12000	A	C
EOF
run eps --bfile eps --r2 --ld-window-cm 0.0001 --ld-window-r2 0
rc_is eps 0
pairs eps g_eps.ld "rs1-rs2 rs3-rs4 rs9-rs10 rs11-rs12"
like_plink eps --bfile eps --r2 --ld-window-cm 0.0001 --ld-window-r2 0
# D' tables extend windows after the first by the variant's own cM position (PLINK's), so only
# the widened first window holds a pair here.
run eps_dprime --bfile eps --r2 dprime --ld-window-cm 0.0001 --ld-window-r2 0
pairs eps_dprime g_eps_dprime.ld "rs1-rs2"
like_plink eps_dprime --bfile eps --r2 dprime --ld-window-cm 0.0001 --ld-window-r2 0

# PLINK looks for the first window's end 64 input variants at a time: rs65 (input variant 64)
# is past the exact limit, so the search stops there and the widened limit reaches no further.
# With rs65 still at 0.2613 the search goes on to rs71, which ends the count-limited walk and
# stays out, while rs66 - rs70 come in under the widened limit.
awk 'BEGIN { for (i = 0; i < 71; ++i) printf "1\trs%d\t%s\t%d\tA\tC\n", i + 1, i < 64 ? "0.2613" : "0.2614", 1000 + 10 * i }' | fileset w64
awk 'BEGIN { for (i = 0; i < 71; ++i) printf "1\trs%d\t%s\t%d\tA\tC\n", i + 1, i < 65 ? "0.2613" : "0.2614", 1000 + 10 * i }' | fileset w65
for n in w64 w65; do
	run $n --bfile $n --r2 --ld-window 100 --ld-window-cm 0.0001 --ld-window-r2 0
	like_plink $n --bfile $n --r2 --ld-window 100 --ld-window-cm 0.0001 --ld-window-r2 0
done
[ "$(awk '$3 == "rs1"' g_w64.ld | wc -l)" = 63 ] && ok || bad "w64: rs1 has $(awk '$3 == "rs1"' g_w64.ld | wc -l) pairs, expected 63 (rs2 - rs64)"
[ "$(awk '$3 == "rs1" { b = $6 } END { print b }' g_w65.ld)" = rs70 ] && [ "$(awk '$3 == "rs1"' g_w65.ld | wc -l)" = 69 ] &&
	ok || bad "w65: rs1's pairs should be rs2 - rs70"
# Later windows never end before the first one: rs2 also reaches rs70.
[ "$(awk '$3 == "rs2"' g_w65.ld | wc -l)" = 68 ] && ok || bad "w65: rs2 should pair with rs3 - rs70"

# One variant left: no table, as PLINK writes none (an index variant's table, which pairs it with
# itself, and matrices are still written).
run one --bfile eps --snps rs5 --r2
rc_is one 0
absent one g_one.ld
has one g_one.log "One variant left, so there are no pairs and no table file is written."
has one g_one.err "no table file written"
like_plink one --bfile eps --snps rs5 --r2
run one_gz --bfile eps --snps rs5 --r2 gz
absent one_gz g_one_gz.ld.gz
run one_dprime --bfile eps --snps rs5 --r dprime
absent one_dprime g_one_dprime.ld
run one_index --bfile eps --snps rs5 --r2 --ld-snp rs5
pairs one_index g_one_index.ld "rs5-rs5"
like_plink one_index --bfile eps --snps rs5 --r2 --ld-snp rs5
run one_square --bfile eps --snps rs5 --r2 square
[ "$(cat g_one_square.ld)" = 1 ] && ok || bad "one_square: expected the 1 x 1 matrix"
like_plink one_square --bfile eps --snps rs5 --r2 square

# Fewer than two founders: a warning on stderr and in the log, exit 0, no table (PLINK skips).
cp eps.bim nf.bim; cp eps.bed nf.bed
awk '{ print $1, $2, ($1 == "F0" ? "0" : "I0"), 0, 1, -9 }' eps.fam > nf.fam
for mode in "" square; do
	run nf$mode --bfile nf --r2 $mode
	rc_is nf$mode 0
	absent nf$mode "g_nf$mode.ld"
	has nf$mode "g_nf$mode.err" "warning: fewer than two founders remain"
	has nf$mode "g_nf$mode.log" "Warning: fewer than two founders remain"
	like_plink nf$mode --bfile nf --r2 $mode
done
# Nor does an index variant that is not there matter then, as in PLINK.
run nf_index --bfile nf --r2 --ld-snp nosuch
rc_is nf_index 0
# --make-founders makes them founders (their fathers are not in the data): a table again.
run nf_made --bfile nf --r2 --make-founders
rc_is nf_made 0
[ -s g_nf_made.ld ] && ok || bad "nf_made: no table"

# Positions going down on a chromosome: windowed tables refuse it (naming the line); matrices,
# inter-chr and a run that reads only sorted chromosomes do not.
fileset uns <<'EOF'
1	a1	0	1000	A	C
1	a2	0	3000	A	C
1	a3	0	2000	A	C
2	b1	0	1000	A	C
2	b2	0	2000	A	C
EOF
for args in "--r2" "--r2 dprime" "--r2 --ld-snp b1"; do
	run uns --bfile uns $args
	rc_is uns 1
	absent uns g_uns.ld
	has uns g_uns.err "uns.bim:3: position lower than an earlier one on chromosome 1"
done
for args in "--r2 square" "--r2 inter-chr" "--r2 --chr 2" "--r2 --from b1 --to b2"; do
	run uns_ok --bfile uns $args
	rc_is uns_ok 0
	like_plink uns_ok --bfile uns $args
done
# A chromosome on two runs of lines: refused by every output, as PLINK refuses it.
fileset split <<'EOF'
1	a1	0	1000	A	C
2	b1	0	1000	A	C
1	a2	0	3000	A	C
EOF
for args in "--r2" "--r2 square" "--r2 inter-chr" "--r2 --chr 2"; do
	run split --bfile split $args
	rc_is split 1
	has split g_split.err "split.bim:3: chromosome 1 starts again after other chromosomes"
done
# cM going down with --ld-window-cm: refused; PLINK does not check a cM field of exactly "0".
fileset cmdown <<'EOF'
1	a1	0.5	1000	A	C
1	a2	0.7	2000	A	C
1	a3	0	3000	A	C
1	a4	0.6	4000	A	C
EOF
run cmdown --bfile cmdown --r2 --ld-window-cm 1
rc_is cmdown 1
has cmdown g_cmdown.err "cmdown.bim:4: cM position lower than an earlier one on chromosome 1"
run cmdown_nocm --bfile cmdown --r2
rc_is cmdown_nocm 0
sed -i '4s/0\.6/0.8/' cmdown.bim
run cmzero --bfile cmdown --r2 --ld-window-cm 1 --ld-window-r2 0
rc_is cmzero 0
like_plink cmzero --bfile cmdown --r2 --ld-window-cm 1 --ld-window-r2 0

echo "$pass checks passed, $fail failed"
[ $fail -eq 0 ]
