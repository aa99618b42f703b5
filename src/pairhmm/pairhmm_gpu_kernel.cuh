/* SPDX-License-Identifier: MIT */
/* Pair-HMM forward kernels for NVIDIA and AMD GPUs (gpu_port.h), bit-identical to Intel GKL (docs/pairhmm.md,
 * Semantics 5-9).
 *
 * Design (after gpuPairHMM, Schmidt et al. 2024): one pair per sub-warp of P threads. Thread t
 * holds K consecutive read rows in registers (their M, I, D cells and transition probabilities) and
 * sweeps the haplotype one column per step, one step behind thread t-1, so that the sub-warp moves
 * along an anti-diagonal wavefront. Per step a thread receives the last row of thread t-1 (M, I, D)
 * and the haplotype base class through warp shuffles; nothing else leaves registers in the inner
 * loop. Emission priors come from a per-read table in shared memory, prior[class][row] for the
 * five base classes, read four rows at a time. Each thread reads the haplotype class of its next
 * column itself, one step ahead, instead of receiving it by shuffle.
 *
 * Reads shorter than P*K are padded at the top with virtual rows whose transitions keep
 * M = I = 0 and D = init, exactly the values of GKL's row 0, so the read's last row is always
 * the last register of thread P-1, which sums M and I left to right as GKL does. Reads longer
 * than P*K are done in tiles of P*K rows; the last row of a tile goes through global memory.
 *
 * Exactness: the float kernels are compiled with -ftz=true (GKL runs with x86 FTZ) and
 * -fmad=false, and write every operation as an explicit round-to-nearest intrinsic: __fmaf_rn
 * where GKL's AVX-512 kernel fuses, separate __fmul_rn/__fadd_rn elsewhere. CUDA has no FTZ for
 * double, so the double kernels flush each result below DBL_MIN by hand. The final log10 is taken
 * on the host with the C library (docs/pairhmm.md, Semantics 10). */
#ifndef GVK_PAIRHMM_GPU_KERNEL_CUH
#define GVK_PAIRHMM_GPU_KERNEL_CUH

#include <float.h>
#include <stdint.h>

#include "../common/gpu_port.h"
#include "pairhmm_gpu_pair.h"

/* Each operation rounded to nearest as written (no contraction), for either precision. */
#define PHMM_RN(op, f_fn, d_fn)                                                              \
	__device__ __forceinline__ float phmm_rn_##op(float a, float b) { return f_fn(a, b); }    \
	__device__ __forceinline__ double phmm_rn_##op(double a, double b) { return d_fn(a, b); }
PHMM_RN(mul, __fmul_rn, __dmul_rn)
PHMM_RN(add, __fadd_rn, __dadd_rn)
PHMM_RN(sub, __fsub_rn, __dsub_rn)
PHMM_RN(div, __fdiv_rn, __ddiv_rn)
#undef PHMM_RN
__device__ __forceinline__ float phmm_rn_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double phmm_rn_fma(double a, double b, double c) { return __fma_rn(a, b, c); }

/* x86's flush to zero of a result below the smallest normal. */
__device__ __forceinline__ float phmm_ftz(float x) { return fabsf(x) < FLT_MIN ? 0.0f : x; }
__device__ __forceinline__ double phmm_ftz(double x) { return fabs(x) < DBL_MIN ? 0.0 : x; }

/* The operations of a kernel. Float runs under the build's flush to zero (-ftz=true, as GKL).
 * Double has no such mode on the GPU, so FTZ false computes without it: exact as long as no value
 * of the pair falls below PHMM_TRIP_HI (phmm_trip), which the one-tile double kernels check; the
 * pairs that do are computed again with FTZ true, which flushes after every operation as x86 FTZ
 * does. init: the scaled start of the deletion row (2^120 in float, 2^1020 in double). */
template <typename T, bool FTZ = false> struct phmm_ops {
	static __device__ __forceinline__ T flush(T x) { return FTZ ? phmm_ftz(x) : x; }
	static __device__ __forceinline__ T mul(T a, T b) { return flush(phmm_rn_mul(a, b)); }
	static __device__ __forceinline__ T add(T a, T b) { return flush(phmm_rn_add(a, b)); }
	static __device__ __forceinline__ T sub(T a, T b) { return flush(phmm_rn_sub(a, b)); }
	static __device__ __forceinline__ T div(T a, T b) { return flush(phmm_rn_div(a, b)); }
	static __device__ __forceinline__ T fma(T a, T b, T c) { return flush(phmm_rn_fma(a, b, c)); }
	static __device__ __forceinline__ T init() { return sizeof(T) == sizeof(float) ? (T)0x1p120f : (T)0x1p1020; }
};

/* The arithmetic of a kernel: FTZ only for the double kernels that recompute tripped pairs. */
template <typename T, bool FTZ> struct phmm_arith { typedef phmm_ops<T> op; static constexpr bool CHECK = false; };
template <> struct phmm_arith<double, false> { typedef phmm_ops<double> op; static constexpr bool CHECK = true; };
template <> struct phmm_arith<double, true> { typedef phmm_ops<double, true> op; static constexpr bool CHECK = false; };

/* Why a check of the states suffices: every value the recurrences make is a state (M, I, D) or
 * a sum of states times at most two constants (transitions, priors), all of them >= 0, so sums
 * never fall below their largest term. The host checks that every non-zero constant is at least
 * 2^-61 (PHMM_MIN_CONST), so while every state is 0 or >= 2^-900 no product falls below
 * 2^-900 * 2^-122 = 2^-1022, the smallest normal, and FTZ would change nothing. The first state
 * below 2^-900 is still made from such states, so it is normal and its high word is in
 * [1, PHMM_TRIP_HI): that is all a thread checks. */
#define PHMM_TRIP_HI 0x07B00000u /* high word of 2^-900 */
#define PHMM_MIN_CONST 0x1p-61

template <int K>
__device__ __forceinline__ void phmm_trip(const double (&M)[K], const double (&I)[K], const double (&D)[K], bool &trip)
{
#pragma unroll
	for (int r = 0; r < K; ++r) {
		trip = trip || (uint32_t)(__double2hiint(M[r]) - 1) < PHMM_TRIP_HI - 1;
		trip = trip || (uint32_t)(__double2hiint(I[r]) - 1) < PHMM_TRIP_HI - 1;
		trip = trip || (uint32_t)(__double2hiint(D[r]) - 1) < PHMM_TRIP_HI - 1;
	}
}
template <int K>
__device__ __forceinline__ void phmm_trip(const float (&)[K], const float (&)[K], const float (&)[K], bool &) {}

