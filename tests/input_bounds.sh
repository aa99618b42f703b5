#!/bin/bash
# SPDX-License-Identifier: MIT
# Bounded memory on any input (docs/pairhmm.md, docs/align.md, docs/cnv.md, "Input limits"): a NUL
# byte is refused as soon as it is read and a line over the limit as soon as the limit is passed,
# with FILE:LINE, under a virtual-memory limit that a reader holding the rest of its input would
# pass; BAM headers whose windows would not fit in memory are refused before any is laid out.
# The long inputs come through pipes: none sits on disk. Usage: input_bounds.sh GVK [SNP_DATA]
set -u
gvk=$1 snp=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
MiB=$((1 << 20))
# AddressSanitizer reserves terabytes of shadow address space: under it the limit cannot apply, and
# the messages are still checked (the plain build checks the bound).
vlimit=1000000
if ldd "$gvk" 2> /dev/null | grep -q libasan; then vlimit=unlimited; echo "AddressSanitizer build: no ulimit -v"; fi

# name | text the message must contain | producer command (its output is the input) | gvk args
# The input is '-' (a pipe) unless the args name a file; the run is under ulimit -v 1000000 (KiB).
check() {
	local name=$1 want=$2 producer=$3; shift 3
	rm -f "$tmp/out"
	if (ulimit -v $vlimit; eval "$producer" | "$gvk" "$@" 2> "$tmp/err" > /dev/null); then
		echo "FAIL: $name: accepted"; fail=$((fail + 1)); return
	fi
	if ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: $name: message '$(head -c 300 "$tmp/err")' lacks '$want'"; fail=$((fail + 1)); return
	fi
	[ ! -e "$tmp/out" ] || { echo "FAIL: $name: output left behind"; fail=$((fail + 1)); return; }
	pass=$((pass + 1))
}
zeros() { head -c "$1" /dev/zero; }
As() { head -c "$1" /dev/zero | tr '\0' A; }

# A NUL after a short prefix, then far more than the memory limit allows to hold (2 GiB: it is
# never read when the NUL is refused at once).
check align_nul "<stdin>:1: NUL byte in line (column 5)" "printf 'ACGT'; zeros 2G" align -q -o "$tmp/out" -
check pairhmm_nul "<stdin>:1: NUL byte in line (column 3)" "printf 'AC'; zeros 2G" pairhmm -q -o "$tmp/out" -
check cnv_nul "<stdin>:1: NUL byte in line (column 4)" "printf 'chr'; zeros 2G" cnv -q --counts - -o "$tmp/out"
# ... after whole lines: the line number counts them.
check align_nul3 "<stdin>:3: NUL byte in line (column 2)" "printf 'ACGT\tAC\nAC\tACGT\nA'; zeros 2G" align -q -o "$tmp/out" -
ex=$(printf 'ACGTACGT ACGTA +++++ +++++ +++++ +++++\n')
check pairhmm_nul3 "<stdin>:3: NUL byte in line (column 1)" "printf '%s\n%s\n' '$ex' '$ex'; zeros 2G" pairhmm -q -t 2 -o "$tmp/out" -
h='chr\tstart\tend\tA\tB\n'
check cnv_nul3 "<stdin>:3: NUL byte in line (column 15)" "printf '${h}chr1\t1\t100\t5\t6\nchr1\t101\t200\t5'; zeros 2G" cnv -q --counts - -o "$tmp/out"
# A NUL in the middle of a block of whole lines (the threads of the parser see it).
check cnv_nul_block "nulblk.tsv:4: NUL byte in line (column 15)" \
	"printf '${h}chr1\t1\t100\t5\t6\nchr1\t101\t200\t5\t6\nchr1\t201\t300\t5\0\t6\nchr1\t301\t400\t5\t6\n' > '$tmp/nulblk.tsv'" \
	cnv -q --counts "$tmp/nulblk.tsv" -o "$tmp/out"
# gzip input: the same, the stream decompressed no further than the NUL.
{ printf 'ACGT\tAC\nAC'; zeros 64M; } | gzip -1 > "$tmp/nul.gz"
check align_nul_gz "nul.gz:2: NUL byte in line (column 3)" "true" align -q -o "$tmp/out" "$tmp/nul.gz"
# A regular file (read mapped): the same message.
{ printf 'AC\tAC\n\tA'; zeros 1M; } > "$tmp/nul.tsv"
check align_nul_file "nul.tsv:2: NUL byte in line (column 3)" "true" align -q -o "$tmp/out" "$tmp/nul.tsv"

