/* SPDX-License-Identifier: MIT */
/* GPU back end of the SNP engines (snp_gpu.h). Both engines use one popcount-GEMM idea: operand
 * words staged in shared memory, AND / XOR / AND-NOT and a population count summed in 32-bit
 * integers, so the counts are the CPU kernels' integers exactly. LD has two count kernels, one on
 * the CUDA cores (__popcll) and one on the tensor cores (binary MMA, AND + popc), picked by a
 * timing on the first chunk or forced with GVK_SNP_GPU_PATH; r / r^2 are then formed on the
 * device with the host's exact operations and copied back while the next chunk is computed.
 * FastID keeps per-thread top-k lists of (score, index) keys on the device and reduces them
 * there, so no score matrix is stored. Every CUDA call is checked. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "snp_gpu.h"
#include "../common/err.h"
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/threads.h"
}

enum { LD_T = 16, LD_KW = 16, FID_THREADS = 128, FID_QB = 32, FID_QB_LONG = 8, SEL_THREADS = 256 };
enum { MMA_S = 32, MMA_KW = 16, MMA_THREADS = 128 }; /* SNPs per block side, words per stage, threads */
enum { LD_CHUNKS = 4, LD_NBUF = 4, LD_EVENTS = 64 }; /* chunks per stripe (at least), result buffers, timing events */
enum { PATH_AUTO = 0, PATH_POPC = 1, PATH_MMA = 2 };
enum { FID_TRIAL = 1 << 18 }; /* profiles scored by both FastID kernels to pick one */
/* FastID on the tensor cores: warps of 16 FMMA_MF profiles x 8 FMMA_NF queries */
enum { FMMA_MF = 2, FMMA_NF = 4, FMMA_WARPS = 4, FMMA_THREADS = 32 * FMMA_WARPS, FMMA_QB = 8 * FMMA_NF, FMMA_LISTS = 8 * FMMA_WARPS };

typedef struct {
	uint32_t q, score;
	int64_t d; /* index within the device block */
} dhit_t;

struct snp_gpu_s {
	int dev, sms, max_threads_sm, cc;
	int ld_bps[2]; /* resident blocks per SM of the large-tile CUDA-core LD kernel (general, FULL) */
	size_t smem_block, smem_optin, mem_free;
	char name[272];   /* "gpu-" and cudaDeviceProp.name */
	char kernel[300]; /* name and the LD count path that ran */
	int path, ld_path; /* requested (GVK_SNP_GPU_PATH) and chosen LD count path */
	double kern_s;     /* summed kernel time */
	cudaStream_t st[3]; /* 0: kernels, 1: copies back, 2: LD's second kernel stream */
	cudaEvent_t ev[LD_EVENTS][2], done[LD_NBUF], copied[LD_NBUF], staged[2];
	/* LD: every SNP of the planes at ld_src resident in ld_w, their totals in ld_tot (ld_src NULL:
	 * ld_w holds a streamed stripe's rows, ld_yw two slices of its columns, staged in h_stage) */
	const uint64_t *ld_src;
	uint64_t *ld_w, *ld_yw[2], *h_stage[2];
	int32_t *ld_ytot[2];
	size_t ld_yw_cap[2], ld_ytot_cap[2], h_stage_cap[2];
	int32_t *ld_tot;
	size_t ld_w_cap, ld_tot_cap;
	int64_t *ld_jr;        /* jlo then jhi of a stripe, device */
	size_t ld_jr_cap;
	pg_ldcnt_t *ld_cnt[LD_NBUF], *h_cnt;
	double *ld_val[LD_NBUF];
	size_t ld_cnt_cap[LD_NBUF], ld_val_cap[LD_NBUF], h_cnt_cap;
	int64_t db_block, q_batch; /* test overrides (GVK_SNP_GPU_DB_BLOCK / _QBATCH); 0 = automatic */
};

/* ---- kernels -------------------------------------------------------------------------------- */

/* Where an LD launch finds its planes and their totals: rows (SNP i at wx + (i - xbase) * 3 nw)
 * and columns, the same buffer when every SNP is resident, else the stripe's rows and one slice
 * of its columns. */
typedef struct {
	const uint64_t *wx, *wy;
	int64_t xbase, ybase;
	const int32_t *totx, *toty;
} ld_src_t;

/* Per-SNP totals pc(A), pc(B): the marginals of a SNP with every sample called. */
__global__ void ld_totals_kernel(const uint64_t *__restrict__ w, int64_t nsnp, int nw, int32_t *__restrict__ tot)
{
	const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= nsnp) return;
	int32_t a = 0, b = 0;
	for (int k = 0; k < nw; ++k) a += __popcll(w[i * 3 * nw + k]), b += __popcll(w[(i * 3 + 1) * nw + k]);
	tot[2 * i] = a, tot[2 * i + 1] = b;
}

/* The six sums of a pair from its plane products (spec 3.2), or, when both SNPs have every sample
 * called (FULL), from sum(xy) and the totals: V is all ones over n_bits and the padding is zero,
 * so the two give the same integers. */
__device__ __forceinline__ pg_ldcnt_t ld_assemble(int full, int32_t sxy, int32_t n, int32_t av, int32_t bv, int32_t va,
                                                  int32_t vb, const int32_t *tx, const int32_t *ty, int32_t nbits)
{
	pg_ldcnt_t o;
	if (full) n = nbits, av = tx[0], bv = tx[1], va = ty[0], vb = ty[1];
	o.n = n;
	o.sx = av + bv, o.sxx = av + 3 * bv;
	o.sy = va + vb, o.syy = va + 3 * vb;
	o.sxy = sxy;
	return o;
}

/* Whether tile rows [r0, r0 + nr) x columns [c0, c0 + nc) hold a requested pair: thread tid < nr
 * checks row r0 + tid, flag (shared) collects the answer. Every thread of the block calls it
 * (barriers) and gets the same answer, so a block may return on it without a thread missing a
 * later barrier. */
__device__ __forceinline__ int ld_tile_any(int *flag, int tid, const int64_t *jlo, const int64_t *jhi, int64_t r0,
                                           int nr, int nrows, int64_t c0, int nc)
{
	if (tid == 0) *flag = 0;
	__syncthreads();
	const int64_t r = r0 + tid;
	if (tid < nr && r < nrows && jlo[r] < jhi[r] && jlo[r] < c0 + nc && jhi[r] > c0) *flag = 1; /* same value from every writer */
	__syncthreads();
	return *flag;
}

/* r or sign(r) r^2 from the counts on the device, with ld_value_genotype's operations one by one
 * in round-to-nearest intrinsics (never contracted into FMAs; sqrt and division correctly
 * rounded as on the host), so the doubles and floats are the host's bit for bit. */
__device__ double ld_value_dev(const pg_ldcnt_t *c, int r2, int single)
{
	const int64_t n = c->n;
	const int64_t cov = n * c->sxy - (int64_t)c->sx * c->sy;
	const int64_t vx = n * c->sxx - (int64_t)c->sx * c->sx;
	const int64_t vy = n * c->syy - (int64_t)c->sy * c->sy;
	if (n == 0 || vx <= 0 || vy <= 0) return __longlong_as_double((long long)0xfff8000000000000ull);
	if (!single) {
		const double v = __dmul_rn(__ll2double_rn(vx), __ll2double_rn(vy)), cv = __ll2double_rn(cov);
		return r2 ? __ddiv_rn(__dmul_rn(fabs(cv), cv), v) : __ddiv_rn(cv, __dsqrt_rn(v));
	}
	const int64_t tx = n - c->sx, ty = n - c->sy;
	const int64_t txx = n - 2 * (int64_t)c->sx + c->sxx, tyy = n - 2 * (int64_t)c->sy + c->syy;
	const int64_t txy = n - c->sx - c->sy + c->sxy;
	const float nf = __ll2float_rn(n), fx = __ll2float_rn(tx), fy = __ll2float_rn(ty);
	const float fcov = __fsub_rn(__fmul_rn(__ll2float_rn(txy), nf), __fmul_rn(fx, fy));
	const float vxf = __fadd_rn(__fmul_rn(__ll2float_rn(-txx), nf), __fmul_rn(fx, fx));
	const float vyf = __fadd_rn(__fmul_rn(__ll2float_rn(-tyy), nf), __fmul_rn(fy, fy));
	const float v = __fmul_rn(vxf, vyf);
	return (double)(r2 ? __fdiv_rn(__fmul_rn(fabsf(fcov), fcov), v) : __fdiv_rn(fcov, __fsqrt_rn(v)));
}

/* A pair's result: its counts, or (val set) r / sign(r) r^2 formed right here, so that only 8
 * bytes per pair leave the kernel instead of 24 read again by a second kernel. */
__device__ __forceinline__ void ld_put(pg_ldcnt_t c, int64_t e, pg_ldcnt_t *out, double *val, int r2, int single)
{
	if (val) val[e] = ld_value_dev(&c, r2, single);
	else out[e] = c;
}

/* R consecutive 32-bit words of shared memory in one vector load (R = 4 or 2). */
template <int R>
__device__ __forceinline__ void lds_words(uint32_t *r, const uint32_t *p)
{
	if (R == 4) {
		const uint4 v = *(const uint4 *)p;
		r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
	} else {
		const uint2 v = *(const uint2 *)p;
		r[0] = v.x, r[1] = v.y;
	}
}

/* CUDA cores: a block of LD_T x LD_T threads computes (LD_T RM) x (LD_T RN) pairs, each thread RM x
 * RN of them from registers, so that one shared-memory vector load feeds RN (or RM) pairs. Planes
 * are staged LD_KW 32-bit words at a time as [word][plane][SNP], so a thread's RM rows (RN
 * columns) of one plane are adjacent. The population count (16 per SM and cycle, issued through
 * the MIO queue like the shared-memory loads) is the limit, so sum(xy) is built to need few:
 * with e = A ^ B (x = 1) and f = C ^ D (y = 1), xy is 1 on e & f, 2 on (e & D) | (B & f)
 * (disjoint) and 4 on B & D; two words' masks are then added bit-sliced (half and full adders,
 * one LOP3 each, on the 64-per-cycle ALU) into weights 1, 2, 4, 8: four popcounts per two words
 * where the four plane products take eight. The V products (missing calls) stay as they are. */
