/* SPDX-License-Identifier: MIT */
/* PLINK 1.9 --indep-pairwise, --indep-pairphase and --indep over snp_data_t: greedy pruning in
 * sliding windows by genotype r^2, by r^2 from haplotype frequencies, or by variance inflation
 * factor (docs/snp.md, "QC -> prune"). */
#ifndef GVK_SNP_LD_PRUNE_H
#define GVK_SNP_LD_PRUNE_H

#include "../snp/snp_data.h"
#include "../snp/plink_io.h"
#include "../snp/snp_gpu.h"

/* What a window is pruned by. */
enum { LD_PRUNE_PAIRWISE = GVK_LD_PRUNE_PAIRWISE, LD_PRUNE_PAIRPHASE = GVK_LD_PRUNE_PAIRPHASE, LD_PRUNE_VIF = GVK_LD_PRUNE_VIF };

typedef struct {
	int64_t win;    /* window: variants, or kb when kb is set (PLINK keeps an integer) */
	int kb;         /* win is in kb */
	int64_t step;   /* variants the window moves by */
	double r2;      /* prune pairs with r^2 above this; the VIF threshold for LD_PRUNE_VIF */
	int threads;    /* chromosomes, or pieces of them, pruned at once */
	int isa;        /* gvk_isa_t: the CPU kernels (GVK_ISA_AUTO, 0: the best this CPU runs) */
	int mode;       /* LD_PRUNE_* */
	const snp_bed_src_t *src; /* d without planes: its rows, read and decoded as SNPs enter a window, so
	                             memory holds a window's SNPs rather than the file; NULL: d's planes */
	snp_gpu_t *gpu; /* pairwise and pairphase: the GPU counts every pair a window can compare
	                   (ld_prune_gpu.h); NULL, or --indep: the CPU */
	int64_t gpu_band; /* with gpu: rows a band takes; 0: as many as fit the worker's budget (tests
	                     set a few, so that bands and rings wrap within a small chromosome) */
	int64_t piece;    /* the CPU with several threads: SNPs a piece of a chromosome takes (ld_prune_split.c,
	                     prune_split_plan); 0: a size from the threads and the SNPs (tests set a few) */
	int piece_lead;   /* windows a piece runs before its own: 0 for 8, -1 for none (tests: the
	                     pieces then seldom meet the one run at once) */
} ld_prune_opt_t;

/* Per chromosome run of d, as the log reports it. */
typedef struct {
	const char *chr;
	int64_t n, pruned;
} ld_prune_chrom_t;

typedef struct {
	ld_prune_chrom_t *chrom; /* n_chrom entries, in d's order; chr points into d */
	int64_t n_chrom, pruned;
	int64_t pairs;            /* pairs whose value was computed (a split chromosome's some twice) */
	int64_t pieces, resumed;  /* pieces of split chromosomes; those the join ran on from the true state */
} ld_prune_report_t;

/* The option PLINK spells for a mode ("--indep-pairwise", ...). */
const char *ld_prune_mode_name(int mode);

/* pruned[i] = 1 for the SNPs of d that PLINK 1.9 writes to .prune.out (d's SNPs sorted by
 * position within each chromosome, each chromosome contiguous). Variants on chromosome 0 are in
 * neither list: out[i] = 0 and skip[i] = 1 for them. rep (may be NULL) receives counts. */
int ld_prune_pairwise(const snp_data_t *d, const ld_prune_opt_t *o, uint8_t *pruned, uint8_t *skip,
                      ld_prune_report_t *rep, gvk_err_t *err);
void ld_prune_report_free(ld_prune_report_t *r);

/* The SNPs of d in the order of PLINK's lists: chromosome runs by code (1 .. 26 ascending, then
 * other names as d has them), file order within a run. order: d->n_snp entries. */
void ld_prune_order(const snp_data_t *d, int64_t *order);

/* The engine's keep_allele_order (ld_api.c), for gvk_ld_prune_bfile. */
int ld_api_keep_allele_order(const gvk_ld_t *e);
/* The engine's CPU threads (0 in the options: every processor). */
int ld_api_threads(const gvk_ld_t *e);
/* The engine's CPU kernel request (gvk_isa_t). */
int ld_api_isa(const gvk_ld_t *e);
/* The engine's GPU choices into g; 1 when it was created for GVK_DEVICE_GPU (which pruning takes
 * to mean the GPU; auto prunes on the CPU). */
int ld_api_gpu(const gvk_ld_t *e, snp_gpu_opt_t *g);

/* PLINK 1.9's ranges for the options; 0, or GVK_ERR_ARG naming the value. */
int ld_prune_opt_check(const ld_prune_opt_t *o, gvk_err_t *err);

#endif
