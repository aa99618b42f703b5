/* SPDX-License-Identifier: MIT */
/* GPU back end of a build without a GPU alignment kernel: there is never a GPU. */
#include <string.h>

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
size_t al_gpu_budget(const al_gpu_t *g) { (void)g; return 0; }

/* Never called: al_gpu_open never succeeds. */
ag_backend_t al_gpu_backend(al_gpu_t *g)
{
	ag_backend_t be;
	memset(&be, 0, sizeof be);
	be.ctx = g;
	return be;
}