template <int FULL, int RM, int RN>
__global__ void __launch_bounds__(LD_T * LD_T, FULL ? 3 : 2)
	ld_count_kernel(ld_src_t src, int nw, int64_t i0, int nrows, int64_t cbase, int64_t width,
	                const int64_t *__restrict__ jlo, const int64_t *__restrict__ jhi, int32_t nbits,
	                pg_ldcnt_t *__restrict__ out, double *__restrict__ val, int r2, int single)
{
	enum { NP = FULL ? 2 : 3, TM = LD_T * RM, TN = LD_T * RN, PM = TM + 4, PN = TN + 4 };
	__shared__ __align__(16) uint32_t xs[LD_KW * NP * PM];
	__shared__ __align__(16) uint32_t ys[LD_KW * NP * PN];
	__shared__ int any;
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * LD_T + tx;
	const int64_t r0 = (int64_t)blockIdx.y * TM, c0 = cbase + (int64_t)blockIdx.x * TN;
	if (!ld_tile_any(&any, tid, jlo, jhi, r0, TM, nrows, c0, TN)) return;
	const uint32_t *wx = (const uint32_t *)src.wx, *wy = (const uint32_t *)src.wy;
	const int64_t n32 = 2 * (int64_t)nw; /* a multiple of LD_KW: nw is of 8 */
	int32_t s1[RM][RN], s2[RM][RN], n[RM][RN], av[RM][RN], bv[RM][RN], va[RM][RN], vb[RM][RN];
#pragma unroll
	for (int i = 0; i < RM; ++i)
#pragma unroll
		for (int j = 0; j < RN; ++j) s1[i][j] = s2[i][j] = n[i][j] = av[i][j] = bv[i][j] = va[i][j] = vb[i][j] = 0;
	for (int64_t k0 = 0; k0 < n32; k0 += LD_KW) {
		/* 16-byte global loads (4 words of one plane row), spread to the word-major layout */
		for (int e = tid; e < (TM + TN) * NP * (LD_KW / 4); e += LD_T * LD_T) {
			const int q = e % (LD_KW / 4), sp = e / (LD_KW / 4), p = sp % NP, s = sp / NP;
			const int side = s >= TM, t = side ? s - TM : s;
			const int64_t snp = side ? c0 + t : i0 + r0 + t;
			const int ok = side ? c0 + t < cbase + width : r0 + t < nrows;
			uint4 v = {0, 0, 0, 0};
			if (ok) v = *(const uint4 *)((side ? wy + (snp - src.ybase) * 3 * n32 : wx + (snp - src.xbase) * 3 * n32) + p * n32 + k0 + 4 * q);
			uint32_t *d = side ? ys + (4 * q * NP + p) * PN + t : xs + (4 * q * NP + p) * PM + t;
			const int pitch = (side ? PN : PM) * NP;
			d[0] = v.x, d[pitch] = v.y, d[2 * pitch] = v.z, d[3 * pitch] = v.w;
		}
		__syncthreads();
#pragma unroll 1
		for (int k = 0; k < LD_KW; k += 2) {
			uint32_t a[2][RM], b[2][RM], v[2][RM], c[2][RN], d[2][RN], u[2][RN];
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				const uint32_t *x = xs + (k + h) * NP * PM + ty * RM, *y = ys + (k + h) * NP * PN + tx * RN;
				lds_words<RM>(a[h], x), lds_words<RM>(b[h], x + PM);
				lds_words<RN>(c[h], y), lds_words<RN>(d[h], y + PN);
				if (!FULL) lds_words<RM>(v[h], x + 2 * PM), lds_words<RN>(u[h], y + 2 * PN);
			}
#pragma unroll
			for (int i = 0; i < RM; ++i)
#pragma unroll
				for (int j = 0; j < RN; ++j) {
					uint32_t m[2][3]; /* per word: the samples where xy = 1, 2, 4 */
#pragma unroll
					for (int h = 0; h < 2; ++h) {
						const uint32_t e = a[h][i] ^ b[h][i], f = c[h][j] ^ d[h][j];
						m[h][0] = e & f, m[h][1] = (e & d[h][j]) | (b[h][i] & f), m[h][2] = b[h][i] & d[h][j];
					}
					/* the two words' masks added bit-sliced: weights 1, 2, 4, 8 in four popcounts */
					const uint32_t w1 = m[0][0] ^ m[1][0], k2 = m[0][0] & m[1][0];
					const uint32_t w2 = m[0][1] ^ m[1][1] ^ k2, k4 = (m[0][1] & m[1][1]) | (k2 & (m[0][1] | m[1][1]));
					const uint32_t w4 = m[0][2] ^ m[1][2] ^ k4, w8 = (m[0][2] & m[1][2]) | (k4 & (m[0][2] | m[1][2]));
					s1[i][j] += __popc(w1) + 2 * __popc(w2);
					s2[i][j] += __popc(w4) + 2 * __popc(w8);
					if (!FULL) {
#pragma unroll
						for (int h = 0; h < 2; ++h) {
							n[i][j] += __popc(v[h][i] & u[h][j]), av[i][j] += __popc(a[h][i] & u[h][j]);
							bv[i][j] += __popc(b[h][i] & u[h][j]), va[i][j] += __popc(c[h][j] & v[h][i]);
							vb[i][j] += __popc(d[h][j] & v[h][i]);
						}
					}
				}
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < RM; ++i) {
		const int64_t row = r0 + ty * RM + i;
		if (row >= nrows) break;
		const int64_t lo = jlo[row], hi = jhi[row] < cbase + width ? jhi[row] : cbase + width, xi = i0 + row;
#pragma unroll
		for (int j = 0; j < RN; ++j) {
			const int64_t col = c0 + tx * RN + j;
			if (col < lo || col >= hi) continue;
			ld_put(ld_assemble(FULL, s1[i][j] + 4 * s2[i][j], n[i][j], av[i][j], bv[i][j], va[i][j], vb[i][j],
			                   src.totx + 2 * (xi - src.xbase), src.toty + 2 * (col - src.ybase), nbits),
			       row * width + (col - cbase), out, val, r2, single);
		}
	}
}

/* D += popc(A AND B) on the tensor cores for one m16n8k256 tile; fragments as the PTX ISA gives
 * them for .b1 (g = lane / 4, t = lane % 4): a0 = row g, 32-bit word t of the 256-bit k chunk;
 * a1 = row g + 8, word t; a2, a3 = the same rows, word t + 4; b0 = column g, word t; b1 = word
 * t + 4; d0, d1 = row g, columns 2t, 2t + 1; d2, d3 = row g + 8. tests/snp/gpu_kernel_emu.cpp
 * supplies a CPU version of this one function (GVK_SNP_EMU_MMA). */
#ifndef GVK_SNP_EMU_MMA
__device__ __forceinline__ void bmma_and(int32_t *d, const uint32_t *a, const uint32_t *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
	             "{%0,%1,%2,%3};\n"
	             : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
	(void)d, (void)a, (void)b;
	__trap(); /* never launched below sm_80: the host picks the CUDA-core path there */
#endif
}

/* The same with XOR + popc (FastID identity scores). */
__device__ __forceinline__ void bmma_xor(int32_t *d, const uint32_t *a, const uint32_t *b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
	             "{%0,%1,%2,%3};\n"
	             : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
	(void)d, (void)a, (void)b;
	__trap();
#endif
}
#endif

/* Tensor cores: a block takes MMA_S row SNPs x MMA_S column SNPs. Each SNP contributes NP plane
 * rows (A, B, V; FULL: A, B) to a bit matrix, so one AND-popcount GEMM of the (MMA_S NP) x
 * (MMA_S NP) plane rows over all sample bits gives every product at once. Four warps in 2 x 2 each
 * own a quarter of that matrix; operands are staged MMA_KW 64-bit words at a time with a pitch
 * of MMA_KW + 2 words (36 32-bit words: lanes g, t hit banks 4g + t, conflict free). The plane
 * products then go through shared memory to the threads that assemble the pairs. */
