/* SPDX-License-Identifier: MIT */
/* GPU back end of a build without CUDA: there is never a GPU. */
#include "../common/err.h"
#include "pairhmm_engine.h"

int phmm_gpu_count(void) { return 0; }

phmm_gpu_t *phmm_gpu_open(const gvk_pairhmm_opts_t *opt, gvk_err_t *err)
{
	(void)opt;
	gvk_err_set(err, GVK_ERR_UNSUPPORTED, "this gvk was built without CUDA");
	return NULL;
}

void phmm_gpu_close(phmm_gpu_t *g) { (void)g; }
const char *phmm_gpu_name(const phmm_gpu_t *g) { (void)g; return "none"; }

int phmm_gpu_pass(phmm_gpu_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                  const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err)
{
	(void)g, (void)reads, (void)haps, (void)pairs, (void)sel, (void)n, (void)dbl, (void)fsum, (void)dsum;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "this gvk was built without CUDA");
}

double phmm_gpu_kernel_seconds(const phmm_gpu_t *g) { (void)g; return 0; }
