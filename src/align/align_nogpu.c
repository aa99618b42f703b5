/* SPDX-License-Identifier: MIT */
/* GPU back end of a build without a GPU alignment kernel: there is never a GPU. */
#include "../common/err.h"
#include "align_engine.h"

al_gpu_t *al_gpu_open(const gvk_align_opts_t *opt, gvk_err_t *err)
{
	(void)opt;
	gvk_err_set(err, GVK_ERR_UNSUPPORTED, "this gvk was built without GPU support for the align engine");
	return NULL;
}

void al_gpu_close(al_gpu_t *g) { (void)g; }
const char *al_gpu_name(const al_gpu_t *g) { (void)g; return "none"; }
double al_gpu_kernel_seconds(const al_gpu_t *g) { (void)g; return 0.0; }

int al_gpu_align(al_gpu_t *g, const al_job_t *jobs, size_t n, int java, al_elems_t *el, size_t *el_at, int *ne,
                 int32_t *offset, int32_t *score, gvk_err_t *err)
{
	(void)g, (void)jobs, (void)n, (void)java, (void)el, (void)el_at, (void)ne, (void)offset, (void)score;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "this gvk was built without GPU support for the align engine");
}
