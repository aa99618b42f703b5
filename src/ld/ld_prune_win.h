/* SPDX-License-Identifier: MIT */
/* The pruning windows' state and passes (ld_prune_win.c), used by ld_prune.c (a chromosome per
 * worker) and ld_prune_split.c (a chromosome split into pieces over the workers and joined again). */
#ifndef GVK_LD_PRUNE_WIN_H
#define GVK_LD_PRUNE_WIN_H

#include <stdint.h>

#include "ld_prune.h"
#include "ld_prune_gpu.h"
#include "ld_prune_kern.h"
#include "ld_prune_pair.h"
#include "ld_prune_vif.h"
#include "../snp/plink_io.h"
#include "../snp/snp_bed_bits.h"
#include "../common/err.h"

/* One worker's view. A SNP's entry (and, streaming, its planes) sits in slot i % n_slot of the
 * worker's rings, which hold more slots than a window holds SNPs. */
typedef struct {
	const snp_data_t *d;
	prune_snp_t *s;
	int64_t n_slot;
	const snp_bed_src_t *src; /* NULL: d's planes */
	int64_t own_lo, own_hi;    /* with src->stats: the SNPs whose statistics this worker sets, those of
	                              its chromosome or piece (others' it computes for itself) */
	snp_rows_t rows;           /* src's rows */
	uint64_t *ring;            /* n_slot SNPs' planes */
	uint64_t *zn;              /* n_slot SNPs' z and neg planes (prune_snp_t) */
	int io_failed;
	uint64_t pairs;
	const prune_kern_t *k; /* this CPU's kernels */
	int mode;    /* LD_PRUNE_* */
	int direct;  /* the chromosome's rows go straight to the genotype r^2's planes (prepare_direct) */
	snp_bed_bits_fn bits;
	const uint64_t *xmale; /* the male columns while the chromosome is X, else NULL */
	vif_buf_t vb;          /* LD_PRUNE_VIF */
	/* With the GPU (ld_prune_gpu.h): the bits of each pair of row i's window at slot i % n_slot
	 * (stride words), rows below rows_end set and SNPs below dec_end decoded, band rows at a time. */
	prune_gpu_t *gpu; /* NULL: the CPU computes each pair as it is met */
	prune_gpu_buf_t gb;
	uint64_t *pair_bits;
	int64_t stride, band, *kend;
	int64_t rows_end, dec_end, hi;
	const ld_prune_opt_t *o;
	double thr;
	int gpu_failed;
	gvk_err_t gpu_err;
} prune_ctx_t;

/* One chromosome's SNPs [lo, hi). */
typedef struct {
	int64_t *live, *next; /* window entries: SNP index, first later SNP index still to compare with */
	int64_t *was;         /* --indep: while compacting, the slot each entry came from */
	int64_t size;
	int64_t pruned;
} window_t;

/* A window's place besides wd: its start, end and (--indep) the entries kept from the last one. */
typedef struct {
	int64_t start, end, old;
} wpos_t;

/* The chromosome runs of d, shared by the workers, who take them in turn. */
typedef struct {
	const snp_data_t *d;
	const ld_prune_opt_t *o;
	const prune_kern_t *k; /* this CPU's kernels (prune_kern_pick) */
	uint8_t *pruned;
	int64_t *lo, *hi, *n_pruned, n_run, longest;
	int64_t cap;          /* the most variants a window holds */
	int64_t next;         /* the next run to take (atomic) */
	uint64_t pairs;       /* (atomic) */
	int failed;           /* a worker ran out of memory (atomic) */
	int io_failed;        /* a worker could not read the .bed (atomic) */
	prune_gpu_t *gpu;     /* NULL: the CPU path */
	int64_t band;         /* with the GPU: rows a band takes */
	int gpu_failed;       /* under gpu->lock */
	gvk_err_t gpu_err;    /* the first GPU failure */
	struct piece *pc;     /* the chromosomes' pieces when they are split (prune_split_plan), else NULL */
	int64_t n_pc, *pc_at; /* pieces, and each run's first (n_run + 1 entries) */
	int64_t resumed;      /* pieces the joins ran on from the true state (atomic) */
	int joining;          /* the pieces have run: prune_split_worker joins them */
} prune_job_t;

/* The chromosome [lo, hi) into c's settings; with src->stats, c sets the statistics of the SNPs
 * in [own_lo, own_hi) only (the others' it computes for itself). */
void prune_chrom_begin(prune_ctx_t *c, const ld_prune_opt_t *o, int64_t lo, int64_t hi, int64_t own_lo,
                       int64_t own_hi);
/* The window starting at `start` as if no window came before it. */
void prune_window_open(prune_ctx_t *c, window_t *wd, uint8_t *out, int64_t start, wpos_t *at);
/* The passes over the window at at->start, then the move to the next window; 0 at the
 * chromosome's end. */
int prune_window_step(prune_ctx_t *c, window_t *wd, uint8_t *out, wpos_t *at);
/* SNP e's slot filled as it enters a window; whether its calls vary. */
int prune_slot_fill(prune_ctx_t *c, int64_t e);

/* One chromosome [lo, hi) pruned by c's worker into out (wd->pruned counts the removals). */
void prune_chrom(prune_ctx_t *c, const ld_prune_opt_t *o, window_t *wd, uint8_t *out, int64_t lo, int64_t hi);
/* The end of a kb window starting at SNP s: the first SNP from e on beyond bp of it (or hi). */
int64_t prune_kb_end(const snp_data_t *d, int64_t s, int64_t e, int64_t hi, int64_t bp);

/* A worker's context and window for job j, set and their buffers allocated (-1 when out of
 * memory: call prune_worker_close anyway, with ok 0); and at the worker's end its failures and pair
 * count into j, and the buffers freed. */
int prune_worker_open(prune_ctx_t *c, window_t *wd, const prune_job_t *j);
void prune_worker_close(prune_ctx_t *c, window_t *wd, prune_job_t *j, int ok);

/* ld_prune_split.c: the pieces of j's runs when splitting helps (the number; 0: no split; -1 out
 * of memory), the worker that runs them (or, with j->joining, joins them), and their memory. */
int64_t prune_split_plan(prune_job_t *j, int nt);
void prune_split_worker(void *arg, int tid);
void prune_split_free(prune_job_t *j);

#endif
