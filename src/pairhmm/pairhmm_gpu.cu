/* SPDX-License-Identifier: MIT */
/* GPU back end of the Pair-HMM engine: packs a pass's reads and haplotypes into one pinned
 * buffer, bins the pairs by read length onto kernel variants (pairhmm_gpu_kernel.cuh), and copies
 * the raw sums back. Sub-batches alternate between two streams so that the copies of one overlap
 * the kernels of the other. Every CUDA call is checked; out of memory halves the sub-batch. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/buf.h"
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/threads.h"
#include "pairhmm_engine.h"
#include "pairhmm_gpu_kernel.cuh"
#include "pairhmm_tables.h"

enum { NSTREAM = 2 };
/* Bins of a sub-batch are spread over these streams so that one bin's last blocks overlap the next
 * bin's first ones instead of leaving SMs idle at every bin's tail. */
#ifndef PHMM_BIN_STREAMS
#define PHMM_BIN_STREAMS 4
#endif
static_assert(PHMM_BIN_STREAMS >= 2, "bin profiling times with two of the bin events");

typedef struct {
	unsigned char *host, *dev; /* pinned staging and device copies of one sub-batch */
	size_t host_cap, dev_cap;
	unsigned char *hout;       /* pinned results */
	size_t hout_cap;
	cudaEvent_t done, k0, k1;  /* k0..k1 brackets the sub-batch's kernels */
	cudaEvent_t k_ready;       /* the haplotype classes are ready for the bins */
	cudaEvent_t bin_done[PHMM_BIN_STREAMS];
	int direct;                /* its sums come back in the pass's order (layout_t.direct) */
} slot_t;

enum { MAX_VARIANTS = 40 }; /* kernel variants (read-length bins) per precision */
enum { SCR_ORD, SCR_TMP, SCR_HIST, SCR_RMAP, SCR_HMAP, SCR_ROFF, SCR_HOFF, SCR_RLIST, SCR_HLIST, SCR_COUNT }; /* gpu_dev_t.scr */

/* One device. */
typedef struct gpu_dev_s {
	int dev, fused;
	char name[256];
	cudaStream_t st[NSTREAM], bst[PHMM_BIN_STREAMS];
	slot_t slot[NSTREAM];
	float *err_f, *mm_f;
	double *err_d, *mm_d;
	size_t max_batch_bytes; /* shrinks after an out-of-memory */
	double kernel_s;
	int profile;            /* gvk_pairhmm_opts_t.gpu_profile: host-side timings to the log */
	gvk_log_t log;
	int threads;            /* host threads that pack batches */
	double t_sort, t_pack, t_wait, t_scatter, t_prep;
	double bin_s[3][2 * MAX_VARIANTS], bin_cells[3][2 * MAX_VARIANTS]; /* gpu_profile 2: per bin and PASS_* */
	int share;              /* use the shared gap-open product where reads allow (gpu_gap_share) */
	/* Host arrays of a pass, kept between passes (fresh ones cost a page fault per 4 KiB). */
	gvk_buf_t scr[SCR_COUNT];
	/* The last float pass, when it took every pair of the call in one dense sub-batch: its reads
	 * and haplotypes (as classes by then) stay in slot 0's device buffer at these offsets, and
	 * roff / hoff (scratch arrays) hold each read's and haplotype's place there, so that the
	 * double pass that follows over some of the same pairs sends only their records. Any other
	 * pass clears it. */
	struct {
		int valid;
		const gvk_read_t *reads;
		const gvk_hap_t *haps;
		int32_t maxr, maxh;
		const size_t *roff, *hoff;
		size_t off_rb, off_hb;
	} kept;
} gpu_dev_t;

/* Scratch array `which` with room for `bytes`, contents undefined; NULL when out of memory. */
static void *scratch(gpu_dev_t *g, int which, size_t bytes) { return gvk_buf_reserve(&g->scr[which], bytes); }

/* ---- kernel variants: read-length bins ------------------------------------------------------ */

typedef void (*launch_fn)(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n,
                          const uint8_t *rb, const uint8_t *hb, const void *err, const void *mm, void *scratch,
                          const uint64_t *soff, void *out);

template <typename T, int P, int K, bool F, bool S>
static void launch_short(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n, const uint8_t *rb,
                         const uint8_t *hb, const void *err, const void *mm, void *scratch, const uint64_t *soff, void *out)
{
	(void)scratch, (void)soff;
	phmm_gpu_kernel_short<T, P, K, F, S><<<blocks, PHMM_GPU_BLOCK, smem, st>>>(pairs, n, rb, hb, (const T *)err,
	                                                                        (const T *)mm, (T *)out);
}

template <typename T, int P, int K, bool F, bool S, bool FTZ = false>
static void launch_tiled(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n, const uint8_t *rb,
                         const uint8_t *hb, const void *err, const void *mm, void *scratch, const uint64_t *soff, void *out)
{
	phmm_gpu_kernel<T, P, K, F, S, FTZ><<<blocks, PHMM_GPU_BLOCK, smem, st>>>(
		pairs, n, rb, hb, (const T *)err, (const T *)mm, (T *)scratch, soff, (T *)out);
}

/* Loads a kernel's code onto the device: under CUDA's lazy module loading the first launch of
 * each variant would otherwise pay for it, inside a caller's batch. */
typedef cudaError_t (*load_fn)(void);

template <typename T, int P, int K, bool F, bool S> static cudaError_t load_short(void)
{
	cudaFuncAttributes a;
	return cudaFuncGetAttributes(&a, phmm_gpu_kernel_short<T, P, K, F, S>);
}

template <typename T, int P, int K, bool F, bool S, bool FTZ = false> static cudaError_t load_tiled(void)
{
	cudaFuncAttributes a;
	return cudaFuncGetAttributes(&a, phmm_gpu_kernel<T, P, K, F, S, FTZ>);
}

typedef struct {
	int P, K, table;    /* table: prior-table elements per sub-warp */
	launch_fn fn[2][2]; /* [shared gap-open product][fused] */
	load_fn load[2][2];
} variant_t;

/* Read-length bins, in rising order of rows (P * K), fine enough that a read wastes few virtual
 * rows: every virtual row costs as much as a real one. Reads up to 16 rows get a thread each (no
 * shuffles, no fill), then sub-warps of 2, 4, 8, 16 and 32 threads; the last entry of each table
 * takes every longer read, in tiles. */
#define V(T, P, K)                                                                                  \
	{P, K, phmm_table<T, P, K>::SIZE,                                                               \
	 {{launch_short<T, P, K, false, false>, launch_short<T, P, K, true, false>},                    \
	  {launch_short<T, P, K, false, true>, launch_short<T, P, K, true, true>}},                     \
	 {{load_short<T, P, K, false, false>, load_short<T, P, K, true, false>},                        \
	  {load_short<T, P, K, false, true>, load_short<T, P, K, true, true>}}}
#define VT(T, P, K, FTZ)                                                                            \
	{P, K, phmm_table<T, P, K>::SIZE,                                                               \
	 {{launch_tiled<T, P, K, false, false, FTZ>, launch_tiled<T, P, K, true, false, FTZ>},          \
	  {launch_tiled<T, P, K, false, true, FTZ>, launch_tiled<T, P, K, true, true, FTZ>}},           \
	 {{load_tiled<T, P, K, false, false, FTZ>, load_tiled<T, P, K, true, false, FTZ>},              \
	  {load_tiled<T, P, K, false, true, FTZ>, load_tiled<T, P, K, true, true, FTZ>}}}

static const variant_t variants_f[] = {
	V(float, 1, 4),   V(float, 1, 8),   V(float, 1, 10),  V(float, 1, 12),  V(float, 1, 14),  V(float, 1, 16),
	V(float, 2, 10),  V(float, 2, 12),  V(float, 2, 14),  V(float, 2, 16),  V(float, 4, 9),   V(float, 4, 10),
	V(float, 4, 11),  V(float, 4, 12),  V(float, 4, 13),  V(float, 4, 14),  V(float, 4, 15),  V(float, 4, 16),
	V(float, 8, 9),   V(float, 8, 10),  V(float, 8, 11),  V(float, 8, 12),  V(float, 8, 13),  V(float, 8, 14),
	V(float, 8, 15),  V(float, 8, 16),  V(float, 16, 9),  V(float, 16, 10), V(float, 16, 12), V(float, 16, 14),
	V(float, 16, 16), V(float, 32, 9),  V(float, 32, 10), V(float, 32, 12), V(float, 32, 14), V(float, 32, 16),
	VT(float, 32, 16, false)};
