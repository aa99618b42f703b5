/* SPDX-License-Identifier: MIT */
/* gvk_<engine>_opts_check: the defaults pass, and one field out of range at a time fails with
 * GVK_ERR_ARG and a message that names that field (docs/library.md, "One shape"). */
#include <stdio.h>
#include <string.h>

#include "gvk.h"

static int fails;

static void expect(const char *what, int rc, const gvk_err_t *err, const char *field)
{
	if (field == NULL ? rc != 0 : rc != GVK_ERR_ARG || !strstr(err->msg, field))
		++fails, printf("FAIL: %s: rc %d, \"%s\" (want %s)\n", what, rc, err->msg, field ? field : "0");
}

#define CHECK(E, T, field, stmt)                                                                   \
	do {                                                                                       \
		T o;                                                                               \
		gvk_err_t err = {0, ""};                                                           \
		E##_init(&o);                                                                      \
		stmt;                                                                              \
		expect(#E ": " #stmt, gvk_##E##_opts_check(&o, &err), &err, field);                \
	} while (0)

static void pairhmm_init(gvk_pairhmm_opts_t *o) { gvk_pairhmm_opts_init(o); }
static void align_init(gvk_align_opts_t *o) { gvk_align_opts_init(o); }
static void ld_init(gvk_ld_opts_t *o) { gvk_ld_opts_init(o); }
/* the defaults name no input and no run, which the check requires: --bfile x --r2 */
static void ld_job_init(gvk_ld_job_opts_t *o)
{
	gvk_ld_job_opts_init(o);
	o->bfile = "x", o->stat_set = 1, o->r2 = 1;
}
static void fastid_init(gvk_fastid_opts_t *o) { gvk_fastid_opts_init(o); }
static void fastid_make_init(gvk_fastid_make_opts_t *o) { gvk_fastid_make_opts_init(o); }
static void cnv_init(gvk_cnv_opts_t *o) { gvk_cnv_opts_init(o, 0); }
static void cnv_plot_init(gvk_cnv_plot_opts_t *o) { gvk_cnv_plot_opts_init(o); }

int main(void)
{
	CHECK(pairhmm, gvk_pairhmm_opts_t, NULL, (void)0);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "flavour", o.flavour = 7);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "threads", o.threads = -2);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "device", o.device = 9);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "gpu", o.gpu = -3);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "merge_contexts", o.merge_contexts = 99);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "merge_wait_us", o.merge_wait_us = -1);
	CHECK(pairhmm, gvk_pairhmm_opts_t, "merge_max_pairs", o.merge_max_pairs = 0);
	CHECK(align, gvk_align_opts_t, NULL, (void)0);
	CHECK(align, gvk_align_opts_t, "flavour", o.flavour = 5);
	CHECK(align, gvk_align_opts_t, "device", o.device = -1);
	CHECK(align, gvk_align_opts_t, "gpu_chunk_mb", o.gpu_chunk_mb = -1);
	CHECK(align, gvk_align_opts_t, "gpu_min_work", o.gpu_min_work = -1);
	CHECK(align, gvk_align_opts_t, "server_min_work", o.server_min_work = -1);
	CHECK(ld, gvk_ld_opts_t, NULL, (void)0);
	CHECK(ld, gvk_ld_opts_t, "threads", o.threads = -1);
	CHECK(ld, gvk_ld_opts_t, "window_r2", o.window_r2 = 2);
	CHECK(ld, gvk_ld_opts_t, "gpu", o.gpu = -2);
	CHECK(ld_job, gvk_ld_job_opts_t, NULL, (void)0);
	CHECK(ld_job, gvk_ld_job_opts_t, "out_prefix", o.out_prefix = "");
	CHECK(ld_job, gvk_ld_job_opts_t, "shape", o.shape = 9);
	CHECK(ld_job, gvk_ld_job_opts_t, "bin", o.bin = 2);
	CHECK(ld_job, gvk_ld_job_opts_t, "window_snps", o.window_snps = 1);
	CHECK(ld_job, gvk_ld_job_opts_t, "window_kb", o.window_kb = -1);
	CHECK(ld_job, gvk_ld_job_opts_t, "window_r2", o.window_r2 = 1.5);
	CHECK(ld_job, gvk_ld_job_opts_t, "maf", o.maf = 0.6);
	CHECK(ld_job, gvk_ld_job_opts_t, "snps", o.n_snps = 2);
	CHECK(ld_job, gvk_ld_job_opts_t, "--bfile", o.bfile = NULL);
	CHECK(ld_job, gvk_ld_job_opts_t, "--clump", o.clump_set = 1);
	CHECK(fastid, gvk_fastid_opts_t, NULL, (void)0);
	CHECK(fastid, gvk_fastid_opts_t, "topk", o.topk = -1);
	CHECK(fastid, gvk_fastid_opts_t, "device", o.device = 3);
	CHECK(fastid_make, gvk_fastid_make_opts_t, NULL, (void)0);
	CHECK(fastid_make, gvk_fastid_make_opts_t, "minor", o.minor = 2);
	CHECK(fastid_make, gvk_fastid_make_opts_t, "threads", o.threads = -1);
	CHECK(cnv, gvk_cnv_opts_t, NULL, (void)0);
	CHECK(cnv, gvk_cnv_opts_t, "cyc", o.cyc = 0);
	CHECK(cnv, gvk_cnv_opts_t, "device", o.device = 4);
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, NULL, (void)0);
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, NULL, (o.png = 0, o.svg = 1));
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, "png", o.png = 2);
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, "svg", o.svg = -1);
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, "png and svg", o.png = 0);
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, "contigs", o.contigs = 3);
	CHECK(cnv_plot, gvk_cnv_plot_opts_t, "plain_svg", o.plain_svg = 5);
	printf("opts_check: %d failed\n", fails);
	return fails != 0;
}
