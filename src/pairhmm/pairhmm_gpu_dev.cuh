/* SPDX-License-Identifier: MIT */
/* Internals that the files of the Pair-HMM GPU back end share: the device (gpu_dev_t) and its
 * slots, the kernel variants and their tables, and a pass's order, layout and context. The back
 * end is split by concern so that each file stays readable: pairhmm_gpu.cu (device set-up, the
 * variant tables and the kernels they instantiate, the split over several GPUs, the entry points),
 * pairhmm_gpu_pack.cu (a pass's sort and the packing of its sub-batches) and pairhmm_gpu_pass.cu
 * (a pass: launches, results, profiling). The kernels are compiled in pairhmm_gpu.cu alone, where
 * load_kernels loads them; the other files reach them through variant_t and
 * phmm_launch_hap_classes. Helpers called per pair are static inline here so that they stay
 * inlined in every file. */
#ifndef GVK_PAIRHMM_GPU_DEV_CUH
#define GVK_PAIRHMM_GPU_DEV_CUH

#include "../common/gpu_port.h"
#include <stddef.h>
#include <stdint.h>

#include "gvk.h"
#include "../common/buf.h"
#include "pairhmm_gpu_pair.h"

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
	unsigned char *hout_view;  /* hout's device address (gvk_cuda_device_view) or NULL */
	cudaEvent_t done, k0, k1;  /* k0..k1 brackets the sub-batch's kernels */
	cudaEvent_t k_ready;       /* the haplotype classes are ready for the bins */
	cudaEvent_t bin_done[PHMM_BIN_STREAMS];
	int direct;                /* its sums come back in the pass's order (layout_t.direct) */
} slot_t;

enum { MAX_VARIANTS = 40 }; /* kernel variants (read-length bins) per precision */
enum { SCR_ORD, SCR_TMP, SCR_HIST, SCR_RMAP, SCR_HMAP, SCR_ROFF, SCR_HOFF, SCR_RLIST, SCR_HLIST, SCR_COUNT }; /* gpu_dev_t.scr */

enum { VAR_LEN_MAX = 1024 };

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
	int yield_wait;         /* wait for a pass by polling and yielding the core (shared engines) */
	/* A read length's variant by PASS_* and BINS_* (phmm_index_variants), up to VAR_LEN_MAX: looked up
	 * for every pair of a pass, where the search through the tables was most of a small pass's sort. */
	uint8_t var_of_len[3][3][VAR_LEN_MAX + 1];
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
static inline void *scratch(gpu_dev_t *g, int which, size_t bytes) { return gvk_buf_reserve(&g->scr[which], bytes); }

/* ---- kernel variants: read-length bins ------------------------------------------------------ */

typedef void (*launch_fn)(int blocks, size_t smem, cudaStream_t st, const phmm_gpu_pair_t *pairs, int n,
                          const uint8_t *rb, const uint8_t *hb, const void *err, const void *mm, void *scratch,
                          const uint64_t *soff, void *out);

/* Loads a kernel's code onto the device: under CUDA's lazy module loading the first launch of
 * each variant would otherwise pay for it, inside a caller's batch. */
typedef cudaError_t (*load_fn)(void);

typedef struct {
	int P, K, table;    /* table: prior-table elements per sub-warp */
	launch_fn fn[2][2]; /* [shared gap-open product][fused] */
	load_fn load[2][2];
} variant_t;

/* The variant tables (pairhmm_gpu.cu) and their lengths. */
extern GPU_HOST_TABLE variant_t phmm_variants_f[], phmm_variants_d[];
extern const int phmm_nvar_f, phmm_nvar_d;

/* A pass's precision: float, double, or double with FTZ (PASS_FTZ, the flagged pairs again). */
enum { PASS_FLOAT, PASS_DOUBLE, PASS_FTZ };

/* A pass's kernel variants and their number; a PASS_FTZ pass has only the tiled double one, for
 * every length. */
static inline const variant_t *var_table(int dbl)
{
	return dbl == PASS_FTZ ? &phmm_variants_d[phmm_nvar_d - 1] : dbl ? phmm_variants_d : phmm_variants_f;
}
static inline int var_count(int dbl) { return dbl == PASS_FTZ ? 1 : dbl ? phmm_nvar_d : phmm_nvar_f; }