/* Whether any thread of this thread's sub-warp tripped. */
template <int P> __device__ __forceinline__ bool phmm_sub_any(bool t)
{
	const gpu_lanemask_t b = gpu_ballot(t);
	return P == GPU_WARP ? b != 0 : (b >> (threadIdx.x % GPU_WARP / P * P) & (((gpu_lanemask_t)1 << P) - 1)) != 0;
}

__device__ __forceinline__ int phmm_gpu_mm_index(int qi, int qd)
{
	int hi = max(qi, qd), lo = min(qi, qd);
	return hi * (hi + 1) / 2 + lo;
}

/* GKL's base rule (phmm_base_bits): C T G N are themselves, any other byte is A. */
typedef struct {
	bool C, T, G, N;
} phmm_gpu_base_t;

__device__ __forceinline__ phmm_gpu_base_t phmm_gpu_base(uint32_t c)
{
	return {c == 'C', c == 'T', c == 'G', c == 'N'};
}

/* Class of a base byte: A C T G N as 0..4. */
__device__ __forceinline__ uint32_t phmm_gpu_class(uint32_t c)
{
	const phmm_gpu_base_t b = phmm_gpu_base(c);
	return b.C ? 1u : b.T ? 2u : b.G ? 3u : b.N ? 4u : 0u;
}

/* The haplotype blob's bases turned into classes in place, 16 bytes a thread: the host copies
 * the caller's bases as they are (whole runs of haplotypes at once) instead of translating them
 * byte by byte. */
__global__ void phmm_gpu_hap_classes(uint4 *__restrict__ p, size_t n)
{
	const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i >= n) return;
	uint4 v = p[i];
	uint32_t *w = reinterpret_cast<uint32_t *>(&v);
#pragma unroll
	for (int k = 0; k < 4; ++k) {
		uint32_t x = w[k], y = 0;
#pragma unroll
		for (int b = 0; b < 4; ++b) y |= phmm_gpu_class(x >> (8 * b) & 255u) << (8 * b);
		w[k] = y;
	}
	p[i] = v;
}

constexpr int phmm_log2_ceil(int x) { return x <= 1 ? 0 : 1 + phmm_log2_ceil((x + 1) / 2); }

/* A thread's K rows sit at a 16-byte-aligned stride in the prior table, so that they load as whole
 * 16-byte vectors whatever K is (K = 10: three LDS.128 instead of five LDS.64), and the stride is an
 * odd number of vectors, so that the 8 threads of one LDS.128 phase hit distinct banks. */
template <typename T, int K> struct phmm_stride {
	static constexpr int V = 16 / (int)sizeof(T);
	static constexpr int KS = ((K + V - 1) / V | 1) * V;
};

/* The classes' tables of a sub-warp sit CB bytes apart: the table's bytes rounded up to a multiple
 * of 128 (to 2^SH below that), so that a class moves a thread's 16-byte slot by a multiple of 8 and
 * the 8 threads of an LDS.128 phase stay on distinct banks whatever classes they read. Rounding
 * up to a power of two instead (one LEA per step, not one IMAD) takes more shared memory, which
 * leaves less L1 to the blocks, and lost from length 64 up (docs/pairhmm-gpu.md). */
template <typename T, int P, int K> struct phmm_table {
	static constexpr int KS = phmm_stride<T, K>::KS;
	static constexpr int SH = phmm_log2_ceil(P * KS * (int)sizeof(T));
	static constexpr int CB = SH >= 7 ? (P * KS * (int)sizeof(T) + 127) / 128 * 128 : 1 << SH;
	static constexpr int TS = CB / (int)sizeof(T); /* elements from one class to the next */
	static constexpr int SIZE = 4 * TS + P * KS;   /* elements of a sub-warp's five tables */
};

/* A thread's priors of class c: its rows' 32-bit shared-memory address plus c * CB, one
 * instruction per step. gpu_lds (gpu_port.h) loads through that 32-bit address (in PTX on NVIDIA):
 * from a generic pointer the compiler folds the thread's offset into the class term and pays two
 * instructions per step. */
template <typename T, int P, int K>
__device__ __forceinline__ uint32_t phmm_class_addr(uint32_t tabl, uint32_t c)
{
	return tabl + c * (uint32_t)phmm_table<T, P, K>::CB;
}

/* 16 bytes of shared memory at a as values of T. */
__device__ __forceinline__ void phmm_lds16(uint32_t a, float (&v)[4])
{
	float4 t;
	gpu_lds(a, t);
	v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
}

__device__ __forceinline__ void phmm_lds16(uint32_t a, double (&v)[2])
{
	double2 t;
	gpu_lds(a, t);
	v[0] = t.x, v[1] = t.y;
}

/* Loads a thread's K priors of one class from shared address a, 16 bytes a load. */
template <typename T, int K>
__device__ __forceinline__ void phmm_load_priors(uint32_t a, T (&pr)[K])
{
	const int L = 16 / (int)sizeof(T);
#pragma unroll
	for (int r = 0; r < K; r += L) {
		T v[L];
		phmm_lds16(a + (uint32_t)sizeof(T) * r, v);
#pragma unroll
		for (int q = 0; q < L; ++q)
			if (r + q < K) pr[r + q] = v[q];
	}
}

/* One step of a thread: its K rows at one haplotype column. u* is the row above in this column
 * (from thread t-1), p* the row above in the previous column (the diagonal of row 0).
 *
 * SHARE: the read has one gap quality throughout (every insertion and deletion quality the same
 * byte, and one gap continuation quality), as in GATK4 without BI/BD tags and with
 * --pcr-indel-model NONE (45 for every base, GCP 10).
 * Then mi[r] == md[r-1], so M[r-1][j]*mi[r], the product that I[r][j] adds, is the same number
 * as M[r-1][j]*md[r-1], which D[r-1][j+1] adds one step later: computed once and kept in Q, it
 * saves one of the eight FP operations per cell (the thread's first row still multiplies the
 * shuffled M by its own mi). The rows' transitions are then the same numbers too, which frees
 * registers (phmm_load_rows).
 *
 * FTZ (x86's flush after every operation) flushes only where a value below the smallest normal
 * could change a later result; every value is >= 0 and every constant in [0, 1]:
 * - a sum of flushed values is 0 or normal, so no add is flushed;
 * - M (and the fused product it is the prior times) is used only in products by constants <= 1
 *   that are flushed (M*mm, M*mi, M*md): an unflushed M below the smallest normal, where x86 has
 *   0, gives those products 0 all the same (the tiled kernel flushes M after such a step, for its
 *   next step's check and the last row's sums: phmm_rows_ftz);
 * - the other products and I and D are flushed: they are addends or FMA factors, where a value
 *   below the smallest normal could move a normal result. */
