/* SPDX-License-Identifier: MIT */
/* The kernels of the LD and FastID GPU back ends (src/ld/ld_gpu_*.cuh, src/fastid/fastid_gpu_*.cuh)
 * run on the CPU: each block's
 * threads are POSIX threads, __syncthreads a barrier, shared memory a per-block buffer. The binary MMA is emulated from the
 * PTX ISA's fragment layout (bmma_and below: every lane's registers gathered through a warp
 * barrier), so a fragment index mistake in the tensor-core kernel shows as wrong counts. LD
 * counts of both count kernels (all-samples and general variants) are compared with the CPU
 * kernel, the device r / r^2 arithmetic with ld_value_genotype bit for bit, and FastID with a
 * brute-force sort (top-k keys, threshold hit counts). Built and run by gpu_kernel_emu.sh, which
 * joins the four kernel headers (shapes, types, kernels) into the file named by KERNELS. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>
#include <algorithm>
#include <math.h>
extern "C" {
#include "snp/popgemm.h"
#include "ld/ld_engine.h"
}
struct u3 { unsigned x, y, z; };
static thread_local u3 threadIdx;
static u3 blockIdx, blockDim;
static void *emu_dyn;
static pthread_barrier_t emu_bar, emu_wbar[32];
#include "emu_device.h"
#include KERNELS

template <typename F> static void launch(u3 grid, u3 block, size_t smem, F f)
{
	blockDim = block;
	std::vector<char> dyn(smem + 64);
	emu_dyn = dyn.data();
	int n = block.x * block.y;
	for (unsigned by = 0; by < grid.y; ++by)
		for (unsigned bx = 0; bx < grid.x; ++bx) {
			blockIdx = {bx, by, 0};
			pthread_barrier_init(&emu_bar, NULL, n);
			for (int w = 0; w < n / 32; ++w) pthread_barrier_init(&emu_wbar[w], NULL, 32);
			std::vector<std::thread> th;
			for (int t = 0; t < n; ++t) th.emplace_back([=] { threadIdx = {(unsigned)(t % block.x), (unsigned)(t / block.x), 0}; f(); });
			for (auto &x : th) x.join();
			pthread_barrier_destroy(&emu_bar);
			for (int w = 0; w < n / 32; ++w) pthread_barrier_destroy(&emu_wbar[w]);
		}
}
static uint64_t rng = 88172645463325252ull;
static uint64_t nx() { rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17; return rng; }
static int fails;

/* path 0: CUDA-core kernel (kw words per stage), 1: tensor-core kernel; allfull: no missing call
 * (the 4-product variants). */