/* Double: the pairs that underflow in float, mostly HaplotypeCaller's longest reads (129-151 bp),
 * hence 16 x 9 and 16 x 10 before 32 x 8. The one-tile variants compute without x86's FTZ and
 * flag the pairs where it could matter (phmm_trip), which then run again on the tiled variant;
 * that one always flushes, since in reads longer than 256 bases most pairs would be flagged (on
 * random pairs of 1-2000 bases, 87 % of those in double). */
static const variant_t variants_d[] = {V(double, 4, 4),   V(double, 4, 8),  V(double, 8, 8),
                                       V(double, 16, 8),  V(double, 16, 9), V(double, 16, 10),
                                       V(double, 32, 8),  VT(double, 32, 8, true)};
#undef V
#undef VT
#define NVAR_F (int)(sizeof variants_f / sizeof variants_f[0])
#define NVAR_D (int)(sizeof variants_d / sizeof variants_d[0])
static_assert(NVAR_F <= MAX_VARIANTS && NVAR_D <= MAX_VARIANTS, "bins are counted in MAX_VARIANTS");

/* A pass's precision: float, double, or double with FTZ (PASS_FTZ, the flagged pairs again). */
enum { PASS_FLOAT, PASS_DOUBLE, PASS_FTZ };

/* A pass's kernel variants and their number; a PASS_FTZ pass has only the tiled double one, for
 * every length. */
static const variant_t *var_table(int dbl) { return dbl == PASS_FTZ ? &variants_d[NVAR_D - 1] : dbl ? variants_d : variants_f; }
static int var_count(int dbl) { return dbl == PASS_FTZ ? 1 : dbl ? NVAR_D : NVAR_F; }

/* The first variant with at least R rows (the tables rise in rows), by bisection: it runs for
 * every pair of a pass. */
static int pick_variant(int R, int dbl)
{
	const variant_t *v = var_table(dbl);
	int lo = 0, hi = var_count(dbl) - 1; /* the last one takes every longer read, in tiles */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (v[mid].P * v[mid].K >= R) hi = mid; else lo = mid + 1;
	}
	return lo;
}

/* Staging bytes of one pair (read and haplotype, its record, and scratch when its read is done in
 * tiles): the measure by which passes are split. */
static size_t pair_bytes(int R, int H, int dbl)
{
	const variant_t *v = var_table(dbl);
	const int nv = var_count(dbl);
	const int one_tile = nv > 1 ? v[nv - 2].P * v[nv - 2].K : 0; /* rows of the largest one-tile variant */
	size_t scratch = R > one_tile ? (dbl ? 24 : 12) * ((size_t)H + 1) : 0;
	return 5 * (size_t)R + (size_t)H + 32 + scratch;
}

/* A read with one gap quality throughout: every insertion and deletion quality the same byte,
 * and every gap continuation quality the same byte. Then mi[r] == md[r-1], so the kernels may
 * share the product, and every row's gap transitions are the same numbers (phmm_rows,
 * phmm_load_rows: SHARE). */
static int read_shares_gap_open(const gvk_read_t *r)
{
	const size_t n = (size_t)r->len;
	return n > 0 && (memcmp(r->ins, r->del, n) == 0 && memcmp(r->ins, r->ins + 1, n - 1) == 0 &&
	                  memcmp(r->gcp, r->gcp + 1, n - 1) == 0);
}

/* Whether at least half of a pass's pairs (judged on up to 1024 of them, evenly spaced) have
 * reads that allow the shared gap-open product. Only then do the sort keys tell them apart: the
 * split moves them behind the others of their variant, and on input where few qualify (such as
 * HaplotypeCaller-shaped pairs, where only a few short reads do) that costs more than it saves,
 * even with no launch of their own. */
static int pass_mostly_shares(const gvk_read_t *reads, const gvk_pair_t *pairs, const size_t *sel, size_t n)
{
	const size_t m = n < 1024 ? n : 1024;
	size_t yes = 0;
	for (size_t k = 0; k < m; ++k) {
		size_t x = n * k / m;
		yes += (size_t)read_shares_gap_open(&reads[pairs[sel ? sel[x] : x].read]);
	}
	return 2 * yes >= m;
}

/* Passes of fewer pairs than this (a few merged GATK regions) are latency-bound: every launch
 * and every host pass over the sort keys adds to each caller's wait, so they use fewer, coarser
 * bins and a comparison sort. Any variant with enough rows gives the same bits. */
enum { SMALL_PASS = 4096 };

/* The first variant from v on whose rows are a power of two (or the tiled one): at most one bin
 * per doubling of the read length. */
static int coarse_variant(int v, int dbl)
{
	const variant_t *t = var_table(dbl);
	for (; v < var_count(dbl) - 1; ++v) {
		const int rows = t[v].P * t[v].K;
		if ((rows & (rows - 1)) == 0) break;
	}
	return v;
}

/* A pass's bin is 2 * variant + share; within a bin, longer haplotypes first, in buckets of 4
 * columns up to 512 and of 16 after that (up to 2,544), since every sub-warp of a warp runs as
 * many steps as the warp's longest haplotype. */
static uint32_t order_key(int R, int H, int dbl, int share, int coarse)
{
	uint32_t hb = H < 512 ? (uint32_t)H / 4 : 128u + (uint32_t)(H - 512) / 16;
	int v = pick_variant(R, dbl);
	if (coarse) v = coarse_variant(v, dbl);
	return (uint32_t)(2 * v + share) << 8 | (255u - (hb < 255u ? hb : 255u));
}

/* ---- device set-up -------------------------------------------------------------------------- */

/* A copy of n bytes at src in new GPU memory at *dst (freed by dev_close). */
template <typename T> static int upload(T **dst, const T *src, size_t n, gvk_err_t *err)
{
	CK(cudaMalloc(dst, n));
	CK(cudaMemcpy(*dst, src, n, cudaMemcpyHostToDevice));
	return 0;
}

/* The kernels' error table (PHMM_TAB_*): err[b], then the priors {1 - err[b], err[b] / 3} in the
 * CPU engine's arithmetic, so that both engines start from the same numbers. */
static int upload_tables(gpu_dev_t *g, gvk_err_t *err)
{
	enum { NMM = 128 * 129 / 2 };
	float ef[PHMM_TAB_SIZE];
	double ed[PHMM_TAB_SIZE];
	for (int b = 0; b < 256; ++b) {
		const float e = phmm_err_f[b & 127].f;
		const double d = phmm_err_d[b & 127].f;
		ef[b] = e, ef[PHMM_TAB_PRIOR + 2 * b] = 1.0f - e, ef[PHMM_TAB_PRIOR + 2 * b + 1] = e / 3.0f;
		ed[b] = d, ed[PHMM_TAB_PRIOR + 2 * b] = 1.0 - d, ed[PHMM_TAB_PRIOR + 2 * b + 1] = d / 3.0;
	}
	/* On the heap, not static: each GPU's engines start on a thread of their own. */
	float *mf = (float *)malloc(NMM * sizeof *mf);
	double *md = (double *)malloc(NMM * sizeof *md);
	if (!mf || !md) return free(mf), free(md), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int k = 0; k < NMM; ++k) mf[k] = phmm_mm_f[k].f, md[k] = phmm_mm_d[k].f;
	/* The double kernels' check for FTZ (phmm_trip) holds only for constants that are 0 or in
	 * [2^-61, 1]. */
	double low = 1, high = 0;
	for (int k = 0; k < PHMM_TAB_SIZE + NMM; ++k) {
		const double v = k < PHMM_TAB_SIZE ? ed[k] : md[k - PHMM_TAB_SIZE];
		if (v != 0) low = v < low ? v : low, high = v > high ? v : high;
	}
	if (low < PHMM_MIN_CONST || high > 1)
		return free(mf), free(md), gvk_err_set(err, GVK_ERR_ARG, "internal: Pair-HMM constants in [%g, %g]", low, high);
	int rc = upload(&g->err_f, ef, sizeof ef, err);
	if (rc == 0) rc = upload(&g->err_d, ed, sizeof ed, err);
	if (rc == 0) rc = upload(&g->mm_f, mf, NMM * sizeof *mf, err);
	if (rc == 0) rc = upload(&g->mm_d, md, NMM * sizeof *md, err);
	free(mf), free(md);
	return rc;
}