template <int NP>
__global__ void __launch_bounds__(MMA_THREADS) ld_mma_kernel(ld_src_t src, int nw, int64_t i0, int nrows, int64_t cbase,
                                                             int64_t width, const int64_t *__restrict__ jlo,
                                                             const int64_t *__restrict__ jhi, int32_t nbits,
                                                             pg_ldcnt_t *__restrict__ out, double *__restrict__ val,
                                                             int r2, int single)
{
	enum { R = MMA_S * NP, WR = R / 2, MF = WR / 16, NF = WR / 8, P = MMA_KW + 2 };
	extern __shared__ uint64_t sm[];
	__shared__ int any;
	uint64_t *xs = sm, *ys = sm + R * P;
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
	const int wm = warp >> 1, wn = warp & 1;
	const int64_t r0 = (int64_t)blockIdx.y * MMA_S, c0 = cbase + (int64_t)blockIdx.x * MMA_S;
	if (!ld_tile_any(&any, tid, jlo, jhi, r0, MMA_S, nrows, c0, MMA_S)) return; /* MMA_S <= MMA_THREADS rows checked */
	int32_t acc[MF][NF][4];
#pragma unroll
	for (int i = 0; i < MF; ++i)
#pragma unroll
		for (int j = 0; j < NF; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0;
	for (int w0 = 0; w0 < nw; w0 += MMA_KW) {
		const int kn = nw - w0 < MMA_KW ? nw - w0 : MMA_KW; /* a multiple of 4 words (nw is of 8) */
		for (int e = tid; e < R * kn; e += MMA_THREADS) {
			const int row = e / kn, k = e % kn, s = row / NP, p = row % NP;
			xs[row * P + k] = r0 + s < nrows ? src.wx[((i0 + r0 + s - src.xbase) * 3 + p) * nw + w0 + k] : 0;
			ys[row * P + k] = c0 + s < cbase + width ? src.wy[((c0 + s - src.ybase) * 3 + p) * nw + w0 + k] : 0;
		}
		__syncthreads();
		const uint32_t *x32 = (const uint32_t *)xs, *y32 = (const uint32_t *)ys;
		for (int kc = 0; kc < kn / 4; ++kc) { /* one 256-bit chunk = 8 32-bit words */
			uint32_t a[MF][4], b[NF][2];
#pragma unroll
			for (int i = 0; i < MF; ++i) {
				const uint32_t *p0 = x32 + (wm * WR + i * 16 + g) * 2 * P + kc * 8 + t, *p1 = p0 + 8 * 2 * P;
				a[i][0] = p0[0], a[i][1] = p1[0], a[i][2] = p0[4], a[i][3] = p1[4];
			}
#pragma unroll
			for (int j = 0; j < NF; ++j) {
				const uint32_t *q0 = y32 + (wn * WR + j * 8 + g) * 2 * P + kc * 8 + t;
				b[j][0] = q0[0], b[j][1] = q0[4];
			}
#pragma unroll
			for (int i = 0; i < MF; ++i)
#pragma unroll
				for (int j = 0; j < NF; ++j) bmma_and(acc[i][j], a[i], b[j]);
		}
		__syncthreads();
	}
	int32_t *cs = (int32_t *)sm; /* R x R plane products, reusing the staging buffer */
#pragma unroll
	for (int i = 0; i < MF; ++i)
#pragma unroll
		for (int j = 0; j < NF; ++j) {
			const int row = wm * WR + i * 16 + g, col = wn * WR + j * 8 + 2 * t;
			cs[row * R + col] = acc[i][j][0], cs[row * R + col + 1] = acc[i][j][1];
			cs[(row + 8) * R + col] = acc[i][j][2], cs[(row + 8) * R + col + 1] = acc[i][j][3];
		}
	__syncthreads();
	for (int e = tid; e < MMA_S * MMA_S; e += MMA_THREADS) {
		const int x = e / MMA_S, y = e % MMA_S;
		const int64_t row = r0 + x, col = c0 + y;
		if (row >= nrows || col < jlo[row] || col >= jhi[row] || col >= cbase + width) continue;
		const int32_t *cx = cs + x * NP * R + y * NP; /* cx[p * R + q] = plane p of x AND plane q of y */
		const int v = NP == 3;
		ld_put(ld_assemble(!v, cx[0] + cx[1] + cx[R] + cx[R + 1], v ? cx[2 * R + 2] : 0, v ? cx[2] : 0, v ? cx[R + 2] : 0,
		                   v ? cx[2 * R] : 0, v ? cx[2 * R + 1] : 0, src.totx + 2 * (i0 + row - src.xbase),
		                   src.toty + 2 * (col - src.ybase), nbits),
		       row * width + (col - cbase), out, val, r2, single);
	}
}

template <int OP>
__device__ __forceinline__ uint64_t fid_op(uint64_t q, uint64_t d)
{
	return OP == PG_XOR ? q ^ d : OP == PG_ANDNOT ? d & ~q : d & q;
}

/* Block (part, group): QB queries held in shared memory against database profiles
 * part * per_part + tid, + FID_THREADS, ... Each database word is used for QB queries (FID_QB =
 * 32: the popcounts, not the scattered profile loads, bound the loop; FID_QB_LONG = 8 for
 * profiles too long for 32 in shared memory). Each thread keeps, per query,
 * its k best keys score << 32 | index (ascending = the CPU's order: score, then smaller index) in
 * a sorted list in top, entry r of thread t at [r * FID_THREADS + t], which the host fills with
 * ~0 beforehand (above every key). Scores <= thresh go to hits. */
template <int OP, int QB>
__global__ void fid_score_kernel(const uint64_t *__restrict__ q, int nq, const uint64_t *__restrict__ db, int64_t nd,
                                 int stride, int64_t per_part, int nparts, int k, int64_t thresh,
                                 uint64_t *__restrict__ top, dhit_t *__restrict__ hits,
                                 unsigned long long *__restrict__ n_hits, unsigned long long hit_cap)
{
	extern __shared__ uint64_t qs[];
	const int q0 = blockIdx.y * QB, qn = nq - q0 < QB ? nq - q0 : QB;
	for (int e = threadIdx.x; e < qn * stride; e += blockDim.x) qs[e] = q[(size_t)q0 * stride + e];
	__syncthreads();
	const int part = blockIdx.x;
	const int64_t d0 = (int64_t)part * per_part, d1 = d0 + per_part < nd ? d0 + per_part : nd;
	uint64_t worst[QB];
#pragma unroll
	for (int x = 0; x < QB; ++x) worst[x] = ~0ull;
	for (int64_t d = d0 + threadIdx.x; d < d1; d += FID_THREADS) {
		const uint64_t *p = db + d * stride;
		uint32_t s[QB];
#pragma unroll
		for (int x = 0; x < QB; ++x) s[x] = 0;
		for (int w = 0; w < stride; ++w) {
			const uint64_t pw = p[w];
#pragma unroll
			for (int x = 0; x < QB; ++x)
				if (x < qn) s[x] += (uint32_t)__popcll(fid_op<OP>(qs[x * stride + w], pw));
		}
#pragma unroll
		for (int x = 0; x < QB; ++x) {
			if (x >= qn) continue;
			if (thresh >= 0 && (int64_t)s[x] <= thresh) {
				unsigned long long h = atomicAdd(n_hits, 1ull);
				if (h < hit_cap) hits[h] = dhit_t{(uint32_t)(q0 + x), s[x], d};
			}
			const uint64_t key = (uint64_t)s[x] << 32 | (uint64_t)d;
			if (k == 0 || key >= worst[x]) continue;
			uint64_t *t = top + ((size_t)(q0 + x) * nparts + part) * (size_t)k * FID_THREADS + threadIdx.x;
			int i = k - 1;
			while (i > 0 && key < t[(size_t)(i - 1) * FID_THREADS]) {
				t[(size_t)i * FID_THREADS] = t[(size_t)(i - 1) * FID_THREADS];
				--i;
			}
			t[(size_t)i * FID_THREADS] = key;
			worst[x] = t[(size_t)(k - 1) * FID_THREADS];
		}
	}
}

/* Tensor cores: block (group, part) scores its FMMA_QB queries (the B operand, 8 per fragment)
 * against profiles part * per_part.. (the A operand); each warp takes tiles of 16 FMMA_MF profiles
 * in turn. A popcount sum does not depend on the order of the k bits as long as A and B share it,
 * so lane t feeds 64-bit word 4c + t of 256-bit chunk c to the ISA's words t (low half) and t + 4
 * (high half): each profile row is one 32-byte sector per chunk, read straight from global memory.
 * The queries sit in shared memory already in fragment order (one conflict-free 64-bit load per
 * lane), zero past the profile length and the last query. Mixture: popc(p AND NOT q) = popc(p) -
 * popc(p AND q), popc(p) summed over the 4 lanes of a row. The accumulator holds rows g, g + 8
 * and queries 2t, 2t + 1 of each fragment, so lane (g, t) of warp w keeps top-k lists for its
 * queries, list w * 8 + g of FMMA_LISTS per part (entry r at [r * FMMA_LISTS + list]); rows reach
 * a list in ascending order, so a score beats the list only when strictly below its k-th. The
 * query group is blockIdx.x, so the blocks of all groups of a part run together and read its
 * profiles once from memory, the other times from L2. */
template <int OP>
__global__ void __launch_bounds__(FMMA_THREADS) fid_mma_kernel(const uint64_t *__restrict__ q, int nq,
                                                               const uint64_t *__restrict__ db, int64_t nd, int stride,
                                                               int64_t per_part, int nparts, int k, int64_t thresh,
                                                               uint64_t *__restrict__ top, dhit_t *__restrict__ hits,
                                                               unsigned long long *__restrict__ n_hits,
                                                               unsigned long long hit_cap)
{
	enum { MF = FMMA_MF, NF = FMMA_NF, TR = 16 * FMMA_MF };
	extern __shared__ uint64_t qf[];
	const int nc = (stride + 3) / 4, q0 = blockIdx.x * FMMA_QB, qn = nq - q0 < FMMA_QB ? nq - q0 : FMMA_QB;
	for (int e = threadIdx.x; e < nc * NF * 32; e += FMMA_THREADS) {
		const int l = e % 32, col = (e / 32) % NF * 8 + l / 4, w = e / (32 * NF) * 4 + l % 4;
		qf[e] = col < qn && w < stride ? q[(size_t)(q0 + col) * stride + w] : 0;
	}
	__syncthreads();
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
	const int64_t d0 = (int64_t)blockIdx.y * per_part, d1 = d0 + per_part < nd ? d0 + per_part : nd;
	uint32_t worst[NF][2];
#pragma unroll
	for (int j = 0; j < NF; ++j) worst[j][0] = worst[j][1] = ~0u;
	for (int64_t r0 = d0 + warp * TR; r0 < d1; r0 += FMMA_WARPS * TR) {
		int32_t acc[MF][NF][4];
		uint32_t pc[MF][2];
		const uint64_t *p[MF][2];
#pragma unroll
		for (int i = 0; i < MF; ++i) {
#pragma unroll
			for (int j = 0; j < NF; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0;
			for (int h = 0; h < 2; ++h) {
				const int64_t row = r0 + i * 16 + h * 8 + g;
				p[i][h] = row < d1 ? db + row * stride : NULL, pc[i][h] = 0;
			}
		}
		uint64_t xn[MF][2]; /* chunk c + 1's profile words, loaded while chunk c is multiplied */
#pragma unroll
		for (int i = 0; i < MF; ++i)
			for (int h = 0; h < 2; ++h) xn[i][h] = p[i][h] && t < stride ? p[i][h][t] : 0;
#pragma unroll 1
		for (int c = 0; c < nc; ++c) {
			const int w = 4 * c + 4 + t;
			uint32_t a[MF][4], b[NF][2];
#pragma unroll
			for (int i = 0; i < MF; ++i) {
				const uint64_t x0 = xn[i][0], x1 = xn[i][1];
				xn[i][0] = p[i][0] && w < stride ? p[i][0][w] : 0, xn[i][1] = p[i][1] && w < stride ? p[i][1][w] : 0;
				a[i][0] = (uint32_t)x0, a[i][1] = (uint32_t)x1, a[i][2] = (uint32_t)(x0 >> 32), a[i][3] = (uint32_t)(x1 >> 32);
				if (OP == PG_ANDNOT) pc[i][0] += (uint32_t)__popcll(x0), pc[i][1] += (uint32_t)__popcll(x1);
			}
#pragma unroll
			for (int j = 0; j < NF; ++j) {
				const uint64_t y = qf[(c * NF + j) * 32 + lane];
				b[j][0] = (uint32_t)y, b[j][1] = (uint32_t)(y >> 32);
			}
#pragma unroll
			for (int i = 0; i < MF; ++i)
#pragma unroll
				for (int j = 0; j < NF; ++j) {
					if (OP == PG_XOR) bmma_xor(acc[i][j], a[i], b[j]);
					else bmma_and(acc[i][j], a[i], b[j]);
				}
		}
		if (OP == PG_ANDNOT)
#pragma unroll
			for (int i = 0; i < MF; ++i)
				for (int h = 0; h < 2; ++h) {
					pc[i][h] += __shfl_xor_sync(0xffffffffu, pc[i][h], 1);
					pc[i][h] += __shfl_xor_sync(0xffffffffu, pc[i][h], 2);
				}
#pragma unroll
		for (int i = 0; i < MF; ++i)
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				const int64_t row = r0 + i * 16 + h * 8 + g;
				if (row >= d1) continue;
#pragma unroll
				for (int j = 0; j < NF; ++j)
#pragma unroll
					for (int u = 0; u < 2; ++u) {
						const int x = j * 8 + 2 * t + u;
						const uint32_t s = OP == PG_ANDNOT ? pc[i][h] - (uint32_t)acc[i][j][2 * h + u] : (uint32_t)acc[i][j][2 * h + u];
						if (x >= qn) continue;
						if (thresh >= 0 && (int64_t)s <= thresh) {
							unsigned long long n = atomicAdd(n_hits, 1ull);
							if (n < hit_cap) hits[n] = dhit_t{(uint32_t)(q0 + x), s, row};
						}
						if (k == 0 || s >= worst[j][u]) continue;
						const uint64_t key = (uint64_t)s << 32 | (uint64_t)row;
						uint64_t *tl = top + ((size_t)(q0 + x) * nparts + blockIdx.y) * (size_t)k * FMMA_LISTS + warp * 8 + g;
						int r = k - 1;
						while (r > 0 && key < tl[(size_t)(r - 1) * FMMA_LISTS]) {
							tl[(size_t)r * FMMA_LISTS] = tl[(size_t)(r - 1) * FMMA_LISTS];
							--r;
						}
						tl[(size_t)r * FMMA_LISTS] = key;
						worst[j][u] = (uint32_t)(tl[(size_t)(k - 1) * FMMA_LISTS] >> 32);
					}
			}
	}
}

/* One block per query: the kout smallest keys among its len list entries (unused entries hold
 * ~0), found one rank at a time as the smallest key above the previous one (keys are unique). */
__global__ void fid_select_kernel(const uint64_t *__restrict__ top, size_t len, int kout, uint64_t *__restrict__ sel)
{
	__shared__ uint64_t red[SEL_THREADS];
	const uint64_t *t = top + (size_t)blockIdx.x * len;
	uint64_t last = 0;
	for (int r = 0; r < kout; ++r) {
		uint64_t m = ~0ull;
		for (size_t e = threadIdx.x; e < len; e += SEL_THREADS) {
			const uint64_t v = t[e];
			if ((r == 0 || v > last) && v < m) m = v;
		}
		red[threadIdx.x] = m;
		__syncthreads();
		for (int h = SEL_THREADS / 2; h > 0; h >>= 1) {
			if ((int)threadIdx.x < h && red[threadIdx.x + h] < red[threadIdx.x]) red[threadIdx.x] = red[threadIdx.x + h];
			__syncthreads();
		}
		last = red[0];
		if (threadIdx.x == 0) sel[(size_t)blockIdx.x * kout + r] = last;
		__syncthreads();
	}
}


/* Peak micro-benchmarks: independent chains of 64-bit AND + popcount + add (CUDA cores) and of
 * m16n8k256 AND-popc MMAs (tensor cores); sink keeps the results alive. */
__global__ void peak_popc_kernel(int iters, uint64_t seed, unsigned long long *sink)
{
	uint64_t x[8], y = seed ^ threadIdx.x;
	uint32_t s[8];
#pragma unroll
	for (int i = 0; i < 8; ++i) x[i] = seed * (uint64_t)(threadIdx.x + 8 * i + 1), s[i] = 0;
	for (int it = 0; it < iters; ++it) {
#pragma unroll
		for (int i = 0; i < 8; ++i) s[i] += (uint32_t)__popcll(x[i] & y);
		y += 0x9e3779b97f4a7c15ull;
	}
	uint32_t t = 0;
#pragma unroll
	for (int i = 0; i < 8; ++i) t += s[i];
	if (t == 0xffffffffu) atomicAdd(sink, 1ull);
}

__global__ void peak_mma_kernel(int iters, uint32_t seed, unsigned long long *sink)
{
	uint32_t a[4] = {seed, seed ^ threadIdx.x, seed * 3u, seed + threadIdx.x}, b[2] = {seed * 7u, seed ^ 0x55u};
	int32_t d[8][4];
#pragma unroll
	for (int j = 0; j < 8; ++j) d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0;
	for (int it = 0; it < iters; ++it)
#pragma unroll
		for (int j = 0; j < 8; ++j) bmma_and(d[j], a, b);
	int32_t t = 0;
#pragma unroll
	for (int j = 0; j < 8; ++j) t += d[j][0] + d[j][1] + d[j][2] + d[j][3];
	if (t == -1) atomicAdd(sink, 1ull);
}

/* ---- device set-up -------------------------------------------------------------------------- */

static int gpu_init(snp_gpu_t *g, gvk_err_t *err)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0)
		return gvk_err_set(err, GVK_ERR_GPU, "no usable CUDA GPU for the SNP engines: %s",
		                   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	g->dev = 0;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, g->dev));
	if (prop.major < 8)
		return gvk_err_set(err, GVK_ERR_GPU, "GPU %s has compute capability %d.%d; gvk needs 8.0 or newer", prop.name,
		                   prop.major, prop.minor);
	CK(cudaSetDevice(g->dev));
	snprintf(g->name, sizeof g->name, "gpu-%s", prop.name);
	snprintf(g->kernel, sizeof g->kernel, "%s", g->name);
	g->cc = prop.major * 10 + prop.minor;
	g->sms = prop.multiProcessorCount;
	g->max_threads_sm = prop.maxThreadsPerMultiProcessor;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->ld_bps[0], ld_count_kernel<0, 4, 2>, LD_T * LD_T, 0));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->ld_bps[1], ld_count_kernel<1, 4, 4>, LD_T * LD_T, 0));
	g->smem_block = prop.sharedMemPerBlock;
	g->smem_optin = prop.sharedMemPerBlockOptin > prop.sharedMemPerBlock ? prop.sharedMemPerBlockOptin
	                                                                     : prop.sharedMemPerBlock;
	size_t total = 0;
	CK(cudaMemGetInfo(&g->mem_free, &total));
	const char *s = getenv("GVK_SNP_GPU_DB_BLOCK");
	g->db_block = s ? atoll(s) : 0;
	s = getenv("GVK_SNP_GPU_QBATCH");
	g->q_batch = s ? atoll(s) : 0;
	s = getenv("GVK_SNP_GPU_MEM"); /* tests: pretend to have this little memory (stripes, blocks) */
	if (s && atoll(s) > 0 && (size_t)atoll(s) < g->mem_free) g->mem_free = (size_t)atoll(s);
	s = getenv("GVK_SNP_GPU_PATH");
	g->path = !s || !*s || !strcmp(s, "auto") ? PATH_AUTO : !strcmp(s, "popc") ? PATH_POPC : !strcmp(s, "mma") ? PATH_MMA : -1;
	if (g->path < 0)
		return gvk_err_set(err, GVK_ERR_ARG, "GVK_SNP_GPU_PATH must be auto, popc or mma, not '%s'", s);
	g->ld_path = g->path;
	for (int i = 0; i < 3; ++i) CK(cudaStreamCreateWithFlags(&g->st[i], cudaStreamNonBlocking));
	for (int i = 0; i < LD_NBUF; ++i) {
		CK(cudaEventCreateWithFlags(&g->done[i], cudaEventDisableTiming));
		CK(cudaEventCreateWithFlags(&g->copied[i], cudaEventDisableTiming));
	}
	for (int i = 0; i < 2; ++i) CK(cudaEventCreateWithFlags(&g->staged[i], cudaEventDisableTiming));
	for (int i = 0; i < LD_EVENTS; ++i) {
		CK(cudaEventCreate(&g->ev[i][0]));
		CK(cudaEventCreate(&g->ev[i][1]));
	}
	return 0;
}