static void ld_test(int path, int allfull, int m, int nbits, int kw, int64_t i0, int64_t i1, int64_t cbase, int64_t width,
                    int banded, int split = 0, int small = 0)
{
	int nw = ((nbits + 63) / 64 + 7) / 8 * 8;
	std::vector<uint64_t> w((size_t)m * 3 * nw, 0);
	std::vector<uint8_t> full(m);
	std::vector<int32_t> tot(2 * m);
	for (int i = 0; i < m; ++i) {
		int miss = allfull ? 0 : i % 3;
		for (int s = 0; s < nbits; ++s) {
			if (miss && nx() % 10 == 0) continue;
			int x = nx() % 3;
			uint64_t bit = 1ull << (s & 63);
			w[((size_t)i * 3 + 2) * nw + s / 64] |= bit;
			if (x >= 1) w[((size_t)i * 3) * nw + s / 64] |= bit;
			if (x == 2) w[((size_t)i * 3 + 1) * nw + s / 64] |= bit;
		}
		int f = 1, ca = 0, cb = 0;
		for (int s = 0; s < nbits; ++s) f &= (int)(w[((size_t)i * 3 + 2) * nw + s / 64] >> (s & 63)) & 1;
		for (int k = 0; k < nw; ++k) ca += __builtin_popcountll(w[((size_t)i*3)*nw+k]), cb += __builtin_popcountll(w[((size_t)i*3+1)*nw+k]);
		full[i] = f, tot[2*i] = ca, tot[2*i+1] = cb;
	}
	int nrows = (int)(i1 - i0);
	std::vector<int64_t> jr(2 * nrows);
	for (int r = 0; r < nrows; ++r) {
		int64_t lo = cbase, hi = cbase + width;
		if (banded) { lo = std::max(cbase, i0 + r + 1); hi = std::min(cbase + width, i0 + r + 6); if (hi < lo) hi = lo; }
		if (split) lo = cbase + 2, hi = cbase + width + 5; /* a slice of the stripe's columns */
		jr[r] = lo, jr[nrows + r] = hi;
	}
	std::vector<pg_ldcnt_t> out((size_t)nrows * width);
	std::vector<double> val((size_t)nrows * width);
	memset(out.data(), 0xee, out.size() * sizeof(pg_ldcnt_t));
	const uint64_t *wp = w.data(); const int64_t *jp = jr.data();
	const int32_t *tp = tot.data();
	/* split: the columns from their own buffer, as a streamed stripe's slice (ybase = cbase) */
	std::vector<uint64_t> wy(w.begin() + (size_t)cbase * 3 * nw, w.begin() + (size_t)(cbase + width) * 3 * nw);
	std::vector<int32_t> ty(tot.begin() + 2 * cbase, tot.begin() + 2 * (cbase + width));
	const ld_src_t src = split ? ld_src_t{wp, wy.data(), 0, cbase, tp, ty.data()} : ld_src_t{wp, wp, 0, 0, tp, tp};
	/* twice: the counts, then the values formed in the kernel (r^2 or r, PLINK's float path or not) */
	const int r2 = m & 1, single = (m >> 1) & 1;
	for (int fused = 0; fused < 2; ++fused) {
		pg_ldcnt_t *op = fused ? NULL : out.data();
		double *vp = fused ? val.data() : NULL;
		if (path == 0) {
			const int tm = small ? 32 : 64, tn = small ? 32 : allfull ? 64 : 32;
			u3 grid = {(unsigned)((width + tn - 1) / tn), (unsigned)((nrows + tm - 1) / tm), 1};
			if (allfull && small) launch(grid, {16, 16, 1}, 0, [=] { ld_count_kernel<1, 2, 2>(src, nw, i0, nrows, cbase, width, jp, jp + nrows, nbits, op, vp, r2, single); });
			else if (allfull) launch(grid, {16, 16, 1}, 0, [=] { ld_count_kernel<1, 4, 4>(src, nw, i0, nrows, cbase, width, jp, jp + nrows, nbits, op, vp, r2, single); });
			else if (small) launch(grid, {16, 16, 1}, 0, [=] { ld_count_kernel<0, 2, 2>(src, nw, i0, nrows, cbase, width, jp, jp + nrows, nbits, op, vp, r2, single); });
			else launch(grid, {16, 16, 1}, 0, [=] { ld_count_kernel<0, 4, 2>(src, nw, i0, nrows, cbase, width, jp, jp + nrows, nbits, op, vp, r2, single); });
		} else {
			size_t smem = 96 * 96 * 4;
			u3 grid = {(unsigned)((width + MMA_S - 1) / MMA_S), (unsigned)((nrows + MMA_S - 1) / MMA_S), 1};
			if (allfull) launch(grid, {MMA_THREADS, 1, 1}, smem, [=] { ld_mma_kernel<2>(src, nw, i0, nrows, cbase, width, jp, jp + nrows, nbits, op, vp, r2, single); });
			else launch(grid, {MMA_THREADS, 1, 1}, smem, [=] { ld_mma_kernel<3>(src, nw, i0, nrows, cbase, width, jp, jp + nrows, nbits, op, vp, r2, single); });
		}
	}
	long n = 0;
	if (split) /* the kernels write nothing outside the launch's columns (it would land in the next row) */
		for (int r = 0; r < nrows; ++r)
			for (int64_t j = cbase; j < cbase + 2; ++j) {
				const size_t e = (size_t)r * width + (size_t)(j - cbase);
				const double z = 0;
				if ((out[e].n != (int32_t)0xeeeeeeee || memcmp(&val[e], &z, sizeof z)) && fails++ < 5) printf("ld write outside the slice at row %d\n", r);
			}
	for (int r = 0; r < nrows; ++r)
		for (int64_t j = jr[r]; j < std::min(jr[nrows + r], cbase + width); ++j) {
			pg_ldcnt_t c;
			int64_t i = i0 + r;
			pg_isa_scalar.ld_row(&w[(size_t)i * 3 * nw], &w[(size_t)j * 3 * nw], 3 * nw, 1, nw, nbits, full[i], &tot[2 * i], &full[j], &tot[2 * j], &c);
			if (memcmp(&c, &out[(size_t)r * width + (j - cbase)], sizeof c)) { if (fails++ < 5) printf("ld mismatch %ld %ld\n", (long)i, (long)j); }
			const double v = ld_value_genotype(&c, r2, single);
			if (memcmp(&v, &val[(size_t)r * width + (j - cbase)], sizeof v)) { if (fails++ < 5) printf("ld value mismatch %ld %ld\n", (long)i, (long)j); }
			++n;
		}
	printf("%s%sld %s%s m=%d bits=%d kw=%d rows %ld..%ld cols %ld+%ld banded=%d: %ld pairs checked, fails %d\n", small ? "2x2 " : "", split ? "split " : "", path ? "mma" : "popc", allfull ? " full" : "", m, nbits, kw, (long)i0, (long)i1, (long)cbase, (long)width, banded, n, fails);
}

