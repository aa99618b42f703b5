/* SPDX-License-Identifier: MIT */
/* LD's GPU back end (ld_gpu.cu, or the stubs in ld_nogpu.c when the build has no CUDA), on the SNP
 * engines' GPU context (snp/snp_gpu.h). */
#ifndef GVK_LD_GPU_H
#define GVK_LD_GPU_H

#include "../snp/snp_gpu.h"
#include "ld_engine.h"

/* Fills s->r (and s->d, s->dp when o->haplotype) for the rows and column ranges already set in s,
 * exactly as the CPU epilogue does from the same integer counts: ld_value_genotype(c, o->r2,
 * o->single) or ld_haplotype (correctly rounded sqrt and division give identical values). */
int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err);

/* --clump: c[18 k ..] receives the two-locus table of pairs[2 k] (the index) and pairs[2 k + 1] in
 * ld_em_counts' layout, over the male columns too where x[k] (X), exactly as ld_clump_r2_row counts
 * it; d's planes are made resident (once per data set). */
int snp_gpu_clump_counts(snp_gpu_t *g, const snp_data_t *d, const int64_t *pairs, const uint8_t *x, int64_t n,
                         uint32_t *c, gvk_err_t *err);
/* Forgets the planes snp_gpu_clump_counts made resident, for a caller that has rewritten them in
 * place (--clump reads one component's SNPs after another into the same buffer). */
void snp_gpu_planes_changed(snp_gpu_t *g);

/* --indep-pairwise / --indep-pairphase: uploads the planes of n0 + n1 SNPs (SNP_PLANES * nw words
 * each; the first n0 at seg0, the rest at seg1, so that a host ring that wraps goes in two pieces)
 * as the SNPs 0 .. n0 + n1 - 1 of the next snp_gpu_prune_counts. */
int snp_gpu_prune_planes(snp_gpu_t *g, int nw, const uint64_t *seg0, int64_t n0, const uint64_t *seg1, int64_t n1,
                         gvk_err_t *err);
/* For rows r < n_rows of the uploaded SNPs and t < off[r + 1] - off[r] (off[0] = 0), c[per (off[r]
 * + t) ..] receives the counts of the pair (r, r + 1 + t): phased 0, per 7: nz, diff, nm, sxx, nx,
 * syy, ny as the CPU pruning kernels' genotype r^2 sums them; phased 1, per 18: the two-locus table in
 * ld_em_counts' layout, over the male columns too when male is not NULL (X). */
int snp_gpu_prune_counts(snp_gpu_t *g, int nw, const int64_t *off, int64_t n_rows, int phased, const uint64_t *male,
                         uint32_t *c, gvk_err_t *err);

#endif
