/* SPDX-License-Identifier: MIT */
/* The Pair-HMM GPU kernels (src/pairhmm/pairhmm_gpu_kernel.cuh), as they are, run on a simulated
 * warp of 32 and of 64 lanes (warp_emu.h) and must give the CPU engine's bits: every float and
 * double variant family of the read-length bins (one thread per pair, sub-warps of 2 to 32,
 * tiled long reads, the FTZ double kernel), both arithmetic flavours, with and without the shared
 * gap-open product. Blocks are 64 threads as in the HIP build, so at width 32 a block holds two
 * warps. Several sub-warps share a warp, warps differ in their longest haplotype, and the launch
 * ends in sub-warps past the last pair, as on the GPU.
 * Usage: test_warp_emu [seed] */
#include "warp_emu.h"

#include <stdio.h>
#include <map>
#include <string>
#include <vector>
#include <xmmintrin.h>

extern "C" {
#include "gvk.h"
#include "common/buf.h"
#include "pairhmm/pairhmm_kernel.h"
#include "pairhmm/pairhmm_tables.h"
}
#include "pairhmm/pairhmm_gpu_kernel.cuh"

alignas(16) unsigned char phmm_smem[1 << 17];

static uint64_t rng_state, base_seed;
static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

struct read_s {
	std::vector<char> b;
	std::vector<uint8_t> q, ins, del, gcp;
};

/* A read of R bases; share: one gap quality throughout (the SHARE kernels' condition); far: A and
 * G only, every quality 90, to pair with a haplotype of C and T: every cell is a mismatch or a gap
 * at 10^-9, so that from about 65 rows on the double sums fall below 2^-900 and the one-tile double
 * kernels flag the pair. */
static read_s make_read(int R, bool share, bool far)
{
	read_s r;
	const char *acgt = far ? "AGAGA" : "ACGTN";
	const uint8_t gq = far ? 90 : (uint8_t)(20 + rnd(40)), gc = far ? 90 : (uint8_t)(5 + rnd(20));
	for (int i = 0; i < R; ++i) {
		r.b.push_back(acgt[rnd(50) == 0 ? 4 : rnd(4)]);
		r.q.push_back(far ? (uint8_t)90 : (uint8_t)(6 + rnd(35)));
		r.ins.push_back(share || far ? gq : (uint8_t)(10 + rnd(40)));
		r.del.push_back(share || far ? gq : (uint8_t)(10 + rnd(40)));
		r.gcp.push_back(share || far ? gc : (uint8_t)(5 + rnd(20)));
	}
	return r;
}

/* A haplotype of H bases: mostly the read with a few changes, or random (one in three), or for a
 * far read C and T alone. */
static std::vector<char> make_hap(const read_s &r, int H, bool far)
{
	std::vector<char> h;
	const char acgt[] = "ACGT", ct[] = "CT";
	const bool random = rnd(3) == 0;
	for (int j = 0; j < H; ++j)
		h.push_back(far ? ct[rnd(2)] : !random && j < (int)r.b.size() && rnd(8) ? r.b[j] : acgt[rnd(4)]);
	return h;
}

/* Which pairs a one-tile double kernel flagged at width 32, by variant: the flag is the pair's own
 * (any state of it below 2^-900), so width 64 must flag the same pairs. */
static std::map<std::string, std::vector<char>> flags32;

template <typename T> struct tables {
	std::vector<T> err, mm;
	tables()
	{
		const int nmm = 128 * 129 / 2;
		err.resize(PHMM_TAB_SIZE), mm.resize(nmm);
		for (int b = 0; b < 256; ++b) {
			const T e = sizeof(T) == 4 ? (T)phmm_err_f[b & 127].f : (T)phmm_err_d[b & 127].f;
			err[b] = e, err[PHMM_TAB_PRIOR + 2 * b] = (T)1 - e, err[PHMM_TAB_PRIOR + 2 * b + 1] = e / (T)3;
		}
		for (int k = 0; k < nmm; ++k) mm[k] = sizeof(T) == 4 ? (T)phmm_mm_f[k].f : (T)phmm_mm_d[k].f;
	}
};

static int failures, total_flagged;

