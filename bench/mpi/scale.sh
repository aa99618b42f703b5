#!/bin/bash
# SPDX-License-Identifier: MIT
# gvk's scale-out under MPI, on the machine it runs on: generates inputs of a given size, runs
# every command once as one process and once under mpirun -np N for each N asked for (the same
# call, each rank taking its share of the cores and, with --device gpu, a GPU of its own), checks
# that the outputs are the same bytes (cmp), and prints a table: command, size, ranks, 1-rank
# seconds, N-rank seconds, speed-up, outputs, peak RSS of the one process and of the largest rank.
#
# Usage: bench/mpi/scale.sh [--ranks 2,4] [--scale S] [--device gpu|cpu] [--gvk PATH] [--dir DIR]
#                           [--only ld,square,fastid,cnv,bam,pairhmm,align] [--timeout SECONDS]
#   --scale S: the inputs' size as a multiple of these (S = 1):
#     ld        window table (--r2 --ld-window-r2 0), 2000 samples x 200,000*S SNPs (100*S MB .bed)
#     square    square bin4, 2000 samples x 20,000*sqrt(S) SNPs (1.6*S GB written)
#     fastid    1000 queries x 5,000,000*S profiles of 1024 SNPs (640*S MB database), top 10
#     cnv       a count matrix of 300,000*S regions x 100 samples (5 sequences), every output
#     bam       cnv from 4 BAM files of 200,000*S read pairs each (needs samtools and htslib)
#     pairhmm   20,000*S Pair-HMM groups (gvk pairhmm's group format)
#     align     200,000*S Smith-Waterman pairs (gvk align's table)
#   On 1 GPU about 10 s per command needs S of 10 (ld) to 50 (fastid); on this script's CPU
#   check, S = 0.01 runs in a few minutes.
# Environment: GVK_MPI_RESULTS FILE appends the table to FILE (bench/RESULTS.md, say).
# The .log of gvk ld is not compared: it lists the options, -t among them.
# Inputs are kept in DIR (default /tmp/gvk-scale) for reruns of the same scale.
set -uo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
ranks=2 scale=1 dev=gpu g=$here/build/src/gvk dir=${TMPDIR:-/tmp}/gvk-scale only=ld,square,fastid,cnv,bam,pairhmm,align tmo=900
while [ $# -gt 0 ]; do
	case $1 in
	--ranks) ranks=$2; shift ;;
	--scale) scale=$2; shift ;;
	--device) dev=$2; shift ;;
	--gvk) g=$2; shift ;;
	--dir) dir=$2; shift ;;
	--only) only=$2; shift ;;
	--timeout) tmo=$2; shift ;;
	-h | --help) sed -n '3,22p' "$0"; exit 0 ;;
	*) echo "scale.sh: unknown argument $1 (see --help)"; exit 2 ;;
	esac
	shift
done
[ -x "$g" ] || { echo "scale.sh: no gvk at $g (build it, or give --gvk)"; exit 1; }
command -v mpirun > /dev/null || { echo "scale.sh: no mpirun on this host"; exit 77; }
case $dev in gpu | cpu) ;; *) echo "scale.sh: --device gpu or cpu"; exit 2 ;; esac
g=$(cd "$(dirname "$g")" && pwd)/$(basename "$g")
mkdir -p "$dir"; dir=$(cd "$dir" && pwd)
# S times n, rounded, at least lo
sz() { awk -v s="$scale" -v n="$1" -v lo="${2:-1}" -v p="${3:-1}" 'BEGIN { v = int(n * s ^ p + 0.5); print (v < lo ? lo : v) }'; }
want() { [[ ",$only," == *",$1,"* ]]; }
ncpu=$(nproc)
ngpu=$(nvidia-smi -L 2> /dev/null | wc -l)
export TMPDIR=$dir OMPI_MCA_btl_vader_single_copy_mechanism=none
gen=$here/tests/mpi/gen_data.py
rows=()

# Each rank under /usr/bin/time (its peak RSS in KB to rss.RANK) when the tool is there.
rssw=$dir/rss-wrap.sh
cat > "$rssw" << 'EOF'
#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}
if [ -x /usr/bin/time ]; then exec /usr/bin/time -f %M -o "$GVK_SCALE_RSS.$r" "$@"; fi
exec "$@"
EOF
chmod +x "$rssw"

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# the largest rss.* under prefix, in MB ("?" without /usr/bin/time)
peak() { cat "$1".* 2> /dev/null | awk 'BEGIN { m = -1 } $1 + 0 > m { m = $1 + 0 } END { if (m < 0) print "?"; else printf "%.0f", m / 1024 }'; }