/* FastID scores of either kernel (mma: the tensor-core one; QB unused) against a brute-force sort:
 * top-k keys (ties by smaller index) and the number of threshold hits. */
template <int QB> static void fid_test(int op, int nq, int64_t nd, int stride, int nparts, int k, int64_t thresh, int mma = 0)
{
	std::vector<uint64_t> q((size_t)nq * stride), d((size_t)nd * stride);
	int nbits = stride * 64 - 37;
	for (auto *v : {&q, &d})
		for (size_t i = 0; i < v->size(); ++i) { int b = (int)(i % stride) * 64; uint64_t x = nx() & nx(); if (b + 64 > nbits) x &= (b >= nbits) ? 0 : ((1ull << (nbits - b)) - 1); (*v)[i] = x; }
	int64_t per_part = (nd + nparts - 1) / nparts;
	size_t len = (size_t)nparts * (mma ? (int)FMMA_LISTS : (int)FID_THREADS) * k;
	std::vector<uint64_t> top((size_t)nq * len + 1, ~0ull), sel((size_t)nq * k + 1);
	std::vector<dhit_t> hits(1 << 20);
	unsigned long long nh = 0;
	int groups = mma ? (nq + FMMA_QB - 1) / FMMA_QB : (nq + QB - 1) / QB;
	const uint64_t *qp = q.data(), *dp = d.data(); uint64_t *tp = top.data(); dhit_t *hp = hits.data(); unsigned long long *nhp = &nh;
	size_t smem = mma ? (size_t)(stride + 3) / 4 * FMMA_NF * 32 * 8 : (size_t)QB * stride * 8;
	auto body = [=] {
		if (op == PG_XOR) fid_score_kernel<PG_XOR, QB>(qp, nq, dp, nd, stride, per_part, nparts, k, thresh, tp, hp, nhp, 1 << 20);
		else if (op == PG_AND) fid_score_kernel<PG_AND, QB>(qp, nq, dp, nd, stride, per_part, nparts, k, thresh, tp, hp, nhp, 1 << 20);
		else fid_score_kernel<PG_ANDNOT, QB>(qp, nq, dp, nd, stride, per_part, nparts, k, thresh, tp, hp, nhp, 1 << 20);
	};
	auto body_mma = [=] {
		if (op == PG_XOR) fid_mma_kernel<PG_XOR>(qp, nq, dp, nd, stride, per_part, nparts, k, thresh, tp, hp, nhp, 1 << 20);
		else if (op == PG_AND) fid_mma_kernel<PG_AND>(qp, nq, dp, nd, stride, per_part, nparts, k, thresh, tp, hp, nhp, 1 << 20);
		else fid_mma_kernel<PG_ANDNOT>(qp, nq, dp, nd, stride, per_part, nparts, k, thresh, tp, hp, nhp, 1 << 20);
	};
	if (mma) launch({(unsigned)groups, (unsigned)nparts, 1}, {FMMA_THREADS, 1, 1}, smem, body_mma);
	else launch({(unsigned)nparts, (unsigned)groups, 1}, {FID_THREADS, 1, 1}, smem, body);
	int kout = (int)std::min<int64_t>(k, nd);
	uint64_t *sp = sel.data();
	if (k) launch({(unsigned)nq, 1, 1}, {SEL_THREADS, 1, 1}, 0, [=] { fid_select_kernel(tp, len, kout, sp); });
	// brute force
	size_t want_hits = 0; long bad = 0;
	for (int a = 0; a < nq; ++a) {
		std::vector<uint64_t> keys;
		for (int64_t b = 0; b < nd; ++b) {
			uint32_t s = 0;
			for (int w = 0; w < stride; ++w) { uint64_t x = q[(size_t)a*stride+w], y = d[(size_t)b*stride+w]; s += __builtin_popcountll(op == PG_XOR ? x ^ y : op == PG_AND ? x & y : y & ~x); }
			keys.push_back((uint64_t)s << 32 | (uint64_t)b);
			if (thresh >= 0 && s <= thresh) ++want_hits;
		}
		std::sort(keys.begin(), keys.end());
		for (int r = 0; r < kout; ++r) if (keys[r] != sel[(size_t)a * kout + r]) ++bad;
	}
	if (bad || want_hits != nh) fails++;
	if (mma) printf("mma ");
	printf("fid qb %d op %d nq %d nd %ld stride %d parts %d k %d thr %ld: top mismatches %ld, hits %llu want %zu\n", QB, op, nq, (long)nd, stride, nparts, k, (long)thresh, bad, nh, want_hits);
}