static void cpu_ref(const std::vector<gvk_read_t> &rd, const std::vector<gvk_hap_t> &hp, int fused, float *out)
{
	std::vector<phmm_job_t> jobs;
	for (size_t i = 0; i < rd.size(); ++i) jobs.push_back({&rd[i], &hp[i]});
	gvk_buf_t scr = {NULL, 0};
	const unsigned s = phmm_ftz_enter();
	phmm_isa_scalar.kf(jobs.data(), (int)jobs.size(), fused, out, &scr);
	phmm_ftz_leave(s);
	gvk_buf_free(&scr);
}
static void cpu_ref(const std::vector<gvk_read_t> &rd, const std::vector<gvk_hap_t> &hp, int fused, double *out)
{
	std::vector<phmm_job_t> jobs;
	for (size_t i = 0; i < rd.size(); ++i) jobs.push_back({&rd[i], &hp[i]});
	gvk_buf_t scr = {NULL, 0};
	const unsigned s = phmm_ftz_enter();
	phmm_isa_scalar.kd(jobs.data(), (int)jobs.size(), fused, out, &scr);
	phmm_ftz_leave(s);
	gvk_buf_free(&scr);
}

/* One launch of a variant at warp width W: n pairs with reads of rlo..rhi bases. */
template <typename T, int P, int K, bool F, bool S, bool TILED, bool FTZ = false>
static void run_variant(int W, int n, int rlo, int rhi, int hmax)
{
	static const tables<T> tab;
	char name[80];
	snprintf(name, sizeof name, "%s P=%d K=%d F=%d S=%d%s", sizeof(T) == 4 ? "float" : "double", P, K, F, S,
	         TILED ? (FTZ ? " tiled-ftz" : " tiled") : "");
	/* The same pairs at every width. */
	rng_state = base_seed;
	for (const char *c = name; *c; ++c) rng_state = rng_state * 31 + (unsigned char)*c;
	std::vector<read_s> reads;
	std::vector<std::vector<char>> haps;
	for (int i = 0; i < n; ++i) {
		const int R = rlo + (int)rnd((uint32_t)(rhi - rlo + 1));
		const bool far = rnd(4) == 0;
		reads.push_back(make_read(R, S, far));
		haps.push_back(make_hap(reads.back(), 1 + (int)rnd((uint32_t)hmax), far));
	}
	/* The blobs as pairhmm_gpu_pack.cu lays them out: five arrays per read; haplotype bases with
	 * 64 bytes of zeros before the first and the longest haplotype plus 64 after the last. */
	std::vector<uint8_t> rb, hb(64, 0);
	std::vector<phmm_gpu_pair_t> pairs;
	std::vector<uint64_t> soff;
	size_t scratch = 0;
	int hlong = 0;
	for (int i = 0; i < n; ++i) {
		const read_s &r = reads[i];
		const int R = (int)r.b.size(), H = (int)haps[i].size();
		pairs.push_back({(uint32_t)rb.size(), (uint32_t)hb.size(), R, H, (uint32_t)i});
		rb.insert(rb.end(), r.b.begin(), r.b.end());
		rb.insert(rb.end(), r.q.begin(), r.q.end());
		rb.insert(rb.end(), r.ins.begin(), r.ins.end());
		rb.insert(rb.end(), r.del.begin(), r.del.end());
		rb.insert(rb.end(), r.gcp.begin(), r.gcp.end());
		hb.insert(hb.end(), haps[i].begin(), haps[i].end());
		soff.push_back(scratch);
		scratch += 3 * (size_t)(H + 1);
		hlong = std::max(hlong, H);
	}
	hb.resize(hb.size() + (size_t)hlong + 64, 0);
	hb.resize((hb.size() + 15) / 16 * 16, 0);
	std::vector<T> out((size_t)n, (T)-1), scr(scratch + 1);

	/* The haplotype classes by their own kernel, as the GPU does it. */
	const size_t n16 = hb.size() / 16;
	emu_launch((unsigned)((n16 + 255) / 256), 256, W, [&] { phmm_gpu_hap_classes((uint4 *)hb.data(), n16); });

	const int per_block = PHMM_GPU_BLOCK / P;
	const unsigned blocks = (unsigned)((n + per_block - 1) / per_block);
	const size_t smem = (size_t)per_block * (TILED ? phmm_tiled_table<T, P, K>::SIZE : phmm_table<T, P, K>::SIZE) * sizeof(T);
	if (smem > sizeof phmm_smem) {
		fprintf(stderr, "FAIL: shared memory of P=%d K=%d too small in the test\n", P, K);
		++failures;
		return;
	}
	emu_smem_base = phmm_smem;
	const unsigned csr = _mm_getcsr();
	/* The float kernels are built with flush-to-zero (operands and results); CUDA's and HIP's
	 * double arithmetic keeps denormals (the FTZ kernel flushes by hand). */
	_mm_setcsr(sizeof(T) == 4 ? csr | 0x8040 : csr & ~0x8040u);
	if (TILED)
		emu_launch(blocks, PHMM_GPU_BLOCK, W, [&] {
			phmm_gpu_kernel<T, P, K, F, S, FTZ>(pairs.data(), n, rb.data(), hb.data(), tab.err.data(), tab.mm.data(),
			                                    scr.data(), soff.data(), out.data());
		});
	else
		emu_launch(blocks, PHMM_GPU_BLOCK, W, [&] {
			phmm_gpu_kernel_short<T, P, K, F, S>(pairs.data(), n, rb.data(), hb.data(), tab.err.data(), tab.mm.data(),
			                                     out.data());
		});
	_mm_setcsr(csr);

	std::vector<gvk_read_t> rd;
	std::vector<gvk_hap_t> hp;
	for (int i = 0; i < n; ++i) {
		const read_s &r = reads[i];
		rd.push_back({(int)r.b.size(), r.b.data(), r.q.data(), r.ins.data(), r.del.data(), r.gcp.data()});
		hp.push_back({(int)haps[i].size(), haps[i].data()});
	}
	std::vector<T> ref((size_t)n);
	cpu_ref(rd, hp, F, ref.data());
	int bad = 0, flagged = 0;
	std::vector<char> fl((size_t)n, 0);
	for (int i = 0; i < n; ++i) {
		/* A one-tile double kernel returns NaN for a pair it flags for the FTZ kernel (phmm_trip). */
		if (sizeof(T) == 8 && !TILED && isnan((double)out[i])) {
			++flagged, fl[(size_t)i] = 1;
			continue;
		}
		if (memcmp(&out[i], &ref[i], sizeof(T)) != 0) {
			if (bad++ < 3)
				fprintf(stderr, "FAIL W=%d %s P=%d K=%d F=%d S=%d%s pair %d (R=%d H=%d): kernel %.17g, CPU %.17g\n", W,
				        sizeof(T) == 4 ? "float" : "double", P, K, F, S, TILED ? " tiled" : "", i, rd[i].len, hp[i].len,
				        (double)out[i], (double)ref[i]);
		}
	}
	if (W == 32) flags32[name] = fl;
	else if (flags32.count(name) && flags32[name] != fl) {
		fprintf(stderr, "FAIL W=%d %s: other pairs flagged than at width 32\n", W, name);
		++bad;
	}
	failures += bad;
	total_flagged += flagged;
	printf("%s W=%d %s: %d pairs, %d differ, %d flagged for the FTZ kernel\n", bad ? "FAIL" : "ok  ", W, name, n,
	       bad, flagged);
}

