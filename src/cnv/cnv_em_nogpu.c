/* SPDX-License-Identifier: MIT */
/* GPU back end stub of the CNV EM for builds without CUDA. */
#include <stdio.h>

#include "../common/err.h"
#include "cnv_em.h"

int cnv_em_gpu_available(void)
{
	return 0;
}

int cnv_em_gpu_check(gvk_err_t *err)
{
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "device gpu: built without GPU support for this engine (cnv)");
}

int cnv_em_gpu(const cnv_em_par_t *p, cnv_em_job_t *j, int threads, size_t chunk, int gpu, const gvk_log_t *log,
               gvk_err_t *err)
{
	(void)p, (void)j, (void)threads, (void)chunk, (void)gpu, (void)log;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for this engine (cnv)");
}

void cnv_em_gpu_name(char *buf, size_t n)
{
	snprintf(buf, n, "none");
}