template <typename T, int K, bool FUSED, bool SHARE, bool FTZ = false>
__device__ __forceinline__ void phmm_rows(T (&M)[K], T (&I)[K], T (&D)[K], T (&Q)[K], const T (&mm)[K], const T (&g)[K],
                                          const T (&mi)[K], const T (&md)[K], const T (&cc)[K], const T (&pr)[K],
                                          T uM, T uI, T pM, T pI, T pD)
{
	typedef typename phmm_arith<T, FTZ>::op op;
	typedef phmm_ops<T> raw; /* the operations FTZ need not flush (above) */
	T dM = pM, dI = pI, dD = pD, aM = uM, aI = uI;
	T aQ = SHARE ? op::mul(uM, mi[0]) : (T)0;
#pragma unroll
	for (int r = 0; r < K; ++r) {
		const T oM = M[r], oI = I[r], oD = D[r];
		const T qI = SHARE ? aQ : op::mul(aM, mi[r]); /* M[r-1][j] * mi[r] */
		const T qD = SHARE ? Q[r] : op::mul(oM, md[r]); /* M[r][j-1] * md[r] */
		T nM, nI, nD;
		if (FUSED) {
			nM = raw::mul(raw::fma(dD, g[r], op::fma(dI, g[r], op::mul(dM, mm[r]))), pr[r]);
			nI = op::fma(aI, cc[r], qI);
			nD = op::fma(oD, cc[r], qD);
		} else {
			nM = raw::mul(raw::add(raw::add(op::mul(dM, mm[r]), op::mul(dI, g[r])), op::mul(dD, g[r])), pr[r]);
			nI = raw::add(qI, op::mul(aI, cc[r]));
			nD = raw::add(qD, op::mul(oD, cc[r]));
		}
		M[r] = nM, I[r] = nI, D[r] = nD;
		if (SHARE) Q[r] = op::mul(nM, md[r]), aQ = Q[r];
		dM = oM, dI = oI, dD = oD;
		aM = nM, aI = nI;
	}
}

#ifndef PHMM_UNROLL
#define PHMM_UNROLL 4
#endif
/* Steps per unrolled main-loop iteration: 8 for the float kernels of the shared gap-open product,
 * 4 elsewhere: the values that measured best for each (docs/pairhmm-gpu.md). */
template <typename T, bool SHARE> struct phmm_unroll {
	static constexpr int N = sizeof(T) == 4 && SHARE ? 2 * PHMM_UNROLL : PHMM_UNROLL;
};
/* Blocks per SM the compiler must fit (caps registers per thread); tuned on the H100. */
#ifndef PHMM_GPU_MIN_BLOCKS
#define PHMM_GPU_MIN_BLOCKS 1
#endif

/* A thread's place: its lane in the sub-warp, the sub-warp's pair (the launch's last pair for
 * sub-warps past the end, which keep the warp's shuffles converged) and its prior table. */
template <typename T> struct phmm_sub_t {
	int lane, sub;
	bool live;
	T *tab;
	phmm_gpu_pair_t pp;
};

template <typename T, int P, int K, int SIZE = phmm_table<T, P, K>::SIZE>
__device__ __forceinline__ phmm_sub_t<T> phmm_sub_init(const phmm_gpu_pair_t *__restrict__ pairs, int npairs)
{
	extern __shared__ __align__(16) unsigned char phmm_smem[];
	phmm_sub_t<T> me;
	me.lane = threadIdx.x % P;
	me.sub = (blockIdx.x * PHMM_GPU_BLOCK + threadIdx.x) / P;
	me.live = me.sub < npairs;
	me.tab = reinterpret_cast<T *>(phmm_smem) + (threadIdx.x / P) * SIZE;
	me.pp = pairs[me.live ? me.sub : npairs - 1];
	return me;
}

/* The error table the host uploads (GKL's values, computed as the CPU engine computes them), indexed
 * by a quality byte as it is (256 entries, b and b & 127 alike), so that a lookup is one IMAD.WIDE
 * and a load: err[b] = 10^(-(b & 127)/10), then {1 - err[b], err[b] / 3} side by side at
 * err[PHMM_TAB_PRIOR + 2b], the match and mismatch priors of base quality b in one 8- or 16-byte
 * load. */
constexpr int PHMM_TAB_PRIOR = 256, PHMM_TAB_SIZE = 256 + 2 * 256;

template <typename T> struct phmm_pair;
template <> struct phmm_pair<float> { typedef float2 type; };
template <> struct phmm_pair<double> { typedef double2 type; };

/* One 16-byte shared-memory store of V consecutive values. */
__device__ __forceinline__ void phmm_sts(float *p, const float (&v)[4]) { *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]); }
__device__ __forceinline__ void phmm_sts(double *p, const double (&v)[2]) { *reinterpret_cast<double2 *>(p) = make_double2(v[0], v[1]); }

/* Column-0 state, transition probabilities and priors of a thread's K rows (read rows i0 ...
 * i0 + K - 1). The priors go to the thread's own slice of the tile's prior table, prior[c][row]
 * for haplotype classes c = A C T G N at stride TS, in 16-byte stores: only this thread ever
 * reads them. A virtual row (read row < 0) keeps M = I = 0 and D = init in every column, the
 * values of GKL's row 0, and gets priors 0; Q (M * md) is 0 in column 0 too.
 *
 * SHARE (one gap quality throughout the read): every row, virtual ones included, gets the read's
 * one mm, g, mi and md, so that the compiler keeps four registers instead of 4K (the 16-row
 * float variants fit 128 registers, four warps a scheduler instead of three). Only cc stays a
 * row's own: a virtual row still needs cc = 1 to keep D = init. Its other values do not matter:
 * its M is a finite value times its prior 0, its I adds M = 0 of the row above times mi, its D
 * adds its own M = 0 times md, and the row below sees M = I = 0, D = init, as from GKL's row 0. */
