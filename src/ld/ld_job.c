/* SPDX-License-Identifier: MIT */
/* gvk_ld_job_*: one gvk ld run. The input is read and filtered (ld_job_load.c), then the table or
 * matrix is written here, or the lists (ld_job_prune.c) or clumps (ld_job_clump.c); .irem and the
 * log follow, every file through the caller's hooks so that the caller can keep them
 * all-or-nothing. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ld_job.h"
#include "../common/buf.h"
#include "../common/file_hooks.h"
#include "ld_job_clump.h"
#include "ld_job_load.h"
#include "ld_job_log.h"
#include "ld_job_prune.h"
#include "ld_job_split.h"
#include "ld_write.h"
#include "../common/err.h"
#include "../common/threads.h"
#include "../snp/snp_gpu.h"

struct gvk_ld_job_s {
	ld_job_args_t a;
	const gvk_ld_job_opts_t *o;
	const gvk_ld_split_t *split; /* NULL: one process */
	int ran;
};

/* What one run holds. */
typedef struct {
	gvk_ld_job_t *j;
	ld_job_args_t *a;
	snp_data_t d;
	ld_input_t in;
	file_hooks_t files;
	ld_writer_t w;
	ld_log_t log;
	char *path, *log_path;
	ld_report_t rep;
	gvk_ld_job_summary_t *sum;
	gvk_err_t *err;
} run_t;

/* PLINK 1.9 skips --r/--r2 with a warning, rather than failing, when fewer than two founders remain. */
#define FOUNDERS_SKIP "fewer than two founders remain, so there is no LD to compute and no table file is written (--make-founders may help)"

gvk_ld_job_t *gvk_ld_job_create(const gvk_ld_job_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_create: the options o is NULL"), NULL;
	if (gvk_ld_job_opts_check(o, err) < 0) return NULL;
	gvk_ld_job_t *j = calloc(1, sizeof *j);
	if (!j) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), NULL;
	j->o = o;
	ld_job_args_from(o, &j->a);
	/* --device gpu: the GPU or an error, before any input is read. Unphased D / D' come from a
	 * per-pair EM that only the CPU runs, so the GPU cannot be promised for them. */
	if (j->a.ld.device == GVK_DEVICE_GPU && j->a.ld.em) {
		gvk_err_set(err, GVK_ERR_ARG, "--device gpu: unphased D and D' (d, dprime) are computed on the CPU only; use "
		                              "--device cpu or auto, or --phased");
		return free(j), NULL;
	}
	if (j->a.ld.device == GVK_DEVICE_GPU && snp_gpu_probe(&j->a.ld.gpu, NULL, 0, err) < 0) return free(j), NULL;
	return j;
}

/* The first hook of sp left NULL (note may be), or NULL. */
static const char *null_hook(const gvk_ld_split_t *sp)
{
	if (!sp->agree) return "agree";
	if (!sp->reduce) return "reduce";
	if (!sp->gather) return "gather";
	if (!sp->bcast) return "bcast";
	if (!sp->open) return "open";
	if (!sp->write_at) return "write_at";
	if (!sp->close) return "close";
	return sp->ordered ? NULL : "ordered";
}

int gvk_ld_job_set_split(gvk_ld_job_t *j, const gvk_ld_split_t *sp, gvk_err_t *err)
{
	if (!j) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_set_split: the job is NULL");
	const char *hook = sp ? null_hook(sp) : NULL;
	if (hook) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_set_split: the hook %s is NULL", hook);
	if (sp && (sp->size < 1 || sp->rank < 0 || sp->rank >= sp->size))
		return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_set_split: rank %d is not one of %d processes", sp->rank,
		                   sp->size);
	j->split = sp;
	return 0;
}

void gvk_ld_job_destroy(gvk_ld_job_t *j)
{
	free(j);
}

/* The process that writes the log and the messages of a run without a table (rank 0). */
static int first_rank(const run_t *r) { return !r->j->split || r->j->split->rank == 0; }

