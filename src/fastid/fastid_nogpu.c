/* SPDX-License-Identifier: MIT */
/* Builds without a GPU back end for FastID. */
#include "fastid_gpu.h"
#include "../common/err.h"

int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err)
{
	(void)g, (void)job, (void)res;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid)");
}
