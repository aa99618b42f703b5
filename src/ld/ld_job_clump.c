/* SPDX-License-Identifier: MIT */
/* --clump of a gvk ld job: PREFIX.clumped, and PLINK's warnings for top variants the fileset
 * lacks (the first three as messages, all in the log). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "ld_job_clump.h"
#include "../common/buf.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "../snp/snp_gpu.h"

/* --clump's file names: its arguments split at commas. */
static char **file_list(const ld_job_args_t *a, int *n)
{
	size_t len = 0;
	int cnt = 0;
	for (int k = 0; k < a->n_clump_files; ++k) {
		len += strlen(a->clump_files[k]) + 1;
		for (const char *p = a->clump_files[k]; *p; ++p) cnt += *p == ',';
		++cnt;
	}
	char **list = malloc(sizeof *list * (size_t)(cnt + 1) + len);
	if (!list) return NULL;
	char *pool = (char *)(list + cnt + 1);
	*n = 0;
	for (int k = 0; k < a->n_clump_files; ++k) {
		strcpy(pool, a->clump_files[k]);
		for (char *tok = pool, *next; tok; tok = next) {
			next = strchr(tok, ',');
			if (next) *next++ = 0;
			if (*tok) list[(*n)++] = tok;
		}
		pool += strlen(a->clump_files[k]) + 1;
	}
	return list;
}

/* The GPU for the tables with device gpu (NULL for the CPU; -1 when it finds none). Device auto
 * stays on the CPU, as pruning does: a clump's rows are few per index variant and the host's
 * reading of the fileset and report is most of the work, so the GPU's tables made a large panel
 * slower than the CPU's threads (docs/snp.md, "Clumping"). */
static int open_gpu(const ld_job_args_t *a, snp_gpu_t **gpu, gvk_err_t *err)
{
	*gpu = NULL;
	if (a->ld.device != GVK_DEVICE_GPU) return 0;
	return (*gpu = snp_gpu_open(&a->ld.gpu, err)) ? 0 : -1;
}

/* PLINK's warnings for the top variants the fileset lacks (not with verbose, which lists them in
 * the file). */
static void log_missing(const ld_job_args_t *a, const ld_clump_input_t *in, const gvk_log_t *say, ld_log_t *log)
{
	if (!in->n_miss) return;
	if (a->clump_verbose) {
		ld_log_printf(log, "%lld top variant ID%s missing; see the end of the .clumped file.\n", (long long)in->n_miss,
		              in->n_miss == 1 ? "" : "s");
		return;
	}
	for (int64_t k = 0; k < in->n_miss; ++k) {
		ld_log_printf(log, "Warning: '%s' is missing from the main dataset, and is a top variant.\n", in->miss[k].id);
		if (k < 3) gvk_logf(say, GVK_LOG_WARN, "warning: '%s' is missing from the main dataset, and is a top variant.", in->miss[k].id);
	}
	if (in->n_miss > 3)
		gvk_logf(say, GVK_LOG_WARN, "%lld more top variant ID%s missing; see the log.", (long long)(in->n_miss - 3),
		           in->n_miss == 4 ? "" : "s");
}

int ld_job_clump(const ld_job_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, file_hooks_t *out,
                 const gvk_log_t *say, ld_log_t *log, int64_t *n_clumps, gvk_err_t *err)
{
	int n_files = 0;
	char **files = file_list(a, &n_files);
	if (!files) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (!n_files) return free(files), gvk_err_set(err, GVK_ERR_ARG, "--clump: no file named");
	ld_clump_opt_t o = a->clump;
	o.threads = a->ld.threads;
	o.src = src;
	if (o.index_first && n_files == 1) {
		ld_log_printf(log, "Warning: --clump-index-first has no effect when there is only one --clump file.\n");
		o.index_first = 0;
	}
	ld_clump_fields_t f = {(const char *const *)a->clump_snp_field, a->n_clump_snp_field,
	                       (const char *const *)a->clump_field, a->n_clump_field};
	ld_clump_input_t in;
	ld_clump_result_t r = {0};
	double t = gvk_seconds();
	int rc = ld_clump_read(d, (const char *const *)files, n_files, &f, &o, &in, err);
	if (rc < 0) return free(files), rc;
	ld_job_phase(say, a->verbose, "reading the reports", &t);
	if (!in.n_snp || !d->n_bits) {
		ld_log_printf(log, "Warning: Skipping --clump since there are no founders.\n");
	} else if (!d->n_snp || !memchr(in.top, 1, (size_t)in.n_snp)) {
		ld_log_printf(log, "Warning: No significant --clump results.  Skipping.\n");
		gvk_logf(say, GVK_LOG_WARN, "warning: no significant --clump results; no .clumped file written");
	} else {
		snp_gpu_t *gpu = NULL;
		rc = open_gpu(a, &gpu, err) < 0 ? err->code : 0;
		o.gpu = gpu;
		if (rc == 0) rc = ld_clump_run(d, &in, &o, &r, err);
		snp_gpu_close(gpu);
		ld_job_phase(say, a->verbose && rc == 0, "clumping", &t);
		char *path = rc == 0 ? gvk_concat(a->out_prefix, ".clumped") : NULL;
		if (rc == 0 && !path) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		FILE *fp = rc == 0 ? file_hooks_open(out, path, err) : NULL;
		if (rc == 0 && !fp) rc = GVK_ERR_IO;
		int wr = rc == 0 ? ld_clump_write(fp, d, &in, &r, a->clump_verbose, a->ld.threads) : 0;
		if (wr == GVK_ERR_NOMEM) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory writing %s", path);
		else if (wr < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot write %s", path);
		ld_job_phase(say, a->verbose && rc == 0, "writing the clumps", &t);
		if (rc == 0) log_missing(a, &in, say, log);
		if (rc == 0) {
			ld_log_printf(log, "--clump: %lld clump%s formed from %lld top variant%s.\n", (long long)r.n, r.n == 1 ? "" : "s",
			              (long long)r.n_top, r.n_top == 1 ? "" : "s");
			ld_log_printf(log, "Results written to %s .\n", path);
		}
		if (n_clumps) *n_clumps = r.n;
		free(path);
	}
	ld_clump_result_free(&r);
	ld_clump_input_free(&in);
	free(files);
	return rc;
}