extern "C" snp_gpu_t *snp_gpu_open(gvk_err_t *err)
{
	snp_gpu_t *g = (snp_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (gpu_init(g, err) < 0) {
		snp_gpu_close(g);
		return NULL;
	}
	return g;
}

extern "C" void snp_gpu_close(snp_gpu_t *g)
{
	if (!g) return;
	cudaFree(g->ld_w);
	cudaFree(g->ld_tot);
	cudaFree(g->ld_jr);
	for (int i = 0; i < LD_NBUF; ++i) {
		cudaFree(g->ld_cnt[i]), cudaFree(g->ld_val[i]);
		if (g->done[i]) cudaEventDestroy(g->done[i]);
		if (g->copied[i]) cudaEventDestroy(g->copied[i]);
	}
	for (int i = 0; i < 2; ++i) {
		cudaFree(g->ld_yw[i]), cudaFree(g->ld_ytot[i]);
		gvk_cuda_free((void **)&g->h_stage[i], &g->h_stage_cap[i], GVK_MEM_PINNED);
		if (g->staged[i]) cudaEventDestroy(g->staged[i]);
	}
	for (int i = 0; i < 3; ++i)
		if (g->st[i]) cudaStreamDestroy(g->st[i]);
	for (int i = 0; i < LD_EVENTS; ++i)
		for (int j = 0; j < 2; ++j)
			if (g->ev[i][j]) cudaEventDestroy(g->ev[i][j]);
	gvk_cuda_free((void **)&g->h_cnt, &g->h_cnt_cap, GVK_MEM_PINNED);
	free(g);
}

extern "C" const char *snp_gpu_name(const snp_gpu_t *g) { return g->name; }
extern "C" const char *snp_gpu_kernel(const snp_gpu_t *g) { return g->kernel; }
extern "C" double snp_gpu_kernel_seconds(const snp_gpu_t *g) { return g->kern_s; }

/* Ordinary memory, page-locked when the system allows it (else copies are merely slower). */
extern "C" void *snp_gpu_host_alloc(snp_gpu_t *g, size_t bytes)
{
	(void)g;
	void *p = malloc(bytes ? bytes : 1);
	if (p && cudaHostRegister(p, bytes ? bytes : 1, cudaHostRegisterDefault) != cudaSuccess)
		(void)cudaGetLastError(); /* not page-locked: clear the error, keep the memory */
	return p;
}

extern "C" void snp_gpu_host_free(snp_gpu_t *g, void *p)
{
	(void)g;
	if (!p) return;
	if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError(); /* it was not registered */
	free(p);
}

static int dev_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve(p, cap, need, GVK_MEM_DEVICE, GVK_GROW_EXACT, 0, what, err);
}

