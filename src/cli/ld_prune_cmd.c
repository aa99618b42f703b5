/* SPDX-License-Identifier: MIT */
/* --indep-pairwise, --indep-pairphase and --indep for gvk ld: their arguments as PLINK 1.9 takes
 * them, and the two lists, written
 * in PLINK's chromosome order (codes 1 .. 26 ascending, then contigs as the input has them). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_paths.h"
#include "ld_prune_cmd.h"
#ifdef GVK_MPI
#include "mpi/mpi_drivers.h"
#endif
#include "../common/err.h"
#include "../common/text_parts.h"
#include "../common/threads.h"
#include "../ld/ld_prune.h"
#include "../snp/snp_gpu.h"

static int bad(const ld_prune_opt_t *o, const char *what)
{
	return fprintf(stderr, "gvk ld: %s: %s\n", ld_prune_mode_name(o->mode), what), -1;
}

/* A whole number >= lo in s (with an optional "kb" suffix when kb is not NULL). */
static int whole(const char *s, int64_t lo, int64_t *v, int *kb)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || isnan(x)) return -1;
	if (kb && !strcasecmp(end, "kb") && end - s > 0) *kb = 1;
	else if (*end) return -1;
	if (x < (double)lo || x > 2147483647.0 || x != floor(x)) return -1;
	*v = (int64_t)x;
	return 0;
}

int ld_prune_parse(int argc, char **argv, int *i, ld_args_t *a)
{
	ld_prune_opt_t *o = &a->prune;
	if (a->prune_set) return fprintf(stderr, "gvk ld: give one of --indep-pairwise, --indep-pairphase and --indep\n"), -1;
	const char *s = argv[*i];
	o->mode = !strcmp(s, "--indep") ? LD_PRUNE_VIF : !strcmp(s, "--indep-pairphase") ? LD_PRUNE_PAIRPHASE : LD_PRUNE_PAIRWISE;
	int k = *i + 1, kb = 0;
	if (k >= argc || whole(argv[k], 1, &o->win, &kb) < 0)
		return bad(o, "window size must be a positive whole number, optionally followed by 'kb'");
	++k;
	/* PLINK 1.9's --indep takes kb only as a separate word */
	if (kb && o->mode == LD_PRUNE_VIF) return bad(o, "window size must be a whole number, with kb as a separate word");
	/* PLINK takes a window of 1 only as "1 kb" */
	if (o->win < 2 && !(k < argc && !strcasecmp(argv[k], "kb")))
		return bad(o, "window size must be at least 2 (or 1 kb, written '1 kb')");
	if (!kb && k < argc && !strcasecmp(argv[k], "kb")) kb = 1, ++k;
	o->kb = kb;
	if (k >= argc || whole(argv[k], 1, &o->step, NULL) < 0) return bad(o, "step size must be a positive whole number");
	++k;
	char *end;
	int vif = o->mode == LD_PRUNE_VIF;
	if (k >= argc || (o->r2 = strtod(argv[k], &end), end == argv[k] || *end || isnan(o->r2)))
		return bad(o, vif ? "VIF threshold must be a number" : "r^2 threshold must be a number");
	if (vif && o->r2 < 1) return bad(o, "VIF threshold must be at least 1");
	if (!vif && (o->r2 < 0 || o->r2 >= 1)) return bad(o, "r^2 threshold must be at least 0 and below 1");
	/* PLINK 1.9 accepts this but then writes past its window buffers, so its lists are not
	 * defined; gvk refuses it. */
	if (!kb && o->step > o->win) return bad(o, "step size must not exceed a window size given in variants");
	a->prune_set = 1;
	*i = k;
	return 0;
}

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

int ld_prune_write(const ld_args_t *a, const snp_data_t *d, const snp_bed_src_t *src, const void *mpi_part,
                   gvk_outset_t *os, ld_log_t *log, int64_t *pruned_ct, int *writes, gvk_err_t *err)
{
	*writes = 1;
	double t = gvk_seconds();
	uint8_t *pruned = malloc((size_t)d->n_snp + 1), *skip = malloc((size_t)d->n_snp + 1);
	char *in = cli_with_ext(a->out_prefix, ".prune.in"), *out = cli_with_ext(a->out_prefix, ".prune.out");
	ld_prune_report_t rep = {0};
	int rc = pruned && skip && in && out ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	ld_prune_opt_t po = a->prune;
	po.threads = a->ld.threads, po.isa = a->ld.isa;
	po.src = src;
#ifdef GVK_MPI
	/* under MPI rank 0 writes the lists; each rank prunes its chromosomes when it read only
	 * those (a PLINK fileset), else every rank prunes them all (a VCF) */
	*writes = gvk_mpi_rank() == 0;
	if (mpi_part) {
		if (rc == 0) rc = gvk_mpi_ld_prune(mpi_part, d, &po, pruned, skip, &rep, err);
	} else
#else
	(void)mpi_part;
#endif
	{
		/* --device gpu only: on auto the CPU prunes, since the .bed's decoding and not the pairs
		 * bound a CPU run on the usual windows (docs/snp.md); --indep stays on the CPU */
		if (rc == 0 && a->ld.device == GVK_DEVICE_GPU && po.mode != LD_PRUNE_VIF && !(po.gpu = snp_gpu_open(&a->ld.gpu, err)))
			rc = err->code;
		if (rc == 0) rc = ld_prune_pairwise(d, &po, pruned, skip, &rep, err);
		snp_gpu_close(po.gpu);
	}
	ld_log_phase(a->verbose, "pruning", &t);
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
	FILE *fi = w ? gvk_outset_open(os, in, err) : NULL;
	FILE *fo = fi ? gvk_outset_open(os, out, err) : NULL;
	if (w && (!fi || !fo)) rc = GVK_ERR_IO;
	int wr = w && rc == 0 ? write_lists(fi, fo, d, pruned, skip, a->ld.threads) : 0;
	if (wr == GVK_ERR_NOMEM) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	else if (wr < 0) rc = gvk_err_set(err, GVK_ERR_IO, "cannot write %s or %s", in, out);
	ld_log_phase(a->verbose && rc == 0, "writing the lists", &t);
	if (w && rc == 0) ld_log_printf(log, "Marker lists written to %s.prune.in and %s.prune.out .\n", a->out_prefix, a->out_prefix);
	if (rc == 0 && pruned_ct) *pruned_ct = rep.pruned;
	ld_prune_report_free(&rep);
	free(pruned), free(skip), free(in), free(out);
	return rc;
}