template <typename T, int P, int K, bool FTZ = false, bool SHARE = false>
__device__ __forceinline__ void phmm_load_rows(T *mine, const uint8_t *rb, int R, int i0, const T *err, const T *mmt,
                                               T init, T (&M)[K], T (&I)[K], T (&D)[K], T (&Q)[K], T (&mm)[K],
                                               T (&g)[K], T (&mi)[K], T (&md)[K], T (&cc)[K])
{
	typedef typename phmm_arith<T, FTZ>::op op;
	constexpr int V = phmm_stride<T, K>::V, TS = phmm_table<T, P, K>::TS;
	typedef typename phmm_pair<T>::type pair_t;
	const pair_t *prior = reinterpret_cast<const pair_t *>(err + PHMM_TAB_PRIOR);
	/* Priors first, transitions after, in two loops: in one, ptxas kept more loads in flight and
	 * the one-thread-per-pair variants took up to 40 registers more. */
#pragma unroll
	for (int r0 = 0; r0 < K; r0 += V) {
		T pc[5][V];
#pragma unroll
		for (int v = 0; v < V; ++v) {
			const int i = i0 + r0 + v;
			pair_t p2 = {0, 0};
			uint32_t b = 'A';
			if (r0 + v < K && i >= 0) p2 = prior[rb[R + i]], b = rb[i];
			/* A read's N matches every haplotype class. */
			const phmm_gpu_base_t x = phmm_gpu_base(b);
			pc[0][v] = x.C || x.T || x.G ? p2.y : p2.x;
			pc[1][v] = x.C || x.N ? p2.x : p2.y;
			pc[2][v] = x.T || x.N ? p2.x : p2.y;
			pc[3][v] = x.G || x.N ? p2.x : p2.y;
			pc[4][v] = p2.x;
		}
#pragma unroll
		for (int c = 0; c < 5; ++c) phmm_sts(mine + c * TS + r0, pc[c]);
	}
	/* The stores reach shared memory before the main loop's loads, which are inline PTX. */
	asm volatile("" ::: "memory");
	T mm1 = 0, g1 = 0, mi1 = 0, cc1 = 0;
	if (SHARE) {
		const uint32_t q = rb[2 * R];
		mm1 = mmt[phmm_gpu_mm_index(q & 127, q & 127)];
		cc1 = err[rb[4 * R]], g1 = op::sub((T)1, cc1);
		mi1 = err[q];
	}
#pragma unroll
	for (int r = 0; r < K; ++r) {
		const int i = i0 + r;
		M[r] = 0, I[r] = 0, Q[r] = 0;
		if (SHARE) {
			mm[r] = mm1, g[r] = g1, mi[r] = mi1, md[r] = mi1;
			cc[r] = i >= 0 ? cc1 : (T)1;
			D[r] = i >= 0 ? (T)0 : init;
		} else if (i >= 0) {
			const uint32_t qi = rb[2 * R + i], qd = rb[3 * R + i];
			mm[r] = mmt[phmm_gpu_mm_index(qi & 127, qd & 127)];
			cc[r] = err[rb[4 * R + i]];
			g[r] = op::sub((T)1, cc[r]);
			mi[r] = err[qi], md[r] = err[qd];
			D[r] = 0;
		} else {
			mm[r] = 0, g[r] = 0, mi[r] = 0, md[r] = 0, cc[r] = 1;
			D[r] = init;
		}
	}
}

/* The row above a thread's first row in this column: the last row of thread t-1, or GKL's row 0
 * (M = I = 0, D = init) for thread 0. With one thread per pair there is nothing to shuffle. */
template <typename T, int P>
__device__ __forceinline__ void phmm_from_above(T m, T i, T d, int lane, T init, T &uM, T &uI, T &uD)
{
	if (P == 1) {
		uM = 0, uI = 0, uD = init;
		return;
	}
	/* Shuffled, then overwritten on thread 0: one predicated move per value, not a select. */
	uM = gpu_shfl_up(m, 1, P);
	uI = gpu_shfl_up(i, 1, P);
	uD = gpu_shfl_up(d, 1, P);
	if (lane == 0) uM = 0, uI = 0, uD = init;
}

/* Resident blocks (of one warp) per SM the compiler must fit: the float variants of the shared
 * gap-open product with 12 to 16 rows a thread then take at most 128 registers (a fourth warp
 * per scheduler) without spilling; held to 128, the other variants spill or lose their schedule
 * (docs/pairhmm-gpu.md). */
template <typename T, int K, bool SHARE> constexpr int phmm_min_blocks()
{
	return sizeof(T) == 4 && SHARE && K >= 12 ? 16 : PHMM_GPU_MIN_BLOCKS;
}

/* Reads of at most P*K rows: one tile, no scratch, and a main loop free of checks. The haplotype
 * blob has zero padding before its first and after its last haplotype (a warp's width, and the
 * longest haplotype), so that a thread can read the class of any column from -P to hmax + P
 * without a bounds check; past its own H a pair reads the next haplotype's classes, and the
 * columns they feed are never used. The body of the one-tile kernels, for the sub-warp me. */
template <typename T, int P, int K, bool FUSED, bool SHARE>
__device__ __forceinline__ void phmm_short_body(const phmm_sub_t<T> &me, const uint8_t *__restrict__ rblob,
                                                const uint8_t *__restrict__ hblob, const T *__restrict__ err,
                                                const T *__restrict__ mmt, T *__restrict__ out)
{
	typedef phmm_ops<T> op;
	constexpr int ROWS = P * K, KS = phmm_stride<T, K>::KS;
	const int lane = me.lane;
	const bool live = me.live;
	T *tab = me.tab;
	const phmm_gpu_pair_t pp = me.pp;
	const uint8_t *rb = rblob + pp.roff;
	const int R = pp.R, H = pp.H;
	const int hmax = gpu_reduce_max(H);
	const int row0 = R - ROWS; /* virtual rows fill the top of the tile */
	const T init = op::div(op::init(), (T)H);
	T M[K], I[K], D[K], Q[K], mm[K], g[K], mi[K], md[K], cc[K];
	phmm_load_rows<T, P, K, false, SHARE>(tab + lane * KS, rb, R, row0 + lane * K, err, mmt, init, M, I, D, Q, mm, g, mi, md, cc);
	T pM = 0, pI = 0, pD = row0 + lane * K - 1 < 0 ? init : (T)0;
	/* Class of column j + 1 for this thread at step s is hq[s]. */
	const uint8_t *hq = hblob + pp.hoff + 1 - lane;
	const uint32_t tabl = gpu_smem_addr(tab + lane * KS);
	T pr[K];
	phmm_load_priors<T, K>(phmm_class_addr<T, P, K>(tabl, hq[-1]), pr);
	T sm = 0, si = 0;
	bool trip = false;
	const int steps = hmax + P - 1;

	/* Fill: thread t starts at step t; before that it keeps its column-0 state. */
	for (int s = 0; s < P - 1; ++s) {
		const int j = s - lane + 1;
		const uint32_t hcn = hq[s];
		T uM, uI, uD;
		phmm_from_above<T, P>(M[K - 1], I[K - 1], D[K - 1], lane, init, uM, uI, uD);
		if (j >= 1) phmm_rows<T, K, FUSED, SHARE>(M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, pM, pI, pD);
		phmm_trip<K>(M, I, D, trip);
		pM = uM, pI = uI, pD = uD;
		phmm_load_priors<T, K>(phmm_class_addr<T, P, K>(tabl, hcn), pr);
	}
	/* Every thread is inside the matrix (or past its end, where results are never used). The last
	 * thread adds its last row to the sums up to column H, i.e. up to step H + P - 2; the others
	 * never do. The class pointer moves by one per step (immediate offsets when unrolled). */
	const int take_to = lane == P - 1 ? H + P - 2 : -1;
	const uint8_t *hp = hq + (P - 1);
	/* The class is loaded a step earlier than it is used: with one warp a scheduler (GATK's small
	 * passes) a load one step ahead still stalled the sweep. The blob's padding covers the extra
	 * byte. */
	uint32_t hc1 = *hp;
#pragma unroll(phmm_unroll<T, SHARE>::N)
	for (int s = P - 1; s < steps; ++s, ++hp) {
		const uint32_t hcn = hc1;
		hc1 = hp[1];
		T uM, uI, uD;
		phmm_from_above<T, P>(M[K - 1], I[K - 1], D[K - 1], lane, init, uM, uI, uD);
		phmm_rows<T, K, FUSED, SHARE>(M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, pM, pI, pD);
		phmm_trip<K>(M, I, D, trip);
		if (s <= take_to) sm = op::add(sm, M[K - 1]), si = op::add(si, I[K - 1]);
		pM = uM, pI = uI, pD = uD;
		phmm_load_priors<T, K>(phmm_class_addr<T, P, K>(tabl, hcn), pr);
	}
	/* A tripped pair's sum is NaN: the host has it computed again with FTZ. */
	if (phmm_arith<T, false>::CHECK && phmm_sub_any<P>(trip)) sm = (T)NAN;
	if (live && lane == P - 1) out[pp.out] = op::add(sm, si);
}