/* Every flavour and gap-sharing combination of a one-tile variant. */
template <typename T, int P, int K> static void short_all(int W, int n, int hmax)
{
	const int rlo = P * K / 2 + 1 > 1 ? P * K / 2 + 1 : 1, rhi = P * K;
	run_variant<T, P, K, false, false, false>(W, n, rlo, rhi, hmax);
	run_variant<T, P, K, true, false, false>(W, n, rlo, rhi, hmax);
	run_variant<T, P, K, false, true, false>(W, n, rlo, rhi, hmax);
	run_variant<T, P, K, true, true, false>(W, n, rlo, rhi, hmax);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* failures (stderr) land among the lines they follow */
	base_seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 12345;
	for (int W = 32; W <= 64; W *= 2) {
		/* One pair per thread (no shuffles but the warp's longest haplotype), then sub-warps. */
		short_all<float, 1, 8>(W, 150, 60);
		short_all<float, 2, 10>(W, 70, 60);
		short_all<float, 4, 9>(W, 40, 60);
		short_all<float, 8, 12>(W, 20, 80);
		short_all<float, 16, 10>(W, 9, 120);
		short_all<float, 32, 9>(W, 5, 200);
		short_all<double, 4, 4>(W, 40, 30);
		short_all<double, 16, 8>(W, 9, 120);
		short_all<double, 32, 8>(W, 5, 200);
		/* Long reads, in tiles: float, and the double kernel with x86's flush to zero. */
		run_variant<float, 32, 16, false, false, true>(W, 9, 1, 1100, 150);
		run_variant<float, 32, 16, true, true, true>(W, 9, 500, 1100, 150);
		run_variant<double, 32, 8, true, false, true, true>(W, 9, 1, 600, 150);
		run_variant<double, 32, 8, false, true, true, true>(W, 9, 200, 600, 150);
	}
	/* The flag must have fired somewhere, or phmm_sub_any went untested. */
	if (!total_flagged) {
		fprintf(stderr, "FAIL: no pair was flagged for the FTZ kernel: the test data miss the check\n");
		++failures;
	}
	if (failures) {
		fprintf(stderr, "%d pairs differ from the CPU engine\n", failures);
		return 1;
	}
	printf("every kernel gives the CPU engine's bits at warp widths 32 and 64\n");
	return 0;
}
