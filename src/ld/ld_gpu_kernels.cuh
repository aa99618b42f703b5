/* SPDX-License-Identifier: MIT */
/* LD's CUDA-core kernels (ld_gpu.cu): plane totals and pair counts with r / r^2 formed on the
 * device. Block shapes are the enums below; ld_gpu.cu launches with them. Included after
 * popgemm.h (pg_ldcnt_t) by ld_gpu.cu and by tests/snp/gpu_kernel_emu.cpp, which runs these
 * kernels on the CPU, so this file includes nothing itself. */
#ifndef GVK_LD_GPU_KERNELS_CUH
#define GVK_LD_GPU_KERNELS_CUH

enum { LD_T = 16, LD_KW = 16 };
enum { MMA_S = 32, MMA_KW = 16, MMA_THREADS = 128 }; /* SNPs per block side, words per stage, threads */


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

/* The six sums of a pair from its plane products (docs/snp.md, Semantics 5), or, when both SNPs have every sample
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

#endif