template <typename T, int P, int K, bool FUSED, bool SHARE>
__global__ void GPU_LAUNCH_BOUNDS(PHMM_GPU_BLOCK, (phmm_min_blocks<T, K, SHARE>()))
phmm_gpu_kernel_short(const phmm_gpu_pair_t *__restrict__ pairs, int npairs, const uint8_t *__restrict__ rblob,
                      const uint8_t *__restrict__ hblob, const T *__restrict__ err, const T *__restrict__ mmt,
                      T *__restrict__ out)
{
	phmm_short_body<T, P, K, FUSED, SHARE>(phmm_sub_init<T, P, K>(pairs, npairs), rblob, hblob, err, mmt, out);
}

/* The full-warp bin of reads up to 32 x 9 rows, where GATK's small passes put all their reads
 * (one bin, one launch): each block's pair runs on the fewest rows a thread that hold it. A
 * region's sweep takes H + 31 steps whatever the rows; each step costs about its rows' work, and
 * 9 rows a thread for a read of 90 bases did three times the work that 3 rows do. Variants of
 * their own for these rows would split the region into more bins and launches, which cost more
 * than they saved (docs/pairhmm-gpu.md). The prior table is sized for 9 rows, the largest. */
#if PHMM_GPU_BLOCK == 32 /* one pair per block, so the choice of rows is the whole block's */
template <typename T, bool FUSED, bool SHARE>
__global__ void GPU_LAUNCH_BOUNDS(PHMM_GPU_BLOCK, (phmm_min_blocks<T, 9, SHARE>()))
phmm_gpu_kernel_warp(const phmm_gpu_pair_t *__restrict__ pairs, int npairs, const uint8_t *__restrict__ rblob,
                     const uint8_t *__restrict__ hblob, const T *__restrict__ err, const T *__restrict__ mmt,
                     T *__restrict__ out)
{
	const phmm_sub_t<T> me = phmm_sub_init<T, 32, 9>(pairs, npairs);
	const int R = me.pp.R; /* the block's one pair: the branch is uniform */
	if (R <= 32 * 2) phmm_short_body<T, 32, 2, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else if (R <= 32 * 3) phmm_short_body<T, 32, 3, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else if (R <= 32 * 4) phmm_short_body<T, 32, 4, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else if (R <= 32 * 5) phmm_short_body<T, 32, 5, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else if (R <= 32 * 6) phmm_short_body<T, 32, 6, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else if (R <= 32 * 7) phmm_short_body<T, 32, 7, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else if (R <= 32 * 8) phmm_short_body<T, 32, 8, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
	else phmm_short_body<T, 32, 9, FUSED, SHARE>(me, rblob, hblob, err, mmt, out);
}
#endif

/* The tiled double kernel with x86's flush to zero (the long reads' double pass) flushes only in
 * the steps where it can matter. Every value a step makes is one of its inputs (the warp's states,
 * the row above that a thread receives, now and one column back, and the carried product Q) times
 * at most K + 1 of the tile's constants: two for M (a transition, then the prior), one more for the
 * product M[r-1] * mi[r] that row r's I adds, and one per row down the thread's chain of I. So if
 * every input is 0 or at least 2^-1022 / c^(K+1), c the smallest non-zero constant of the warp's
 * rows, no value of the step falls below 2^-1022 and no flush would change it: such a step runs
 * without them (a warp-uniform choice). The other steps flush as phmm_rows<FTZ> does and flush M
 * and Q too, which x86 does as well, so that no state is ever subnormal and its high word alone
 * tells whether it is below the threshold (a subnormal with a zero high word would pass for 0). A
 * fast step's unflushed Q is normal when the step after it is fast too; a slow step flushes it
 * first, which gives x86's value.
 *
 * Fast steps run in pairs, a loop of two steps without joins (each join costs register moves): the
 * threshold is 2^-1020 / c^(2(K+1)), so that when no input of the first step lies below it, none of
 * the second's (the first's values, and the first's inputs) lies below 2^-1021 / c^(K+1) either,
 * roundings aside. */

/* The threshold's high word: 2^(-1020 - 2 (K + 1) e), e the binary exponent of the smallest
 * non-zero constant among the warp's rows (transitions, and the match and mismatch priors); the
 * factor 4 above 2^-1022 / c^(2(K+1)) covers the two steps' roundings. e >= -61 (PHMM_MIN_CONST),
 * so the exponent stays below 2047. */
template <int K>
__device__ __forceinline__ uint32_t phmm_fast_hi(const double (&mm)[K], const double (&g)[K], const double (&mi)[K],
                                                 const double (&md)[K], const double (&cc)[K], const double *err,
                                                 const uint8_t *rb, int R, int i0)
{
	const double2 *prior = reinterpret_cast<const double2 *>(err + PHMM_TAB_PRIOR);
	int e = 0; /* every constant is at most 1 */
#pragma unroll
	for (int r = 0; r < K; ++r) {
		double2 p2 = {0, 0};
		if (i0 + r >= 0) p2 = prior[rb[R + i0 + r]];
		const double c[7] = {mm[r], g[r], mi[r], md[r], cc[r], p2.x, p2.y};
#pragma unroll
		for (int k = 0; k < 7; ++k)
			if (c[k] > 0) e = min(e, (__double2hiint(c[k]) >> 20) - 1023);
	}
	e = -gpu_reduce_max(-e);
	static_assert(3 + 2 * (K + 1) * 61 < 2047, "the threshold of phmm_fast_hi overflows");
	return (uint32_t)(3 - 2 * (K + 1) * e) << 20;
}