/* The device's r / r^2 arithmetic (ld_value_dev) against ld_value_genotype on random counts of
 * every kind (constant SNPs, negative and zero covariance), double and float paths. */
static void value_test(void)
{
	long bad = 0, n = 0;
	for (int it = 0; it < 200000; ++it) {
		pg_ldcnt_t c;
		int ns = 1 + (int)(nx() % 5000), x[3] = {0, 0, 0}, y[3] = {0, 0, 0}, xy = 0;
		int px = (int)(nx() % 101), py = (int)(nx() % 101);
		c.n = c.sx = c.sxx = c.sy = c.syy = c.sxy = 0;
		for (int s = 0; s < ns && s < 64; ++s) {
			int a = (int)(nx() % 100) < px ? 1 + (int)(nx() & 1) : 0, b = (int)(nx() % 100) < py ? 1 + (int)(nx() & 1) : 0;
			c.n++, c.sx += a, c.sxx += a * a, c.sy += b, c.syy += b * b, c.sxy += a * b;
			(void)x, (void)y, (void)xy;
		}
		if (it & 1) { /* large sums: scale a consistent pair of samples sets */
			int k = 1 + (int)(nx() % 300);
			c.n *= k, c.sx *= k, c.sxx *= k, c.sy *= k, c.syy *= k, c.sxy *= k;
		}
		for (int r2 = 0; r2 < 2; ++r2)
			for (int single = 0; single < 2; ++single) {
				double h = ld_value_genotype(&c, r2, single), g = ld_value_dev(&c, r2, single);
				if (memcmp(&h, &g, sizeof h) && bad++ < 3) printf("value mismatch: %.17g %.17g\n", h, g);
				++n;
			}
	}
	if (bad) fails++;
	printf("values: %ld compared, %ld differ\n", n, bad);
}

int main()
{
	for (int path = 0; path < 2; ++path)
		for (int full = 0; full < 2; ++full) {
			ld_test(path, full, 40, 77, 63, 0, 40, 0, 40, 0);
			ld_test(path, full, 45, 1001, 5, 3, 38, 2, 41, 0);
			ld_test(path, full, 45, 600, 63, 7, 30, 8, 37, 1);
			ld_test(path, full, 70, 1500, 63, 0, 70, 0, 70, 0); /* several MMA tiles and stages, a half stage */
			ld_test(path, full, 150, 2100, 63, 5, 147, 3, 140, 1); /* several register tiles each way, banded */
			ld_test(path, full, 150, 700, 63, 20, 100, 37, 101, 0, 1); /* columns from a separate slice */
			if (path == 0) { /* the 2 x 2 register tiles */
				ld_test(path, full, 70, 1500, 63, 0, 70, 0, 70, 0, 0, 1);
				ld_test(path, full, 150, 2100, 63, 5, 147, 3, 140, 1, 0, 1);
				ld_test(path, full, 150, 700, 63, 20, 100, 37, 101, 0, 1, 1);
			}
		}
	value_test();
	fid_test<FID_QB>(PG_XOR, 11, 1000, 16, 3, 10, 400);
	fid_test<FID_QB>(PG_ANDNOT, 9, 777, 8, 2, 1, 200);
	fid_test<FID_QB>(PG_XOR, 3, 40, 8, 1, 50, -1);
	fid_test<FID_QB>(PG_XOR, 17, 300, 1, 4, 7, 10);
	fid_test<FID_QB>(PG_XOR, 71, 500, 8, 2, 10, 230); /* three query groups, the last partial */
	fid_test<FID_QB_LONG>(PG_ANDNOT, 19, 400, 8, 3, 10, 120);
	/* Tensor-core FastID: strides not a multiple of the 4-word chunk, parts not a multiple of the
	 * 32-profile warp tile, one and several query groups, ties (short profiles), no top-k. */
	for (int op = 0; op < 3; ++op) {
		const double f = op == PG_XOR ? 0.36 : op == PG_ANDNOT ? 0.18 : 0.06; /* some hits, not all */
		auto th = [f](int stride) { return (int64_t)(f * (stride * 64 - 37)); };
		fid_test<FID_QB>(op, 11, 1000, 16, 3, 10, th(16), 1);
		fid_test<FID_QB>(op, 37, 777, 5, 2, 3, th(5), 1);
		fid_test<FID_QB>(op, 3, 40, 1, 1, 50, -1, 1);
		fid_test<FID_QB>(op, 17, 301, 1, 4, 7, th(1), 1);
		fid_test<FID_QB>(op, 70, 333, 9, 2, 10, th(9), 1);
		fid_test<FID_QB>(op, 5, 200, 3, 2, 0, th(3), 1);
	}
	printf("fails %d\n", fails);
	return fails != 0;
}