/* Every kernel this device will launch, loaded now (see load_fn): the engine's start-up pays
 * once what the first batches of each length would pay. */
static int load_kernels(gpu_dev_t *g, gvk_err_t *err)
{
	for (int dbl = 0; dbl < 2; ++dbl) {
		const variant_t *v = dbl ? variants_d : variants_f;
		for (int k = 0; k < (dbl ? NVAR_D : NVAR_F); ++k)
			for (int sh = 0; sh <= g->share; ++sh) CK(v[k].load[sh][g->fused]());
	}
	cudaFuncAttributes a;
	CK(cudaFuncGetAttributes(&a, phmm_gpu_hap_classes));
	return 0;
}

static int gpu_init(gpu_dev_t *g, int dev, const gvk_pairhmm_opts_t *opt, gvk_err_t *err)
{
	g->dev = dev;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, g->dev));
	if (prop.major < 8)
		return gvk_err_set(err, GVK_ERR_GPU, "GPU %s has compute capability %d.%d; gvk needs 8.0 or newer", prop.name,
		                   prop.major, prop.minor);
	snprintf(g->name, sizeof g->name, "%s", prop.name);
	CK(cudaSetDevice(g->dev));
	g->fused = opt->flavour == GVK_PHMM_FMA;
	g->threads = opt->threads > 0 ? opt->threads : gvk_ncpu();
	for (int s = 0; s < NSTREAM; ++s) {
		CK(cudaStreamCreateWithFlags(&g->st[s], cudaStreamNonBlocking));
		/* The CLI's engines wait on `done` while the parser and the other engine need every core:
		 * they sleep until the GPU signals instead of spinning. A shared engine's waiter is a
		 * caller with nothing else to do, whose wake-up would add to every merged batch. */
		CK(cudaEventCreateWithFlags(&g->slot[s].done, cudaEventDisableTiming | (opt->shared ? 0 : cudaEventBlockingSync)));
		CK(cudaEventCreate(&g->slot[s].k0));
		CK(cudaEventCreateWithFlags(&g->slot[s].k_ready, cudaEventDisableTiming));
		CK(cudaEventCreate(&g->slot[s].k1));
		for (int b = 0; b < PHMM_BIN_STREAMS; ++b)
			CK(cudaEventCreate(&g->slot[s].bin_done[b])); /* timed when profiling bins */
	}
	for (int b = 0; b < PHMM_BIN_STREAMS; ++b) CK(cudaStreamCreateWithFlags(&g->bst[b], cudaStreamNonBlocking));
	g->max_batch_bytes = (size_t)1 << 30;
	g->profile = opt->gpu_profile;
	g->share = opt->gpu_gap_share != 0;
	g->log = opt->log;
	int rc = upload_tables(g, err);
	return rc < 0 ? rc : load_kernels(g, err);
}

static void dev_close(gpu_dev_t *g)
{
	if (!g) return;
	cudaSetDevice(g->dev);
	for (int s = 0; s < NSTREAM; ++s) {
		if (g->st[s]) cudaStreamSynchronize(g->st[s]);
		gvk_cuda_free((void **)&g->slot[s].host, &g->slot[s].host_cap, GVK_MEM_PINNED);
		gvk_cuda_free((void **)&g->slot[s].hout, &g->slot[s].hout_cap, GVK_MEM_PINNED);
		cudaFree(g->slot[s].dev);
		if (g->slot[s].done) cudaEventDestroy(g->slot[s].done);
		if (g->slot[s].k0) cudaEventDestroy(g->slot[s].k0);
		if (g->slot[s].k_ready) cudaEventDestroy(g->slot[s].k_ready);
		if (g->slot[s].k1) cudaEventDestroy(g->slot[s].k1);
		for (int b = 0; b < PHMM_BIN_STREAMS; ++b)
			if (g->slot[s].bin_done[b]) cudaEventDestroy(g->slot[s].bin_done[b]);
		if (g->st[s]) cudaStreamDestroy(g->st[s]);
	}
	for (int b = 0; b < PHMM_BIN_STREAMS; ++b)
		if (g->bst[b]) cudaStreamSynchronize(g->bst[b]), cudaStreamDestroy(g->bst[b]);
	cudaFree(g->err_f), cudaFree(g->err_d), cudaFree(g->mm_f), cudaFree(g->mm_d);
	for (int k = 0; k < SCR_COUNT; ++k) gvk_buf_free(&g->scr[k]);
	free(g);
}

enum { MAX_GPUS = 16 };

/* Every visible GPU of compute capability 8.0 or newer, or the one gvk_pairhmm_opts_t.gpu names;
 * a pass is split between them. */
struct phmm_gpu_s {
	int n;
	gpu_dev_t *d[MAX_GPUS];
	char name[300];
};

extern "C" int phmm_gpu_count(void)
{
	int n = 0;
	return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" phmm_gpu_t *phmm_gpu_open(const gvk_pairhmm_opts_t *opt, gvk_err_t *err)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		/* No GPU or no driver: nothing to warn about in auto mode (GVK_ERR_UNSUPPORTED). */
		gvk_err_set(err, GVK_ERR_UNSUPPORTED, "no CUDA GPU: %s", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
		return NULL;
	}
	if (opt->gpu >= n) {
		gvk_err_set(err, GVK_ERR_ARG, "GPU %d asked for, but %d visible", opt->gpu, n);
		return NULL;
	}
	const int first = opt->gpu >= 0 ? opt->gpu : 0, last = opt->gpu >= 0 ? opt->gpu + 1 : n;
	phmm_gpu_t *g = (phmm_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (int dev = first; dev < last && g->n < MAX_GPUS; ++dev) {
		gpu_dev_t *d = (gpu_dev_t *)calloc(1, sizeof *d);
		if (!d || gpu_init(d, dev, opt, err) < 0) {
			dev_close(d);
			phmm_gpu_close(g);
			return NULL;
		}
		g->d[g->n++] = d;
	}
	if (g->n == 1)
		snprintf(g->name, sizeof g->name, "%s", g->d[0]->name);
	else
		snprintf(g->name, sizeof g->name, "%d x %s", g->n, g->d[0]->name);
	return g;
}

extern "C" void phmm_gpu_close(phmm_gpu_t *g)
{
	if (!g) return;
	for (int k = 0; k < g->n; ++k) dev_close(g->d[k]);
	free(g);
}

extern "C" const char *phmm_gpu_name(const phmm_gpu_t *g) { return g->name; }

extern "C" double phmm_gpu_kernel_seconds(const phmm_gpu_t *g)
{
	double s = 0;
	for (int k = 0; k < g->n; ++k) s += g->d[k]->kernel_s;
	return s;
}

/* ---- one pass ------------------------------------------------------------------------------- */

typedef struct {
	uint32_t key; /* bin << 8 | longest-first haplotype length bucket */
	uint32_t k;   /* position in the pass's selection */
} order_t;

enum { MAX_BINS = 2 * MAX_VARIANTS, ORDER_KEYS = MAX_BINS << 8, MAX_SCAN_THREADS = 64 };

/* Bin by read length, then longest haplotypes first (order_key's buckets) so that a warp's pairs end
 * together; the sort is stable, so pairs of one region stay together, which keeps the packing's
 * reads of host memory local. Done on all host threads: one pass over the pairs for the keys,
 * per-thread histograms, the maximum read and haplotype indices and the staging bytes, then a
 * scatter (a serial sort of a million pairs cost more host time than the kernels). */
typedef struct {
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	const size_t *sel;
	size_t n;
	int dbl, nt, share; /* share: look for reads that allow the shared gap-open product */
	int coarse;         /* a small pass (SMALL_PASS) */
	order_t *ord;
	uint32_t (*hist)[ORDER_KEYS];
	int32_t maxr[MAX_SCAN_THREADS], maxh[MAX_SCAN_THREADS];
	size_t bytes[MAX_SCAN_THREADS];
} scan_job_t;

static void scan_worker(void *arg, int t)
{
	scan_job_t *j = (scan_job_t *)arg;
	size_t b = j->n * (size_t)t / (size_t)j->nt, e = j->n * (size_t)(t + 1) / (size_t)j->nt, bytes = 0;
	int32_t mr = 0, mh = 0;
	uint32_t *h = j->hist ? j->hist[t] : NULL;
	if (h) memset(h, 0, sizeof j->hist[t]);
	for (size_t k = b; k < e; ++k) {
		const gvk_pair_t *p = &j->pairs[j->sel ? j->sel[k] : k];
		const gvk_read_t *r = &j->reads[p->read];
		int R = r->len, H = j->haps[p->hap].len;
		uint32_t key = order_key(R, H, j->dbl, j->share && read_shares_gap_open(r), j->coarse);
		j->ord[k].key = key;
		if (h) h[key]++;
		mr = p->read > mr ? p->read : mr, mh = p->hap > mh ? p->hap : mh;
		bytes += pair_bytes(R, H, j->dbl);
	}
	j->maxr[t] = mr, j->maxh[t] = mh, j->bytes[t] = bytes;
}

typedef struct {
	scan_job_t *s;
	order_t *out;
} scatter_job_t;

static void order_scatter_worker(void *arg, int t)
{
	scatter_job_t *j = (scatter_job_t *)arg;
	const scan_job_t *s = j->s;
	size_t b = s->n * (size_t)t / (size_t)s->nt, e = s->n * (size_t)(t + 1) / (size_t)s->nt;
	uint32_t *pos = s->hist[t];
	for (size_t k = b; k < e; ++k) j->out[pos[s->ord[k].key]++] = (order_t){s->ord[k].key, (uint32_t)k};
}

static int cmp_order(const void *a, const void *b)
{
	const order_t *x = (const order_t *)a, *y = (const order_t *)b;
	return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->k < y->k ? -1 : x->k > y->k);
}

