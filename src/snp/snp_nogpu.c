/* SPDX-License-Identifier: MIT */
/* Builds without a GPU back end for the SNP engines. */
#include "snp_gpu.h"
#include "../common/err.h"

snp_gpu_t *snp_gpu_open(const snp_gpu_opt_t *o, gvk_err_t *err)
{
	(void)o;
	gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid)");
	return NULL;
}

void snp_gpu_close(snp_gpu_t *g) { (void)g; }

const char *snp_gpu_name(const snp_gpu_t *g)
{
	(void)g;
	return "none";
}

const char *snp_gpu_kernel(const snp_gpu_t *g)
{
	(void)g;
	return "none";
}

double snp_gpu_kernel_seconds(const snp_gpu_t *g)
{
	(void)g;
	return 0.0;
}

void *snp_gpu_host_alloc(snp_gpu_t *g, size_t bytes)
{
	(void)g, (void)bytes;
	return NULL;
}

void snp_gpu_host_free(snp_gpu_t *g, void *p) { (void)g, (void)p; }

int snp_gpu_probe(const snp_gpu_opt_t *o, char *name, size_t size, gvk_err_t *err)
{
	(void)o;
	if (name && size) name[0] = 0;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid)");
}

int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err)
{
	(void)g, (void)d, (void)o, (void)s;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid)");
}

int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err)
{
	(void)g, (void)job, (void)res;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid)");
}

void snp_gpu_planes_changed(snp_gpu_t *g) { (void)g; }

int snp_gpu_clump_counts(snp_gpu_t *g, const snp_data_t *d, const int64_t *pairs, const uint8_t *x, int64_t n,
                         uint32_t *c, gvk_err_t *err)
{
	(void)g, (void)d, (void)pairs, (void)x, (void)n, (void)c;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "built without GPU support for the SNP engines (ld, fastid, clump)");
}
