#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk under MPI on one host of 2 GPUs (docs/mpi.md): 1 rank against 2 ranks (mpirun -np 2, each
# rank its own GPU) on large generated inputs; the outputs of both must be identical (cmp). Prints
# a table and writes it to $OUT/mpi-bench.md; logs of every run go to $OUT/mpi/.
# Usage: bench/mpi/mpi_bench.sh [GVK] [PARTS...]   PARTS: gen ld fastid cnv (default: all of them)
# Environment: GVK_MPI_DIR   inputs and outputs (default /tmp/gvk-mpi; about 20 GB, kept for reruns)
#              GVK_MPI_BUDGET  seconds for the whole run (default 540): parts that would start later
#                              are skipped with a line saying how to run them
#              GVK_MPI_TIMEOUT seconds per command (default 240)
#              GVK_MPI_PROFILES FastID database profiles (default 50000000: 6.4 GB)
#              GVK_MPI_LD_MATRIX_SNPS SNPs of the square bin4 matrix (default 50000: 10 GB written)
#              GVK_MPI_DEVICE  --device of every run (default gpu; cpu to try the script without GPUs)
#              GVK_MPI_LD_SNPS SNPs of the window-table fileset (default 200000)
#              GVK_MPI_RESULTS  file the table is appended to (default bench/RESULTS.md; 0: none)
#              GVK_MPI_CNV_REGIONS, GVK_MPI_CNV_SAMPLES the CNV cohort (default 3000000 x 100)
set -uo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
g=${1:-$here/build-gpu/src/gvk}; shift || true
parts=" ${*:-gen ld fastid cnv} "
[[ "$parts" == *" all "* ]] && parts=" gen ld fastid cnv "
out=${OUT:-/tmp/gvk-gpu-check}; logs=$out/mpi; mkdir -p "$logs"
md=${GVK_MPI_DIR:-/tmp/gvk-mpi}; mkdir -p "$md"
budget=${GVK_MPI_BUDGET:-540} tmo=${GVK_MPI_TIMEOUT:-240}
nprof=${GVK_MPI_PROFILES:-50000000} msnp=${GVK_MPI_LD_MATRIX_SNPS:-50000} dev=${GVK_MPI_DEVICE:-gpu}
lsnp=${GVK_MPI_LD_SNPS:-200000} cm=${GVK_MPI_CNV_REGIONS:-3000000} cn=${GVK_MPI_CNV_SAMPLES:-100}
t_start=$(date +%s)
bcnv=$(dirname "$g")/../bench/cnv/bench_cnv
export TMPDIR=$md OMPI_MCA_btl_vader_single_copy_mechanism=none
ncpu=$(nproc); half=$(( ncpu / 2 > 0 ? ncpu / 2 : 1 ))
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2)
table=$out/mpi-bench.md
rows=()

[ -x "$g" ] || { echo "mpi_bench: no gvk at $g (build first)"; exit 1; }
command -v mpirun > /dev/null || { echo "mpi_bench: skipped, no mpirun on this host"; exit 77; }
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)
echo "mpi_bench: $g, $ncpu cores, $ngpu GPU(s), inputs in $md, budget ${budget} s"
[ "$ngpu" -ge 2 ] || echo "mpi_bench: WARNING: fewer than 2 GPUs: the 2 ranks share one and the speed-up means little"