/* A small pass's order: keys on one thread, then a comparison sort on (key, position), which is
 * the counting sort's stable order without its passes over every possible key. */
static int order_small(gpu_dev_t *g, scan_job_t *s, order_t **ordp)
{
	order_t *ord = (order_t *)scratch(g, SCR_ORD, s->n * sizeof *ord);
	if (!ord) return GVK_ERR_NOMEM;
	s->ord = ord, s->hist = NULL, s->nt = 1;
	scan_worker(s, 0);
	for (size_t k = 0; k < s->n; ++k) ord[k].k = (uint32_t)k;
	qsort(ord, s->n, sizeof *ord, cmp_order);
	s->ord = NULL;
	*ordp = ord;
	return 0;
}

/* Sorts the pass's pairs into *ordp (the device's scratch) and returns the scan's totals in s. */
static int order_pairs(gpu_dev_t *g, scan_job_t *s, order_t **ordp)
{
	if (s->coarse) return order_small(g, s, ordp);
	order_t *tmp = (order_t *)scratch(g, SCR_TMP, s->n * sizeof *tmp), *ord = (order_t *)scratch(g, SCR_ORD, s->n * sizeof *ord);
	s->hist = (uint32_t(*)[ORDER_KEYS])scratch(g, SCR_HIST, ((size_t)s->nt + 1) * sizeof *s->hist);
	if (!tmp || !ord || !s->hist) return s->hist = NULL, GVK_ERR_NOMEM;
	s->ord = tmp;
	gvk_parallel(s->nt, scan_worker, s);
	/* Each thread's start within each key, keys in order and threads in order within a key (a
	 * stable sort), in passes along the histograms' rows: walking key by key strides through
	 * all of them. The extra row holds the keys' running counts, then their bases. */
	uint32_t *run = s->hist[s->nt], sum = 0;
	memset(run, 0, sizeof s->hist[0]);
	for (int t = 0; t < s->nt; ++t)
		for (int key = 0; key < ORDER_KEYS; ++key) {
			uint32_t c = s->hist[t][key];
			s->hist[t][key] = run[key], run[key] += c;
		}
	for (int key = 0; key < ORDER_KEYS; ++key) {
		uint32_t c = run[key];
		run[key] = sum, sum += c;
	}
	for (int t = 0; t < s->nt; ++t)
		for (int key = 0; key < ORDER_KEYS; ++key) s->hist[t][key] += run[key];
	scatter_job_t sj = {s, ord};
	gvk_parallel(s->nt, order_scatter_worker, &sj);
	s->hist = NULL, s->ord = NULL;
	*ordp = ord;
	return 0;
}

/* A sub-batch laid out for one copy: pair records, scratch offsets, read blob, haplotype blob. */
typedef struct {
	size_t n;                 /* pairs */
	size_t off_soff, off_rb, off_hb, bytes;
	size_t scratch_elems;
	int nbins, bin_var[MAX_BINS]; /* bin: 2 * variant + share */
	size_t bin_start[MAX_BINS + 1];
	int direct;               /* the whole pass: sums come back in the pass's order */
	const uint8_t *rb_dev, *hb_dev; /* set: the blobs of the float pass kept in slot 0 (gpu_dev_t.kept) */
} layout_t;

static size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

/* Pinning host memory is slow (src/common/cuda_mem.cu), so the staging buffers grow in powers of
 * two from min bytes and are kept until the engine closes; device buffers likewise. */
static int ensure_host(unsigned char **p, size_t *cap, size_t need, size_t min, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve((void **)p, cap, need, GVK_MEM_PINNED, GVK_GROW_POW2, min, what, err);
}

static int ensure_dev(unsigned char **p, size_t *cap, size_t need, gvk_err_t *err)
{
	return gvk_cuda_reserve((void **)p, cap, need, GVK_MEM_DEVICE, GVK_GROW_POW2, (size_t)64 << 20, "a sub-batch", err);
}

typedef struct {
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	const size_t *sel;
	const order_t *ord; /* pairs of the pass sorted by (bin, -H) */
	int dbl;
	uint32_t *rmap, *hmap; /* read / hap index -> 0 unused, 1 in use, else blob offset + 2 */
	/* Dense passes (most reads and haplotypes in use, as from the CLI) pack every read and
	 * haplotype at offsets known in advance, on all threads. */
	int all;
	int32_t maxr, maxh;
	size_t *roff_all, *hoff_all, rbytes_all, hbytes_all;
	int hmax_all;
	size_t total_bytes; /* staging bytes of the whole pass (batch_end's measure) */
	size_t n;           /* pairs in the pass */
	int kept;           /* a double pass on the float pass's blobs (gpu_dev_t.kept) */
} pass_ctx_t;

static const gvk_pair_t *pair_at(const pass_ctx_t *c, size_t k) { return &c->pairs[c->sel ? c->sel[k] : k]; }

/* A pair's kernel record; the three packings differ only in where the blobs' offsets come from. */
static phmm_gpu_pair_t pair_rec(const pass_ctx_t *c, const gvk_pair_t *p, size_t roff, size_t hoff, uint32_t out)
{
	return (phmm_gpu_pair_t){(uint32_t)roff, (uint32_t)hoff, c->reads[p->read].len, c->haps[p->hap].len, out};
}

typedef struct {
	const pass_ctx_t *c;
	uint8_t *rb, *hb;
	phmm_gpu_pair_t *rec;
	size_t b0, b1;
	int direct, nt;
} dense_job_t;

/* A read's five arrays to dst, one after the other (5 R bytes): the kernels' layout. */
static void copy_read(uint8_t *dst, const gvk_read_t *r)
{
	size_t R = (size_t)r->len;
	memcpy(dst, r->bases, R), memcpy(dst + R, r->qual, R), memcpy(dst + 2 * R, r->ins, R);
	memcpy(dst + 3 * R, r->del, R), memcpy(dst + 4 * R, r->gcp, R);
}

/* A read whose five arrays follow each other in memory, as one block of 5 R bytes. */
static int read_is_flat(const gvk_read_t *r)
{
	const uint8_t *b = (const uint8_t *)r->bases;
	const size_t R = (size_t)r->len;
	return r->qual == b + R && r->ins == b + 2 * R && r->del == b + 3 * R && r->gcp == b + 4 * R;
}