/* Staging bytes of one pair (read and haplotype, its record, and scratch when its read is done in
 * tiles): the measure by which passes are split. */
static inline size_t pair_bytes(int R, int H, int dbl)
{
	const variant_t *v = var_table(dbl);
	const int nv = var_count(dbl);
	const int one_tile = nv > 1 ? v[nv - 2].P * v[nv - 2].K : 0; /* rows of the largest one-tile variant */
	size_t scratch = R > one_tile ? (dbl ? 24 : 12) * ((size_t)H + 1) : 0;
	return 5 * (size_t)R + (size_t)H + 32 + scratch;
}

/* Passes of fewer pairs than this (a few merged GATK regions) are latency-bound: every launch
 * and every host pass over the sort keys adds to each caller's wait, so they use fewer, coarser
 * bins and a comparison sort. Any variant with enough rows gives the same bits. */
enum { SMALL_PASS = 4096 };
/* Passes of fewer pairs than this (one to a few GATK regions) leave the GPU mostly idle: their
 * pairs all take full-warp variants, for the shortest sweeps (warp_variant). */
enum { WARP_PASS = 2048 };
enum { BINS_FINE = 0, BINS_COARSE = 1, BINS_WARP = 2 };

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
	int coarse;         /* BINS_COARSE: a small pass (SMALL_PASS); BINS_WARP: smaller (WARP_PASS) */
	const uint8_t *var_of_len; /* gpu_dev_t.var_of_len for this pass's precision and bins */
	order_t *ord;
	uint32_t (*hist)[ORDER_KEYS];
	int32_t maxr[MAX_SCAN_THREADS], maxh[MAX_SCAN_THREADS];
	size_t bytes[MAX_SCAN_THREADS];
} scan_job_t;

/* A sub-batch laid out for one copy: pair records, scratch offsets, read blob, haplotype blob. */
typedef struct {
	size_t n;                 /* pairs */
	size_t off_soff, off_rb, off_hb, bytes;
	size_t scratch_elems;
	int nbins, bin_var[MAX_BINS]; /* bin: 2 * variant + share */
	size_t bin_start[MAX_BINS + 1];
	int direct;               /* the whole pass: sums come back in the pass's order */
	const uint8_t *rb_dev, *hb_dev; /* set: the blobs of the float pass kept in slot 0 (gpu_dev_t.kept) */
	int hb_classes;           /* the haplotype blob holds classes already (converted on the host) */
} layout_t;

static inline size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

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

static inline const gvk_pair_t *pair_at(const pass_ctx_t *c, size_t k) { return &c->pairs[c->sel ? c->sel[k] : k]; }

/* A pair's kernel record; the three packings differ only in where the blobs' offsets come from. */
static inline phmm_gpu_pair_t pair_rec(const pass_ctx_t *c, const gvk_pair_t *p, size_t roff, size_t hoff, uint32_t out)
{
	return (phmm_gpu_pair_t){(uint32_t)roff, (uint32_t)hoff, c->reads[p->read].len, c->haps[p->hap].len, out};
}

/* pairhmm_gpu.cu */
void phmm_launch_hap_classes(uint4 *p, size_t n16, cudaStream_t st);

/* pairhmm_gpu_pack.cu */
int phmm_pass_mostly_shares(const gvk_read_t *reads, const gvk_pair_t *pairs, const size_t *sel, size_t n);
int phmm_order_pairs(gpu_dev_t *g, scan_job_t *s, order_t **ordp);
/* Fills g->var_of_len (at the device's set-up). */
void phmm_index_variants(gpu_dev_t *g);
int phmm_ensure_host(unsigned char **p, size_t *cap, size_t need, size_t min, const char *what, gvk_err_t *err);
int phmm_ensure_dev(unsigned char **p, size_t *cap, size_t need, gvk_err_t *err);
/* slot_t.hout for need bytes, hout_view kept in step with it. */
int phmm_ensure_hout(slot_t *sl, size_t need, gvk_err_t *err);
void phmm_pack_bins(const pass_ctx_t *c, size_t b0, size_t b1, uint64_t *soff, layout_t *L);
int phmm_pack(gpu_dev_t *g, slot_t *sl, const pass_ctx_t *c, size_t b0, size_t b1, layout_t *L, gvk_err_t *err);

/* pairhmm_gpu_pass.cu */
int phmm_dev_pass(gpu_dev_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                  const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err);

#endif