/* The smallest high word minus one of m and the K values, in unsigned arithmetic, so that 0 (high
 * word 0) wraps to the largest and counts as no value: one add-and-minimum each (one instruction on
 * sm_90). A value (>= 0, none subnormal) lies in (0, threshold) iff the result is below the
 * threshold's high word minus one. */
template <int K>
__device__ __forceinline__ uint32_t phmm_min_hi(const double (&v)[K], uint32_t m)
{
#pragma unroll
	for (int r = 0; r < K; ++r) m = min(m, (uint32_t)__double2hiint(v[r]) - 1u);
	return m;
}

/* On every lane (the ballot needs them all), after a step: whether any state of the warp is below
 * the threshold. The next step's inputs are these states (its own, and lane t - 1's as the row
 * above), and lane t - 1's last row one column back: a pair of steps may run fast when neither of
 * the last two votes found one (nor the checks of the row above the tile, for lane 0). Voting after
 * a step keeps the check off the next step's critical path. */
template <int K, bool SHARE>
__device__ __forceinline__ bool phmm_ftz_vote(const double (&M)[K], const double (&I)[K], const double (&D)[K],
                                              const double (&Q)[K], uint32_t hi)
{
	uint32_t m = phmm_min_hi<K>(D, phmm_min_hi<K>(I, phmm_min_hi<K>(M, ~0u)));
	if (SHARE) m = phmm_min_hi<K>(Q, m);
	return gpu_ballot(m < hi - 1) != 0;
}

/* A step of that kernel, fast or flushing (above). */
template <int K, bool FUSED, bool SHARE>
__device__ __forceinline__ void phmm_rows_ftz(bool fast, double (&M)[K], double (&I)[K], double (&D)[K], double (&Q)[K],
                                              const double (&mm)[K], const double (&g)[K], const double (&mi)[K],
                                              const double (&md)[K], const double (&cc)[K], const double (&pr)[K],
                                              double uM, double uI, double pM, double pI, double pD)
{
	if (fast) {
		phmm_rows<double, K, FUSED, SHARE, false>(M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, pM, pI, pD);
		return;
	}
	if (SHARE)
#pragma unroll
		for (int r = 0; r < K; ++r) Q[r] = phmm_ftz(Q[r]);
	phmm_rows<double, K, FUSED, SHARE, true>(M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, pM, pI, pD);
#pragma unroll
	for (int r = 0; r < K; ++r) M[r] = phmm_ftz(M[r]);
}

/* The tiled kernel's steps: plain phmm_rows, but for double with FTZ the choice above (elsewhere
 * the threshold and the votes are constants, which the compiler folds away). */
template <typename T, bool FTZ> struct phmm_tiled_steps {
	template <int K>
	static __device__ __forceinline__ uint32_t hi(const T (&)[K], const T (&)[K], const T (&)[K], const T (&)[K],
	                                              const T (&)[K], const T *, const uint8_t *, int, int)
	{
		return 0;
	}
	template <int K, bool SHARE>
	static __device__ __forceinline__ bool vote(const T (&)[K], const T (&)[K], const T (&)[K], const T (&)[K], uint32_t)
	{
		return false;
	}
	static __device__ __forceinline__ bool bound_vote(T, T, T, uint32_t) { return false; }
	template <int K, bool FUSED, bool SHARE>
	static __device__ __forceinline__ void step(bool, T (&M)[K], T (&I)[K], T (&D)[K], T (&Q)[K], const T (&mm)[K],
	                                            const T (&g)[K], const T (&mi)[K], const T (&md)[K], const T (&cc)[K],
	                                            const T (&pr)[K], T uM, T uI, T pM, T pI, T pD)
	{
		phmm_rows<T, K, FUSED, SHARE, FTZ>(M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, pM, pI, pD);
	}
};
template <> struct phmm_tiled_steps<double, true> {
	template <int K>
	static __device__ __forceinline__ uint32_t hi(const double (&mm)[K], const double (&g)[K], const double (&mi)[K],
	                                              const double (&md)[K], const double (&cc)[K], const double *err,
	                                              const uint8_t *rb, int R, int i0)
	{
		return phmm_fast_hi<K>(mm, g, mi, md, cc, err, rb, R, i0);
	}
	template <int K, bool SHARE>
	static __device__ __forceinline__ bool vote(const double (&M)[K], const double (&I)[K], const double (&D)[K],
	                                            const double (&Q)[K], uint32_t hi)
	{
		return phmm_ftz_vote<K, SHARE>(M, I, D, Q, hi);
	}
	/* Whether any value of a chunk of the row above the tile is below the threshold. */
	static __device__ __forceinline__ bool bound_vote(double m, double i, double d, uint32_t hi)
	{
		const double v[3] = {m, i, d};
		return gpu_ballot(phmm_min_hi<3>(v, ~0u) < hi - 1) != 0;
	}
	template <int K, bool FUSED, bool SHARE>
	static __device__ __forceinline__ void step(bool fast, double (&M)[K], double (&I)[K], double (&D)[K], double (&Q)[K],
	                                            const double (&mm)[K], const double (&g)[K], const double (&mi)[K],
	                                            const double (&md)[K], const double (&cc)[K], const double (&pr)[K],
	                                            double uM, double uI, double pM, double pI, double pD)
	{
		phmm_rows_ftz<K, FUSED, SHARE>(fast, M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, pM, pI, pD);
	}
};

/* The row above a tile (the previous tile's last row) for P consecutive columns: lane x of the
 * sub-warp holds column c * P + x + 1 of chunk c. Loaded a chunk ahead of its staging in shared
 * memory (phmm_stage), where lane 0 takes one column a step: it never waits on global memory in
 * the inner loop. */
template <typename T> struct phmm_bound_t {
	T M, I, D;
};

/* The tiled kernel's shared memory a sub-warp: the prior tables (phmm_table), then two chunks of
 * the row above the tile, 4 values a column (M, I, D and a pad, so that a column is one or two
 * 16-byte loads): the chunk lane 0 takes columns from, and the next. */
template <typename T, int P, int K> struct phmm_tiled_table {
	static constexpr int STAGE = 2 * P * 4;
	static constexpr int SIZE = phmm_table<T, P, K>::SIZE + STAGE;
};

/* One column of a staged chunk, at p (16-byte aligned), in 16-byte stores (phmm_sts). */
__device__ __forceinline__ void phmm_stage_col(float *p, float m, float i, float d)
{
	const float v[4] = {m, i, d, 0.f};
	phmm_sts(p, v);
}
__device__ __forceinline__ void phmm_stage_col(double *p, double m, double i, double d)
{
	const double mi[2] = {m, i}, d0[2] = {d, 0.0};
	phmm_sts(p, mi);
	phmm_sts(p + 2, d0);
}