static void dense_worker(void *arg, int t)
{
	dense_job_t *j = (dense_job_t *)arg;
	const pass_ctx_t *c = j->c;
	size_t nr = (size_t)c->maxr + 1, nh = (size_t)c->maxh + 1, np = j->b1 - j->b0;
	const size_t r1 = nr * (size_t)(t + 1) / (size_t)j->nt;
	for (size_t i = nr * (size_t)t / (size_t)j->nt; i < r1;) {
		const gvk_read_t *r = &c->reads[i];
		size_t R = (size_t)r->len, o = c->roff_all[i];
		if (!read_is_flat(r)) {
			copy_read(j->rb + o, r);
			++i;
			continue;
		}
		/* Reads stored back to back in the caller's memory (the CLI's parser does) go in one copy. */
		size_t len = 5 * R;
		for (++i; i < r1 && read_is_flat(&c->reads[i]) && c->reads[i].bases == r->bases + len; ++i) len += 5 * (size_t)c->reads[i].len;
		memcpy(j->rb + o, r->bases, len);
	}
	/* Haplotypes as they are (the GPU turns them into classes), stored back to back in one copy. */
	const size_t h1 = nh * (size_t)(t + 1) / (size_t)j->nt;
	for (size_t i = nh * (size_t)t / (size_t)j->nt; i < h1;) {
		const gvk_hap_t *h = &c->haps[i];
		size_t o = c->hoff_all[i], len = (size_t)h->len;
		for (++i; i < h1 && c->haps[i].bases == h->bases + len; ++i) len += (size_t)c->haps[i].len;
		memcpy(j->hb + o, h->bases, len);
	}
	for (size_t k = np * (size_t)t / (size_t)j->nt; k < np * (size_t)(t + 1) / (size_t)j->nt; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[j->b0 + k].k);
		j->rec[k] = pair_rec(c, p, c->roff_all[p->read], c->hoff_all[p->hap], j->direct ? c->ord[j->b0 + k].k : (uint32_t)k);
	}
}

/* The first k in [lo, hi) with ord[k].key >> shift > v (keys are sorted). */
static size_t key_run_end(const order_t *ord, size_t lo, size_t hi, int shift, uint32_t v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ord[mid].key >> shift <= v) lo = mid + 1; else hi = mid;
	}
	return lo;
}

/* Bins and scratch offsets of ord[b0, b1), shared by both packings. The keys are sorted, so a
 * bin is a run; only the largest (tiled) variant needs scratch. A variant's pairs that may share
 * the gap-open product follow the others (bin 2v + 1 after 2v) and get a launch of their own only
 * when they are at least half of the variant's; otherwise they run with the others. A small extra
 * launch per variant, with its own tail, costs more than the sharing saves (on
 * HaplotypeCaller-shaped pairs, where a few short reads qualify; see pass_mostly_shares). */
static void pack_bins(const pass_ctx_t *c, size_t b0, size_t b1, uint64_t *soff, layout_t *L)
{
	const uint32_t largest = (uint32_t)var_count(c->dbl) - 1;
	memset(soff, 0, (b1 - b0) * sizeof *soff);
	for (size_t k = b0; k < b1;) {
		const uint32_t v = c->ord[k].key >> 9;
		const size_t end = key_run_end(c->ord, k, b1, 9, v), mid = key_run_end(c->ord, k, end, 8, 2 * v);
		const int split = mid > k && end > mid && 2 * (end - mid) >= end - k;
		L->bin_var[L->nbins] = (int)(2 * v + (mid == k)); /* mid == k: every pair may share */
		L->bin_start[L->nbins++] = k - b0;
		if (split) L->bin_var[L->nbins] = (int)(2 * v + 1), L->bin_start[L->nbins++] = mid - b0;
		if (v == largest)
			for (size_t x = k; x < end; ++x) {
				soff[x - b0] = L->scratch_elems;
				L->scratch_elems += 3 * ((size_t)c->haps[pair_at(c, c->ord[x].k)->hap].len + 1);
			}
		k = end;
	}
	L->bin_start[L->nbins] = L->n;
}

static int pack_dense(gpu_dev_t *g, slot_t *sl, const pass_ctx_t *c, size_t b0, size_t b1, layout_t *L, gvk_err_t *err)
{
	const size_t hpad = 64;
	memset(L, 0, sizeof *L);
	L->n = b1 - b0, L->direct = b0 == 0 && b1 == c->n;
	L->off_soff = align16(L->n * sizeof(phmm_gpu_pair_t));
	L->off_rb = L->off_soff + align16(L->n * sizeof(uint64_t));
	L->off_hb = L->off_rb + align16(c->rbytes_all);
	size_t hbytes = c->hbytes_all + (size_t)c->hmax_all + hpad;
	L->bytes = L->off_hb + align16(hbytes);
	if (L->off_hb + hbytes > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "GPU sub-batch over 4 GiB");
	int rc = ensure_host(&sl->host, &sl->host_cap, L->bytes, (size_t)64 << 20, "a sub-batch's staging", err);
	if (rc < 0) return rc;
	uint8_t *hb = sl->host + L->off_hb;
	memset(hb, 0, hpad);
	memset(hb + c->hbytes_all, 0, (size_t)c->hmax_all + hpad);
	dense_job_t j = {c, sl->host + L->off_rb, hb, (phmm_gpu_pair_t *)sl->host, b0, b1, L->direct, g->threads};
	gvk_parallel(g->threads, dense_worker, &j);
	pack_bins(c, b0, b1, (uint64_t *)(sl->host + L->off_soff), L);
	return 0;
}

/* The copies of a sparse pass: reads rl[0, nr) and haplotypes hl[0, nh) to the places the maps
 * hold (offset + 2). */
typedef struct {
	const pass_ctx_t *c;
	uint8_t *rb, *hb;
	const int32_t *rl, *hl;
	size_t nr, nh;
	int nt;
} sparse_job_t;

static void sparse_worker(void *arg, int t)
{
	const sparse_job_t *j = (const sparse_job_t *)arg;
	const pass_ctx_t *c = j->c;
	for (size_t i = j->nr * (size_t)t / (size_t)j->nt; i < j->nr * (size_t)(t + 1) / (size_t)j->nt; ++i)
		copy_read(j->rb + c->rmap[j->rl[i]] - 2, &c->reads[j->rl[i]]);
	for (size_t i = j->nh * (size_t)t / (size_t)j->nt; i < j->nh * (size_t)(t + 1) / (size_t)j->nt; ++i)
		memcpy(j->hb + c->hmap[j->hl[i]] - 2, c->haps[j->hl[i]].bases, (size_t)c->haps[j->hl[i]].len);
}

/* Packs ord[b0, b1) into slot s's staging buffer and returns its layout. */
static int pack(gpu_dev_t *g, slot_t *sl, const pass_ctx_t *c, size_t b0, size_t b1, layout_t *L, gvk_err_t *err)
{
	if (c->all) return pack_dense(g, sl, c, b0, b1, L, err);
	size_t rbytes = 0, hbytes = 0;
	memset(L, 0, sizeof *L);
	L->n = b1 - b0, L->direct = b0 == 0 && b1 == c->n;
	for (size_t k = b0; k < b1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		if (!c->rmap[p->read]) c->rmap[p->read] = 1, rbytes += 5 * (size_t)c->reads[p->read].len;
		if (!c->hmap[p->hap]) c->hmap[p->hap] = 1, hbytes += (size_t)c->haps[p->hap].len;
	}
	L->off_soff = align16(L->n * sizeof(phmm_gpu_pair_t));
	L->off_rb = L->off_soff + align16(L->n * sizeof(uint64_t));
	/* Zero padding in front of and behind the haplotypes lets kernels read classes a warp's width
	 * before a haplotype and up to the longest haplotype past its end without bounds checks. */
	int hmax_batch = 0;
	for (size_t k = b0; k < b1; ++k) {
		int H = c->haps[pair_at(c, c->ord[k].k)->hap].len;
		if (H > hmax_batch) hmax_batch = H;
	}
	const size_t hpad = 64;
	hbytes += hpad + (size_t)hmax_batch + hpad;
	L->off_hb = L->off_rb + align16(rbytes);
	L->bytes = L->off_hb + align16(hbytes);
	if (L->off_hb + hbytes > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "GPU sub-batch over 4 GiB");
	int rc = ensure_host(&sl->host, &sl->host_cap, L->bytes, (size_t)64 << 20, "a sub-batch's staging", err);
	if (rc < 0) return rc;
	phmm_gpu_pair_t *rec = (phmm_gpu_pair_t *)sl->host;
	uint64_t *soff = (uint64_t *)(sl->host + L->off_soff);
	uint8_t *rb = sl->host + L->off_rb, *hb = sl->host + L->off_hb;
	/* Places first, in pair order (the maps tell a read's or haplotype's first pair), then the
	 * copies on all threads: the double passes of a chunk (a pair in fifty, their reads spread
	 * over the chunk) come this way, and copying them on one thread was a visible share of a
	 * chunk's host work. */
	int32_t *rl = (int32_t *)scratch(g, SCR_RLIST, (b1 - b0) * sizeof *rl), *hl = (int32_t *)scratch(g, SCR_HLIST, (b1 - b0) * sizeof *hl);
	if (!rl || !hl) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	size_t ro = 0, ho = hpad, nr = 0, nh = 0;
	memset(hb, 0, hpad);
	for (size_t k = b0; k < b1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		if (c->rmap[p->read] == 1) c->rmap[p->read] = (uint32_t)ro + 2, ro += 5 * (size_t)c->reads[p->read].len, rl[nr++] = p->read;
		if (c->hmap[p->hap] == 1) c->hmap[p->hap] = (uint32_t)ho + 2, ho += (size_t)c->haps[p->hap].len, hl[nh++] = p->hap;
		rec[k - b0] = pair_rec(c, p, c->rmap[p->read] - 2, c->hmap[p->hap] - 2, L->direct ? c->ord[k].k : (uint32_t)(k - b0));
	}
	sparse_job_t sj = {c, rb, hb, rl, hl, nr, nh, ro < ((size_t)1 << 20) ? 1 : g->threads};
	gvk_parallel(sj.nt, sparse_worker, &sj);
	pack_bins(c, b0, b1, soff, L);
	memset(hb + ho, 0, (size_t)hmax_batch + hpad);
	/* The maps are per sub-batch: clear the entries this one set. */
	for (size_t k = b0; k < b1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		c->rmap[p->read] = 0, c->hmap[p->hap] = 0;
	}
	return 0;
}