# run NAME SIZE OUTS -- ARGS: gvk ARGS as one process (-t all cores) and under mpirun -np N for
# each N (-t cores / N), in fresh directories; the outputs compared byte for byte.
run() {
	local name=$1 size=$2; shift 2
	local outs=()
	while [ "$1" != -- ]; do outs+=("$1"); shift; done
	shift
	rm -rf "$dir/r1"; mkdir -p "$dir/r1"
	local s0 s1 rc1
	s0=$(date +%s.%N)
	(cd "$dir/r1" && GVK_SCALE_RSS=$dir/r1/rss timeout "$tmo" "$rssw" "$g" "$@" -t "$ncpu" > log 2>&1); rc1=$?
	s1=$(date +%s.%N)
	local w1; w1=$(secs "$s0" "$s1")
	local m1; m1=$(peak "$dir/r1/rss")
	[ $rc1 = 0 ] || { echo "  $name: one process failed ($rc1):"; tail -3 "$dir/r1/log"; }
	for np in ${ranks//,/ }; do
		local t=$(( ncpu / np > 0 ? ncpu / np : 1 ))
		rm -rf "$dir/rN"; mkdir -p "$dir/rN"
		local s2 s3 rc2
		s2=$(date +%s.%N)
		(cd "$dir/rN" && GVK_SCALE_RSS=$dir/rN/rss timeout "$tmo" mpirun --allow-run-as-root --oversubscribe --bind-to none \
			-np "$np" "$rssw" "$g" "$@" -t "$t" > log 2>&1); rc2=$?
		s3=$(date +%s.%N)
		local w2; w2=$(secs "$s2" "$s3")
		local same=identical
		[ $rc1 = 0 ] && [ $rc2 = 0 ] || same="failed: 1 rank $rc1, $np ranks $rc2"
		for o in "${outs[@]}"; do
			[ "$same" = identical ] || break
			[ -s "$dir/r1/$o" ] || { same="no $o"; break; }
			cmp -s "$dir/r1/$o" "$dir/rN/$o" || same="$o DIFFERS"
		done
		[ $rc2 = 0 ] || { echo "  $name: $np ranks failed ($rc2):"; grep -v '^-*$' "$dir/rN/log" | tail -4; }
		local sp; sp=$(awk -v a="$w1" -v b="$w2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
		local mN; mN=$(peak "$dir/rN/rss")
		rows+=("| $name | $size | $np | $w1 | $w2 | ${sp}x | $same | $m1 | $mN |")
		echo "  $name ($size): 1 rank $w1 s, $np ranks $w2 s, ${sp}x, outputs $same, peak RSS $m1 MB / $mN MB per rank"
	done
}

echo "scale.sh: $g, $ncpu cores, $ngpu GPU(s), --device $dev, ranks $ranks, scale $scale, inputs in $dir"
[ "$dev" = gpu ] && [ "$ngpu" -lt "${ranks##*,}" ] && echo "scale.sh: WARNING: fewer GPUs than ranks: ranks share GPUs"

# --- inputs (each made once per size and kept) ---
t0=$(date +%s)
ld_m=$(sz 200000 100) sq_m=$(sz 20000 100 0.5) fid_n=$(sz 5000000 1000) cnv_m=$(sz 300000 1000)
bam_r=$(sz 200000 2000) ph_n=$(sz 20000 50) al_n=$(sz 200000 100)
if want ld || want square; then
	gld=$dir/gen_ld_bed
	[ -x "$gld" ] || cc -O2 -pthread -o "$gld" bench/snp/gen_ld_bed.c
	want ld && { [ -s "$dir/ld$ld_m.bed" ] || "$gld" "$dir/ld$ld_m" 2000 "$ld_m" 4 1; }
	want square && { [ -s "$dir/sq$sq_m.bed" ] || "$gld" "$dir/sq$sq_m" 2000 "$sq_m" 2 2; }
fi
if want fastid; then
	[ -s "$dir/q1000.fidb" ] || python3 "$gen" fidb "$dir/q1000.fidb" 1000 1024 4
	[ -s "$dir/db$fid_n.fidb" ] || python3 "$gen" fidb "$dir/db$fid_n.fidb" "$fid_n" 1024 3
fi
want cnv && { [ -s "$dir/cnv$cnv_m.tsv" ] || python3 "$gen" cnv "$dir/cnv$cnv_m.tsv" "$cnv_m" 100 6; }
want pairhmm && { [ -s "$dir/ph$ph_n.in" ] || python3 "$gen" phmm "$dir/ph$ph_n.in" "$ph_n" 5; }
want align && { [ -s "$dir/al$al_n.tsv" ] || python3 "$gen" align "$dir/al$al_n.tsv" "$al_n" 7; }
bams=()
if want bam; then
	if command -v samtools > /dev/null; then
		for k in 1 2 3 4; do
			b=$dir/s${k}_$bam_r.bam
			[ -s "$b" ] || { python3 bench/cnv/make_bams.py "$bam_r" "$k" | samtools view -b -o "$b" - && samtools index "$b"; }
			bams+=("$b")
		done
		# gvk without htslib refuses BAM input
		"$g" cnv --count-only -q -w 1000000 "${bams[@]:0:2}" -o "$dir/probe.tsv" > /dev/null 2>&1 || {
			echo "scale.sh: cnv from BAM files left out (gvk built without htslib)"; bams=(); }
	else
		echo "scale.sh: cnv from BAM files left out (no samtools to make them)"
	fi
fi
echo "scale.sh: inputs ready in $(( $(date +%s) - t0 )) s ($(du -sh "$dir" | cut -f1))"
# every input once through the page cache, so that the first run does not pay for the disk alone
cat "$dir"/*.bed "$dir"/*.fidb "$dir"/*.tsv "$dir"/*.in "$dir"/*.bam > /dev/null 2>&1

# --- runs ---
want ld && run "ld window table (--r2 --ld-window-r2 0)" "2000 x $ld_m" t.ld -- \
	ld --device "$dev" --bfile "$dir/ld$ld_m" --r2 --ld-window-r2 0 --out t
want square && run "ld square bin4" "2000 x $sq_m" m.ld.bin -- ld --device "$dev" --bfile "$dir/sq$sq_m" --r square bin4 --out m
want fastid && run "fastid top-10" "1000 x $fid_n x 1024" top.tsv -- fastid --device "$dev" -o top.tsv "$dir/db$fid_n.fidb" "$dir/q1000.fidb"
want cnv && run "cnv count matrix" "$cnv_m x 100" cnv.tsv cnvr.tsv seg.tsv -- \
	cnv -q --device "$dev" --counts "$dir/cnv$cnv_m.tsv" -o cnv.tsv --cnvr cnvr.tsv --segments seg.tsv
[ ${#bams[@]} -gt 0 ] && run "cnv from BAM files" "4 x $bam_r pairs" cnv.tsv cnvr.tsv -- \
	cnv -q --device "$dev" -w 10000 "${bams[@]}" -o cnv.tsv --cnvr cnvr.tsv
want pairhmm && run "pairhmm file" "$ph_n groups" out.txt -- pairhmm --device "$dev" -o out.txt "$dir/ph$ph_n.in"
want align && run "align file" "$al_n pairs" out.tsv -- align --device "$dev" -o out.tsv "$dir/al$al_n.tsv"

table=$dir/scale.md
{
	echo "## gvk scale-out (bench/mpi/scale.sh --ranks $ranks --scale $scale --device $dev), $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname), $ngpu GPU(s) $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | sort -u | paste -sd,), $ncpu cores, commit $(git rev-parse --short HEAD 2> /dev/null)"
	echo "1 rank: -t $ncpu; N ranks: mpirun -np N, -t $ncpu/N each. Wall seconds of the whole command (mpirun's start included); peak RSS in MB (the one process; the largest rank)."
	echo
	echo "| command | size | ranks | 1 rank s | N ranks s | speed-up | outputs | RSS 1 rank | RSS per rank |"
	echo "|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} > "$table"
echo; cat "$table"
[ -n "${GVK_MPI_RESULTS:-}" ] && { echo; cat "$table"; } >> "$GVK_MPI_RESULTS"
grep -q "DIFFERS\|failed\|| no " "$table" && exit 1
exit 0