template <typename T, int P>
__device__ __forceinline__ phmm_bound_t<T> phmm_load_bound(const T *scr, int chunk, int lane, int H, bool above)
{
	phmm_bound_t<T> b = {0, 0, 0};
	const int col = chunk * P + lane + 1;
	if (above && col <= H) b.M = scr[3 * col], b.I = scr[3 * col + 1], b.D = scr[3 * col + 2];
	return b;
}

/* What a thread of the tiled kernel keeps fixed through a tile. */
template <typename T> struct phmm_tile_ctx_t {
	T *scr;            /* the pair's scratch row (3 values a column) */
	T *stg;            /* the sub-warp's two staged chunks of the row above (phmm_tiled_table) */
	const uint8_t *hq; /* the haplotype classes, offset for this thread (phmm_short_body) */
	uint32_t tabl;     /* this thread's prior table (shared address) */
	uint32_t fast_hi;  /* FTZ: the fast steps' threshold (phmm_fast_hi) */
	int lane, H;
	T init;
	bool above, last;
	bool store; /* this thread writes its last row to scratch (the read's last tile does not) */
};

/* What it carries from one step to the next besides its rows: the row above one column back
 * (p*), the next chunk of the row above the tile to stage (nb), the FTZ votes after the last two
 * steps (v0, v1) and the checks of the row above in the chunk before, this one and the next (bt0,
 * bt1, nbt), and the last row's sums. */
template <typename T> struct phmm_carry_t {
	T pM, pI, pD, sm, si;
	phmm_bound_t<T> nb;
	bool v0, v1, bt0, bt1, nbt;
};

/* Chunk b of the row above into staging buffer buf % 2, lane x at column x; in the read's first
 * tile GKL's row 0 (M = I = 0, D = init). The caller syncs the warp before lane 0 reads it. */
template <typename T, int P>
__device__ __forceinline__ void phmm_stage(const phmm_tile_ctx_t<T> &c, int buf, const phmm_bound_t<T> &b)
{
	phmm_stage_col(c.stg + (buf % 2 * P + c.lane) * 4, b.M, b.I, c.above ? b.D : c.init);
}

/* Whether the next step of the FTZ kernel may run without flushes (phmm_tiled_steps). */
template <typename T> __device__ __forceinline__ bool phmm_fast(const phmm_carry_t<T> &v)
{
	return !(v.v0 || v.v1 || v.bt0 || v.bt1);
}

/* Whether steps s and s + 1 may (above); s + 1 may take the next chunk of the row above. */
template <typename T, int P> __device__ __forceinline__ bool phmm_fast2(const phmm_carry_t<T> &v, int s, int steps)
{
	return s + 1 < steps && phmm_fast(v) && !(s % P == P - 1 && v.nbt);
}

/* Step s of a tile. LAST: the read's last tile, whose last thread sums its last row, where the
 * others store it for the next tile. FILL: one of the first P - 1 steps, where the threads past
 * step s keep their column-0 state; the main loop's steps have no such branch, which would make
 * every step a join that the compiler pays for with register moves. SPEED (FTZ): 1 without
 * flushes, 2 with them, 0 as the votes say (phmm_fast). ROWVOTE (FTZ): the first step of a fast
 * pair, whose states the next pair takes only through the row above one column back (p*), so
 * that only the threads' last rows are voted on. */
template <typename T, int P, int K, bool FUSED, bool SHARE, bool FTZ, bool LAST, bool FILL, int SPEED = 0,
          bool ROWVOTE = false>
__device__ __forceinline__ void phmm_tile_step(int s, const phmm_tile_ctx_t<T> &c, phmm_carry_t<T> &v, T (&M)[K],
                                               T (&I)[K], T (&D)[K], T (&Q)[K], const T (&mm)[K], const T (&g)[K],
                                               const T (&mi)[K], const T (&md)[K], const T (&cc)[K], T (&pr)[K])
{
	typedef phmm_tiled_steps<T, FTZ> steps_t;
	const int j = s - c.lane + 1;
	const uint32_t hcn = c.hq[s];
	const int x = s % P;
	T uM = gpu_shfl_up(M[K - 1], 1, P);
	T uI = gpu_shfl_up(I[K - 1], 1, P);
	T uD = gpu_shfl_up(D[K - 1], 1, P);
	if (c.lane == 0) {
		const T *t = c.stg + s % (2 * P) * 4; /* column s + 1: chunk s / P, buffer s / P % 2 */
		uM = t[0], uI = t[1], uD = t[2];
	}
	const bool fast = SPEED ? SPEED == 1 : phmm_fast(v);
	if (!FILL || j >= 1) {
		steps_t::template step<K, FUSED, SHARE>(fast, M, I, D, Q, mm, g, mi, md, cc, pr, uM, uI, v.pM, v.pI, v.pD);
		if (!LAST && c.store && j <= c.H) c.scr[3 * j] = M[K - 1], c.scr[3 * j + 1] = I[K - 1], c.scr[3 * j + 2] = D[K - 1];
	}
	if (LAST && c.last) {
		/* Sums of values that are 0 or normal are 0 or normal: no flush (phmm_rows). */
		const bool take = j >= 1 && j <= c.H;
		v.sm = phmm_ops<T>::add(v.sm, take ? M[K - 1] : (T)0);
		v.si = phmm_ops<T>::add(v.si, take ? I[K - 1] : (T)0);
	}
	v.pM = uM, v.pI = uI, v.pD = uD;
	phmm_load_priors<T, K>(phmm_class_addr<T, P, K>(c.tabl, hcn), pr);
	v.v0 = v.v1;
	v.v1 = ROWVOTE ? steps_t::bound_vote(M[K - 1], I[K - 1], D[K - 1], c.fast_hi)
	               : steps_t::template vote<K, SHARE>(M, I, D, Q, c.fast_hi);
	if (x == P - 1) {
		phmm_stage<T, P>(c, s / P + 1, v.nb);
		gpu_syncwarp();
		v.nb = phmm_load_bound<T, P>(c.scr, s / P + 2, c.lane, c.H, c.above);
		v.bt0 = v.bt1, v.bt1 = v.nbt, v.nbt = steps_t::bound_vote(v.nb.M, v.nb.I, v.nb.D, c.fast_hi);
	}
}