/* gpu_profile 2: times one bin's launch on its own (the stream waits for it), for tuning. */
static cudaError_t bin_profile(gpu_dev_t *g, slot_t *sl, cudaStream_t bs, const layout_t *L, int b, int dbl)
{
	const phmm_gpu_pair_t *rec = (const phmm_gpu_pair_t *)sl->host;
	float ms = 0;
	cudaError_t e = cudaEventRecord(sl->bin_done[1], bs);
	if (e == cudaSuccess) e = cudaEventSynchronize(sl->bin_done[1]);
	if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, sl->bin_done[0], sl->bin_done[1]);
	double cells = 0;
	for (size_t k = L->bin_start[b]; k < L->bin_start[b + 1]; ++k) cells += (double)rec[k].R * rec[k].H;
	g->bin_s[dbl][L->bin_var[b]] += 1e-3 * ms, g->bin_cells[dbl][L->bin_var[b]] += cells;
	return e;
}

static void bin_report(const gpu_dev_t *g, int dbl)
{
	const variant_t *var = var_table(dbl);
	for (int b = 0; b < 2 * var_count(dbl); ++b)
		if (g->bin_cells[dbl][b] > 0)
			gvk_logf(&g->log, GVK_LOG_INFO, "GPU bin %2dx%-2d %s%s: %8.3f Gcells %8.3f ms %6.3f TCUPS", var[b >> 1].P, var[b >> 1].K,
			        dbl == PASS_FTZ ? "double, FTZ" : dbl ? "double" : "float", b & 1 ? " shared" : "", 1e-9 * g->bin_cells[dbl][b], 1e3 * g->bin_s[dbl][b],
			        1e-12 * g->bin_cells[dbl][b] / g->bin_s[dbl][b]);
}

/* Queues copy-in, kernels and copy-out of a packed sub-batch on stream s. */
static int launch_batch(gpu_dev_t *g, int s, const layout_t *L, int dbl, gvk_err_t *err)
{
	slot_t *sl = &g->slot[s];
	sl->direct = L->direct;
	const int tsz = dbl ? 8 : 4;
	const variant_t *var = var_table(dbl);
	size_t out_off = align16(L->bytes), scr_off = out_off + align16(L->n * (size_t)tsz);
	size_t need = scr_off + L->scratch_elems * (size_t)tsz;
	int rc = ensure_dev(&sl->dev, &sl->dev_cap, need, err);
	if (rc < 0) return rc;
	if ((rc = ensure_host(&sl->hout, &sl->hout_cap, L->n * (size_t)tsz, (size_t)1 << 20, "a sub-batch's sums", err)) < 0) return rc;
	CK(cudaMemcpyAsync(sl->dev, sl->host, L->bytes, cudaMemcpyHostToDevice, g->st[s]));
	/* The kernel time counts every kernel of the pass, the haplotype classes' too. */
	CK(cudaEventRecord(sl->k0, g->st[s]));
	if (!L->hb_dev) {
		const size_t n16 = (L->bytes - L->off_hb) / 16; /* the haplotype blob, padding included */
		phmm_gpu_hap_classes<<<(unsigned)((n16 + 255) / 256), 256, 0, g->st[s]>>>((uint4 *)(sl->dev + L->off_hb), n16);
		CK(cudaGetLastError());
	}
	const phmm_gpu_pair_t *pairs = (const phmm_gpu_pair_t *)sl->dev;
	const uint64_t *soff = (const uint64_t *)(sl->dev + L->off_soff);
	const uint8_t *rb = L->rb_dev ? L->rb_dev : sl->dev + L->off_rb, *hb = L->hb_dev ? L->hb_dev : sl->dev + L->off_hb;
	const void *errt = dbl ? (const void *)g->err_d : (const void *)g->err_f;
	const void *mmt = dbl ? (const void *)g->mm_d : (const void *)g->mm_f;
	CK(cudaEventRecord(sl->k_ready, g->st[s]));
	/* Longest-running bins first, round robin over the bin streams (one stream when profiling bins,
	 * which times each launch on its own). */
	const int nbs = g->profile > 1 ? 1 : PHMM_BIN_STREAMS < L->nbins ? PHMM_BIN_STREAMS : L->nbins;
	for (int k = 0; k < nbs; ++k) CK(cudaStreamWaitEvent(g->bst[k], sl->k_ready, 0));
	for (int b = L->nbins - 1; b >= 0; --b) {
		const variant_t *v = &var[L->bin_var[b] >> 1];
		cudaStream_t bs = g->bst[(L->nbins - 1 - b) % nbs];
		size_t start = L->bin_start[b], n = L->bin_start[b + 1] - start;
		int per_block = PHMM_GPU_BLOCK / v->P;
		int blocks = (int)((n + (size_t)per_block - 1) / (size_t)per_block);
		size_t smem = (size_t)per_block * (size_t)v->table * (size_t)tsz;
		if (g->profile > 1) CK(cudaEventRecord(sl->bin_done[0], bs));
		v->fn[L->bin_var[b] & 1][g->fused](blocks, smem, bs, pairs + start, (int)n, rb, hb, errt, mmt,
		                L->scratch_elems ? sl->dev + scr_off : NULL, soff + start, sl->dev + out_off);
		CK(cudaGetLastError());
		if (g->profile > 1) CK(bin_profile(g, sl, bs, L, b, dbl));
	}
	for (int k = 0; k < nbs; ++k) {
		CK(cudaEventRecord(sl->bin_done[k], g->bst[k]));
		CK(cudaStreamWaitEvent(g->st[s], sl->bin_done[k], 0));
	}
	CK(cudaEventRecord(sl->k1, g->st[s]));
	CK(cudaMemcpyAsync(sl->hout, sl->dev + out_off, L->n * (size_t)tsz, cudaMemcpyDeviceToHost, g->st[s]));
	CK(cudaEventRecord(sl->done, g->st[s]));
	return 0;
}

typedef struct {
	const pass_ctx_t *c;
	size_t b0, n;
	const unsigned char *hout;
	float *fsum;
	double *dsum;
	int direct, nt;
} scatter_sums_t;

static void scatter_sums_worker(void *arg, int t)
{
	const scatter_sums_t *j = (const scatter_sums_t *)arg;
	const pass_ctx_t *c = j->c;
	for (size_t k = j->n * (size_t)t / (size_t)j->nt; k < j->n * (size_t)(t + 1) / (size_t)j->nt; ++k) {
		size_t i = j->direct ? k : c->ord[j->b0 + k].k;
		size_t idx = c->sel ? c->sel[i] : i;
		if (c->dbl)
			j->dsum[idx] = ((const double *)j->hout)[k];
		else
			j->fsum[idx] = ((const float *)j->hout)[k];
	}
}