static int pinned_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve(p, cap, need, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, what, err);
}

/* ---- peak ----------------------------------------------------------------------------------- */

/* Seconds of one launch of a peak kernel over every SM (warm-up run first). */
static int peak_time(snp_gpu_t *g, int mma, int iters, unsigned long long *sink, double *sec, gvk_err_t *err)
{
	const int threads = mma ? 128 : 256, blocks = g->sms * (g->max_threads_sm / threads);
	for (int rep = 0; rep < 2; ++rep) {
		CK(cudaEventRecord(g->ev[0][0], g->st[0]));
		if (mma) peak_mma_kernel<<<blocks, threads, 0, g->st[0]>>>(iters, 12345u, sink);
		else peak_popc_kernel<<<blocks, threads, 0, g->st[0]>>>(iters, 12345u, sink);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->ev[0][1], g->st[0]));
		CK(cudaEventSynchronize(g->ev[0][1]));
	}
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, g->ev[0][0], g->ev[0][1]));
	*sec = ms * 1e-3;
	return 0;
}

extern "C" int snp_gpu_peak(snp_gpu_t *g, double *popc_bitops, double *mma_bitops, gvk_err_t *err)
{
	unsigned long long *sink = NULL;
	size_t cap = 0;
	int rc = dev_reserve((void **)&sink, &cap, sizeof *sink, "a counter", err);
	double t = 0;
	const int ip = 1 << 14, im = 1 << 12;
	if (rc == 0 && (rc = peak_time(g, 0, ip, sink, &t, err)) == 0) {
		const double blocks = (double)g->sms * (g->max_threads_sm / 256);
		*popc_bitops = blocks * 256 * (double)ip * 8 * 64 / t;
	}
	if (rc == 0 && (rc = peak_time(g, 1, im, sink, &t, err)) == 0) {
		const double warps = (double)g->sms * (g->max_threads_sm / 128) * 4;
		*mma_bitops = warps * (double)im * 8 * 16 * 8 * 256 / t;
	}
	cudaFree(sink);
	return rc;
}

/* ---- LD ------------------------------------------------------------------------------------- */

typedef struct {
	const ld_opt_t *o;
	ld_stripe_t *s;
	const pg_ldcnt_t *cnt;
	int nt;
} ld_epi_t;

/* The CPU engine's haplotype epilogue (ld_engine.c) on the counts, rows interleaved over the threads. */
static void ld_epilogue(void *arg, int tid)
{
	const ld_epi_t *e = (const ld_epi_t *)arg;
	ld_stripe_t *s = e->s;
	for (int64_t i = s->i0 + tid; i < s->i1; i += e->nt) {
		size_t off = (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t c = off + (size_t)(j - s->cbase);
			ld_haplotype(&e->cnt[c], &s->r[c], &s->d[c], &s->dp[c]);
			if (e->o->r2) s->r[c] *= fabs(s->r[c]);
		}
	}
}

/* Makes every SNP resident with its plane totals (once per data set) when all of them fit in half
 * the free memory; returns 1 then, 0 when the stripes must stream their planes instead. */
static int ld_resident(snp_gpu_t *g, const snp_data_t *d, gvk_err_t *err)
{
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	if ((size_t)d->n_snp * per > g->mem_free / 2) return 0;
	if (g->ld_src == d->w) return 1;
	const size_t bytes = (size_t)d->n_snp * per;
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, bytes, "the SNP bit planes", err);
	if (rc == 0) rc = dev_reserve((void **)&g->ld_tot, &g->ld_tot_cap, 2 * (size_t)d->n_snp * sizeof(int32_t), "plane totals", err);
	if (rc < 0) return rc;
	CK(cudaMemcpyAsync(g->ld_w, d->w, bytes, cudaMemcpyHostToDevice, g->st[0]));
	ld_totals_kernel<<<(unsigned)((d->n_snp + 255) / 256), 256, 0, g->st[0]>>>(g->ld_w, d->n_snp, d->nw, g->ld_tot);
	CK(cudaGetLastError());
	g->ld_src = d->w;
	return 1;
}

/* One count launch: rows [i0, i0 + nrows) against columns [cbase, cbase + width), results at
 * row * width + (column - cbase) of out (counts) or val (values). */
typedef struct {
	ld_src_t src;
	int64_t i0, cbase, width;
	int nrows;
	const int64_t *jlo, *jhi;
	pg_ldcnt_t *out;
	double *val;
} ld_launch_t;

/* FULL when every SNP of the launch has all samples called. */
static int ld_count_launch(snp_gpu_t *g, cudaStream_t st, int path, int full, const snp_data_t *d, const ld_launch_t *L,
                           const ld_opt_t *o, gvk_err_t *err)
{
	const int32_t nbits = (int32_t)d->n_bits;
	if (path == PATH_MMA) {
		const int r = MMA_S * (full ? 2 : 3);
		const size_t stage = 2 * (size_t)r * (MMA_KW + 2) * sizeof(uint64_t), ctile = (size_t)r * r * sizeof(int32_t);
		const size_t smem = stage > ctile ? stage : ctile;
		dim3 grid((unsigned)((L->width + MMA_S - 1) / MMA_S), (unsigned)((L->nrows + MMA_S - 1) / MMA_S));
		if (full)
			ld_mma_kernel<2><<<grid, MMA_THREADS, smem, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                  L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else
			ld_mma_kernel<3><<<grid, MMA_THREADS, smem, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                  L->jhi, nbits, L->out, L->val, o->r2, o->single);
	} else {
		/* Register tiles: 4 x 4 pairs per thread with 2 planes, 4 x 2 with 3 (7 sums per pair); 2 x 2
		 * when the large tiles would not fill every SM's resident blocks (narrow windows, small
		 * stripes), trading operand reuse for parallelism. */
		const int64_t big = ((L->width + LD_T * (full ? 4 : 2) - 1) / (LD_T * (full ? 4 : 2))) * ((L->nrows + 4 * LD_T - 1) / (4 * LD_T));
		const int small = big < (int64_t)g->sms * g->ld_bps[full];
		const int tm = LD_T * (small ? 2 : 4), tn = LD_T * (small ? 2 : full ? 4 : 2);
		dim3 grid((unsigned)((L->width + tn - 1) / tn), (unsigned)((L->nrows + tm - 1) / tm)), block(LD_T, LD_T);
		if (full && small)
			ld_count_kernel<1, 2, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else if (full)
			ld_count_kernel<1, 4, 4><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else if (small)
			ld_count_kernel<0, 2, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else
			ld_count_kernel<0, 4, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
	}
	CK(cudaGetLastError());
	return 0;
}

/* GVK_SNP_GPU_PATH=auto: both count kernels on the first chunk, the faster one kept (they write
 * the same integers). */
static int ld_pick_path(snp_gpu_t *g, int full, const snp_data_t *d, const ld_launch_t *L, const ld_opt_t *o,
                        gvk_err_t *err)
{
	float ms[2] = {0, 0};
	for (int p = 0; p < 2; ++p) {
		cudaEvent_t *e = g->ev[LD_EVENTS - 1 - p];
		CK(cudaEventRecord(e[0], g->st[0]));
		int rc = ld_count_launch(g, g->st[0], p ? PATH_MMA : PATH_POPC, full, d, L, o, err);
		if (rc < 0) return rc;
		CK(cudaEventRecord(e[1], g->st[0]));
		CK(cudaEventSynchronize(e[1]));
		CK(cudaEventElapsedTime(&ms[p], e[0], e[1]));
	}
	g->ld_path = ms[1] < ms[0] ? PATH_MMA : PATH_POPC;
	return 0;
}

/* Whether every SNP the stripe touches has all samples called (then 4 products per word). */
static int ld_stripe_full(const snp_data_t *d, const ld_stripe_t *s)
{
	for (int64_t i = s->i0; i < s->i1; ++i)
		if (!d->full[i]) return 0;
	for (int64_t j = s->cbase; j < s->cbase + s->width; ++j)
		if (!d->full[j]) return 0;
	return 1;
}

