#!/bin/bash
# SPDX-License-Identifier: MIT
# What a new user runs into first: --device gpu without a usable GPU fails at once in every command
# with one line; 'gvk ld' without an input says so first; the directories of --plot and --regions
# prefixes are made, and an output that cannot be written is refused before any work; a file that
# is not a VCF says what it is not, with no htslib log line; haploid calls make a .fidb (as
# homozygous); --fai gives the CNV VCF's contig lengths. Usage: cli_friction.sh GVK DATA_DIR
set -u
gvk=$1 data=$2 fail=0 pass=0
ok() { if eval "$2"; then pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT && cd "$dir" || exit 1
counts=$data/cnv/small/input_counts.tsv.gz
bfile=$data/snp/ld_phased/phased257x200_miss0.02
fdb=$data/snp/fastid/fastid40x500x200
has_htslib() { "$gvk" --version | grep -q '^htslib: [0-9]'; }

# --device gpu without a usable GPU: exit 1 with exactly "gvk CMD: --device gpu: no usable ..." (or
# "... no GPU (REASON)" on a machine without one: a GPU build where there is no driver) and
# nothing written, whatever the command; no "going on without it". (With a GPU the commands' own
# tests run --device gpu.)
gpu_check() {
	local name=$1 out=$2
	shift 2
	rm -f "$out"
	"$gvk" "$@" --device gpu > stdout.txt 2> err.txt
	local rc=$? cmd=$1
	[ -n "$gpu_usable" ] && return
	ok "$name: one line, exit 1 (exit $rc: $(cat err.txt))" \
		'[ $rc -eq 1 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -qE "^gvk $cmd: --device gpu: (no usable |no GPU \()" err.txt'
	[ -n "$no_nvidia" ] && ok "$name: says no GPU (a GPU build, no NVIDIA GPU here)" 'grep -q ": --device gpu: no GPU (" err.txt'
	ok "$name: nothing written" '[ ! -e "$out" ] && [ ! -s stdout.txt ]'
	ok "$name: no going on" '! grep -q "going on" err.txt'
}
gpu_usable=
"$gvk" pairhmm -q --device gpu "$data/pairhmm/inputs/carneiro_tiny.in" > /dev/null 2>&1 && gpu_usable=1 &&
	echo "a GPU is usable: the checks of --device gpu without one are skipped"
# A CUDA build on a machine without an NVIDIA GPU gives "no GPU (...)" as the reason, never the
# runtime's "CUDA driver version is insufficient", which reads as if a GPU were there.
no_nvidia=
"$gvk" --version | grep -q '^GPU back end: CUDA' && [ ! -e /dev/nvidia0 ] && no_nvidia=1
gpu_check pairhmm o.txt pairhmm -o o.txt "$data/pairhmm/inputs/carneiro_tiny.in"
gpu_check align o.txt align -o o.txt "$data/align/unit_tests.tsv"
gpu_check ld o.ld ld --bfile "$bfile" --r2 --out o
gpu_check fastid o.tsv fastid -o o.tsv "$fdb.db.fidb" "$fdb.queries.fidb"
gpu_check make-fidb o.fidb fastid --make-fidb "$bfile" -o o.fidb
gpu_check cnv o.tsv cnv --counts "$counts" -o o.tsv
gpu_check cnv-count-only o.tsv cnv --count-only -o o.tsv "$counts" "$counts"

# gvk ld without an input names the input first, whatever else is missing.
"$gvk" ld -o x > /dev/null 2> err.txt
rc=$?
ok "ld without input: exit 1 (exit $rc)" '[ $rc -eq 1 ]'
ok "ld without input: says so first" 'head -1 err.txt | grep -q "^gvk ld: no input: give --bfile PREFIX" && ! grep -q -- "--r or --r2" err.txt'
"$gvk" ld --bfile "$bfile" -o x > /dev/null 2> err.txt
ok "ld without --r2: says so" 'head -1 err.txt | grep -q "^gvk ld: give --r, --r2, --indep-pairwise, --indep-pairphase, --indep or --clump"'

# --plot and --regions make the directories of their prefixes, after the model and only when it
# succeeded; an output that cannot be written stops the run before any work, with nothing written.
"$gvk" cnv -q --counts "$counts" -o calls.tsv --plot report/sub/cnv --plot-format svg --regions tabs/r 2> err.txt
ok "--plot report/sub/cnv: made ($(cat err.txt))" '[ -s calls.tsv ] && [ -s report/sub/cnv.cohort.svg ] && [ -s tabs/r.lambda.tsv ]'
touch afile
rm -f calls.tsv
"$gvk" cnv -q --counts "$counts" -o calls.tsv --plot afile/cnv --plot-format svg 2> err.txt
rc=$?
ok "--plot under a file: refused up front (exit $rc)" '[ $rc -eq 1 ] && grep -q "^gvk cnv: --plot afile/cnv: cannot be written (afile: not a directory)" err.txt && [ ! -e calls.tsv ]'
"$gvk" cnv -q --counts "$counts" -o calls.tsv --cnvr nodir/cnvr.tsv 2> err.txt
ok "--cnvr in a missing directory: refused up front" 'grep -q "^gvk cnv: --cnvr nodir/cnvr.tsv: cannot be written (nodir: no such directory)" err.txt && [ ! -e calls.tsv ]'
"$gvk" cnv -q --counts "$counts" -o . 2> err.txt
ok "-o a directory: refused" 'grep -q "^gvk cnv: -o .: is a directory" err.txt'
# refused before the model: a counts file that does not exist is not even opened
"$gvk" cnv -q --counts missing.tsv -o calls.tsv --vcf nodir/x.vcf 2> err.txt
ok "checked before the input is read" 'grep -q "nodir/x.vcf: cannot be written" err.txt && ! grep -q missing.tsv err.txt'
"$gvk" cnv -q --counts "$counts" -o /dev/null --segments /dev/null 2> err.txt
ok "devices pass the check ($(cat err.txt))" '[ ! -s err.txt ]'

# --fai: the VCF's ##contig lines with lengths; without it, none (docs/cnv.md says why).
printf 'chrM\t16569\t1\t60\t61\nchr2\t20000000\t5\t60\t61\nchr1\t30000000\t9\t60\t61\n' > ref.fai
"$gvk" cnv -q --counts "$counts" -o /dev/null --vcf o.vcf --fai ref.fai 2> err.txt
ok "--fai: contig lengths ($(cat err.txt))" 'grep -qx "##contig=<ID=chr1,length=30000000>" o.vcf && grep -qx "##contig=<ID=chr2,length=20000000>" o.vcf && ! grep -q chrM o.vcf'
"$gvk" cnv -q --counts "$counts" -o /dev/null --vcf o.vcf 2> err.txt
ok "without --fai: no length" 'grep -qx "##contig=<ID=chr1>" o.vcf'
printf 'chr1 30000000\nchr2 19999999\n' > short.txt
rm -f o.vcf
"$gvk" cnv -q --counts "$counts" -o /dev/null --vcf o.vcf --fai short.txt 2> err.txt
ok "--fai shorter than a window: refused" 'grep -q "^gvk cnv: short.txt:2: contig chr2 has length 19999999, but its last window ends at 20000000" err.txt && [ ! -e o.vcf ]'
printf 'chr1 30000000\n' > one.txt
"$gvk" cnv -q --counts "$counts" -o /dev/null --fai one.txt 2> err.txt
ok "--fai without a contig: refused" 'grep -q "^gvk cnv: one.txt: no length for contig chr2" err.txt'
printf 'chr1 30000000\nchr2 2e7\n' > bad.txt
"$gvk" cnv -q --counts "$counts" -o /dev/null --fai bad.txt 2> err.txt
ok "--fai bad length: refused" 'grep -q "^gvk cnv: bad.txt:2: need .name length." err.txt'
printf 'chr1 30000000\nchr1 30000000\nchr2 20000000\n' > dup.txt
"$gvk" cnv -q --counts "$counts" -o /dev/null --fai dup.txt 2> err.txt
ok "--fai listed twice: refused" 'grep -q "^gvk cnv: dup.txt:2: contig chr1 listed twice" err.txt'
"$gvk" cnv -q --counts "$counts" --matrix -o /dev/null --fai ref.fai 2> err.txt
ok "--fai with --matrix: refused" 'grep -q "^gvk cnv: --fai applies to --counts input without --matrix" err.txt'
if has_htslib; then
	"$gvk" cnv -q --counts "$counts" -o /dev/null --vcf o.vcf.gz --fai ref.fai 2> err.txt
	ok "--fai with a bgzipped VCF: tabix index" '[ -s o.vcf.gz.tbi ]'
fi

if ! has_htslib; then
	echo "VCF checks skipped: this gvk was built without htslib"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
# A file that is not a VCF: gvk's one line says what it is not, and htslib prints nothing.
head -c 4096 "$gvk" > notvcf.vcf
printf '@HD\tVN:1.6\n' > sam.vcf
printf 'hello\n' > text.vcf
for f in notvcf.vcf text.vcf sam.vcf; do
	"$gvk" fastid --make-fidb $f -o o.fidb 2> err.txt
	ok "fastid $f: not a VCF ($(cat err.txt))" '[ "$(wc -l < err.txt)" -eq 1 ] && grep -q "^gvk fastid: $f: not a VCF/BCF file (" err.txt'
	"$gvk" ld --vcf $f --r2 --out o 2> err.txt
	ok "ld $f: not a VCF ($(cat err.txt))" '[ "$(wc -l < err.txt)" -eq 1 ] && grep -q "^gvk ld: $f: not a VCF/BCF file (" err.txt'
done
grep -q "SAM" err.txt && pass=$((pass + 1)) || { echo "FAIL: SAM not named: $(cat err.txt)"; fail=$((fail + 1)); }
"$gvk" cnv notvcf.vcf notvcf.vcf 2> err.txt
ok "cnv: no htslib log line ($(cat err.txt))" '! grep -q "^\[E::" err.txt && grep -q "^gvk cnv: " err.txt'

# Haploid calls (male X) make a .fidb as the homozygous calls would; --phased still refuses them.
hdr='##fileformat=VCFv4.2\n##contig=<ID=1>\n##contig=<ID=X>\n##FORMAT=<ID=GT,Number=1,Type=String,Description="GT">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\n'
printf "$hdr"'1\t100\trs1\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\t0/0\nX\t200\trs2\tC\tT\t.\t.\t.\tGT\t0/1\t1\t0\nX\t300\trs3\tG\tA\t.\t.\t.\tGT\t1\t.\t0\n' > hap.vcf
printf "$hdr"'1\t100\trs1\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\t0/0\nX\t200\trs2\tC\tT\t.\t.\t.\tGT\t0/1\t1/1\t0/0\nX\t300\trs3\tG\tA\t.\t.\t.\tGT\t1/1\t./.\t0/0\n' > dip.vcf
"$gvk" fastid -q --make-fidb hap.vcf -o hap.fidb 2> err.txt
ok "haploid calls: a .fidb ($(cat err.txt))" '[ -s hap.fidb ]'
"$gvk" fastid -q --make-fidb dip.vcf -o dip.fidb
ok "haploid = homozygous" 'cmp -s hap.fidb dip.fidb'
"$gvk" fastid -q --minor --make-fidb hap.vcf -o hapm.fidb && "$gvk" fastid -q --minor --make-fidb dip.vcf -o dipm.fidb
ok "haploid = homozygous (--minor)" 'cmp -s hapm.fidb dipm.fidb'
"$gvk" ld --vcf hap.vcf --phased --r2 --out o 2> err.txt
ok "--phased refuses haploid calls" 'grep -q "hap.vcf: record 2 (X:200): sample s2 is haploid, --phased needs diploid GT" err.txt'
printf "$hdr"'1\t100\trs1\tA\tG\t.\t.\t.\tGT\t0/1/1\t1/1/0\t0/0/0\n' > tri.vcf
"$gvk" fastid -q --make-fidb tri.vcf -o o.fidb 2> err.txt
ok "triploid: refused" 'grep -q "tri.vcf: record 1 (1:100): ploidy 3, only haploid and diploid GT are supported" err.txt'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
