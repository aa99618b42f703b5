/* SPDX-License-Identifier: MIT */
/* --indep-pairwise, --indep-pairphase and --indep of a gvk ld job: the two lists, written in
 * PLINK's chromosome order (codes 1 .. 26 ascending, then contigs as the input has them). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "ld_job_prune.h"
#include "../common/buf.h"
#include "../common/err.h"
#include "../common/text_parts.h"
#include "../common/threads.h"
#include "../snp/snp_gpu.h"

/* A variant in PLINK's order onto the list it belongs to: .prune.in (fp[0]) or .prune.out. */
typedef struct {
	const snp_data_t *d;
	const uint8_t *pruned, *skip;
	const int64_t *order;
} lists_t;

static void list_line(void *arg, int64_t k, FILE **fp)
{
	const lists_t *l = arg;
	int64_t i = l->order[k];
	if (!l->skip[i]) fputs(l->d->var[i].id, fp[l->pruned[i] != 0]), putc('\n', fp[l->pruned[i] != 0]);
}

/* .prune.in (kept) to fi and .prune.out to fo, formatted on the threads; 0, GVK_ERR_NOMEM or
 * GVK_ERR_IO. */
static int write_lists(FILE *fi, FILE *fo, const snp_data_t *d, const uint8_t *pruned, const uint8_t *skip, int threads)
{
	int64_t *order = malloc(sizeof *order * (size_t)(d->n_snp + 1));
	if (!order) return GVK_ERR_NOMEM;
	ld_prune_order(d, order);
	lists_t l = {d, pruned, skip, order};
	FILE *out[2] = {fi, fo};
	int rc = gvk_text_parts(out, 2, d->n_snp, threads, 65536, list_line, &l);
	free(order);
	return rc;
}

int ld_job_prune(const ld_job_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, const gvk_ld_split_t *sp,
                 const void *part, file_hooks_t *files, const gvk_log_t *say, ld_log_t *log, int64_t *pruned_ct,
                 int *writes, gvk_err_t *err)
{
	*writes = 1;
	double t = gvk_seconds();
	uint8_t *pruned = malloc((size_t)d->n_snp + 1), *skip = malloc((size_t)d->n_snp + 1);
	char *in = gvk_concat(a->out_prefix, ".prune.in"), *out = gvk_concat(a->out_prefix, ".prune.out");
	ld_prune_report_t rep = {0};
	int rc = pruned && skip && in && out ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	ld_prune_opt_t po = a->prune;
	po.threads = a->ld.threads, po.isa = a->ld.isa;
	po.src = src;
	/* split over processes rank 0 writes the lists; each prunes its chromosomes when it read
	 * only those (a PLINK fileset), else every one prunes them all (a VCF) */
	if (sp) *writes = sp->rank == 0;
	if (sp && part) {
		if (rc == 0) rc = ld_split_prune(sp, part, d, &po, pruned, skip, &rep, err);
	} else {
		/* --device gpu only: on auto the CPU prunes, since the .bed's decoding and not the pairs
		 * bound a CPU run on the usual windows (docs/snp.md); --indep stays on the CPU */
		if (rc == 0 && a->ld.device == GVK_DEVICE_GPU && po.mode != LD_PRUNE_VIF && !(po.gpu = snp_gpu_open(&a->ld.gpu, err)))
			rc = err->code;
		if (rc == 0) rc = ld_prune_pairwise(d, &po, pruned, skip, &rep, err);
		snp_gpu_close(po.gpu);
	}
	ld_job_phase(say, a->verbose, "pruning", &t);
	/* every row has been read now, and counted as it was decoded */
	if (rc == 0 && src && src->stats) ld_log_rate(log, d->rate, d->n_snp);
	for (int64_t k = 0; rc == 0 && k < rep.n_chrom; ++k)
		ld_log_printf(log, "Pruned %lld variant%s from chromosome %s, leaving %lld.\n", (long long)rep.chrom[k].pruned,
		              rep.chrom[k].pruned == 1 ? "" : "s", rep.chrom[k].chr,
		              (long long)(rep.chrom[k].n - rep.chrom[k].pruned));
	if (rc == 0)
		ld_log_printf(log, "Pruning complete.  %lld of %lld variants removed.\n", (long long)rep.pruned,
		              (long long)d->n_snp);
	int w = rc == 0 && *writes;
	FILE *fi = w ? file_hooks_open(files, in, err) : NULL;
	FILE *fo = fi ? file_hooks_open(files, out, err) : NULL;
	if (w && (!fi || !fo)) rc = GVK_ERR_IO;
	int wr = w && rc == 0 ? write_lists(fi, fo, d, pruned, skip, a->ld.threads) : 0;
	if (wr == GVK_ERR_NOMEM) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	else if (wr < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot write %s or %s", in, out);
	ld_job_phase(say, a->verbose && rc == 0, "writing the lists", &t);
	if (w && rc == 0) ld_log_printf(log, "Marker lists written to %s.prune.in and %s.prune.out .\n", a->out_prefix, a->out_prefix);
	if (rc == 0 && pruned_ct) *pruned_ct = rep.pruned;
	ld_prune_report_free(&rep);
	free(pruned), free(skip), free(in), free(out);
	return rc;
}