/* Kernel time of a stripe's chunks: the union of their [start, end] intervals (measured from t0),
 * since chunks on the two kernel streams overlap. */
static int ld_add_busy(snp_gpu_t *g, cudaEvent_t t0, int nch, gvk_err_t *err)
{
	float iv[LD_EVENTS][2];
	for (int c = 0; c < nch; ++c) {
		CK(cudaEventElapsedTime(&iv[c][0], t0, g->ev[c][0]));
		CK(cudaEventElapsedTime(&iv[c][1], t0, g->ev[c][1]));
		for (int k = c; k > 0 && iv[k][0] < iv[k - 1][0]; --k) { /* by start */
			const float a = iv[k][0], b = iv[k][1];
			iv[k][0] = iv[k - 1][0], iv[k][1] = iv[k - 1][1], iv[k - 1][0] = a, iv[k - 1][1] = b;
		}
	}
	float end = -1e30f, busy = 0;
	for (int c = 0; c < nch; ++c) {
		const float lo = iv[c][0] > end ? iv[c][0] : end;
		if (iv[c][1] > lo) busy += iv[c][1] - lo;
		if (iv[c][1] > end) end = iv[c][1];
	}
	g->kern_s += busy * 1e-3;
	return 0;
}

/* Chunk c's results (rows r0.. of nr, columns c0.. of nc, packed in buffer b) to the stripe's
 * host rows, on the copy stream once the chunk's kernel is done. */
static int ld_copy_back(snp_gpu_t *g, const ld_stripe_t *s, int hap, int b, int64_t r0, int nr, int64_t c0, int64_t nc,
                        gvk_err_t *err)
{
	const size_t elt = hap ? sizeof(pg_ldcnt_t) : sizeof(double);
	char *dst = hap ? (char *)g->h_cnt : (char *)s->r;
	dst += ((size_t)r0 * (size_t)s->width + (size_t)(c0 - s->cbase)) * elt;
	const void *src = hap ? (const void *)g->ld_cnt[b] : (const void *)g->ld_val[b];
	CK(cudaStreamWaitEvent(g->st[1], g->done[b], 0));
	CK(cudaMemcpy2DAsync(dst, (size_t)s->width * elt, src, (size_t)nc * elt, (size_t)nc * elt, (size_t)nr,
	                     cudaMemcpyDeviceToHost, g->st[1]));
	CK(cudaEventRecord(g->copied[b], g->st[1]));
	return 0;
}

/* nb device output buffers of cells pairs each (counts when phased, else values). */
static int ld_out_reserve(snp_gpu_t *g, int hap, int nb, size_t cells, gvk_err_t *err)
{
	int rc = 0;
	for (int b = 0; b < nb && rc == 0; ++b)
		rc = hap ? dev_reserve((void **)&g->ld_cnt[b], &g->ld_cnt_cap[b], cells * sizeof(pg_ldcnt_t), "a stripe's counts", err)
		         : dev_reserve((void **)&g->ld_val[b], &g->ld_val_cap[b], cells * sizeof(double), "a stripe's values", err);
	return rc;
}

/* Every SNP resident: chunks of whole tiles of rows of both kernels (4 LD_T, a multiple of MMA_S),
 * alternating between two kernel streams so that one chunk's last blocks share the SMs with the
 * next chunk's first ones, and copied back while the next ones run. A result buffer per chunk
 * (LD_NBUF), so that the kernels, faster than the copies, never wait for one. */
static int ld_stripe_resident(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                              gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	int64_t ch = (nrows + LD_CHUNKS - 1) / LD_CHUNKS;
	ch = (ch + 4 * LD_T - 1) / (4 * LD_T) * (4 * LD_T);
	int rc = ld_out_reserve(g, hap, LD_NBUF, (size_t)ch * (size_t)width, err);
	if (rc < 0) return rc;
	cudaEvent_t t0 = g->ev[LD_EVENTS - 3][0];
	CK(cudaEventRecord(t0, g->st[0]));
	CK(cudaStreamWaitEvent(g->st[2], t0, 0));
	int nch = 0;
	for (int64_t r = 0; r < nrows; r += ch, ++nch) {
		const int b = nch % LD_NBUF, nr = (int)(nrows - r < ch ? nrows - r : ch);
		cudaStream_t ks = g->st[nch & 1 ? 2 : 0];
		const ld_launch_t L = {{g->ld_w, g->ld_w, 0, 0, g->ld_tot, g->ld_tot}, s->i0 + r, s->cbase, width, nr,
		                       g->ld_jr + r, g->ld_jr + nrows + r, hap ? g->ld_cnt[b] : NULL, hap ? NULL : g->ld_val[b]};
		if (nch >= LD_NBUF) CK(cudaStreamWaitEvent(ks, g->copied[b], 0)); /* buffer b copied out */
		if (g->ld_path == PATH_AUTO && (rc = ld_pick_path(g, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][0], ks));
		if ((rc = ld_count_launch(g, ks, g->ld_path, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][1], ks));
		CK(cudaEventRecord(g->done[b], ks));
		if ((rc = ld_copy_back(g, s, hap, b, r, nr, s->cbase, width, err)) < 0) return rc;
	}
	for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
	return ld_add_busy(g, t0, nch, err);
}

/* Planes beyond GPU memory, rows [r0, r0 + nr) of the stripe (cw columns per slice): the rows are
 * uploaded, then the stripe's columns stream through a ring of two device slices, each staged on
 * the host in pinned memory and copied on stream 2 while the kernels (stream 0) work on the
 * previous slice and the results of the one before go back (stream 1). */
static int ld_stream_rows(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                          int64_t r0, int nr, int64_t cw, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	int rc;
	CK(cudaMemcpyAsync(g->ld_w, snp_plane(d, s->i0 + r0, 0), (size_t)nr * per, cudaMemcpyHostToDevice, g->st[0]));
	ld_totals_kernel<<<(unsigned)((nr + 255) / 256), 256, 0, g->st[0]>>>(g->ld_w, nr, d->nw, g->ld_tot);
	CK(cudaGetLastError());
	cudaEvent_t t0 = g->ev[LD_EVENTS - 3][0];
	CK(cudaEventRecord(t0, g->st[0]));
	int nch = 0;
	for (int64_t c0 = s->cbase; c0 < s->cbase + width; c0 += cw, ++nch) {
		const int b = nch & 1;
		const int64_t nc = s->cbase + width - c0 < cw ? s->cbase + width - c0 : cw;
		if (nch >= 2) CK(cudaEventSynchronize(g->staged[b])); /* stage b's last upload is done */
		memcpy(g->h_stage[b], snp_plane(d, c0, 0), (size_t)nc * per);
		if (nch >= 2) CK(cudaStreamWaitEvent(g->st[2], g->done[b], 0)); /* slice b's last kernel is done */
		CK(cudaMemcpyAsync(g->ld_yw[b], g->h_stage[b], (size_t)nc * per, cudaMemcpyHostToDevice, g->st[2]));
		ld_totals_kernel<<<(unsigned)((nc + 255) / 256), 256, 0, g->st[2]>>>(g->ld_yw[b], nc, d->nw, g->ld_ytot[b]);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->staged[b], g->st[2]));
		CK(cudaStreamWaitEvent(g->st[0], g->staged[b], 0));
		if (nch >= 2) CK(cudaStreamWaitEvent(g->st[0], g->copied[b], 0)); /* result buffer b copied out */
		const int64_t xb = s->i0 + r0;
		const ld_launch_t L = {{g->ld_w, g->ld_yw[b], xb, c0, g->ld_tot, g->ld_ytot[b]}, xb, c0, nc, nr,
		                       g->ld_jr + r0, g->ld_jr + nrows + r0, hap ? g->ld_cnt[b] : NULL, hap ? NULL : g->ld_val[b]};
		if (g->ld_path == PATH_AUTO && (rc = ld_pick_path(g, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][0], g->st[0]));
		if ((rc = ld_count_launch(g, g->st[0], g->ld_path, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][1], g->st[0]));
		CK(cudaEventRecord(g->done[b], g->st[0]));
		if ((rc = ld_copy_back(g, s, hap, b, r0, nr, c0, nc, err)) < 0) return rc;
		if (nch == LD_EVENTS - 4) { /* timing slots used up: account for them and start again */
			for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
			if ((rc = ld_add_busy(g, t0, nch + 1, err)) < 0) return rc;
			nch = -1;
		}
	}
	for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
	return ld_add_busy(g, t0, nch, err);
}

/* Planes beyond GPU memory: within half the free memory, the stripe's rows (in groups, when they
 * do not all fit), two column slices and two result buffers; at least LD_CHUNKS slices per stripe,
 * so that uploads, kernels and copies back overlap. */
static int ld_stripe_streamed(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                              gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	const size_t elt = hap ? sizeof(pg_ldcnt_t) : sizeof(double), budget = g->mem_free / 2;
	int64_t rg = nrows; /* rows per group: one column per slice at least must fit beside them */
	while (rg > 1 && (size_t)rg * per + 2 * (per + 2 * sizeof(int32_t) + (size_t)rg * elt) > budget) rg = (rg + 1) / 2;
	const size_t rows = (size_t)rg * per;
	const int64_t fit = rows < budget ? (int64_t)((budget - rows) / (2 * (per + 2 * sizeof(int32_t) + (size_t)rg * elt))) : 0;
	int64_t cw = (width + LD_CHUNKS - 1) / LD_CHUNKS;
	cw = (cw + 4 * LD_T - 1) / (4 * LD_T) * (4 * LD_T);
	if (cw > fit) cw = fit;
	if (cw < 1)
		return gvk_err_set(err, GVK_ERR_NOMEM, "GPU memory too small for one SNP of %lld samples beside another",
		                   (long long)d->n_bits);
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, rows, "a stripe's SNP planes", err);
	if (rc == 0) rc = dev_reserve((void **)&g->ld_tot, &g->ld_tot_cap, 2 * (size_t)rg * sizeof(int32_t), "plane totals", err);
	if (rc == 0) rc = ld_out_reserve(g, hap, 2, (size_t)cw * (size_t)rg, err);
	for (int b = 0; b < 2 && rc == 0; ++b) {
		rc = dev_reserve((void **)&g->ld_yw[b], &g->ld_yw_cap[b], (size_t)cw * per, "a column slice", err);
		if (rc == 0) rc = dev_reserve((void **)&g->ld_ytot[b], &g->ld_ytot_cap[b], 2 * (size_t)cw * sizeof(int32_t), "slice totals", err);
		if (rc == 0) rc = pinned_reserve((void **)&g->h_stage[b], &g->h_stage_cap[b], (size_t)cw * per, "a column slice", err);
	}
	if (rc < 0) return rc;
	g->ld_src = NULL; /* ld_w now holds stripe rows only */
	for (int64_t r0 = 0; r0 < nrows && rc == 0; r0 += rg)
		rc = ld_stream_rows(g, d, o, s, full, r0, (int)(nrows - r0 < rg ? nrows - r0 : rg), cw, err);
	return rc;
}

