/* SPDX-License-Identifier: MIT */
/* GPU back end of the Pair-HMM engine: packs a pass's reads and haplotypes into one pinned
 * buffer, bins the pairs by read length onto kernel variants (pairhmm_gpu_kernel.cuh), and copies
 * the raw sums back. Sub-batches alternate between two streams so that the copies of one overlap
 * the kernels of the other. Every CUDA call is checked; out of memory halves the sub-batch.
 *
 * This file holds the device set-up, the kernel variant tables (the only place that instantiates
 * the kernels), the split of a pass over several GPUs and the extern "C" entry points; a pass's
 * sort and packing are in pairhmm_gpu_pack.cu, its launches and results in pairhmm_gpu_pass.cu,
 * what they share in pairhmm_gpu_dev.cuh. */
#include "../common/gpu_port.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/buf.h"
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/gpu_probe.h"
#include "../common/threads.h"
#include "pairhmm_engine.h"
#include "pairhmm_gpu_dev.cuh"
#include "pairhmm_gpu_kernel.cuh"
#include "pairhmm_tables.h"

/* ---- kernel variants: read-length bins ------------------------------------------------------ */

template <typename T, int P, int K, bool F, bool S>
static void launch_short(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n, const uint8_t *rb,
                         const uint8_t *hb, const void *err, const void *mm, void *scratch, const uint64_t *soff, void *out)
{
	(void)scratch, (void)soff;
	phmm_gpu_kernel_short<T, P, K, F, S><<<blocks, PHMM_GPU_BLOCK, smem, st>>>(pairs, n, rb, hb, (const T *)err,
	                                                                        (const T *)mm, (T *)out);
}

#if PHMM_GPU_BLOCK == 32
template <typename T, bool F, bool S>
static void launch_warp(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n, const uint8_t *rb,
                        const uint8_t *hb, const void *err, const void *mm, void *scratch, const uint64_t *soff, void *out)
{
	(void)scratch, (void)soff;
	phmm_gpu_kernel_warp<T, F, S><<<blocks, PHMM_GPU_BLOCK, smem, st>>>(pairs, n, rb, hb, (const T *)err, (const T *)mm,
	                                                                  (T *)out);
}

template <typename T, bool F, bool S> static cudaError_t load_warp(void)
{
	cudaFuncAttributes a;
	return cudaFuncGetAttributes(&a, phmm_gpu_kernel_warp<T, F, S>);
}
#endif

template <typename T, int P, int K, bool F, bool S, bool FTZ = false>
static void launch_tiled(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n, const uint8_t *rb,
                         const uint8_t *hb, const void *err, const void *mm, void *scratch, const uint64_t *soff, void *out)
{
	phmm_gpu_kernel<T, P, K, F, S, FTZ><<<blocks, PHMM_GPU_BLOCK, smem, st>>>(
		pairs, n, rb, hb, (const T *)err, (const T *)mm, (T *)scratch, soff, (T *)out);
}

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
/* 32 x 9: phmm_gpu_kernel_warp, which takes fewer rows a thread for shorter reads, where a block
 * is one pair (32-lane warps); the plain one-tile kernel on 64-lane wavefronts. */
#if PHMM_GPU_BLOCK == 32
#define VW(T)                                                                                       \
	{32, 9, phmm_table<T, 32, 9>::SIZE,                                                             \
	 {{launch_warp<T, false, false>, launch_warp<T, true, false>},                                  \
	  {launch_warp<T, false, true>, launch_warp<T, true, true>}},                                   \
	 {{load_warp<T, false, false>, load_warp<T, true, false>},                                      \
	  {load_warp<T, false, true>, load_warp<T, true, true>}}}
#else
#define VW(T) V(T, 32, 9)
#endif
#define VT(T, P, K, FTZ)                                                                            \
	{P, K, phmm_tiled_table<T, P, K>::SIZE,                                                         \
	 {{launch_tiled<T, P, K, false, false, FTZ>, launch_tiled<T, P, K, true, false, FTZ>},          \
	  {launch_tiled<T, P, K, false, true, FTZ>, launch_tiled<T, P, K, true, true, FTZ>}},           \
	 {{load_tiled<T, P, K, false, false, FTZ>, load_tiled<T, P, K, true, false, FTZ>},              \
	  {load_tiled<T, P, K, false, true, FTZ>, load_tiled<T, P, K, true, true, FTZ>}}}

GPU_HOST_TABLE variant_t phmm_variants_f[] = {
	V(float, 1, 4),   V(float, 1, 8),   V(float, 1, 10),  V(float, 1, 12),  V(float, 1, 14),  V(float, 1, 16),
	V(float, 2, 10),  V(float, 2, 12),  V(float, 2, 14),  V(float, 2, 16),  V(float, 4, 9),   V(float, 4, 10),
	V(float, 4, 11),  V(float, 4, 12),  V(float, 4, 13),  V(float, 4, 14),  V(float, 4, 15),  V(float, 4, 16),
	V(float, 8, 9),   V(float, 8, 10),  V(float, 8, 11),  V(float, 8, 12),  V(float, 8, 13),  V(float, 8, 14),
	V(float, 8, 15),  V(float, 8, 16),  V(float, 16, 9),  V(float, 16, 10), V(float, 16, 12), V(float, 16, 14),
	V(float, 16, 16), VW(float),        V(float, 32, 10), V(float, 32, 12), V(float, 32, 14), V(float, 32, 16),
	VT(float, 32, 16, false)};