/* Waits for slot s and scatters its sums to the pairs' own indices. */
static int collect(gpu_dev_t *g, int s, const pass_ctx_t *c, size_t b0, size_t n, float *fsum, double *dsum,
                   gvk_err_t *err)
{
	double t0 = gvk_seconds();
	CK(cudaEventSynchronize(g->slot[s].done));
	double t1 = gvk_seconds();
	g->t_wait += t1 - t0;
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, g->slot[s].k0, g->slot[s].k1));
	g->kernel_s += 1e-3 * ms;
	scatter_sums_t j = {c, b0, n, g->slot[s].hout, fsum, dsum, g->slot[s].direct, n < 65536 ? 1 : g->threads};
	gvk_parallel(j.nt, scatter_sums_worker, &j);
	g->t_scatter += gvk_seconds() - t1;
	return 0;
}

/* Pairs per sub-batch so that its staging bytes stay under the limit (at least one pair). */
static size_t batch_end(const pass_ctx_t *c, size_t b0, size_t n, size_t limit)
{
	size_t bytes = 0, k = b0;
	for (; k < n; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		bytes += pair_bytes(c->reads[p->read].len, c->haps[p->hap].len, c->dbl);
		if (bytes > limit && k > b0) break;
	}
	return k;
}

static int run_pass(gpu_dev_t *g, pass_ctx_t *c, size_t n, float *fsum, double *dsum, gvk_err_t *err)
{
	size_t b0 = 0, pend_b0[NSTREAM] = {0}, pend_n[NSTREAM] = {0};
	int s = 0, rc = 0;
	/* One sub-batch per pass when it fits: every read and haplotype is then packed (and its
	 * classes converted) once, which costs the host far more than the copy that a split would
	 * overlap with kernels. Passes over 1 GiB, or after an out-of-memory, are split. */
	size_t limit = c->total_bytes + 4096;
	if (limit > g->max_batch_bytes) limit = g->max_batch_bytes;
	while (b0 < n) {
		if (pend_n[s] && (rc = collect(g, s, c, pend_b0[s], pend_n[s], fsum, dsum, err)) < 0) return rc;
		pend_n[s] = 0;
		double t0 = gvk_seconds();
		size_t b1 = b0 == 0 && c->total_bytes <= limit ? n : batch_end(c, b0, n, limit);
		layout_t L;
		rc = pack(g, &g->slot[s], c, b0, b1, &L, err);
		g->t_pack += gvk_seconds() - t0;
		if (rc < 0) return rc;
		rc = launch_batch(g, s, &L, c->dbl, err);
		if (rc == GVK_ERR_NOMEM && limit > (1u << 20)) {
			/* Out of device memory: free this slot's buffers, halve the sub-batch, try again. */
			cudaGetLastError();
			for (int k = 0; k < NSTREAM; ++k)
				if (pend_n[k] && (rc = collect(g, k, c, pend_b0[k], pend_n[k], fsum, dsum, err)) < 0) return rc;
			memset(pend_n, 0, sizeof pend_n);
			cudaFree(g->slot[s].dev);
			g->slot[s].dev = NULL, g->slot[s].dev_cap = 0;
			limit /= 2;
			g->max_batch_bytes = limit;
			gvk_logf(&g->log, GVK_LOG_WARN, "GPU out of memory; retrying with sub-batches of %zu MiB", limit >> 20);
			continue;
		}
		if (rc < 0) return rc;
		if (s == 0 && L.direct && c->all && !c->dbl && !c->sel)
			g->kept = {1, c->reads, c->haps, c->maxr, c->maxh, c->roff_all, c->hoff_all, L.off_rb, L.off_hb};
		pend_b0[s] = b0, pend_n[s] = b1 - b0;
		b0 = b1;
		s = (s + 1) % NSTREAM;
	}
	for (int k = 0; k < NSTREAM; ++k)
		if (pend_n[k] && (rc = collect(g, k, c, pend_b0[k], pend_n[k], fsum, dsum, err)) < 0) return g->kept.valid = 0, rc;
	return 0;
}

/* The double pass over pairs of the float pass that g->kept describes: records only, on slot 1
 * (slot 0 holds the blobs), one sub-batch. The sparse packing it replaces copied every such
 * pair's read again, which was most of the double passes' host time. */
static int run_kept_pass(gpu_dev_t *g, pass_ctx_t *c, size_t n, double *dsum, gvk_err_t *err)
{
	slot_t *sl = &g->slot[1];
	layout_t L;
	memset(&L, 0, sizeof L);
	L.n = n, L.direct = 1;
	L.off_soff = align16(n * sizeof(phmm_gpu_pair_t));
	L.off_rb = L.off_hb = L.bytes = L.off_soff + align16(n * sizeof(uint64_t));
	L.rb_dev = g->slot[0].dev + g->kept.off_rb, L.hb_dev = g->slot[0].dev + g->kept.off_hb;
	double t0 = gvk_seconds();
	int rc = ensure_host(&sl->host, &sl->host_cap, L.bytes, (size_t)1 << 20, "a sub-batch's staging", err);
	if (rc < 0) return rc;
	phmm_gpu_pair_t *rec = (phmm_gpu_pair_t *)sl->host;
	for (size_t k = 0; k < n; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		rec[k] = pair_rec(c, p, g->kept.roff[p->read], g->kept.hoff[p->hap], c->ord[k].k);
	}
	pack_bins(c, 0, n, (uint64_t *)(sl->host + L.off_soff), &L);
	g->t_pack += gvk_seconds() - t0;
	if ((rc = launch_batch(g, 1, &L, c->dbl, err)) < 0) return rc;
	return collect(g, 1, c, 0, n, NULL, dsum, err);
}

/* Marks the reads and haplotypes that the pass's pairs use (rmap / hmap entries set to 1, from
 * all threads: the stores are relaxed atomics of the same value). */
typedef struct {
	pass_ctx_t *c;
	size_t n;
	int nt;
} mark_job_t;

static void mark_worker(void *arg, int t)
{
	const mark_job_t *j = (const mark_job_t *)arg;
	for (size_t k = j->n * (size_t)t / (size_t)j->nt; k < j->n * (size_t)(t + 1) / (size_t)j->nt; ++k) {
		const gvk_pair_t *p = pair_at(j->c, k);
		__atomic_store_n(&j->c->rmap[p->read], 1u, __ATOMIC_RELAXED);
		__atomic_store_n(&j->c->hmap[p->hap], 1u, __ATOMIC_RELAXED);
	}
}

/* gpu_profile: a pass's share of the totals (tz: the totals before it), and when it ran. */
static void pass_report(const gpu_dev_t *g, const pass_ctx_t *c, const double tz[6], double pass_t0)
{
	if (!g->profile) return;
	gvk_logf(&g->log, GVK_LOG_INFO, "GPU pass of %zu pairs (%s%s), %.3f to %.3f s: sort %.1f ms, prepare %.1f, pack %.1f, wait %.1f, scatter %.1f, kernels %.1f",
	        c->n, c->dbl == PASS_FTZ ? "double with FTZ" : c->dbl ? "double" : "float", c->kept ? ", blobs kept" : "", pass_t0, gvk_seconds(),
	        1e3 * (g->t_sort - tz[0]), 1e3 * (g->t_prep - tz[1]), 1e3 * (g->t_pack - tz[2]), 1e3 * (g->t_wait - tz[3]),
	        1e3 * (g->t_scatter - tz[4]), 1e3 * (g->kernel_s - tz[5]));
	if (g->profile > 1) bin_report(g, c->dbl);
}

