/* SPDX-License-Identifier: MIT */
/* All-pairs and windowed LD over snp_data_t: which pairs (docs/snp.md, Semantics 3), in row stripes that
 * bound memory, computed by the popcount-GEMM kernels on worker threads. */
#ifndef GVK_SNP_LD_ENGINE_H
#define GVK_SNP_LD_ENGINE_H

#include "../snp/snp_data.h"
#include "../snp/popgemm.h"
#include "../snp/snp_gpu_opt.h"

typedef enum { LD_TABLE = 0, LD_SQUARE, LD_SQUARE0, LD_TRIANGLE } ld_shape_t;

typedef struct {
	int shape;         /* ld_shape_t */
	int inter_chr;     /* table: every pair i < j */
	int64_t win_snps;  /* table: B at most win_snps - 1 SNPs after A (PLINK --ld-window, default 10) */
	int64_t win_bp;    /* table: bp(B) <= bp(A) + win_bp (PLINK --ld-window-kb in bp, default 1000000) */
	double win_cm;     /* table: cM(B) <= cM(A) + win_cm; < 0 = no limit */
	const uint8_t *idx1; /* table: only these SNPs as A (--ld-snp...), each paired with the SNPs of
	                        the window on both sides and itself (every SNP with inter_chr); NULL = all */
	/* table with win_cm >= 0: the input as PLINK indexes it, since its search for the end of a
	 * chromosome's first window reads every 64th input variant (docs/snp.md, Semantics 3). row[i]:
	 * SNP i's index in the input; base_bp[k], base_cm[k]: the position and cM PLINK holds for input
	 * variant 64 k (n_base entries). NULL: the input is d itself. */
	const int64_t *row, *base_bp;
	const double *base_cm;
	int64_t n_base;
	int em;            /* genotypes: r, D and D' from PLINK's haplotype-frequency estimate (ld_em.h) */
	int threads;
	void *pool;        /* gvk_pool_t of at least threads threads to run on (the caller's, shared with its
	                      writer); NULL: the run makes its own */
	int isa;           /* gvk_isa_t */
	int device;        /* gvk_device_t */
	int haplotype;     /* phased data: D, D' and r from haplotype counts (docs/snp.md, "Phased haplotypes") */
	int r2;            /* stripes hold r^2 instead of signed r */
	int single;        /* genotype values rounded as PLINK's float (bin4) path */
	double drop;       /* table: the sink drops pairs whose |r| (|r^2| with r2) is below this, so em mode may
	                      leave them NaN without the estimate; 0 = keeps every pair */
	size_t stripe_cells; /* pairs held per stripe; 0 = default (4 M) */
	int64_t row0, row1;  /* only rows [row0, row1) (one MPI rank's share); row1 <= 0: to the last */
	int64_t col0, col1;  /* matrices: only columns [col0, col1) (one MPI rank's tile); col1 <= 0: to the last */
	snp_gpu_opt_t gpu; /* the GPU and its knobs (device gpu or auto) */
} ld_opt_t;

/* One stripe of results: rows [i0, i1); row i holds columns [jlo[i - i0], jhi[i - i0]) at
 * r[(i - i0) * width + j - cbase]. r is signed r, or r^2 with the sign of r when ld_opt_t.r2 (NaN when undefined,
 * docs/snp.md, Semantics 2); d and dp
 * (haplotype and em modes only) are D and D'. Owned by the engine, valid until the next stripe. */
typedef struct {
	int64_t i0, i1, cbase, width;
	int64_t *jlo, *jhi;
	double *r, *d, *dp;
	uint64_t pairs; /* pairs in the stripe */
} ld_stripe_t;

/* Called once per stripe in row order; a negative return stops the run with that code. */
typedef int (*ld_sink_fn)(void *ctx, const ld_stripe_t *s, gvk_err_t *err);

void ld_opt_init(ld_opt_t *o);

/* PLINK 1.9's --ld-window-kb in base pairs (kb x 1000 nudged up by PLINK's epsilon, cut to its
 * 32-bit range) and --ld-window-cm as PLINK compares it, for win_bp and win_cm. */
int64_t ld_window_bp(double kb);
double ld_window_cm(double cm);

/* What a run did: pairs computed, the kernel that computed them ("cpu-avx512", "gpu-NAME bmma", ...)
 * and, on a GPU, the seconds spent in its kernels. */
typedef struct {
	uint64_t pairs;
	char kernel[320];
	double kernel_s;
} ld_report_t;

/* Runs the job; returns 0 or a negative code. rep (may be NULL) receives the report. */
int ld_run(const snp_data_t *d, const ld_opt_t *o, ld_sink_fn sink, void *ctx, ld_report_t *rep, gvk_err_t *err);

/* Name of the kernel set the job would run on ("cpu-avx512", ...), NULL if the request is not available. */
const char *ld_device_name(const ld_opt_t *o);

/* Counts for explicit pairs, for tests and back ends: out[k] for (ii[k], jj[k]). */
int ld_counts_pairs(const snp_data_t *d, const pg_isa_t *isa, const int64_t *ii, const int64_t *jj, size_t n,
                    pg_ldcnt_t *out);

/* Statistics from counts (docs/snp.md, Semantics 2, and "Phased haplotypes"). NaN when undefined. */
double ld_r_genotype(const pg_ldcnt_t *c);
/* r (r2 = 0) or sign(r) r^2 as PLINK 1.9 rounds them: in double, or in float as for bin4 (single). */
double ld_value_genotype(const pg_ldcnt_t *c, int r2, int single);
void ld_haplotype(const pg_ldcnt_t *c, double *r, double *dd, double *dprime);

#endif