/* The log's lines on the run's statistic and output. */
static void log_run(const ld_job_args_t *a, const char *path, ld_log_t *log)
{
	ld_log_printf(log, "--r%s%s%s%s%s to %s ... done.\n", a->r2 ? "2" : "", a->ld.inter_chr ? " inter-chr" : "",
	              a->in_phase ? " in-phase" : "", a->dcol ? " d" : a->dprime == LD_DP_ABS ? " dprime" : a->dprime ? " dprime-signed" : "",
	              a->with_freqs ? " with-freqs" : "", path);
}

/* The log text into PREFIX.log. */
static int save_log(run_t *r)
{
	FILE *lf = file_hooks_open(&r->files, r->log_path, r->err);
	return lf ? ld_log_write(&r->log, lf, r->err) : GVK_ERR_IO;
}

/* The .log file of a run; why: the reason a run wrote no table, or NULL. */
static int write_log(run_t *r, const char *why)
{
	ld_log_printf(&r->log, "%lld variants and %lld people pass filters and QC.\n", (long long)r->d.n_snp,
	              (long long)r->d.n_bits);
	if (why) {
		ld_log_printf(&r->log, "%s\n", why);
	} else {
		log_run(r->a, r->a->out ? r->a->out : r->path, &r->log);
		ld_log_printf(&r->log, "%llu pairs computed, %llu values written.\n", (unsigned long long)r->rep.pairs,
		              (unsigned long long)r->w.written);
	}
	return save_log(r);
}

/* PLINK writes the samples --mind removed to PREFIX.irem, when there are any. */
static int write_irem(run_t *r)
{
	if (!r->in.n_mind_removed) return 0;
	char *path = gvk_concat(r->a->out_prefix, ".irem");
	if (!path) return gvk_err_set(r->err, GVK_ERR_NOMEM, "out of memory");
	FILE *fp = file_hooks_open(&r->files, path, r->err);
	free(path);
	if (!fp) return GVK_ERR_IO;
	return fputs(r->in.irem, fp) < 0 ? gvk_err_set(r->err, GVK_ERR_IO, "cannot write %s.irem", r->a->out_prefix) : 0;
}

/* A run without a table: the log alone, written by one process. PLINK writes no .ld either. */
static int write_log_only(run_t *r, const char *why)
{
	r->sum->no_table = 1;
	if (!first_rank(r)) return r->sum->writes = 0, 0;
	return r->log_path ? write_log(r, why) : 0;
}

/* Split over processes: each its rows, rank 0 the joined output and the log. */
static int write_outputs_split(run_t *r)
{
	ld_job_args_t *a = r->a;
	r->w = (ld_writer_t){.d = &r->d, .shape = a->ld.shape, .r2 = a->r2, .bin = a->bin, .spaces = a->spaces,
	                     .r2_min = a->r2_min, .with_freqs = a->with_freqs, .in_phase = a->in_phase, .dcol = a->dcol,
	                     .dprime = a->dprime, .gz = a->gz};
	int writes = 0;
	const gvk_ld_split_t *sp = r->j->split;
	int rc = ld_split_table(sp, &r->files, a->out ? a->out : r->path, &r->w, &r->d, r->in.mpi_part, &a->ld,
	                   &r->rep, &writes, r->err);
	r->sum->writes = writes;
	if (rc < 0 || !writes) return rc;
	rc = write_irem(r);
	if (rc == 0 && r->log_path) rc = write_log(r, NULL);
	return rc;
}

typedef struct {
	ld_writer_t *w;
	const gvk_ld_job_opts_t *o;
	int64_t m;
} sink_ctx_t;

/* The writer, and the caller's progress. */
static int sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	sink_ctx_t *c = ctx;
	int rc = ld_writer_sink(c->w, s, err);
	if (c->o->progress) c->o->progress(c->o->progress_arg, s->i1, c->m);
	return rc;
}