static int dev_pass(gpu_dev_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                    const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err)
{
	/* Only the double pass right after the float pass of the same call may use its blobs. */
	const int kept = dbl && sel && g->kept.valid && g->kept.reads == reads && g->kept.haps == haps;
	g->kept.valid = 0;
	if (n == 0) return 0;
	if (n > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "a GPU pass takes at most 2^32 - 1 pairs (%zu given)", n);
	pass_ctx_t c = {reads, haps, pairs, sel, NULL, dbl, NULL, NULL, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, n, 0};
	/* gpu_profile: this pass's share of the totals, and when it ran (the CLI's clock). */
	const double tz[6] = {g->t_sort, g->t_prep, g->t_pack, g->t_wait, g->t_scatter, g->kernel_s};
	double t0 = gvk_seconds(), pass_t0 = t0;
	scan_job_t sj;
	memset(&sj, 0, sizeof sj);
	sj.reads = reads, sj.haps = haps, sj.pairs = pairs, sj.sel = sel, sj.n = n, sj.dbl = dbl;
	sj.share = g->share && pass_mostly_shares(reads, pairs, sel, n);
	sj.nt = n < 65536 ? 1 : g->threads < MAX_SCAN_THREADS ? g->threads : MAX_SCAN_THREADS;
	sj.coarse = n < SMALL_PASS;
	order_t *ord = NULL;
	int rc = order_pairs(g, &sj, &ord);
	g->t_sort += gvk_seconds() - t0;
	t0 = gvk_seconds();
	int32_t maxr = 0, maxh = 0;
	for (int t = 0; t < sj.nt; ++t) {
		maxr = sj.maxr[t] > maxr ? sj.maxr[t] : maxr, maxh = sj.maxh[t] > maxh ? sj.maxh[t] : maxh;
		c.total_bytes += sj.bytes[t];
	}
	if (rc == 0 && kept && maxr <= g->kept.maxr && maxh <= g->kept.maxh) {
		c.ord = ord, c.kept = 1;
		if (cudaSetDevice(g->dev) != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, "cannot select GPU %d", g->dev);
		rc = run_kept_pass(g, &c, n, dsum, err);
		if (rc != GVK_ERR_NOMEM) {
			pass_report(g, &c, tz, pass_t0);
			return rc;
		}
		/* No room for the records beside the kept blobs: the pass packs its own sub-batches. */
		cudaGetLastError();
		rc = 0, c.ord = NULL, c.kept = 0;
		t0 = gvk_seconds();
	}
	c.rmap = (uint32_t *)scratch(g, SCR_RMAP, ((size_t)maxr + 1) * sizeof *c.rmap);
	c.hmap = (uint32_t *)scratch(g, SCR_HMAP, ((size_t)maxh + 1) * sizeof *c.hmap);
	if (c.rmap) memset(c.rmap, 0, ((size_t)maxr + 1) * sizeof *c.rmap);
	if (c.hmap) memset(c.hmap, 0, ((size_t)maxh + 1) * sizeof *c.hmap);
	c.maxr = maxr, c.maxh = maxh;
	/* Dense when every read and haplotype up to the largest index is used (the CLI's chunks):
	 * entries no pair names may not even be valid. */
	if (rc == 0 && c.rmap && c.hmap) {
		mark_job_t mj = {&c, n, sj.nt};
		gvk_parallel(mj.nt, mark_worker, &mj);
		size_t ur = 0, uh = 0;
		for (int32_t i = 0; i <= maxr; ++i) ur += c.rmap[i];
		for (int32_t i = 0; i <= maxh; ++i) uh += c.hmap[i];
		c.all = ur == (size_t)maxr + 1 && uh == (size_t)maxh + 1;
		memset(c.rmap, 0, ((size_t)maxr + 1) * sizeof *c.rmap);
		memset(c.hmap, 0, ((size_t)maxh + 1) * sizeof *c.hmap);
	}
	if (c.all) {
		c.roff_all = (size_t *)scratch(g, SCR_ROFF, ((size_t)maxr + 1) * sizeof(size_t));
		c.hoff_all = (size_t *)scratch(g, SCR_HOFF, ((size_t)maxh + 1) * sizeof(size_t));
		if (c.roff_all && c.hoff_all) {
			size_t o = 0;
			for (int32_t i = 0; i <= maxr; ++i) c.roff_all[i] = o, o += 5 * (size_t)reads[i].len;
			c.rbytes_all = o, o = 64;
			for (int32_t i = 0; i <= maxh; ++i) {
				c.hoff_all[i] = o, o += (size_t)haps[i].len;
				if (haps[i].len > c.hmax_all) c.hmax_all = haps[i].len;
			}
			c.hbytes_all = o;
		}
	}
	g->t_prep += gvk_seconds() - t0;
	if (rc < 0 || !c.rmap || !c.hmap || (c.all && (!c.roff_all || !c.hoff_all)))
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	c.ord = ord;
	if (cudaSetDevice(g->dev) != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, "cannot select GPU %d", g->dev);
	rc = run_pass(g, &c, n, fsum, dsum, err);
	pass_report(g, &c, tz, pass_t0);
	return rc;
}

/* Several GPUs: the pass is cut into contiguous parts of about equal cells, one per device, each
 * run by its own host thread (the CUDA device is per thread). */
typedef struct {
	phmm_gpu_t *g;
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	const size_t *sel;
	size_t *part_sel, part_start[MAX_GPUS + 1];
	int dbl;
	float *fsum;
	double *dsum;
	int rc[MAX_GPUS];
	gvk_err_t err[MAX_GPUS];
} multi_t;

static void multi_worker(void *arg, int t)
{
	multi_t *m = (multi_t *)arg;
	size_t b = m->part_start[t], n = m->part_start[t + 1] - b;
	m->rc[t] = dev_pass(m->g->d[t], m->reads, m->haps, m->pairs, m->part_sel + b, n, m->dbl, m->fsum, m->dsum, &m->err[t]);
}

/* The pairs of a double pass whose sums came back NaN (a value fell below 2^-900, phmm_trip),
 * computed again on the first GPU with x86's FTZ after every operation. */
static int redo_with_ftz(phmm_gpu_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                         const size_t *sel, size_t n, double *dsum, gvk_err_t *err)
{
	size_t m = 0, *redo = NULL;
	for (size_t k = 0; k < n; ++k) {
		const size_t idx = sel ? sel[k] : k;
		if (!isnan(dsum[idx])) continue;
		if (!redo && !(redo = (size_t *)malloc((n - k) * sizeof *redo)))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		redo[m++] = idx;
	}
	int rc = m ? dev_pass(g->d[0], reads, haps, pairs, redo, m, PASS_FTZ, NULL, dsum, err) : 0;
	free(redo);
	return rc;
}

/* One pass on every GPU, the pairs cut into parts of equal cells (small passes on the first). */
static int pass_on_all(phmm_gpu_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                       const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err)
{
	if (g->n == 1 || n < (size_t)g->n * 1024)
		return dev_pass(g->d[0], reads, haps, pairs, sel, n, dbl, fsum, dsum, err);
	multi_t m;
	memset(&m, 0, sizeof m);
	m.g = g, m.reads = reads, m.haps = haps, m.pairs = pairs, m.sel = sel, m.dbl = dbl, m.fsum = fsum, m.dsum = dsum;
	if (!(m.part_sel = (size_t *)malloc(n * sizeof *m.part_sel))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	double total = 0;
	for (size_t k = 0; k < n; ++k) {
		const gvk_pair_t *p = &pairs[sel ? sel[k] : k];
		total += (double)reads[p->read].len * haps[p->hap].len;
	}
	double acc = 0;
	int part = 1;
	for (size_t k = 0; k < n; ++k) {
		size_t idx = sel ? sel[k] : k;
		m.part_sel[k] = idx;
		acc += (double)reads[pairs[idx].read].len * haps[pairs[idx].hap].len;
		while (part < g->n && acc >= total * part / g->n) m.part_start[part++] = k + 1;
	}
	while (part <= g->n) m.part_start[part++] = n;
	gvk_parallel(g->n, multi_worker, &m);
	free(m.part_sel);
	for (int t = 0; t < g->n; ++t)
		if (m.rc[t] < 0) return gvk_err_set(err, m.rc[t], "GPU %d: %s", t, m.err[t].msg);
	return 0;
}

/* A pass; a double one ends with its flagged pairs computed again with FTZ (redo_with_ftz). */
extern "C" int phmm_gpu_pass(phmm_gpu_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                             const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err)
{
	int rc = pass_on_all(g, reads, haps, pairs, sel, n, dbl ? PASS_DOUBLE : PASS_FLOAT, fsum, dsum, err);
	return rc == 0 && dbl ? redo_with_ftz(g, reads, haps, pairs, sel, n, dsum, err) : rc;
}