/* One tile of the tiled kernel (below): its rows' state and constants, then its steps. */
template <typename T, int P, int K, bool FUSED, bool SHARE, bool FTZ, bool LAST>
__device__ __forceinline__ void phmm_tile(int row0, T *tab, const uint8_t *rb, int R, const T *err, const T *mmt, int steps,
                                          phmm_tile_ctx_t<T> &c, phmm_carry_t<T> &v)
{
	typedef phmm_tiled_steps<T, FTZ> steps_t;
	constexpr int KS = phmm_stride<T, K>::KS;
	T M[K], I[K], D[K], Q[K], mm[K], g[K], mi[K], md[K], cc[K], pr[K];
	/* Per-row transitions even for SHARE: keeping the read's one set in registers across the
	 * tiles' loop lost on long reads. */
	phmm_load_rows<T, P, K, FTZ>(tab + c.lane * KS, rb, R, row0 + c.lane * K, err, mmt, c.init, M, I, D, Q, mm, g, mi, md, cc);
	v.pM = 0, v.pI = 0, v.pD = !c.above && row0 + c.lane * K - 1 < 0 ? c.init : (T)0;
	c.fast_hi = steps_t::template hi<K>(mm, g, mi, md, cc, err, rb, R, row0 + c.lane * K);
	v.v0 = false, v.v1 = false, v.bt0 = false;
	phmm_load_priors<T, K>(phmm_class_addr<T, P, K>(c.tabl, c.hq[-1]), pr);
	const phmm_bound_t<T> b = phmm_load_bound<T, P>(c.scr, 0, c.lane, c.H, c.above);
	phmm_stage<T, P>(c, 0, b);
	gpu_syncwarp();
	v.nb = phmm_load_bound<T, P>(c.scr, 1, c.lane, c.H, c.above);
	v.bt1 = steps_t::bound_vote(b.M, b.I, b.D, c.fast_hi);
	v.nbt = steps_t::bound_vote(v.nb.M, v.nb.I, v.nb.D, c.fast_hi);
	int s = 0;
	for (; s < P - 1 && s < steps; ++s)
		phmm_tile_step<T, P, K, FUSED, SHARE, FTZ, LAST, true>(s, c, v, M, I, D, Q, mm, g, mi, md, cc, pr);
	if (!FTZ) {
#pragma unroll 2
		for (; s < steps; ++s)
			phmm_tile_step<T, P, K, FUSED, SHARE, FTZ, LAST, false>(s, c, v, M, I, D, Q, mm, g, mi, md, cc, pr);
	}
	/* FTZ: runs of fast pairs of steps and runs of flushing steps, in loops of their own. */
	while (FTZ && s < steps) {
		if (phmm_fast2<T, P>(v, s, steps)) {
			do {
				phmm_tile_step<T, P, K, FUSED, SHARE, FTZ, LAST, false, 1, true>(s, c, v, M, I, D, Q, mm, g, mi, md, cc, pr);
				phmm_tile_step<T, P, K, FUSED, SHARE, FTZ, LAST, false, 1>(s + 1, c, v, M, I, D, Q, mm, g, mi, md, cc, pr);
				s += 2;
			} while (phmm_fast2<T, P>(v, s, steps));
		} else {
			do phmm_tile_step<T, P, K, FUSED, SHARE, FTZ, LAST, false, 2>(s, c, v, M, I, D, Q, mm, g, mi, md, cc, pr);
			while (++s < steps && !phmm_fast2<T, P>(v, s, steps));
		}
	}
	gpu_syncwarp();
}

/* Reads longer than P*K rows: tiles of P*K rows, virtual rows at the top of the first one. The
 * last row of a tile goes through scratch (3 * (H + 1) values per pair, overwritten in place: a
 * column is read, two chunks ahead, long before the tile's last thread rewrites it) to the first
 * thread of the next tile. The haplotype classes come from the padded blob as in the short
 * kernel, so the main loop has no bounds checks. FTZ (double only): x86's flush after every
 * operation where it can matter (phmm_rows), in the steps where any can (phmm_tiled_steps); this
 * variant also takes the short kernels' flagged pairs, any length. */
template <typename T, int P, int K, bool FUSED, bool SHARE, bool FTZ>
__global__ void GPU_LAUNCH_BOUNDS(PHMM_GPU_BLOCK)
phmm_gpu_kernel(const phmm_gpu_pair_t *__restrict__ pairs, int npairs, const uint8_t *__restrict__ rblob,
                const uint8_t *__restrict__ hblob, const T *__restrict__ err, const T *__restrict__ mmt,
                T *__restrict__ scratch, const uint64_t *__restrict__ scratch_off, T *__restrict__ out)
{
	/* FTZ: the flushes that can matter (phmm_rows, phmm_tiled_steps), after which no state is
	 * subnormal: the sums take M as it is. */
	typedef typename phmm_arith<T, FTZ>::op op;
	constexpr int ROWS = P * K, KS = phmm_stride<T, K>::KS;
	const phmm_sub_t<T> me = phmm_sub_init<T, P, K, phmm_tiled_table<T, P, K>::SIZE>(pairs, npairs);
	const int sub = me.sub;
	const bool live = me.live;
	T *tab = me.tab;
	const phmm_gpu_pair_t pp = me.pp;
	const uint8_t *rb = rblob + pp.roff;
	const int R = pp.R;
	/* Every sub-warp of the warp runs the same number of steps so that shuffles stay converged;
	 * columns past a pair's own H are computed but never used. */
	const int hmax = gpu_reduce_max(pp.H);
	const int ntiles = (R + ROWS - 1) / ROWS;
	const int pad = ntiles * ROWS - R;
	const int steps = hmax + P - 1;
	phmm_tile_ctx_t<T> c;
	c.lane = me.lane, c.H = pp.H, c.last = c.lane == P - 1;
	/* Only a live sub-warp writes scratch: one past the launch's end repeats the last pair. */
	c.store = c.last && live;
	c.init = op::div(op::init(), (T)c.H);
	c.scr = scratch + scratch_off[live ? sub : npairs - 1];
	c.hq = hblob + pp.hoff + 1 - c.lane;
	c.tabl = gpu_smem_addr(tab + c.lane * KS);
	c.stg = tab + phmm_table<T, P, K>::SIZE;
	phmm_carry_t<T> v;
	v.sm = 0, v.si = 0;

	for (int tile = 0; tile < ntiles; ++tile) {
		const int row0 = tile * ROWS - pad; /* 0-based read row of the tile's first register */
		c.above = tile > 0;
		if (tile < ntiles - 1)
			phmm_tile<T, P, K, FUSED, SHARE, FTZ, false>(row0, tab, rb, R, err, mmt, steps, c, v);
		else
			phmm_tile<T, P, K, FUSED, SHARE, FTZ, true>(row0, tab, rb, R, err, mmt, steps, c, v);
	}
	if (live && c.last) out[pp.out] = op::add(v.sm, v.si);
}

#endif