/* The table or matrix, then .irem and the log. */
static int write_outputs(run_t *r)
{
	ld_job_args_t *a = r->a;
	/* PLINK's table has no first variant with a later one to pair with, so it leaves no file. */
	if (a->ld.shape == LD_TABLE && !r->in.idx1 && r->d.n_snp == 1)
		return write_log_only(r, "One variant left, so there are no pairs and no table file is written.");
	if (r->j->split) return write_outputs_split(r);
	FILE *fp = file_hooks_open(&r->files, a->out ? a->out : r->path, r->err);
	if (!fp) return GVK_ERR_IO;
	r->w = (ld_writer_t){.fp = fp, .d = &r->d, .shape = a->ld.shape, .r2 = a->r2, .bin = a->bin, .spaces = a->spaces,
	                     .r2_min = a->r2_min, .with_freqs = a->with_freqs, .in_phase = a->in_phase, .dcol = a->dcol,
	                     .dprime = a->dprime, .gz = a->gz, .threads = a->ld.threads};
	/* one set of threads for the engine and the writer, which take turns */
	gvk_pool_t *pool = a->ld.threads > 1 && a->ld.device != GVK_DEVICE_GPU ? gvk_pool_create(a->ld.threads) : NULL;
	r->w.pool = pool, a->ld.pool = pool;
	double t = gvk_seconds();
	int rc = ld_writer_init(&r->w, r->err);
	sink_ctx_t sc = {&r->w, r->j->o, r->d.n_snp};
	if (rc == 0) rc = ld_run(&r->d, &a->ld, sink, &sc, &r->rep, r->err);
	if (r->j->o->progress) r->j->o->progress(r->j->o->progress_arg, -1, r->d.n_snp);
	if (rc == 0) rc = ld_writer_finish(&r->w, r->err);
	gvk_pool_destroy(pool);
	a->ld.pool = r->w.pool = NULL;
	ld_job_phase(&r->j->o->log, a->verbose && rc == 0, "computing and writing the table", &t);
	if (rc == 0) rc = write_irem(r);
	if (rc == 0 && r->log_path) rc = write_log(r, NULL);
	return rc;
}

/* After the lists or clumps (rc: how they went): .irem and the log. */
static int finish_lists(run_t *r, int rc)
{
	if (rc == 0) rc = write_irem(r);
	if (rc == 0 && r->log_path) rc = save_log(r);
	return rc;
}

/* --indep*'s lists, or --clump's PREFIX.clumped, then .irem and the log. */
static int write_lists(run_t *r)
{
	const ld_input_t *in = &r->in;
	snp_bed_src_t src = {in->bed, in->row, in->n_rows, in->n_samples, &in->geno, in->stats_later};
	/* split over processes, clumping runs whole on rank 0 (the others read the input for nothing) */
	int writes = first_rank(r), rc = 0;
	const gvk_log_t *log = &r->j->o->log;
	if (r->a->clump_set && writes)
		rc = ld_job_clump(r->a, &r->d, in->streamed ? &src : NULL, &r->files, log, &r->log, &r->sum->n_clumps, r->err);
	else if (!r->a->clump_set)
		rc = ld_job_prune(r->a, &r->d, in->streamed ? &src : NULL, r->j->split, in->mpi_part, &r->files, log, &r->log,
		                  &r->sum->n_pruned, &writes, r->err);
	r->sum->writes = writes;
	if (!writes) return rc;
	return finish_lists(r, rc);
}