# One line just over the limit: 64 MiB for reads and haplotypes, 4 MiB for tables.
check align_long "<stdin>:2: line longer than 64 MiB" "printf 'AC\tAC\n'; As $((64 * MiB + 1)); echo" align -q -o "$tmp/out" -
check pairhmm_long "<stdin>:1: line longer than 64 MiB" "As $((64 * MiB + 1)); echo" pairhmm -q -o "$tmp/out" -
check cnv_long_header "<stdin>:1: line longer than 4 MiB" "printf 'chr\tstart\tend\tA\tB'; As $((4 * MiB)); echo" cnv -q --counts - -o "$tmp/out"
check cnv_long_row "<stdin>:3: line longer than 4 MiB" "printf '${h}chr1\t1\t100\t5\t6\nchr1\t101\t200\t5\t'; As $((4 * MiB)); echo" cnv -q --counts - -o "$tmp/out"
# An endless line through gzip.
As $((200 * MiB)) | gzip -1 > "$tmp/long.gz"
check align_long_gz "long.gz:1: line longer than 64 MiB" "true" align -q -o "$tmp/out" "$tmp/long.gz"
# A line of exactly the limit is read (and then rejected for what it holds, not for its length).
rm -f "$tmp/out"
if (ulimit -v $vlimit; { As $((64 * MiB)); echo; } | "$gvk" align -q -o "$tmp/out" - 2> "$tmp/err"); then
	echo "FAIL: align_at_limit: accepted"; fail=$((fail + 1))
elif grep -q "longer than\|NUL" "$tmp/err" || ! grep -q "<stdin>:1:" "$tmp/err"; then
	echo "FAIL: align_at_limit: '$(head -c 300 "$tmp/err")'"; fail=$((fail + 1))
else pass=$((pass + 1)); fi

# BAM headers of two 2^31-1 bp contigs with 4 bp windows: about 2^30 windows, refused before
# their layout (which alone took 16 GiB), with the window length that fits. 32 samples (one
# file under 32 names) make it about 1.4 TiB, more than any machine this runs on.
if command -v samtools > /dev/null && ! "$gvk" cnv --count-only -q x.bam y.bam 2>&1 | grep -q "without htslib"; then
	printf '@HD\tVN:1.6\tSO:coordinate\n@SQ\tSN:c1\tLN:2147483647\n@SQ\tSN:c2\tLN:2147483647\n' > "$tmp/h.sam"
	samtools view -b -o "$tmp/a.bam" "$tmp/h.sam" && samtools index "$tmp/a.bam"
	bams=()
	for s in $(seq 32); do ln -s a.bam "$tmp/s$s.bam" && ln -s a.bam.bai "$tmp/s$s.bam.bai" && bams+=("$tmp/s$s.bam"); done
	check bam_windows "1073741824 windows; their counts and the cn.MOPS model of 32 samples need about" "true" cnv -q -w 4 "${bams[@]}" -o "$tmp/out"
	check bam_windows_fix "GiB of memory here: give a window length of at least" "true" cnv -q -w 4 "${bams[@]}" -o "$tmp/out"
	check bam_windows_int "more than the 2147483647 a count matrix holds" "true" cnv -q --count-only -w 1 "$tmp/a.bam" "$tmp/s1.bam" -o "$tmp/out"
else
	echo "note: no samtools or no htslib in gvk: the BAM header checks are left out"
fi
# gvk ld: PLINK text files are tables; an --extract list may hold all its IDs on one line (64 MiB).
if [ -n "$snp" ]; then
	E=$snp/ld_edge/edge13x10
	{ cut -f2 "$E.bim" | tr '\n' ' '; for i in $(seq 5000); do printf 'z%01000d ' "$i"; done; echo; } > "$tmp/ext.txt"
	if (ulimit -v $vlimit; "$gvk" ld -q --bfile "$E" --r2 --extract "$tmp/ext.txt" --out "$tmp/ld" 2> "$tmp/err"); then
		pass=$((pass + 1))
	else echo "FAIL: ld_extract_one_line: $(head -c 300 "$tmp/err")"; fail=$((fail + 1)); fi
	cp "$E.bed" "$tmp/fam.bed"; cp "$E.bim" "$tmp/fam.bim"
	{ printf 'fam0 ind0 0 0 2 '; As $((4 * MiB)); echo; tail -n +2 "$E.fam"; } > "$tmp/fam.fam"
	check ld_fam_long "fam.fam:1: line longer than 4 MiB" "true" ld -q --bfile "$tmp/fam" --r2 --out "$tmp/out"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
