# SPDX-License-Identifier: MIT
# Sourced by the tests that run the SNP engines' whole GPU back end on a machine without a GPU
# (gpu_backend_emu.sh, ld_gpu_emu.sh). emu_backend SRC TMP builds TMP/backend.o: the GPU
# context (src/snp/snp_gpu.cu), LD's and FastID's back ends (src/ld/ld_gpu.cu,
# src/fastid/fastid_gpu.cu) with their kernel headers, and the GPU buffer helpers, compiled as C++
# against the CPU stand-in for the CUDA runtime (tests/snp/emu_cuda: host memory, one POSIX thread
# per CUDA thread). The sources are copied with their folders, so their relative #include lines
# still resolve, and each kernel launch is rewritten into a call of emu_launch.
emu_backend() {
	local src=$1 tmp=$2 f o objs=()
	mkdir -p "$tmp/src"
	cp -r "$src/src/common" "$src/src/snp" "$src/src/ld" "$src/src/fastid" "$tmp/src/"
	for f in "$tmp"/src/{snp,ld,fastid}/*.cu "$tmp"/src/{snp,ld,fastid}/*.cuh; do
		perl -0pi -e 's/(\w+(?:<[\w, ]+>)?)<<<(.*?)>>>\((.*?)\);/emu_launch($2, [=] { $1($3); });/gs;
		              s/extern __shared__ uint64_t (\w+)\[\];/uint64_t *$1 = (uint64_t *)emu_dyn;/g' "$f"
	done
	for f in snp/snp_gpu ld/ld_gpu fastid/fastid_gpu common/cuda_mem; do
		o=$tmp/$(basename "$f").o
		c++ -O1 -ffp-contract=off -std=c++17 -Wno-unknown-pragmas -x c++ -I"$src/tests/snp/emu_cuda" -I"$tmp/src" \
			-I"$src/include" -c "$tmp/src/$f.cu" -o "$o" || return 1
		objs+=("$o")
	done
	ld -r -o "$tmp/backend.o" "${objs[@]}"
}

# emu_test SRC TMP TEST_C LIB [LINK_FLAGS...] builds TMP/test: the test program TEST_C linked with
# the emulated back end (emu_backend) and LIB. Link flags that CMake's generator expressions left
# empty are dropped.
emu_test() {
	local src=$1 tmp=$2 test_c=$3 lib=$4 f flags=()
	shift 4
	emu_backend "$src" "$tmp" || return 1
	cc -O1 -c -I"$src/src" -I"$src/include" "$test_c" -o "$tmp/t.o" || return 1
	for f in "$@"; do [ -n "$f" ] && flags+=("$f"); done
	c++ "$tmp/t.o" "$tmp/backend.o" "$lib" -lpthread -lm ${flags[@]+"${flags[@]}"} -o "$tmp/test"
}
