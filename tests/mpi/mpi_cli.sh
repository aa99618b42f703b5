#!/bin/bash
# SPDX-License-Identifier: MIT
# Every gvk command under mpirun with NP ranks gives the one-process bytes, on the bundled data
# and on generated larger inputs; a rank that fails on bad input ends the job with its message, a
# non-zero status and no output file. HTSLIB (CMake's GVK_HAVE_HTSLIB, 1 or 0; 1 when left out)
# says whether gvk reads BAM files; without, the checks on BAM input are left out, each saying so.
# Usage: mpi_cli.sh GVK DATA NP [HTSLIB]
set -u
gvk=$1 data=$2 np=$3 htslib=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
# the commands run in directories of their own: paths given relative to the caller's
gvk=$(cd "$(dirname "$gvk")" && pwd)/$(basename "$gvk") data=$(cd "$data" && pwd)
command -v mpirun > /dev/null || { echo "SKIP: no mpirun (Debian: openmpi-bin)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi=(mpirun --oversubscribe --allow-run-as-root -np "$np")
# Under ASan (GVK_BUILD_TYPE=Sanitize), OpenMPI's plugins leak at exit and are unloaded before
# LeakSanitizer can name them; the ranks run with leak checks off (the one-process runs of the
# same commands, here and in the other tests, keep them).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if ! "${mpi[@]}" true > "$tmp/mpirun.err" 2>&1; then echo "SKIP: mpirun cannot start $np processes here: $(head -3 "$tmp/mpirun.err")"; exit 77; fi
fail=0 n=0 left=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# same NAME OUTPUTS -- ARGS: runs "gvk ARGS" once as one process and once under mpirun, in two
# directories, and compares every named output (- is standard output).
same() {
	local name=$1; shift
	local outs=()
	while [ "$1" != -- ]; do outs+=("$1"); shift; done
	shift
	n=$((n + 1))
	rm -rf "$tmp/1" "$tmp/N"; mkdir "$tmp/1" "$tmp/N"
	(cd "$tmp/1" && "$gvk" "$@" > stdout 2> stderr) || { bad "$name: one process failed: $(tail -2 "$tmp/1/stderr")"; return; }
	(cd "$tmp/N" && "${mpi[@]}" "$gvk" "$@" > stdout 2> stderr) || { bad "$name: $np ranks failed: $(tail -3 "$tmp/N/stderr")"; return; }
	for o in "${outs[@]}"; do
		[ "$o" = - ] && o=stdout
		[ -s "$tmp/1/$o" ] || [ "$o" = stdout ] || { bad "$name: no $o"; continue; }
		cmp -s "$tmp/1/$o" "$tmp/N/$o" || bad "$name: $o differs under $np ranks"
	done
}

# fails NAME OUT PATTERN -- ARGS: under mpirun the command fails with PATTERN on stderr and OUT absent;
# with KEEP=1, OUT exists before and is left as it was.
fails() {
	local name=$1 out=$2 pat=$3; shift 4
	n=$((n + 1))
	rm -rf "$tmp/F"; mkdir "$tmp/F"
	[ "${KEEP:-0}" = 1 ] && echo "an earlier result" > "$tmp/F/$out"
	if (cd "$tmp/F" && "${mpi[@]}" "$gvk" "$@" > stdout 2> stderr); then bad "$name: accepted under $np ranks"; return; fi
	grep -q -- "$pat" "$tmp/F/stderr" || bad "$name: no '$pat' in: $(head -3 "$tmp/F/stderr")"
	if [ "${KEEP:-0}" = 1 ]; then
		[ "$(cat "$tmp/F/$out" 2> /dev/null)" = "an earlier result" ] || bad "$name: the existing $out was touched"
	else
		[ ! -e "$tmp/F/$out" ] || bad "$name: $out left behind"
	fi
	ls -a "$tmp/F" | grep -q '\.tmp\|gvk-mpi\|^\.o' && bad "$name: temporaries left: $(ls -a "$tmp/F")"
}

gen=$here/gen_data.py
python3 "$gen" plink "$tmp/g" 301 4000 1 && python3 "$gen" fidb "$tmp/db.fidb" 7001 256 2 &&
	python3 "$gen" fidb "$tmp/q.fidb" 37 256 3 && python3 "$gen" align "$tmp/al.tsv" 4000 4 &&
	python3 "$gen" phmm "$tmp/ph.in" 3000 5 && python3 "$gen" plink "$tmp/t" 150 1500 7 &&
	python3 "$gen" cnv "$tmp/cnv.tsv" 6000 24 6 || { echo "FAIL: generating inputs"; exit 1; }

# ld: tables (windows, inter-chr, filters, extra columns, gzip), matrices and binary matrices
for b in "$data/snp/ld_dummy/dummy203x800" "$data/snp/ld_edge/edge13x10" "$tmp/g"; do
	k=$(basename "$b")
	same "ld $k table" out.ld out.log -- ld --bfile "$b" --r2 --ld-window-r2 0 --out out
	same "ld $k window 50" out.ld -- ld --bfile "$b" --r --ld-window 50 --ld-window-r2 0 --out out
	same "ld $k d with-freqs in-phase" out.ld -- ld --bfile "$b" --r2 dprime with-freqs in-phase --ld-window-r2 0 --out out
	same "ld $k inter-chr gz" out.ld.gz -- ld --bfile "$b" --r2 inter-chr gz --ld-window-r2 0.01 --out out
	shapes=(square square0 triangle "square bin4" "triangle bin4" "square bin" "square spaces" "square gz")
	# the generated set's text matrices would be 100 MB each: its binary ones suffice
	[ "$b" = "$tmp/g" ] && shapes=("square0 bin4" "triangle bin4")
	for shape in "${shapes[@]}"; do
		ext=.ld; [[ $shape == *bin* ]] && ext=.ld.bin; [[ $shape == *gz ]] && ext=.ld.gz
		same "ld $k $shape" out$ext -- ld --bfile "$b" --r $shape --out out
	done
	same "ld $k -o" o.ld -- ld --bfile "$b" --r2 square -o o.ld
done
same "ld --ld-snps (rows of a few variants, windows on both sides)" out.ld -- ld --bfile "$tmp/g" --r2 --ld-snps rs5-rs40,rs2000,rs3990-rs3999 --ld-window 30 --ld-window-r2 0 --out out
same "ld --ld-window-kb, --maf, --geno" out.ld out.log -- ld --bfile "$tmp/g" --r --ld-window 99999 --ld-window-kb 30 --ld-window-r2 0.05 --maf 0.3 --geno 0.2 --out out
# each rank decodes its rows and their window only (a table of 4000 SNPs, windows of 10) or, for
# triangle row blocks, the SNPs up to its block's last row
(cd "$tmp" && "${mpi[@]}" "$gvk" ld --bfile "$tmp/g" --r2 --ld-window-r2 0 --out parts > parts.out 2> parts.err)
n=$((n + 1))
[ "$(grep -c 'decodes' "$tmp/parts.err")" = "$np" ] || bad "ld parts: not one line a rank: $(grep gvk "$tmp/parts.err" | head -3)"
awk -v np="$np" '/decodes/ { if ($8 > 4000 / np + 10) { print "FAIL: ld parts: rank " $4 " decodes " $8 " SNPs"; bad = 1 } } END { exit bad }' "$tmp/parts.err" || fail=$((fail + 1))
(cd "$tmp" && "${mpi[@]}" "$gvk" ld --bfile "$tmp/g" --r triangle bin4 --out parts > parts.out 2> parts.err)
n=$((n + 1))
awk -v np="$np" '/rank 0 of/ && /decodes/ { if ($8 >= 4000) { print "FAIL: ld triangle: rank 0 decodes every SNP"; bad = 1 } } END { exit bad }' "$tmp/parts.err" || fail=$((fail + 1))

# each rank reads its rows only: the per-SNP filters run on the ranks' shares, --mind sums the
# ranks' per-sample counts; the log (genotyping rate, counts) is the one process's
D=$data/snp/ld_dummy/dummy203x800
same "ld QC filters split, table" out.ld out.log -- ld --bfile "$D" --r2 with-freqs --ld-window-r2 0 --mind 0.1 --hwe 1e-4 --maf 0.05 --geno 0.05 --out out
same "ld QC filters split, --mind only" out.ld out.log out.irem -- ld --bfile "$D" --r --ld-window 7 --ld-window-r2 0 --mind 0.02 --out out
same "ld QC filters split, square" out.ld out.log -- ld --bfile "$D" --r2 square --geno 0.03 --hwe 1e-6 --out out
same "ld QC filters split, triangle bin4 tiles" out.ld.bin out.log -- ld --bfile "$D" --r triangle bin4 --maf 0.1 --out out
same "ld --ld-snps with the window before the first row" out.ld -- ld --bfile "$D" --r2 --ld-snps snp100-snp120,snp790 --ld-window 40 --ld-window-r2 0 --out out
same "ld --ld-window-cm" out.ld -- ld --bfile "$tmp/g" --r2 --ld-window 99999 --ld-window-kb 99999 --ld-window-cm 0.5 --ld-window-r2 0 --out out
# --indep-pairwise: whole chromosomes per rank (the generated set has 3, the bundled one 1: the
# other ranks then read nothing)
same "ld --indep-pairwise by chromosome" out.prune.in out.prune.out out.log -- ld --bfile "$tmp/g" --indep-pairwise 50 5 0.01 --out out
same "ld --indep-pairwise kb, filters" out.prune.in out.prune.out out.log out.irem -- ld --bfile "$D" --indep-pairwise 20kb 3 0.1 --mind 0.02 --maf 0.05 --out out
# the other pruning modes take the same split; --clump runs whole on rank 0
same "ld --indep-pairphase by chromosome" out.prune.in out.prune.out out.log -- ld --bfile "$tmp/g" --indep-pairphase 50 5 0.01 --out out
same "ld --indep (VIF)" out.prune.in out.prune.out out.log -- ld --bfile "$D" --indep 50 5 1.5 --out out
awk 'BEGIN { print "CHR SNP BP P" } { printf "%s %s %s %g\n", $1, $2, $4, (NR * 7919 % 1000 + 1) / 20000 }' "$D.bim" > "$tmp/a.assoc"
same "ld --clump (rank 0)" out.clumped out.log -- ld --bfile "$D" --clump "$tmp/a.assoc" --clump-p1 0.001 --out out
# a VCF is read whole by every rank: pruning it and a filtered table still give one process's bytes
same "ld --vcf --indep-pairwise (rank 0 writes)" out.prune.in out.prune.out out.log -- ld --vcf "$data/snp/ld_phased/phased257x200_miss0.02.vcf.gz" --indep-pairwise 20 3 0.1 --out out
same "ld --vcf --maf table" out.ld out.log -- ld --vcf "$data/snp/ld_phased/phased257x200_miss0.02.vcf.gz" --r2 --ld-window-r2 0 --maf 0.1 --out out
fails "ld --hwe removing every variant" out.ld "removed every variant" -- ld --bfile "$tmp/g" --r2 --hwe 0.5 --out out
same "ld phased" out.ld -- ld --bfile "$data/snp/ld_phased/phased257x200_miss0.02" --r2 --ld-window-r2 0 --out out

# ld matrices as 2-D tiles: one row block of NP column blocks (each row's pieces placed by
# MPI_Exscan), on text, spaced, binary and gzip (through rank 0) shapes; NP row blocks are the
# default below 4 ranks (above)
for b in "$data/snp/ld_dummy/dummy203x800" "$data/snp/ld_edge/edge13x10" "$tmp/t"; do
	k=$(basename "$b")
	for tiles in "1x$np"; do
		export GVK_MPI_TILES=$tiles
		shapes=(square square0 triangle "triangle spaces" "square0 spaces" "square bin4" "triangle bin4" "square0 bin" "triangle bin" "r2 triangle gz")
		[ "$b" != "$data/snp/ld_dummy/dummy203x800" ] && shapes=(triangle "square0 spaces" "r2 square bin4" "triangle bin")
		for shape in "${shapes[@]}"; do
			r=--r; [[ $shape == r2* ]] && r=--r2 && shape=${shape#r2 }
			ext=.ld; [[ $shape == *bin* ]] && ext=.ld.bin; [[ $shape == *gz ]] && ext=.ld.gz
			same "ld $k $r $shape tiles $tiles" out$ext out.log -- ld --bfile "$b" $r $shape --out out
		done
	done
	unset GVK_MPI_TILES
done
# outputs that are not a regular file go through rank 0; an existing output is replaced whole
same "ld -o - (standard output)" - -- ld --bfile "$tmp/t" --r2 triangle -o -
same "ld table -o - " - -- ld --bfile "$tmp/t" --r2 --ld-window 20 --ld-window-r2 0 -o -
for d in 1 N; do mkdir -p "$tmp/$d"; done
head -c 5000000 /dev/urandom > "$tmp/old.bin"
n=$((n + 1)); rm -rf "$tmp/1" "$tmp/N"; mkdir "$tmp/1" "$tmp/N"; cp "$tmp/old.bin" "$tmp/N/o.bin"
(cd "$tmp/1" && "$gvk" ld -q --bfile "$tmp/t" --r2 square0 bin4 -o o.bin) &&
	(cd "$tmp/N" && "${mpi[@]}" "$gvk" ld -q --bfile "$tmp/t" --r2 square0 bin4 -o o.bin) &&
	cmp -s "$tmp/1/o.bin" "$tmp/N/o.bin" || bad "ld -o over a longer existing file: differs"

# fastid: top-k, mixture, threshold hits to their own file and after the list, small blocks
F=$data/snp/fastid/fastid40x500x200
for db in "$F.db.fidb $F.queries.fidb" "$tmp/db.fidb $tmp/q.fidb"; do
	same "fastid top10 $db" top.tsv -- fastid -o top.tsv $db
	same "fastid mixture -T" top.tsv -- fastid --mixture -k 3 -T 60 -o top.tsv $db
	same "fastid -H" top.tsv hits.tsv -- fastid -k 5 -T 110 -H hits.tsv -o top.tsv --block 333 $db
	same "fastid -k 0 stdout" - -- fastid -k 0 -T 105 $db
done

# fastid --make-fidb: one conversion, by rank 0 (a PLINK fileset)
same "fastid --make-fidb" m.fidb -- fastid --make-fidb "$tmp/t" -o m.fidb

# pairhmm: every bundled input (plain ones are cut, gzip ones run whole on rank 0) and a larger one
for f in "$data"/pairhmm/inputs/*.in "$data"/pairhmm/inputs/*.txt "$data"/pairhmm/inputs/*.gz "$tmp/ph.in"; do
	same "pairhmm $(basename "$f")" out.txt -- pairhmm -o out.txt "$f"
done
same "pairhmm stdout, --double" - -- pairhmm --double "$tmp/ph.in"
zcat "$data/pairhmm/inputs/stress_random.hex.gz" > "$tmp/hex.in"
same "pairhmm hex cut" out.txt -- pairhmm -o out.txt --format hex "$tmp/hex.in"
for f in "$tmp/ph.in" "$tmp/hex.in" "$data/pairhmm/inputs/gkl_pairhmm-testdata.txt"; do
	same "pairhmm --tsv $(basename "$f") (record numbers from the input's start)" out.txt -- pairhmm --tsv -o out.txt "$f"
done

# align: generated table (header, 2- and 7-field lines), stdout, options before and after the input
same "align" out.tsv -- align -o out.tsv "$tmp/al.tsv"
same "align stdout java" - -- align --java "$tmp/al.tsv" -t 1
awk -F'\t' 'NR > 1 && NF == 2' "$tmp/al.tsv" | head -500 > "$tmp/al2.tsv"
same "align preset" out.tsv -- align -p STANDARD_NGS --overhang INDEL -oout.tsv "$tmp/al2.tsv"

# cnv: BAM counting by file, the model's outputs, a count matrix
B=$data/cnv/bam
# bam CHECK NAME ...: the check (same or fails) for a command that reads BAM files; left out
# without htslib, where every BAM input fails for that reason alone (a failure check would pass
# on the wrong message)
bam() {
	# "left out", not "SKIP": scripts/skip-summary.py would list the whole test as skipped
	if [ "$htslib" = 1 ]; then "$@"; else echo "left out: $2 (gvk built without htslib: no BAM input)"; left=$((left + 1)); fi
}
bam same "cnv count-only" c.tsv -- cnv --count-only -q -w 5000 "$B/T1.bam" "$B/T2.bam" "$B/T3.bam" -o c.tsv
bam same "cnv bams" cnv.tsv seg.tsv cnvr.tsv -- cnv -q -w 5000 --min-width 1 "$B/T1.bam" "$B/T2.bam" "$B/T3.bam" -o cnv.tsv --segments seg.tsv --cnvr cnvr.tsv
same "cnv counts" cnv.tsv cnvr.tsv r.lambda.tsv r.params.tsv -- cnv -q --counts "$data/cnv/small/input_counts.tsv.gz" -o cnv.tsv --cnvr cnvr.tsv --regions r
# cnv: the EM by blocks of regions and the segmentation by (sequence, sample) on a generated
# cohort of 5 sequences, with every table the model gives
R="r.normalized.tsv r.INI.tsv r.sINI.tsv r.region_CN.tsv r.lambda.tsv r.alpha.tsv r.seg_stat.tsv r.individualCall.tsv r.normalization_factors.tsv r.seg_params.tsv r.params.tsv"
same "cnv generated, every output" cnv.tsv cnvr.tsv seg.tsv calls.bed s.seg $R r.posterior.tsv -- cnv -q --counts "$tmp/cnv.tsv" -o cnv.tsv --cnvr cnvr.tsv --segments seg.tsv --calls-bed calls.bed --seg s.seg --regions r --posterior
same "cnv generated --exome --norm 2" cnv.tsv cnvr.tsv r.sINI.tsv r.seg_stat.tsv -- cnv -q --exome --norm 2 --counts "$tmp/cnv.tsv" -o cnv.tsv --cnvr cnvr.tsv --regions r
same "cnv generated --matrix --use-median -t 1" cnv.tsv seg.tsv -- cnv -q --matrix --use-median -t 1 --counts "$tmp/cnv.tsv" -o cnv.tsv --segments seg.tsv
same "cnv small --exome" cnv.tsv seg.tsv -- cnv -q --exome --counts "$data/cnv/small/input_counts.tsv.gz" -o cnv.tsv --segments seg.tsv
# fewer than two files a rank: every rank counts every file over its share of the regions
awk 'NR > 1 { print $1 "\t" $2 - 1 "\t" $3 }' "$B/counts_targets.tsv" > "$tmp/targets.bed"
bam same "cnv count-only --bed (by regions)" c.tsv -- cnv --count-only -q --bed "$tmp/targets.bed" "$B/T1.bam" "$B/T2.bam" "$B/T3.bam" -o c.tsv
bam same "cnv two files (by regions)" cnv.tsv c.tsv -- cnv -q -w 2000 --min-width 1 "$B/T1.bam" "$B/T3.bam" -o cnv.tsv --counts-out c.tsv
bam same "cnv bams --counts-out --regions" cnv.tsv c.tsv r.sINI.tsv r.lambda.tsv -- cnv -q -w 5000 --min-width 1 "$B/T1.bam" "$B/T2.bam" "$B/T3.bam" -o cnv.tsv --counts-out c.tsv --regions r

# failures: bad input in the last rank's share, a missing file, a bad database
cp "$tmp/al.tsv" "$tmp/bad.tsv"; printf 'ACGT\tACGT\t1\n' >> "$tmp/bad.tsv"
fails "align bad last line" out.tsv "expected 2 or 7" -- align -o out.tsv "$tmp/bad.tsv"
cp "$tmp/ph.in" "$tmp/bad.in"; printf '2 1\nACGT IIII IIII IIII ++++\n' >> "$tmp/bad.in"
fails "pairhmm truncated group" out.txt "gvk pairhmm" -- pairhmm -o out.txt "$tmp/bad.in"
fails "ld missing fileset" out.ld "gvk ld" -- ld --bfile "$tmp/nothere" --r2 --out out
head -c 100000 "$tmp/db.fidb" > "$tmp/short.fidb"
fails "fastid short database" top.tsv "gvk fastid" -- fastid -o top.tsv "$tmp/short.fidb" "$tmp/q.fidb"
bam fails "cnv missing bam" c.tsv "none.bam" -- cnv --count-only -w 5000 "$B/T1.bam" "$B/T2.bam" "$tmp/none.bam" -o c.tsv

# the same failures over an existing output, which must stay as it was
KEEP=1 fails "align bad last line, existing output" out.tsv "expected 2 or 7" -- align -o out.tsv "$tmp/bad.tsv"
KEEP=1 fails "fastid short database, existing output" top.tsv "gvk fastid" -- fastid -o top.tsv "$tmp/short.fidb" "$tmp/q.fidb"
KEEP=1 bam fails "cnv missing bam, existing output" cnv.tsv "none.bam" -- cnv -w 5000 "$B/T1.bam" "$B/T2.bam" "$tmp/none.bam" -o cnv.tsv
# ld: a fileset whose .bed is cut short fails on every rank; an output directory that does not exist
head -c 1000 "$tmp/t.bed" > "$tmp/short.bed"; cp "$tmp/t.bim" "$tmp/short.bim"; cp "$tmp/t.fam" "$tmp/short.fam"
KEEP=1 fails "ld short .bed, existing output" out.ld.bin "gvk ld" -- ld --bfile "$tmp/short" --r square bin4 --out out
fails "ld output directory missing" out.ld "gvk ld" -- ld --bfile "$tmp/t" --r2 triangle --out nodir/out
# a bad count matrix row that only the last rank's byte range holds
cp "$tmp/cnv.tsv" "$tmp/badc.tsv"; printf 'chr5\t1\t2\tx\n' >> "$tmp/badc.tsv"
KEEP=1 fails "cnv bad count matrix, existing output" cnv.tsv "gvk cnv" -- cnv --counts "$tmp/badc.tsv" -o cnv.tsv

same "cnv --count-only of a count matrix (rank 0 alone)" c.tsv -- cnv --count-only -q --counts "$tmp/cnv.tsv" -o c.tsv
# the matrix is parsed by byte ranges: a sequence whose rows come back in another rank's range
# is the one-process error, with the line
(head -1 "$tmp/cnv.tsv"; sed -n '2,1500p' "$tmp/cnv.tsv"; sed -n '4000,6001p' "$tmp/cnv.tsv"; sed -n '1500,3999p' "$tmp/cnv.tsv") > "$tmp/nc.tsv"
KEEP=1 fails "cnv count matrix, a sequence split over ranges" cnv.tsv "nc.tsv:3503: the rows of sequence chr2 are not contiguous" -- cnv --counts "$tmp/nc.tsv" -o cnv.tsv
head -1 "$tmp/cnv.tsv" > "$tmp/empty.tsv"
fails "cnv count matrix without rows" cnv.tsv "no regions after the header" -- cnv --counts "$tmp/empty.tsv" -o cnv.tsv

echo "$n checks under $np ranks, $fail failed, $left left out"
[ $fail -eq 0 ]
