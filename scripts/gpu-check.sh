#!/bin/bash
# SPDX-License-Identifier: MIT
# The GPU machine's check: builds for sm_90, runs the GPU tests (and the CPU ones), compute-sanitizer
# on the test inputs, and the benchmarks; prints a short table last. Logs go to $OUT when set.
# Usage: scripts/gpu-check.sh [--record] [all|test|sanitize|random|e2e|align|snp|cnv|jni|gatk|profile|bench|peers|serve|mpi] ...
# (default all; profile, peers, serve and mpi only when named). Benchmark tables are printed (and kept in $OUT);
# --record also appends them to the month's history, bench/history/YYYY-MM.md. bench/RESULTS.md, the
# current table of each engine, is edited by hand.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/gvk-gpu-check}; mkdir -p "$out"
record=(); args=()
for a in "$@"; do
	if [ "$a" = --record ]; then record=(--results "bench/history/$(date -u +%Y-%m).md"); else args+=("$a"); fi
done
stages=${args[*]:-all}
has() { [[ " $stages " == *" all "* || " $stages " == *" $1 "* ]]; }
summary=()
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
# The device host has no package registry: the Java tests must not wait on apt-get there.
export GVK_JNI_APT=0
export GVK_COMMIT=${GVK_COMMIT:-$(cat .carry/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}

t0=$(date +%s)
# htslib (BAM/CRAM counting, VCF input) travels in .carry too when prepared (scripts/carry-java.sh).
hts=(); if [ -f .carry/htslib/include/htslib/sam.h ]; then
	hts=(-DCMAKE_PREFIX_PATH=$PWD/.carry/htslib); export LD_LIBRARY_PATH=$PWD/.carry/htslib/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# The full SNP reference set where it was carried: cp -r ../shared/data/snp .carry/snpref (18 MB;
# leave .carry/jre out of that call, the carried tree is limited to 64 MiB).
[ -d .carry/snpref ] && hts+=(-DGVK_SNP_SHARED_DATA=$PWD/.carry/snpref)
# OpenMPI where it was carried (scripts/carry-mpi.sh): the mpi stage's mpirun and CMake's MPI.
if [ -f .carry/openmpi/env.sh ]; then source .carry/openmpi/env.sh; hts+=($GVK_MPI_CMAKE); fi
jni=(); [ -f .carry/jdk-include/jni.h ] && jni=(-DJAVA_INCLUDE_PATH=$PWD/.carry/jdk-include -DJAVA_INCLUDE_PATH2=$PWD/.carry/jdk-include/linux)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${jni[@]}" "${hts[@]}" > "$out/cmake.log" 2>&1 &&
	cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1
rc=$?; summary+=("build (sm_90): rc=$rc, $(( $(date +%s) - t0 )) s")
[ $rc -eq 0 ] || { tail -30 "$out/build.log"; printf '%s\n' "${summary[@]}"; exit 1; }
grep -E "warning" "$out/build.log" | head -5

if has test; then
	t0=$(date +%s)
	(cd build-gpu && ctest -j 8 --timeout 300 --output-on-failure) > "$out/ctest.log" 2>&1
	rc=$?
	summary+=("ctest: rc=$rc, $(grep -E 'tests passed' "$out/ctest.log"), $(grep -c '(Skipped)' "$out/ctest.log") skipped, $(( $(date +%s) - t0 )) s")
	grep -E "Failed|SKIP|\*\*\*" "$out/ctest.log" | head -20
	grep -hE "^(gpu|flavour).*" "$out/ctest.log" | head -12
fi
if has sanitize; then
	for tool in memcheck racecheck synccheck; do
		res=""
		for in in carneiro_tiny.in edge.hex.gz stress_random.hex.gz; do
			timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/src/gvk pairhmm -q --device gpu \
				tests/data/pairhmm/inputs/$in > "$out/san-$tool-$in.txt" 2>&1
			res+="$in rc=$? $(grep -hE '(ERROR|RACECHECK) SUMMARY' "$out/san-$tool-$in.txt" | sed 's/=* *//'); "
		done
		summary+=("compute-sanitizer $tool: $res")
	done
	# The other GPU engines, each on a small reference input (memcheck and racecheck).
	d=tests/data
	zcat -f $d/align/random_vectors.tsv.gz | awk -F'\t' -v OFS='\t' 'NR == 1 { for (k = 1; k <= NF; ++k) c[$k] = k; next }
		NR <= 3001 { print $c["ref"], $c["alt"], $c["match"], $c["mismatch"], $c["gap_open"], $c["gap_extend"], $c["strategy"] }' > /tmp/gvk-san-align.tsv
	# 300 pairs: a chunk small enough for several warps a pair (their ring and barriers)
	head -300 /tmp/gvk-san-align.tsv > /tmp/gvk-san-align-small.tsv
	engines=("align:build-gpu/src/gvk align -q --device gpu /tmp/gvk-san-align.tsv"
		"align-small:build-gpu/src/gvk align -q --device gpu /tmp/gvk-san-align-small.tsv"
		"cnv:build-gpu/src/gvk cnv -q --device gpu --exome --counts $d/cnv/small/input_counts.tsv.gz"
		"ld-popc:env GVK_SNP_GPU_PATH=popc build-gpu/src/gvk ld -q --device gpu --bfile $d/snp/ld_dummy/dummy203x800 --r2 --out /tmp/gvk-san-ld"
		"ld-mma:env GVK_SNP_GPU_PATH=mma build-gpu/src/gvk ld -q --device gpu --bfile $d/snp/ld_dummy/dummy203x800 --r2 --out /tmp/gvk-san-ld"
		"fastid:build-gpu/src/gvk fastid -q --device gpu $d/snp/fastid/fastid40x500x200.db.fidb $d/snp/fastid/fastid40x500x200.queries.fidb")
	for tool in memcheck racecheck synccheck; do
		res=""
		for e in "${engines[@]}"; do
			[ $tool = synccheck ] && [ "${e%%:*}" != align-small ] && continue
			name=${e%%:*}
			timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 ${e#*:} > "$out/san-$tool-$name.txt" 2>&1
			res+="$name rc=$? $(grep -hE '(ERROR|RACECHECK) SUMMARY' "$out/san-$tool-$name.txt" | sed 's/=* *//'); "
		done
		summary+=("compute-sanitizer $tool (other engines$([ $tool = synccheck ] && echo ": align's barriers")): $res")
	done
fi
if has random; then
	# GPU = CPU bit-for-bit on 10^6 random pairs, reads 1-2000 bp (issue 7's acceptance check).
	t0=$(date +%s)
	timeout ${GVK_RANDOM_TIMEOUT:-400} build-gpu/tests/pairhmm/test_pairhmm_random gpu ${GVK_RANDOM_PAIRS:-1000000} 2000 1000 777 \
		> "$out/random.txt" 2>&1
	rc=$?
	summary+=("random GPU=CPU: rc=$rc, $(grep -c '^flavour.* 0 differ' "$out/random.txt")/2 flavours exact, $(grep -c '^GPU.* 0 differ' "$out/random.txt") single-GPU engine checks exact, $(( $(date +%s) - t0 )) s")
	cat "$out/random.txt" | head -8
fi
if has e2e; then
	# Whole gvk pairhmm runs, file to scores: the "10s" dataset, and a 20,000,000-pair file of
	# HaplotypeCaller shape made by the benchmark generator (on local disk, not in the repo).
	f=${GVK_E2E_FILE:-/tmp/gvk-hc20m.txt}
	[ -s "$f" ] || build-gpu/bench/pairhmm/bench_pairhmm -n ${GVK_E2E_PAIRS:-20000000} --write "$f" --results -
	# Runs right after the file was written were 0.1-0.2 s slower (its pages still being written
	# back): flush it and read it once, so that every run starts from the page cache alike.
	sync; cat "$f" > /dev/null
	# The 20 M-pair GPU run three times (GVK_E2E_REPS): a host's figure moves by several per cent.
	for d in gpu cpu; do
		runs=(tests/data/pairhmm/inputs/carneiro_10s.in "$f")
		[ $d = gpu ] && for ((r = 1; r < ${GVK_E2E_REPS:-3}; ++r)); do runs+=("$f"); done
		for in in "${runs[@]}"; do
			s0=$(date +%s.%N)
			GVK_PROFILE=1 timeout 300 build-gpu/src/gvk pairhmm --device $d -o /tmp/gvk-e2e.$d.out "$in" 2> "$out/e2e.log"
			rc=$?
			s1=$(date +%s.%N)
			summary+=("e2e $d $(basename "$in"): rc=$rc, process $(awk "BEGIN{printf \"%.2f\", $s1 - $s0}") s; $(grep -h '^gvk pairhmm:' "$out/e2e.log"); $(grep -h 'teardown' "$out/e2e.log")")
			grep -h "main thread\|parser:" "$out/e2e.log"
		done
	done
	cmp -s /tmp/gvk-e2e.gpu.out /tmp/gvk-e2e.cpu.out && summary+=("e2e: GPU and CPU outputs identical") || summary+=("e2e: GPU and CPU outputs DIFFER")
	# Several GPUs: the same file on the first GPU alone, for the speed-up of using them all.
	if [ "$(nvidia-smi -L | wc -l)" -gt 1 ]; then
		for ((r = 0; r < ${GVK_E2E_REPS:-3}; ++r)); do
			s0=$(date +%s.%N)
			CUDA_VISIBLE_DEVICES=0 GVK_PROFILE=1 timeout 300 build-gpu/src/gvk pairhmm --device gpu -o /tmp/gvk-e2e.gpu0.out "$f" 2> "$out/e2e.log"
			rc=$?
			s1=$(date +%s.%N)
			summary+=("e2e gpu (GPU 0 alone) $(basename "$f"): rc=$rc, process $(awk "BEGIN{printf \"%.2f\", $s1 - $s0}") s; $(grep -h '^gvk pairhmm:' "$out/e2e.log")")
		done
		cmp -s /tmp/gvk-e2e.gpu0.out /tmp/gvk-e2e.cpu.out && summary+=("e2e: one-GPU and CPU outputs identical") || summary+=("e2e: one-GPU and CPU outputs DIFFER")
	fi
fi
if has align; then
	# Smith-Waterman on the GPU (issue 3): references and random pairs GPU = CPU, then the benchmark.
	t0=$(date +%s)
	(cd build-gpu && ctest -L gpu -R '^align_' --timeout 300 --output-on-failure) > "$out/align-ctest.log" 2>&1
	rc=$?
	summary+=("align GPU ctest: rc=$rc, $(grep -E 'tests passed' "$out/align-ctest.log"), $(grep -c '(Skipped)' "$out/align-ctest.log") skipped")
	timeout 400 build-gpu/tests/align/test_align_gpu gpu ${GVK_ALIGN_PAIRS:-1000000} 1000 2026 > "$out/align-random.txt" 2>&1
	rc=$?
	summary+=("align random GPU=CPU ${GVK_ALIGN_PAIRS:-1000000} pairs: rc=$rc, $(grep -c ' 0 differences' "$out/align-random.txt")/4 configs exact, $(( $(date +%s) - t0 )) s")
	timeout 300 build-gpu/bench/align/bench_align --quick -n 500000 -m 20000 "${record[@]}" > "$out/align-bench.txt" 2>&1
	summary+=("align bench: rc=$?; $(grep 'gpu (whole call)' "$out/align-bench.txt" | head -1)")
	cat "$out/align-bench.txt" "$out/align-random.txt" | tail -30
fi
if has snp; then
	# SNP engine (issue 4): GPU = CPU with both count kernels forced, references on the GPU, benchmark.
	t0=$(date +%s)
	if [ "${GVK_SNP_CTEST:-1}" != 0 ]; then # 0: the snp tests ran in an earlier "test" call
		(cd build-gpu && ctest -R '^snp_' --timeout 300 --output-on-failure) > "$out/snp-ctest.log" 2>&1
		summary+=("snp ctest: rc=$?, $(grep -E 'tests passed' "$out/snp-ctest.log"), $(grep -c '(Skipped)' "$out/snp-ctest.log") skipped, $(( $(date +%s) - t0 )) s")
		grep -E "Failed|\*\*\*" "$out/snp-ctest.log" | head
	fi
	timeout 400 build-gpu/bench/snp/bench_snp "${record[@]}" --note "gpu-check: popc/bmma count kernels forced in turn" > "$out/bench_snp.log" 2>&1
	summary+=("snp bench: rc=$?")
	tail -30 "$out/bench_snp.log"
fi
if has cnv; then
	# cn.MOPS EM on the GPU (issue 5): GPU tests against the CPU and the references, then the
	# 50,000 x 20 and 3,000,000 x 100 cohorts through the whole gvk cnv process (CPU and GPU rows).
	t0=$(date +%s)
	(cd build-gpu && ctest -R '^cnv_' --timeout 300 --output-on-failure) > "$out/cnv-ctest.log" 2>&1
	summary+=("cnv ctest: rc=$?, $(grep -E 'tests passed' "$out/cnv-ctest.log"), $(grep -c '(Skipped)' "$out/cnv-ctest.log") skipped, $(( $(date +%s) - t0 )) s")
	grep -hE "Failed|\*\*\*|max relative" "$out/cnv-ctest.log" | head
	timeout 420 build-gpu/bench/cnv/bench_cnv both "${record[@]}" > "$out/bench_cnv.txt" 2>&1
	summary+=("cnv bench: rc=$?; $(grep -c 'identical' "$out/bench_cnv.txt") identity lines")
	tail -25 "$out/bench_cnv.txt"
	if [ -x build-gpu/bench/cnv/bench_cnv_bam ]; then
		timeout 300 build-gpu/bench/cnv/bench_cnv_bam 2000000 16 1 4 16 > "$out/bench_cnv_bam.txt" 2>&1
		summary+=("cnv BAM counting bench: rc=$?"); tail -8 "$out/bench_cnv_bam.txt"
	fi
fi
if has jni; then
	# GKL drop-in libraries through the real GKL jar (issue 6). The host has no Java: a jlink'd JRE,
	# the jars and the compiled client travel in .carry (see scripts/carry-java.sh).
	if [ -x .carry/jre/bin/java ]; then
		export PATH=$PWD/.carry/jre/bin:$PATH GVK_GKL_JARS=$PWD/.carry/jars
		cls=build-gpu/tests/jni/classes; mkdir -p $cls && cp .carry/jniclasses/*.class $cls/
		(cd build-gpu && ctest -L jni --timeout 300 --output-on-failure) > "$out/jni-ctest.log" 2>&1
		summary+=("jni ctest: rc=$?, $(grep -E 'tests passed' "$out/jni-ctest.log"), $(grep -c '(Skipped)' "$out/jni-ctest.log") skipped")
		grep -E "Failed|\*\*\*" "$out/jni-ctest.log" | head
		# 2,000,000 pairs of GATK batches through IntelPairHmmOMP: gvk (GPU, then CPU) against GKL's
		# own library (built from GKL's sources by shared/tools/gkl), same JVM, same threads.
		# GVK_JNI_THREADS: native thread counts, e.g. "16 4" (GKL on all cores, HaplotypeCaller's default).
		for t in ${GVK_JNI_THREADS:-4}; do
			for dev in gpu cpu auto; do
				GVK_DEVICE=$dev timeout 400 tests/jni/jni_gkl.sh build-gpu/jni tests/data $cls time "$PWD/.carry/gkl" \
					${GVK_JNI_PAIRS:-2000000} $t ${GVK_JNI_ROUNDS:-2} > "$out/jni-time-$dev-$t.txt" 2>&1
				summary+=("jni time GVK_DEVICE=$dev, $t native threads: rc=$?, $(grep -h '^best' "$out/jni-time-$dev-$t.txt")")
				grep -hE "^(workload|round)" "$out/jni-time-$dev-$t.txt"
			done
		done
		# GVK_JNI_AB=N: N runs each with and without the JNI copy helpers (GVK_JNI_HELPERS=0 and the
		# default), alternating, every batch on the GPU, for each thread count.
		for t in ${GVK_JNI_AB:+${GVK_JNI_THREADS:-4}}; do
			for k in $(seq "$GVK_JNI_AB"); do
				for h in 0 default; do
					env $([ $h = 0 ] && echo GVK_JNI_HELPERS=0) GVK_DEVICE=gpu timeout 200 tests/jni/jni_gkl.sh build-gpu/jni tests/data $cls time \
						"$PWD/.carry/gkl" ${GVK_JNI_PAIRS:-2000000} $t ${GVK_JNI_ROUNDS:-2} > "$out/jni-ab-$t-$h-$k.txt" 2>&1
					summary+=("jni time GVK_DEVICE=gpu, $t native threads, helpers $h: rc=$?, $(grep -h '^best' "$out/jni-ab-$t-$h-$k.txt")")
				done
			done
		done
	else
		summary+=("jni: skipped, no .carry/jre (run scripts/carry-java.sh here first)")
	fi
fi
if has gatk; then
	# Pair-HMM as GATK calls it (issue 23): synchronous caller threads, one region per call, CPU and
	# GPU on this host (every GPU value checked against the CPU's); then the real HaplotypeCaller
	# batches of carneiro_1m as one GATK thread sends them, with an engine of all cores each.
	n=$(nproc)
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/pairhmm/bench_pairhmm_gatk -n ${GVK_GATK_PAIRS:-2000000} --callers 1,16,64 --device both --rounds 3 \
		"${record[@]}" --note "scripts/gpu-check.sh gatk" > "$out/gatk.txt" 2>&1
	summary+=("bench_pairhmm_gatk --callers 1,16,64: rc=$?; $(grep -hE '^GPU vs CPU: ' "$out/gatk.txt")")
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/pairhmm/bench_pairhmm_gatk --input tests/data/pairhmm/inputs/carneiro_1m.in.gz \
		-n ${GVK_GATK_PAIRS:-2000000} --callers 1 --cpu-threads $n --gpu-threads $n --device both --profile --rounds 3 \
		"${record[@]}" --note "scripts/gpu-check.sh gatk, carneiro_1m batches" > "$out/gatk-1m.txt" 2>&1
	summary+=("bench_pairhmm_gatk --input carneiro_1m, 1 caller: rc=$?; $(grep -hE '^GPU vs CPU: ' "$out/gatk-1m.txt")")
	for f in gatk gatk-1m; do
		while IFS= read -r l; do summary+=("  $f: $l"); done < <(awk -F'|' '/^\|---/ { t = 1; next }
			t && /^\|/ { gsub(/^ +| +$/, "", $2); gsub(/ /, "", $13); printf "%s, %d callers: %.2f GCUPS, call p50 %.3f ms, p99 %.3f ms, %s vs CPU on all cores\n", $2, $3, $7, $9, $10, $13 }' "$out/$f.txt")
		grep -h "^GPU phases" "$out/$f.txt" | head -3
	done
fi
if [[ " $stages " == *" profile "* ]]; then  # not part of "all"
	# Hardware counters of the hot kernels (Nsight Compute, clocks left alone) and their SASS, for
	# the design notes: scheduler issue rate, warp stall reasons, pipe use, occupancy.
	sec=(--clock-control none --print-details all --section LaunchStats --section Occupancy --section SchedulerStats
		--section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats)
	timeout 240 ncu "${sec[@]}" -k regex:phmm_gpu_kernel_short --launch-skip 16 --launch-count ${GVK_NCU_LAUNCHES:-8} \
		build-gpu/bench/pairhmm/bench_pairhmm -n 2000000 --device gpu --gpu-only --results - > "$out/ncu-pairhmm.txt" 2>&1
	summary+=("ncu pairhmm: rc=$?")
	timeout 240 ncu "${sec[@]}" -k regex:ld_count_kernel --launch-skip 2 --launch-count 2 \
		build-gpu/bench/snp/bench_snp --profiles 0 > "$out/ncu-ld.txt" 2>&1
	summary+=("ncu ld: rc=$?")
	cuobjdump -sass build-gpu/src/gvk 2>/dev/null | gzip > "$out/gvk.sass.gz"
	grep -E "Issued Ipc|Issue Slots Busy|Achieved Occupancy|Registers Per|No Eligible|Warp Cycles Per Issued|Block Limit Reg" "$out/ncu-pairhmm.txt" | head -24
fi
if [[ " $stages " == *" peers "* ]]; then  # not part of "all"
	# gvk against gpuPairHMM (github.com/asbschmidt/gpuPairHMM, its source carried by
	# scripts/carry-peers.sh and built here) on the same GPU and inputs: the real GATK sets and
	# equal-length 16 x 16 groups. gvk: best of GVK_PEERS_REPS warm runs in one process
	# (bench_pairhmm_file: whole engine call and GPU kernel time); gpuPairHMM: best of as many
	# processes of its "Batch processing time" (its host clock around each batch: packing,
	# transfers and kernels, not parsing or writing). Where nsys is installed, both tools' kernel
	# time summed from a trace as well.
	reps=${GVK_PEERS_REPS:-3}; pd=/tmp/gvk-peers; mkdir -p "$pd"
	gph=${GVK_PEERS_GPH:-}  # a gpuPairHMM binary to use instead of building one
	if [ -z "$gph" ] && [ -f .carry/gpupairhmm/Makefile ]; then
		t0=$(date +%s); bd=build-gpu/gpupairhmm
		if [ ! -x $bd/gpuPairHMM ] || ! cmp -s .carry/gpupairhmm/COMMIT $bd/COMMIT; then
			rm -rf $bd && cp -r .carry/gpupairhmm $bd &&
				make -C $bd -j "$(nproc)" GPUARCH=90 TUNINGARCH=90 gpuPairHMM > "$out/gpupairhmm-build.log" 2>&1
			rc=$?; summary+=("gpuPairHMM $(head -c 7 $bd/COMMIT) build (GPUARCH=90 TUNINGARCH=90): rc=$rc, $(( $(date +%s) - t0 )) s")
		fi
		[ -x $bd/gpuPairHMM ] && gph=$bd/gpuPairHMM || tail -20 "$out/gpupairhmm-build.log"
	elif [ -z "$gph" ]; then
		summary+=("peers: no .carry/gpupairhmm (run scripts/carry-peers.sh before the call): gvk rows alone")
	fi
	nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda*/nsight-systems*/bin/nsys 2> /dev/null | head -1)
	# Sum of the kernels' time (ms) in an nsys trace of a command.
	nsys_kernels() {
		local rep=$pd/trace
		"$nsys" profile -t cuda -o "$rep" --force-overwrite true "$@" > /dev/null 2>&1 &&
			"$nsys" stats -q -r cuda_gpu_kern_sum -f csv "$rep.nsys-rep" 2> /dev/null |
			awk -F, 'NR > 1 && $2 ~ /[0-9]/ { gsub(/"/, "", $2); s += $2 } END { if (s > 0) printf "%.3f", s * 1e-6 }'
	}
	# CUPTI's record of every kernel, concurrent ones left concurrent (bench/kspan.c): kspan RUNS
	# COMMAND... runs the command $reps times and prints its best busy time (ms) divided by RUNS, the
	# number of times the command computes the input, with that run's serialised sum and kernels.
	kspan() {
		local runs=$1; shift
		for ((r = 0; r < reps; ++r)); do
			CUDA_INJECTION64_PATH=$PWD/build-gpu/bench/libkspan.so timeout 120 "$@" 2>&1 > /dev/null | grep '^kspan:'
		done | awk -v k="$runs" '{ b = $5 + 0; if (!n++ || b < best) { best = b; line = sprintf("busy %.3f ms (sum %.3f, %d kernels)", $5 / k, $8 / k, $2 / k) } }
			END { print n ? line : "?" }'
	}
	# gpuPairHMM's values (%.5f, a line per read of each group) against gvk's (%.17g, one a line).
	compare_values() {
		awk 'NR == FNR { g[++n] = $1; next }
			left == 0 { left = $1; next }
			{ --left; for (i = 1; i <= NF; ++i) { d = $i - g[++m]; d = d < 0 ? -d : d; if (d > mx) mx = d; if (d > 1e-3) ++far } }
			END { printf "%d of %d values compared, max |difference| %.2g, %d apart by more than 1e-3", m, n, mx, far }' "$1" "$2"
	}
	zcat -f tests/data/pairhmm/inputs/carneiro_1m.in.gz > "$pd/carneiro_1m.in"
	cp tests/data/pairhmm/inputs/carneiro_10s.in "$pd/"
	for L in 512 1024; do
		build-gpu/bench/pairhmm/bench_pairhmm --length $L --write "$pd/equal$L.in" --results - > /dev/null
	done
	summary+=("peers, per input: gvk kernels / gvk whole call / gpuPairHMM batch time, best of $reps (ms); gpuPairHMM batch / gvk call")
	for in in carneiro_1m carneiro_10s equal512 equal1024; do
		f=$pd/$in.in; rm -f "$pd/$in.gvk.txt" "$pd/$in.gph.txt"
		build-gpu/bench/pairhmm/bench_pairhmm_file --device ${GVK_PEERS_DEVICE:-gpu} --reps $reps -t "$(nproc)" -o "$pd/$in.gvk.txt" "$f" > "$pd/$in.gvk.log" 2>&1
		rc=$?; cat "$pd/$in.gvk.log"
		gk=$(sed -n 's/.*GPU kernels \([0-9.]*\) s.*/\1/p' "$pd/$in.gvk.log" | awk '{ printf "%.3f", $1 * 1e3 }')
		gc=$(sed -n 's/.*call \([0-9.]*\) s.*/\1/p' "$pd/$in.gvk.log" | awk '{ printf "%.3f", $1 * 1e3 }')
		line="$in ($(sed -n 's/.*: \([0-9]* pairs, [0-9.e+-]* G cells\).*/\1/p' "$pd/$in.gvk.log")): gvk rc=$rc ${gk:-?} / ${gc:-?}"
		if [ -n "$gph" ]; then
			best=
			for ((r = 0; r < reps; ++r)); do
				# Modules loaded when the context starts, as gvk's warm-up run does for its own.
				CUDA_MODULE_LOADING=EAGER timeout 300 "$gph" --inputfile "$f" --outputfile "$pd/$in.gph.txt" --verbose > "$pd/$in.gph.log" 2>&1
				grc=$?
				b=$(sed -n 's/^Batch processing time: \([0-9.e+-]*\)s.*/\1/p' "$pd/$in.gph.log")
				[ -n "$b" ] && best=$(awk -v a="$b" -v b="${best:-1e30}" 'BEGIN { printf "%.6f", a < b ? a : b }')
			done
			grep -E '^(Batch|TIMING|Using)' "$pd/$in.gph.log"
			[ $grc -eq 0 ] || tail -3 "$pd/$in.gph.log"
			gb=$([ -n "$best" ] && awk -v b="$best" 'BEGIN { printf "%.3f", b * 1e3 }')
			ratio=$([ -n "$gb" ] && [ -n "$gc" ] && awk -v a="$gb" -v b="$gc" 'BEGIN { if (b > 0) printf "%.2fx", a / b }')
			line+=" / ${gb:-?} (gpuPairHMM rc=$grc); ${ratio:-?}"
			[ -s "$pd/$in.gph.txt" ] && [ -s "$pd/$in.gvk.txt" ] && line+="; values: $(compare_values "$pd/$in.gvk.txt" "$pd/$in.gph.txt")"
		fi
		if [ -n "$nsys" ] && [ "${GVK_PEERS_DEVICE:-gpu}" = gpu ]; then
			nk=$(nsys_kernels build-gpu/src/gvk pairhmm -q --device gpu -o /dev/null "$f")
			line+="; nsys kernels: gvk pairhmm ${nk:-?} ms"
			[ -n "$gph" ] && line+=", gpuPairHMM $(nsys_kernels "$gph" --inputfile "$f" --outputfile /dev/null) ms"
		fi
		if [ -f build-gpu/bench/libkspan.so ] && [ "${GVK_PEERS_DEVICE:-gpu}" = gpu ]; then
			# bench_pairhmm_file computes the input 3 times (a warm-up and 2 runs); gvk pairhmm ends
			# with _exit, before an injected tracer could report.
			line+="; kernels by CUPTI a run: gvk $(kspan 3 build-gpu/bench/pairhmm/bench_pairhmm_file --device gpu --reps 2 -t "$(nproc)" "$f")"
			[ -n "$gph" ] && line+=", gpuPairHMM $(kspan 1 "$gph" --inputfile "$f" --outputfile /dev/null)"
		fi
		summary+=("  $line")
	done
	[ -z "$nsys" ] && [ ! -f build-gpu/bench/libkspan.so ] && summary+=("  (neither nsys nor bench/kspan.c's CUPTI tracer here: no kernel times but gvk's own)")
	# gvk's kernel rate on HaplotypeCaller-shaped work, and GATK-shaped traffic (many callers).
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/pairhmm/bench_pairhmm -n 200000 --device ${GVK_PEERS_DEVICE:-gpu} --results - > "$out/peers-bench.txt" 2>&1
	summary+=("bench_pairhmm -n 200000: rc=$?; $(grep 'gpu (kernel time)' "$out/peers-bench.txt" | awk -F'|' '{ printf "kernel %.1f GCUPS = %.3f TCUPS", $8, $8 / 1e3 }'); $(grep -h 'values differ' "$out/peers-bench.txt")")
	tail -8 "$out/peers-bench.txt"
	gdev=both; [ "${GVK_PEERS_DEVICE:-gpu}" = gpu ] || gdev=cpu
	for v in default per-caller; do
		extra=(--device $gdev)
		if [ $v = per-caller ]; then
			# The old way for comparison, where the first run had one shared engine.
			grep -q 'gpu (shared engine)' "$out/peers-gatk-default.txt" || break
			extra=(--device gpu --gpu-per-caller)
		fi
		timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/pairhmm/bench_pairhmm_gatk -n ${GVK_PEERS_GATK_PAIRS:-2000000} --callers 16,64 "${extra[@]}" \
			"${record[@]}" --note "scripts/gpu-check.sh peers" > "$out/peers-gatk-$v.txt" 2>&1
		rc=$?
		tail -12 "$out/peers-gatk-$v.txt"
		summary+=("bench_pairhmm_gatk ${extra[*]} --callers 16,64: rc=$rc; $(grep -hE '^(GPU vs CPU: |note: )' "$out/peers-gatk-$v.txt" | tr '\n' ' ')")
		# The final table's rows: mode, callers, GCUPS, call latency, ratio to the CPU on all cores.
		while IFS= read -r l; do summary+=("  $l"); done < <(awk -F'|' '/^\|---/ { t = 1; next }
			t && /^\|/ { gsub(/^ +| +$/, "", $2); gsub(/ /, "", $13); printf "%s, %d callers: %.2f GCUPS, %.0f regions/s, call p50 %.3f ms, p99 %.3f ms, max %.3f ms, %s vs CPU on all cores\n", $2, $3, $7, $8, $9, $10, $11, $13 }' "$out/peers-gatk-$v.txt")
	done
fi
if [[ " $stages " == *" serve "* ]]; then
	# Many HaplotypeCaller processes on one GPU (issue 40): P processes in cpu, gpu, auto and server
	# modes, Pair-HMM by region, then Smith-Waterman by region at P = 16.
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/serve/bench_serve -n ${GVK_SERVE_PAIRS:-2000000} -P ${GVK_SERVE_P:-1,4,16,64} \
		--gvk build-gpu/src/gvk --server-device gpu --no-sw > "$out/serve.txt" 2>&1
	summary+=("bench_serve Pair-HMM: rc=$?")
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/serve/bench_serve -n ${GVK_SERVE_PAIRS:-2000000} -P 16 --gvk build-gpu/src/gvk \
		--server-device gpu --no-phmm > "$out/serve-sw.txt" 2>&1
	summary+=("bench_serve Smith-Waterman: rc=$?")
	while IFS= read -r l; do summary+=("  $l"); done < <(grep -hE '^ +(cpu|gpu|auto|server) |merged|calls, |did not start|gvk serve' "$out/serve.txt" "$out/serve-sw.txt" | grep -v 'GPU lock')
fi
if has bench; then
	gkl=(); [ -x .carry/gkl/gklbench ] && [ "${GVK_BENCH_GKL:-1}" != 0 ] && gkl=(--gkl .carry/gkl/gklbench)
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/pairhmm/bench_pairhmm -n ${GVK_BENCH_PAIRS:-2000000} --device gpu --sweep "${gkl[@]}" --note "scripts/gpu-check.sh" \
		"${record[@]}" 2>&1 | tee "$out/bench.txt" | tail -25
	# The same shapes with GATK4's default indel qualities (45 at every base), where the float
	# kernels share the gap-open product.
	timeout ${GVK_BENCH_TIMEOUT:-400} build-gpu/bench/pairhmm/bench_pairhmm -n ${GVK_BENCH_PAIRS:-2000000} --device gpu --sweep --indel45 --note "scripts/gpu-check.sh" \
		"${record[@]}" 2>&1 | tee "$out/bench45.txt" | tail -12
	for f in bench bench45; do
		summary+=("pairhmm $f: $(grep 'gpu (kernel time)' "$out/$f.txt" | awk -F'|' '{gsub(/ +/, " "); printf "%s%s GCUPS;", $2, $8}')")
	done
fi
if [[ " $stages " == *" mpi "* ]]; then  # not part of "all": the 2-GPU machine
	# gvk under MPI (issue 24), 2 ranks x 1 GPU against one process on the same host: outputs
	# identical, wall times and speed-ups (bench/mpi/mpi_bench.sh; inputs generated under
	# GVK_MPI_DIR, about 20 GB, and kept: a rerun on a warm machine goes straight to the timings).
	# GVK_MPI_PARTS picks parts (gen ld fastid cnv) when one call cannot hold them all.
	if ! command -v mpirun > /dev/null; then
		summary+=("mpi: skipped, no mpirun on this host (carry OpenMPI: scripts/carry-mpi.sh, see docs/mpi.md)")
	elif ! grep -q "^GVK_MPI:BOOL=ON" build-gpu/CMakeCache.txt; then
		summary+=("mpi: skipped, gvk was built without MPI (no MPI development files found by CMake)")
	else
		t0=$(date +%s)
		# the device call is limited to 10 minutes: the budget is what this script has left of it
		GVK_MPI_BUDGET=${GVK_MPI_BUDGET:-$(( 570 - SECONDS ))} OUT=$out bench/mpi/mpi_bench.sh "$PWD/build-gpu/src/gvk" ${GVK_MPI_PARTS:-gen ld fastid cnv} 2>&1 | tee "$out/mpi-bench.txt" | grep -E '^  |WARNING'
		while IFS= read -r l; do summary+=("mpi $l"); done < <(grep -E '^\| (ld|fastid|cnv|inputs)' "$out/mpi-bench.md" 2> /dev/null)
		summary+=("mpi: $(( $(date +%s) - t0 )) s, table in $out/mpi-bench.md")
	fi
fi
[ ${#record[@]} -gt 0 ] && cp "${record[1]}" "$out/" 2>/dev/null
echo; echo "== gpu-check summary ($(cat "$out/gpu.txt"), commit $GVK_COMMIT)"
printf '  %s\n' "${summary[@]}"