extern "C" int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	if (nrows <= 0 || width <= 0) return 0;
	int rc = ld_resident(g, d, err);
	if (rc < 0) return rc;
	const int resident = rc, full = ld_stripe_full(d, s), hap = o->haplotype;
	if ((rc = dev_reserve((void **)&g->ld_jr, &g->ld_jr_cap, 2 * (size_t)nrows * sizeof(int64_t), "a stripe", err)) < 0)
		return rc;
	/* phased: the counts come back to pinned memory for the host's haplotype epilogue */
	if (hap && (rc = pinned_reserve((void **)&g->h_cnt, &g->h_cnt_cap, (size_t)nrows * (size_t)width * sizeof(pg_ldcnt_t),
	                                "a stripe's counts", err)) < 0)
		return rc;
	CK(cudaMemcpyAsync(g->ld_jr, s->jlo, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	CK(cudaMemcpyAsync(g->ld_jr + nrows, s->jhi, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	rc = resident ? ld_stripe_resident(g, d, o, s, full, err) : ld_stripe_streamed(g, d, o, s, full, err);
	if (rc < 0) return rc;
	snprintf(g->kernel, sizeof g->kernel, "%s %s", g->name, g->ld_path == PATH_MMA ? "bmma" : "popc");
	if (hap) {
		int nt = o->threads > 0 ? o->threads : 1;
		if (nt > nrows) nt = (int)nrows;
		ld_epi_t e = {o, s, g->h_cnt, nt};
		gvk_parallel(nt, ld_epilogue, &e);
	}
	return 0;
}

/* ---- FastID --------------------------------------------------------------------------------- */

/* Adds the time between the two events of timing slot i (both recorded and passed). */
static int add_elapsed(snp_gpu_t *g, int i, gvk_err_t *err)
{
	float ms = 0;
	CK(cudaEventSynchronize(g->ev[i][1]));
	CK(cudaEventElapsedTime(&ms, g->ev[i][0], g->ev[i][1]));
	g->kern_s += ms * 1e-3;
	return 0;
}

typedef struct {
	uint64_t *q, *db, *top, *sel;
	uint64_t *dbuf[2]; /* database blocks: db is one, the next block is copied into the other */
	size_t dbuf_cap[2];
	const uint64_t *pf_src; /* next block to copy once the current one's first kernel runs */
	uint64_t *pf_dst;
	size_t pf_bytes;
	dhit_t *hits;
	unsigned long long *n_hits;
	size_t top_cap, sel_cap, hits_cap_b;
	unsigned long long hit_cap;
	uint64_t *h_sel;
	dhit_t *h_hits;
	size_t h_sel_cap, h_hits_cap;
	int path;               /* PATH_POPC or PATH_MMA, PATH_AUTO until the first batch has timed both */
	int qgroup;             /* queries per block of the CUDA-core kernel (FID_QB or FID_QB_LONG) */
	size_t smem_popc, smem_mma; /* dynamic shared memory of each kernel */
} fid_bufs_t;

static void fid_bufs_free(fid_bufs_t *b)
{
	cudaFree(b->q), cudaFree(b->dbuf[0]), cudaFree(b->dbuf[1]), cudaFree(b->top), cudaFree(b->sel), cudaFree(b->hits), cudaFree(b->n_hits);
	free(b->h_sel);
	free(b->h_hits);
}

static int host_reserve(void **p, size_t *cap, size_t need, gvk_err_t *err)
{
	if (need <= *cap) return 0;
	void *n = realloc(*p, need);
	if (!n) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory (%zu bytes)", need);
	*p = n, *cap = need;
	return 0;
}

template <int QB>
static int fid_launch_qb(int op, dim3 grid, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq, int64_t nd,
                         int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
	if (op == PG_XOR)
		fid_score_kernel<PG_XOR, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                          b->top, b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_score_kernel<PG_ANDNOT, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                             b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_score_kernel<PG_AND, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                          b->top, b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
}

static int fid_launch_mma(int op, dim3 grid, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq, int64_t nd,
                          int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
	if (op == PG_XOR)
		fid_mma_kernel<PG_XOR><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                     b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_mma_kernel<PG_ANDNOT><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                        b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_mma_kernel<PG_AND><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                     b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
}

static int fid_launch(int op, int path, int qb, int blocks_x, int blocks_y, size_t smem, const fid_bufs_t *b,
                      const uint64_t *q, int nq, int64_t nd, int stride, int64_t per_part, int nparts, int k,
                      int64_t thresh, gvk_err_t *err)
{
	dim3 grid((unsigned)blocks_x, (unsigned)blocks_y);
	if (path == PATH_MMA) return fid_launch_mma(op, dim3((unsigned)blocks_y, (unsigned)blocks_x), smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err);
	return qb == FID_QB ? fid_launch_qb<FID_QB>(op, grid, smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err)
	                    : fid_launch_qb<FID_QB_LONG>(op, grid, smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err);
}

/* Allows smem bytes of dynamic shared memory to the kernels of QB queries. */
template <int QB>
static int fid_allow_smem(size_t smem, gvk_err_t *err)
{
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_XOR, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_ANDNOT, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_AND, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	return 0;
}

static int fid_allow_smem_mma(size_t smem, gvk_err_t *err)
{
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_XOR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_ANDNOT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_AND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	return 0;
}

/* One batch of nqb queries (from q0) against the resident database block of nd profiles with the
 * kernel of path: fills blk->top rows q0.. (blk->k per query) and appends to blk->hits. */
static int fid_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int path, int64_t q0, int nqb, int64_t nd,
                     int64_t dbase, fid_result_t *blk, gvk_err_t *err)
{
	const int stride = job->db->stride, k = blk->k;
	const int qgroup = path == PATH_MMA ? (int)FMMA_QB : b->qgroup, lists = path == PATH_MMA ? (int)FMMA_LISTS : (int)FID_THREADS;
	const int groups = (nqb + qgroup - 1) / qgroup;
	/* Enough (part, group) blocks to fill every SM, each part at least one profile per thread. */
	int64_t want = ((int64_t)g->sms * g->max_threads_sm + (int64_t)groups * FID_THREADS - 1) / ((int64_t)groups * FID_THREADS);
	int64_t most = (nd + FID_THREADS - 1) / FID_THREADS;
	int64_t nparts = want < 1 ? 1 : want > most ? most : want;
	if (k > 0) {
		/* Per-thread lists cost nqb * nparts * FID_THREADS * k keys; keep them to a quarter of memory. */
		size_t per_part = (size_t)nqb * (size_t)lists * (size_t)k * sizeof(uint64_t);
		int64_t fit = (int64_t)(g->mem_free / 4 / per_part);
		if (nparts > fit) nparts = fit < 1 ? 1 : fit;
	}
	if (k > 0) { /* the selection scans every list entry once per rank: keep the lists short */
		int64_t cap = 65536 / ((int64_t)lists * k);
		if (nparts > cap) nparts = cap < 1 ? 1 : cap;
	}
	if (nparts > (path == PATH_MMA ? 65535 : 65535 * 1024)) nparts = path == PATH_MMA ? 65535 : 65535 * 1024;
	const int64_t per_part = (nd + nparts - 1) / nparts;
	const size_t len = (size_t)nparts * (size_t)lists * (size_t)k; /* keys per query */
	int rc;
	if (k > 0) {
		if ((rc = dev_reserve((void **)&b->top, &b->top_cap, (size_t)nqb * len * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = dev_reserve((void **)&b->sel, &b->sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = host_reserve((void **)&b->h_sel, &b->h_sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), err)) < 0)
			return rc;
	}
	const size_t smem = path == PATH_MMA ? b->smem_mma : b->smem_popc;
	const uint64_t *q = b->q + (size_t)q0 * (size_t)stride;
	for (int attempt = 0;; ++attempt) {
		if (k > 0) CK(cudaMemset(b->top, 0xff, (size_t)nqb * len * sizeof(uint64_t)));
		CK(cudaMemset(b->n_hits, 0, sizeof *b->n_hits));
		CK(cudaEventRecord(g->ev[0][0], 0));
		if ((rc = fid_launch(job->op, path, qgroup, (int)nparts, groups, smem, b, q, nqb, nd, stride, per_part, (int)nparts, k,
		                     job->thresh, err)) < 0)
			return rc;
		CK(cudaEventRecord(g->ev[0][1], 0));
		if (b->pf_src) { /* the next database block travels while this kernel runs */
			CK(cudaMemcpyAsync(b->pf_dst, b->pf_src, b->pf_bytes, cudaMemcpyHostToDevice, g->st[1]));
			b->pf_src = NULL;
		}
		unsigned long long nh = 0;
		CK(cudaMemcpy(&nh, b->n_hits, sizeof nh, cudaMemcpyDeviceToHost));
		if ((rc = add_elapsed(g, 0, err)) < 0) return rc;
		if (nh <= b->hit_cap) {
			if (nh > 0) {
				if ((rc = host_reserve((void **)&b->h_hits, &b->h_hits_cap, nh * sizeof(dhit_t), err)) < 0) return rc;
				CK(cudaMemcpy(b->h_hits, b->hits, nh * sizeof(dhit_t), cudaMemcpyDeviceToHost));
				fid_hit_t *nhits = (fid_hit_t *)realloc(blk->hits, (blk->n_hits + nh) * sizeof(fid_hit_t));
				if (!nhits) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %llu threshold hits", nh);
				blk->hits = nhits;
				for (unsigned long long h = 0; h < nh; ++h) {
					const dhit_t *x = &b->h_hits[h];
					fid_hit_t *y = &blk->hits[blk->n_hits++];
					y->db = job->db_offset + dbase + x->d, y->q = (uint32_t)q0 + x->q, y->score = x->score;
				}
			}
			break;
		}
		if (attempt > 0) return gvk_err_set(err, GVK_ERR_GPU, "GPU threshold hit count changed between runs");
		/* More hits than room: grow the buffer to the exact count and score the batch again. */
		cudaFree(b->hits);
		b->hits = NULL, b->hits_cap_b = 0, b->hit_cap = 0;
		if ((rc = dev_reserve((void **)&b->hits, &b->hits_cap_b, nh * sizeof(dhit_t), "threshold hits", err)) < 0) return rc;
		b->hit_cap = nh;
	}
	if (k > 0) {
		CK(cudaEventRecord(g->ev[1][0], 0));
		fid_select_kernel<<<(unsigned)nqb, SEL_THREADS>>>(b->top, len, k, b->sel);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->ev[1][1], 0));
		CK(cudaMemcpy(b->h_sel, b->sel, (size_t)nqb * (size_t)k * sizeof(uint64_t), cudaMemcpyDeviceToHost));
		if ((rc = add_elapsed(g, 1, err)) < 0) return rc;
		for (int x = 0; x < nqb; ++x)
			for (int r = 0; r < k; ++r) {
				uint64_t key = b->h_sel[(size_t)x * k + r];
				fid_hit_t *y = &blk->top[(size_t)(q0 + x) * k + r];
				y->db = job->db_offset + dbase + (int64_t)(key & 0xffffffffu);
				y->q = (uint32_t)(q0 + x), y->score = (uint32_t)(key >> 32);
			}
	}
	return 0;
}

/* GVK_SNP_GPU_PATH=auto: both kernels score the first batch against the first FID_TRIAL profiles
 * (at most) into a scratch result, each timed with its selection, and the faster is kept for the
 * whole search (they give the same results); then the batch is scored for real. */
static int fid_pick_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int64_t q0, int nqb, int64_t nd,
                          int64_t dbase, fid_result_t *blk, gvk_err_t *err)
{
	const int64_t tn = nd < (int64_t)FID_TRIAL ? nd : (int64_t)FID_TRIAL;
	double t[2] = {0, 0};
	int rc = 0;
	for (int p = 0; p < 2 && rc == 0; ++p) {
		fid_result_t tmp;
		memset(&tmp, 0, sizeof tmp);
		tmp.k = blk->k < tn ? blk->k : (int)tn;
		if (tmp.k > 0 && !(tmp.top = (fid_hit_t *)malloc((size_t)(q0 + nqb) * (size_t)tmp.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", tmp.k);
		const double t0 = g->kern_s;
		rc = fid_batch(g, job, b, p ? PATH_MMA : PATH_POPC, q0, nqb, tn, dbase, &tmp, err);
		t[p] = g->kern_s - t0;
		fid_result_free(&tmp);
	}
	if (rc < 0) return rc;
	b->path = t[1] < t[0] ? PATH_MMA : PATH_POPC;
	return fid_batch(g, job, b, b->path, q0, nqb, nd, dbase, blk, err);
}

static int fid_run(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, fid_result_t *res, gvk_err_t *err)
{
	const int64_t nq = job->q->n, n = job->db->n;
	const int stride = job->db->stride;
	const size_t pbytes = (size_t)stride * sizeof(uint64_t);
	const int qgroup = (size_t)FID_QB * pbytes <= g->smem_optin ? FID_QB : FID_QB_LONG;
	const size_t smem = (size_t)qgroup * pbytes;
	if (smem > g->smem_optin)
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "profiles of %u SNPs are too long for this GPU's shared memory",
		                   job->db->n_snp);
	int rc = 0;
	if (smem > g->smem_block &&
	    (rc = qgroup == FID_QB ? fid_allow_smem<FID_QB>(smem, err) : fid_allow_smem<FID_QB_LONG>(smem, err)) < 0)
		return rc;
	/* The tensor-core kernel holds FMMA_QB queries in fragment order, 256-bit chunks: the CUDA-core
	 * kernel runs alone when they do not fit in shared memory. */
	b->qgroup = qgroup, b->smem_popc = smem;
	b->smem_mma = (size_t)((stride + 3) / 4) * FMMA_NF * 32 * sizeof(uint64_t);
	b->path = b->smem_mma > g->smem_optin ? PATH_POPC : g->path;
	if (g->path == PATH_MMA && b->path == PATH_POPC)
		fprintf(stderr, "gvk: profiles of %u SNPs are too long for the tensor-core FastID kernel; using the CUDA cores\n",
		        job->db->n_snp);
	if (b->path != PATH_POPC && b->smem_mma > g->smem_block && (rc = fid_allow_smem_mma(b->smem_mma, err)) < 0)
		return rc;
	if (nq == 0 || n == 0) return 0;
	if (nq > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "too many queries for the GPU engine");
	size_t qcap = 0;
	rc = dev_reserve((void **)&b->q, &qcap, (size_t)nq * pbytes, "the queries", err);
	if (rc < 0) return rc;
	CK(cudaMemcpy(b->q, job->q->w, (size_t)nq * pbytes, cudaMemcpyHostToDevice));
	size_t one = 0;
	if ((rc = dev_reserve((void **)&b->n_hits, &one, sizeof *b->n_hits, "a counter", err)) < 0) return rc;
	if (job->thresh >= 0) {
		b->hit_cap = 1u << 20;
		if ((rc = dev_reserve((void **)&b->hits, &b->hits_cap_b, b->hit_cap * sizeof(dhit_t), "threshold hits", err)) < 0)
			return rc;
	}
	/* Database blocks of a quarter of free memory (indices within a block fit the keys' 32 bits). */
	int64_t blk_n = (int64_t)(g->mem_free / 4 / pbytes);
	if (blk_n < n) blk_n /= 2; /* two block buffers (copy and search overlap) in the same memory */
	if (blk_n > INT32_MAX) blk_n = INT32_MAX;
	if (g->db_block > 0 && g->db_block < blk_n) blk_n = g->db_block;
	if (blk_n < 1) blk_n = 1;
	const int topk = job->topk > 0 ? job->topk : 0;
	int64_t qb = g->q_batch > 0 ? g->q_batch : 65535 * (int64_t)qgroup;
	if (topk > 0) { /* one part per query group at least: a batch's lists within a quarter of memory */
		int64_t fit = (int64_t)(g->mem_free / 4 / ((size_t)FID_THREADS * (size_t)topk * sizeof(uint64_t)));
		if (qb > fit) qb = fit < 1 ? 1 : fit;
	}
	const size_t buf_bytes = (size_t)(n < blk_n ? n : blk_n) * pbytes;
	for (int i = 0; i < (blk_n < n ? 2 : 1); ++i)
		if ((rc = dev_reserve((void **)&b->dbuf[i], &b->dbuf_cap[i], buf_bytes, "a database block", err)) < 0) return rc;
	CK(cudaMemcpyAsync(b->dbuf[0], job->db->w, (size_t)(n < blk_n ? n : blk_n) * pbytes, cudaMemcpyHostToDevice, g->st[1]));
	for (int64_t d0 = 0, bi = 0; d0 < n; d0 += blk_n, ++bi) {
		const int64_t nd = n - d0 < blk_n ? n - d0 : blk_n, d1 = d0 + nd;
		CK(cudaStreamSynchronize(g->st[1])); /* block bi is on the device */
		b->db = b->dbuf[bi & 1];
		if (d1 < n) { /* copy block bi + 1 during block bi's first kernel (fid_batch) */
			b->pf_src = job->db->w + (size_t)d1 * stride, b->pf_dst = b->dbuf[(bi + 1) & 1];
			b->pf_bytes = (size_t)(n - d1 < blk_n ? n - d1 : blk_n) * pbytes;
		}
		fid_result_t blk;
		memset(&blk, 0, sizeof blk);
		blk.k = (int)(topk < nd ? topk : nd);
		if (blk.k > 0 && !(blk.top = (fid_hit_t *)malloc((size_t)nq * (size_t)blk.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", blk.k);
		for (int64_t q0 = 0; q0 < nq && rc == 0; q0 += qb) {
			const int nqb = (int)(nq - q0 < qb ? nq - q0 : qb);
			rc = b->path == PATH_AUTO ? fid_pick_batch(g, job, b, q0, nqb, nd, d0, &blk, err)
			                          : fid_batch(g, job, b, b->path, q0, nqb, nd, d0, &blk, err);
		}
		blk.pairs = (uint64_t)nq * (uint64_t)nd;
		if (rc == 0 && b->pf_src) { /* not sent by a kernel launch (none ran) */
			CK(cudaMemcpyAsync(b->pf_dst, b->pf_src, b->pf_bytes, cudaMemcpyHostToDevice, g->st[1]));
			b->pf_src = NULL;
		}
		if (rc == 0) rc = fid_result_merge(res, &blk, nq, topk, err);
		fid_result_free(&blk);
		if (rc < 0) return rc;
	}
	fid_result_sort_hits(res);
	return 0;
}

extern "C" int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err)
{
	memset(res, 0, sizeof *res);
	fid_bufs_t b;
	memset(&b, 0, sizeof b);
	int rc = fid_run(g, job, &b, res, err);
	snprintf(g->kernel, sizeof g->kernel, "%s %s", g->name, b.path == PATH_MMA ? "bmma" : "popc");
	fid_bufs_free(&b);
	if (rc < 0) fid_result_free(res);
	return rc;
}
