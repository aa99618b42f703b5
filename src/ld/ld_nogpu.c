/* SPDX-License-Identifier: MIT */
/* Builds without a GPU back end for LD. */
#include "ld_gpu.h"
#include "../common/err.h"

int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err)
{
	(void)g, (void)d, (void)o, (void)s;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid)");
}

int snp_gpu_clump_counts(snp_gpu_t *g, const snp_data_t *d, const int64_t *pairs, const uint8_t *x, int64_t n,
                         uint32_t *c, gvk_err_t *err)
{
	(void)g, (void)d, (void)pairs, (void)x, (void)n, (void)c;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid, clump)");
}

void snp_gpu_planes_changed(snp_gpu_t *g) { (void)g; }

int snp_gpu_prune_planes(snp_gpu_t *g, int nw, const uint64_t *seg0, int64_t n0, const uint64_t *seg1, int64_t n1,
                         gvk_err_t *err)
{
	(void)g, (void)nw, (void)seg0, (void)n0, (void)seg1, (void)n1;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid, pruning)");
}

int snp_gpu_prune_counts(snp_gpu_t *g, int nw, const int64_t *off, int64_t n_rows, int phased, const uint64_t *male,
                         uint32_t *c, gvk_err_t *err)
{
	(void)g, (void)nw, (void)off, (void)n_rows, (void)phased, (void)male, (void)c;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid, pruning)");
}