left() { echo $(( budget - ($(date +%s) - t_start) )); }
# room NEED NAME: enough of the budget left for a part that takes about NEED seconds?
room() {
	if [ "$(left)" -lt "$1" ]; then
		rows+=("| $2 | skipped: $(left) s of the budget left, about $1 s needed; rerun: bench/mpi/mpi_bench.sh $g ${3:-} | | | | | | |")
		return 1
	fi
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# timed NAME NOTE OUTS -- ARGS: gvk ARGS once as 1 rank (all cores) and once as 2 ranks (half
# the cores each), in two directories; every named output compared, wall times and speed-up;
# NOTE says what bounds the run (what to expect of the speed-up).
timed() {
	local name=$1 note=$2; shift 2
	local outs=()
	while [ "$1" != -- ]; do outs+=("$1"); shift; done
	shift
	local tag; tag=$(echo "$name" | tr -c 'A-Za-z0-9\n' '_')
	rm -rf "$md/r1" "$md/r2"; mkdir -p "$md/r1" "$md/r2"
	local s0 s1 s2 s3 r1 r2
	s0=$(date +%s.%N)
	(cd "$md/r1" && timeout "$tmo" "$g" "$@" -t "$ncpu" > "$logs/$tag.np1.log" 2>&1); r1=$?
	s1=$(date +%s.%N)
	(cd "$md/r2" && timeout "$tmo" "${mpi[@]}" "$g" "$@" -t "$half" > "$logs/$tag.np2.log" 2>&1); r2=$?
	s2=$(date +%s.%N)
	local same=identical
	for o in "${outs[@]}"; do
		[ -s "$md/r1/$o" ] || { same="no $o from 1 rank"; break; }
		cmp -s "$md/r1/$o" "$md/r2/$o" || { same="$o DIFFERS"; break; }
	done
	local w1 w2; w1=$(secs "$s0" "$s1"); w2=$(secs "$s1" "$s2")
	local sp; sp=$(awk -v a="$w1" -v b="$w2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	rows+=("| $name | $r1 | $w1 | $r2 | $w2 | ${sp}x | $same | $note |")
	write_table
	echo "  $name: 1 rank rc=$r1 $w1 s, 2 ranks rc=$r2 $w2 s, ${sp}x, outputs $same"
	[ $r2 -eq 0 ] || tail -5 "$logs/$tag.np2.log"
	rm -rf "$md/r1" "$md/r2"
}

# The table so far, rewritten after every row: a call cut short still brings back what ran.
write_table() {
	{
		echo "## gvk under MPI (bench/mpi/mpi_bench.sh), $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname), $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | sort | uniq -c | tr -s ' ' | paste -sd,), $ncpu cores, commit ${GVK_COMMIT:-$(git rev-parse --short HEAD 2> /dev/null)}"
		echo "1 rank: -t $ncpu on GPU 0; 2 ranks: mpirun -np 2, -t $half each, one GPU each. Wall seconds of the whole command."
		echo
		echo "| run | 1 rank rc | 1 rank s | 2 ranks rc | 2 ranks s | speed-up | outputs | bound by |"
		echo "|---|---|---|---|---|---|---|---|"
		printf '%s\n' "${rows[@]}"
	} > "$table"
}

if [[ "$parts" == *" gen "* ]]; then
	t0=$(date +%s)
	gen=tests/mpi/gen_data.py
	[ -s "$md/ld$lsnp.bed" ] || python3 $gen plink "$md/ld$lsnp" 2000 200000 1
	[ -s "$md/ldm$msnp.bed" ] || python3 $gen plink "$md/ldm$msnp" 2000 "$msnp" 2
	[ -s "$md/q1000.fidb" ] || python3 $gen fidb "$md/q1000.fidb" 1000 1024 4
	[ -s "$md/q10000.fidb" ] || python3 $gen fidb "$md/q10000.fidb" 10000 1024 5
	# 6.4 GB at 50 M profiles; python writes about 300 MB/s
	[ -s "$md/db$nprof.fidb" ] || python3 $gen fidb "$md/db$nprof.fidb" "$nprof" 1024 3
	if [ ! -s "$md/cnv${cm}x$cn.tsv" ] && [ -x "$bcnv" ]; then
		# bench_cnv's realistic cohort (3,000,000 windows x 100 samples, 24 sequences): a
		# stand-in for gvk keeps the matrix it is handed instead of running it
		printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --counts ] && ln -f "$2" "%s"; shift; done\nexit 0\n' "$md/cnv${cm}x$cn.tsv" > "$md/keep-counts"
		chmod +x "$md/keep-counts"
		timeout 400 "$bcnv" realistic --windows "$cm" --samples "$cn" --device "$dev" --gvk "$md/keep-counts" > "$logs/cnv-gen.log" 2>&1
	fi
	rows+=("| inputs (generated once, kept in $md) | | $(( $(date +%s) - t0 )) s | | | | $(du -sh "$md" | cut -f1) | |")
	write_table
fi

if [[ "$parts" == *" ld "* ]]; then
	if [ -s "$md/ld$lsnp.bed" ] && room 60 "ld window table" ld; then
		timed "ld window table, 2000 x $lsnp (--r2 --ld-window-r2 0)" "loading: every rank reads and decodes the whole fileset; the pairs are few" t.ld -- ld --device "$dev" --bfile "$md/ld$lsnp" --r2 --ld-window-r2 0 --out t
	fi
	if [ -s "$md/ldm$msnp.bed" ] && room 90 "ld square bin4" ld; then
		timed "ld square bin4, 2000 x $msnp" "output: 4 bytes per pair at the host's write bandwidth, shared by the ranks" m.ld.bin -- ld --device "$dev" --bfile "$md/ldm$msnp" --r square bin4 --out m
		timed "ld triangle bin4, 2000 x $msnp" "as square bin4, half the pairs and bytes" m.ld.bin -- ld --device "$dev" --bfile "$md/ldm$msnp" --r triangle bin4 --out m
	fi
fi

if [[ "$parts" == *" fastid "* ]] && [ -s "$md/db$nprof.fidb" ] && room 90 "fastid" fastid; then
	# the database read once beforehand, so that both runs find it in the page cache
	cat "$md/db$nprof.fidb" > /dev/null
	timed "fastid 1000 x $nprof x 1024 SNPs, top-10" "compute and the slice's read both halve; queries and start-up do not" top.tsv -- fastid --device "$dev" -o top.tsv "$md/db$nprof.fidb" "$md/q1000.fidb"
	# ten times the queries on the same database: the comparisons, not the read, set the pace
	timed "fastid 10000 x $nprof x 1024 SNPs, top-10" "compute: each rank compares every query with its half of the profiles" top.tsv -- fastid --device "$dev" -o top.tsv "$md/db$nprof.fidb" "$md/q10000.fidb"
fi

if [[ "$parts" == *" cnv "* ]] && [ -s "$md/cnv${cm}x$cn.tsv" ] && room 200 "cnv" cnv; then
	timed "cnv $cm x $cn (EM on $dev)" "segmentation on the CPU: the 2 ranks share the host's cores; every rank parses the matrix" cnv.tsv cnvr.tsv seg.tsv -- cnv -q --device "$dev" --counts "$md/cnv${cm}x$cn.tsv" -o cnv.tsv --cnvr cnvr.tsv --segments seg.tsv
fi

write_table
cat "$table"
# appended to the results file (GVK_MPI_RESULTS=0: not), which scripts/gpu-check.sh brings back
res=${GVK_MPI_RESULTS:-bench/RESULTS.md}
[ "$res" != 0 ] && [ -f "$res" ] && { echo; cat "$table"; } >> "$res"
exit 0