static int run(run_t *r)
{
	ld_job_args_t *a = r->a;
	const gvk_log_t *say = &r->j->o->log;
	ld_log_printf(&r->log, "gvk %s ld (PLINK 1.9 %s)\n", GVK_VERSION,
	              a->clump_set ? "--clump" : a->prune_set ? ld_prune_mode_name(a->prune.mode) : "--r/--r2");
	ld_log_options(&r->log, a->argc, a->argv);
	double t = gvk_seconds();
	int rc = ld_load(a, r->j->split, &r->d, &r->in, &r->log, r->err);
	if (rc < 0) return rc;
	ld_job_phase(say, a->verbose, "reading the input", &t);
	r->path = gvk_concat(a->out_prefix, a->bin ? ".ld.bin" : a->gz ? ".ld.gz" : ".ld");
	/* With -o the log goes beside --out's prefix only when --out is given too. */
	r->log_path = !a->out || a->out_set ? gvk_concat(a->out_prefix, ".log") : NULL;
	if (!r->path || ((!a->out || a->out_set) && !r->log_path)) return gvk_err_set(r->err, GVK_ERR_NOMEM, "out of memory");
	/* a pruning or clumping run writes lists, no table: its first list is what it made */
	if (a->prune_set || a->clump_set)
		snprintf(r->sum->out, sizeof r->sum->out, "%s%s", a->out_prefix, a->clump_set ? ".clumped" : ".prune.in");
	else
		snprintf(r->sum->out, sizeof r->sum->out, "%s", a->out ? a->out : r->path);
	snprintf(r->sum->log_path, sizeof r->sum->log_path, "%s", r->log_path ? r->log_path : "");
	if (r->in.skip) {
		r->sum->few_founders = 1;
		return write_log_only(r, "Warning: " FOUNDERS_SKIP);
	}
	if (a->prune_set || a->clump_set) return write_lists(r);
	if (a->shape_set && r->d.n_snp > 400000 && !a->yes_really)
		return gvk_err_set(r->err, GVK_ERR_ARG, "a matrix of %lld SNPs is very large; add the 'yes-really' modifier",
		                   (long long)r->d.n_snp);
	a->ld.haplotype = a->phased;
	a->ld.r2 = a->r2;
	a->ld.single = a->bin == 4;
	/* the writer's test: r^2 against --ld-window-r2, |r| against its square root */
	a->ld.drop = a->ld.shape == LD_TABLE ? (a->r2 ? a->r2_min : sqrt(a->r2_min)) : 0.0;
	a->ld.idx1 = r->in.idx1;
	a->ld.row = r->in.row;
	a->ld.base_bp = r->in.ord.base_bp, a->ld.base_cm = r->in.ord.base_cm, a->ld.n_base = r->in.ord.n_base;
	return write_outputs(r);
}

/* What the summary tells of the data and the engine. */
static void summarize(const run_t *r)
{
	gvk_ld_job_summary_t *s = r->sum;
	s->n_snps = r->d.n_snp, s->n_samples = r->d.n_bits, s->phased = r->d.phased;
	s->pairs = r->rep.pairs, s->written = r->w.written;
	s->threads = r->a->ld.threads;
	const char *k = r->rep.kernel[0] ? r->rep.kernel : ld_device_name(&r->a->ld);
	snprintf(s->kernel, sizeof s->kernel, "%s", k ? k : "");
}

int gvk_ld_job_run(gvk_ld_job_t *j, const gvk_files_t *files, gvk_ld_job_summary_t *sum, gvk_err_t *err)
{
	if (!sum) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_run: sum is NULL");
	memset(sum, 0, sizeof *sum);
	if (!j) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_run: the job is NULL");
	if (j->ran) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_run: a job runs once");
	j->ran = 1;
	run_t *r = calloc(1, sizeof *r);
	if (!r) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	r->j = j, r->a = &j->a, r->sum = sum, r->err = err;
	sum->writes = 1;
	file_hooks_init(&r->files, files);
	int rc = run(r);
	summarize(r);
	rc = file_hooks_close_all(&r->files, rc, err);
	ld_writer_free(&r->w);
	ld_log_free(&r->log);
	snp_data_free(&r->d);
	ld_input_free(&r->in, j->split);
	free(r->path);
	free(r->log_path);
	free(r);
	return rc;
}
