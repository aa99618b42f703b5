/* SPDX-License-Identifier: MIT */
/* Builds without CUDA have no GPU peak to measure. */
#include "snp_peak.h"
#include "common/err.h"

int snp_peak(int gpu, double *popc, double *mma, gvk_err_t *err)
{
	(void)gpu, (void)popc, (void)mma;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without CUDA");
}