/* Double: the pairs that underflow in float, mostly HaplotypeCaller's longest reads (129-151 bp),
 * hence 16 x 9 and 16 x 10 before 32 x 8. The one-tile variants compute without x86's FTZ and
 * flag the pairs where it could matter (phmm_trip), which then run again on the tiled variant;
 * that one always flushes, since in reads longer than 256 bases most pairs would be flagged (on
 * random pairs of 1-2000 bases, 87 % of those in double). */
GPU_HOST_TABLE variant_t phmm_variants_d[] = {V(double, 4, 4),   V(double, 4, 8),  V(double, 8, 8),
                                                V(double, 16, 8),  V(double, 16, 9), V(double, 16, 10),
                                                V(double, 32, 8),  VT(double, 32, 8, true)};
#undef V
#undef VW
#undef VT
#define NVAR_F (int)(sizeof phmm_variants_f / sizeof phmm_variants_f[0])
#define NVAR_D (int)(sizeof phmm_variants_d / sizeof phmm_variants_d[0])
static_assert(NVAR_F <= MAX_VARIANTS && NVAR_D <= MAX_VARIANTS, "bins are counted in MAX_VARIANTS");
const int phmm_nvar_f = NVAR_F, phmm_nvar_d = NVAR_D;

/* The haplotypes' classes, n16 16-byte words at p, on stream st: launched from here, where the
 * kernels are compiled (and loaded by load_kernels), for launch_batch. */
void phmm_launch_hap_classes(uint4 *p, size_t n16, cudaStream_t st)
{
	phmm_gpu_hap_classes<<<(unsigned)((n16 + 255) / 256), 256, 0, st>>>(p, n16);
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
		const variant_t *v = dbl ? phmm_variants_d : phmm_variants_f;
		for (int k = 0; k < (dbl ? NVAR_D : NVAR_F); ++k)
			for (int sh = 0; sh <= g->share; ++sh) CK(v[k].load[sh][g->fused]());
	}
	cudaFuncAttributes a;
	CK(cudaFuncGetAttributes(&a, phmm_gpu_hap_classes));
	return 0;
}

/* A shared engine's passes are small and run on slot 0: its buffers are made now, big enough for
 * a few dozen merged regions (they grow when a pass needs more), so that no caller's first region
 * waits for pinning and allocation, which took tens of milliseconds with several contexts starting
 * at once. */
static int reserve_small(gpu_dev_t *g, gvk_err_t *err)
{
	slot_t *sl = &g->slot[0];
	const char *what = "a shared engine's buffers";
	int rc = phmm_ensure_host(&sl->host, &sl->host_cap, 1, (size_t)8 << 20, what, err);
	if (rc == 0) rc = phmm_ensure_hout(sl, 1, err);
	/* Smaller than phmm_ensure_dev's first size, which suits the command line's chunks. */
	if (rc == 0) rc = gvk_cuda_reserve((void **)&sl->dev, &sl->dev_cap, 1, GVK_MEM_DEVICE, GVK_GROW_POW2, (size_t)16 << 20, what, err);
	return rc;
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
		 * caller with nothing else to do, whose wake-up would add to every merged batch: it polls
		 * (collect), yielding its core to callers that have work. */
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
	g->yield_wait = opt->shared != 0;
	g->share = opt->gpu_gap_share != 0;
	g->log = opt->log;
	phmm_index_variants(g);
	int rc = upload_tables(g, err);
	if (rc == 0 && opt->shared) rc = reserve_small(g, err);
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
	char why[200];
	int absent = 0;
	return gvk_gpu_probe(why, sizeof why, &absent);
}

extern "C" phmm_gpu_t *phmm_gpu_open(const gvk_pairhmm_opts_t *opt, gvk_err_t *err)
{
	/* No GPU at all: nothing to warn about in auto mode (GVK_ERR_UNSUPPORTED). */
	const int n = gvk_gpu_probe_err(err, GVK_ERR_UNSUPPORTED, "");
	if (n < 0) return NULL;
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
	m->rc[t] = phmm_dev_pass(m->g->d[t], m->reads, m->haps, m->pairs, m->part_sel + b, n, m->dbl, m->fsum, m->dsum, &m->err[t]);
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
	int rc = m ? phmm_dev_pass(g->d[0], reads, haps, pairs, redo, m, PASS_FTZ, NULL, dsum, err) : 0;
	free(redo);
	return rc;
}

/* One pass on every GPU, the pairs cut into parts of equal cells (small passes on the first). */
static int pass_on_all(phmm_gpu_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                       const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err)
{
	if (g->n == 1 || n < (size_t)g->n * 1024)
		return phmm_dev_pass(g->d[0], reads, haps, pairs, sel, n, dbl, fsum, dsum, err);
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
