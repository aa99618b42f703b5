/* SPDX-License-Identifier: MIT */
/* gvk ld: PLINK 1.9 --r / --r2 with PLINK's own option names, so that a PLINK command line runs
 * with "gvk ld" in place of "plink". Options are in ld_args.c, reading and filtering in ld_load.c,
 * the log in ld_log.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_paths.h"
#include "gvk.h"
#include "commands.h"
#include "ld_args.h"
#include "ld_load.h"
#include "ld_log.h"
#include "ld_prune_cmd.h"
#include "ld_clump_cmd.h"
#include "../common/err.h"
#include "../common/outset.h"
#include "../common/threads.h"
#include "../ld/ld_engine.h"
#include "../ld/ld_write.h"
#ifdef GVK_MPI
#include "mpi/mpi_drivers.h"
#endif
#include "../snp/snp_gpu.h"
#include "snp_gpu_env.h"

typedef struct {
	ld_writer_t *w;
	int progress;
	int64_t m;
	double t0;
} sink_ctx_t;

/* The writer, plus a progress line on a terminal. */
static int sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	sink_ctx_t *c = ctx;
	int rc = ld_writer_sink(c->w, s, err);
	if (c->progress)
		fprintf(stderr, "\r[gvk ld] %lld of %lld rows, %.1f s", (long long)s->i1, (long long)c->m, gvk_seconds() - c->t0);
	return rc;
}

/* The log's lines on the run's statistic and output. */
static void log_run(const ld_args_t *a, const char *path, ld_log_t *log)
{
	ld_log_printf(log, "--r%s%s%s%s%s to %s ... done.\n", a->r2 ? "2" : "", a->ld.inter_chr ? " inter-chr" : "",
	              a->in_phase ? " in-phase" : "", a->dcol ? " d" : a->dprime == LD_DP_ABS ? " dprime" : a->dprime ? " dprime-signed" : "",
	              a->with_freqs ? " with-freqs" : "", path);
}

typedef struct {
	ld_args_t a;
	snp_data_t d;
	ld_input_t in;
	gvk_outset_t os;
	ld_writer_t w;
	ld_log_t log;
	char *path, *log_path;
	ld_report_t rep;
	gvk_err_t err;
	double t0;
	int64_t n_pruned; /* --indep-pairwise: variants removed */
	int64_t n_clumps; /* --clump: clumps formed */
	int no_table; /* the run ended without a table (one variant, or fewer than two founders) */
} run_t;

/* PLINK 1.9 skips --r/--r2 with a warning, rather than failing, when fewer than two founders remain. */
#define FOUNDERS_SKIP "fewer than two founders remain, so there is no LD to compute and no table file is written (--make-founders may help)"

/* The .log file of a run, added to the output set; why: the reason a run wrote no table, or NULL. */
static int write_log(run_t *r, const char *why)
{
	ld_args_t *a = &r->a;
	ld_log_printf(&r->log, "%lld variants and %lld people pass filters and QC.\n", (long long)r->d.n_snp,
	              (long long)r->d.n_bits);
	if (why) {
		ld_log_printf(&r->log, "%s\n", why);
	} else {
		log_run(a, a->out ? a->out : r->path, &r->log);
		ld_log_printf(&r->log, "%llu pairs computed, %llu values written.\n", (unsigned long long)r->rep.pairs,
		              (unsigned long long)r->w.written);
	}
	FILE *lf = gvk_outset_open(&r->os, r->log_path, &r->err);
	return lf ? ld_log_write(&r->log, lf, &r->err) : GVK_ERR_IO;
}

/* PLINK writes the samples --mind removed to PREFIX.irem, when there are any. */
static int write_irem(run_t *r)
{
	if (!r->in.n_mind_removed) return 0;
	char *path = cli_with_ext(r->a.out_prefix, ".irem");
	if (!path) return gvk_err_set(&r->err, GVK_ERR_NOMEM, "out of memory");
	FILE *fp = gvk_outset_open(&r->os, path, &r->err);
	free(path);
	if (!fp) return GVK_ERR_IO;
	return fputs(r->in.irem, fp) < 0 ? gvk_err_set(&r->err, GVK_ERR_IO, "cannot write %s.irem", r->a.out_prefix) : 0;
}

#ifdef GVK_MPI
/* Under MPI: each rank its rows, rank 0 the joined output, the log and the commit. */
static int write_outputs_mpi(run_t *r)
{
	ld_args_t *a = &r->a;
	r->w = (ld_writer_t){.d = &r->d, .shape = a->ld.shape, .r2 = a->r2, .bin = a->bin, .spaces = a->spaces,
	                     .r2_min = a->r2_min, .with_freqs = a->with_freqs, .in_phase = a->in_phase, .dcol = a->dcol,
	                     .dprime = a->dprime, .gz = a->gz};
	int writes = 0;
	int rc = gvk_mpi_ld(&r->os, a->out ? a->out : r->path, &r->w, &r->d, r->in.mpi_part, &a->ld, &r->rep, &writes, &r->err);
	if (!writes) a->quiet = 1;
	if (rc < 0 || !writes) return rc;
	rc = write_irem(r);
	if (rc == 0 && r->log_path) rc = write_log(r, NULL);
	if (rc == 0) rc = gvk_outset_commit(&r->os, &r->err);
	return rc;
}
#endif

/* 1 on the process that writes the log and the messages of a run without a table (rank 0). */
static int first_rank(void)
{
#ifdef GVK_MPI
	return gvk_mpi_rank() == 0;
#else
	return 1;
#endif
}

/* A run without a table: the log alone, written by one rank. PLINK writes no .ld either. */
static int write_log_only(run_t *r, const char *why)
{
	r->no_table = 1;
	if (!first_rank()) return r->a.quiet = 1, 0;
	int rc = r->log_path ? write_log(r, why) : 0;
	return rc == 0 ? gvk_outset_commit(&r->os, &r->err) : rc;
}

/* The table or matrix, then the log, as one output set. */
static int write_outputs(run_t *r)
{
	ld_args_t *a = &r->a;
	/* PLINK's table has no first variant with a later one to pair with, so it leaves no file. */
	if (a->ld.shape == LD_TABLE && !r->in.idx1 && r->d.n_snp == 1)
		return write_log_only(r, "One variant left, so there are no pairs and no table file is written.");
#ifdef GVK_MPI
	if (gvk_mpi_several()) return write_outputs_mpi(r);
#endif
	FILE *fp = gvk_outset_open(&r->os, a->out ? a->out : r->path, &r->err);
	if (!fp) return GVK_ERR_IO;
	r->w = (ld_writer_t){.fp = fp, .d = &r->d, .shape = a->ld.shape, .r2 = a->r2, .bin = a->bin, .spaces = a->spaces,
	                     .r2_min = a->r2_min, .with_freqs = a->with_freqs, .in_phase = a->in_phase, .dcol = a->dcol,
	                     .dprime = a->dprime, .gz = a->gz, .threads = a->ld.threads};
	/* one set of threads for the engine and the writer, which take turns */
	gvk_pool_t *pool = a->ld.threads > 1 && a->ld.device != GVK_DEVICE_GPU ? gvk_pool_create(a->ld.threads) : NULL;
	r->w.pool = pool, a->ld.pool = pool;
	double t = gvk_seconds();
	int rc = ld_writer_init(&r->w, &r->err);
	sink_ctx_t sc = {&r->w, !a->quiet && isatty(2), r->d.n_snp, r->t0};
	if (rc == 0) rc = ld_run(&r->d, &a->ld, sink, &sc, &r->rep, &r->err);
	if (sc.progress) fputc('\n', stderr);
	if (rc == 0) rc = ld_writer_finish(&r->w, &r->err);
	gvk_pool_destroy(pool);
	a->ld.pool = r->w.pool = NULL;
	ld_log_phase(a->verbose && rc == 0, "computing and writing the table", &t);
	if (rc == 0) rc = write_irem(r);
	if (rc == 0 && r->log_path) rc = write_log(r, NULL);
	if (rc == 0) rc = gvk_outset_commit(&r->os, &r->err);
	ld_log_phase(a->verbose && rc == 0, "writing the log and committing", &t);
	return rc;
}

/* After a run's own files (rc: how they went): .irem, the log, and the commit of the set. */
static int finish_set(run_t *r, int rc)
{
	double t = gvk_seconds();
	if (rc == 0) rc = write_irem(r);
	FILE *lf = rc == 0 && r->log_path ? gvk_outset_open(&r->os, r->log_path, &r->err) : NULL;
	if (rc == 0 && r->log_path) rc = lf ? ld_log_write(&r->log, lf, &r->err) : GVK_ERR_IO;
	if (rc == 0) rc = gvk_outset_commit(&r->os, &r->err);
	ld_log_phase(r->a.verbose && rc == 0, "writing the log and committing", &t);
	return rc;
}

/* --indep*'s lists, or --clump's PREFIX.clumped, then .irem and the log, as one output set. */
static int write_lists(run_t *r)
{
	const ld_input_t *in = &r->in;
	snp_bed_src_t src = {in->bed, in->row, in->n_rows, in->n_samples, &in->geno, in->stats_later};
	/* under MPI clumping runs whole on rank 0 (the other ranks read the input for nothing) */
	int writes = first_rank(), rc = 0;
	if (r->a.clump_set && writes)
		rc = ld_clump_cmd_write(&r->a, &r->d, in->streamed ? &src : NULL, &r->os, &r->log, &r->n_clumps, &r->err);
	else if (!r->a.clump_set)
		rc = ld_prune_write(&r->a, &r->d, in->streamed ? &src : NULL, in->mpi_part, &r->os, &r->log, &r->n_pruned,
		                    &writes, &r->err);
	if (!writes) return r->a.quiet = 1, rc;
	return finish_set(r, rc);
}

static int run(run_t *r)
{
	ld_args_t *a = &r->a;
	ld_log_printf(&r->log, "gvk %s ld (PLINK 1.9 %s)\n", GVK_VERSION, a->clump_set ? "--clump" : a->prune_set ? ld_prune_mode_name(a->prune.mode) : "--r/--r2");
	ld_log_options(&r->log, a->argc, a->argv);
	double t = r->t0;
	int rc = ld_load(a, &r->d, &r->in, &r->log, &r->err);
	if (rc < 0) return rc;
	ld_log_phase(a->verbose, "reading the input", &t);
	r->path = cli_with_ext(a->out_prefix, a->bin ? ".ld.bin" : a->gz ? ".ld.gz" : ".ld");
	/* With -o the log goes beside --out's prefix only when --out is given too. */
	r->log_path = !a->out || a->out_set ? cli_with_ext(a->out_prefix, ".log") : NULL;
	if (!r->path || ((!a->out || a->out_set) && !r->log_path)) return gvk_err_set(&r->err, GVK_ERR_NOMEM, "out of memory");
	if (r->in.skip) {
		if (first_rank()) fprintf(stderr, "gvk ld: warning: %s\n", FOUNDERS_SKIP);
		return write_log_only(r, "Warning: " FOUNDERS_SKIP);
	}
	if (a->prune_set || a->clump_set) return write_lists(r);
	if (ld_args_check_count(a, r->d.n_snp) < 0) return GVK_ERR_ARG;
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

/* The GVK_SNP_GPU_* variables into the engine's GPU options, with the process's log. */
static int gpu_env(snp_gpu_opt_t *g)
{
	snp_gpu_env_t v = {g->path, g->mem, g->db_block, g->q_batch};
	if (snp_gpu_env("ld", &v) < 0) return -1;
	g->path = v.path, g->mem = v.mem, g->db_block = v.db_block, g->q_batch = v.q_batch;
	gvk_log_default(&g->log);
	return 0;
}

int gvk_cmd_ld(int argc, char **argv)
{
	run_t *r = calloc(1, sizeof *r);
	if (!r) return fprintf(stderr, "gvk ld: out of memory\n"), 1;
	if (ld_args_parse(argc, argv, &r->a) < 0) return free(r), 1;
	/* the input is named first: without one, nothing else can be said of the run */
	int no_input = ld_args_check_input(&r->a) < 0;
	if (!no_input && ld_clump_check(&r->a) < 0) return free(r), 1;
	if (no_input || (!r->a.stat_set && !r->a.prune_set && !r->a.clump_set)) {
		if (!no_input) fprintf(stderr, "gvk ld: give --r, --r2, --indep-pairwise, --indep-pairphase, --indep or --clump\n");
		ld_usage(stderr);
		return free(r), 1;
	}
	if (ld_args_check(&r->a) < 0 || gpu_env(&r->a.ld.gpu) < 0) return free(r), 1;
	/* --device gpu: the GPU or an error, before any input is read. Unphased D / D' come from a
	 * per-pair EM that only the CPU runs, so the GPU cannot be promised for them. */
	if (r->a.ld.device == GVK_DEVICE_GPU && r->a.ld.em) {
		fprintf(stderr, "gvk ld: --device gpu: unphased D and D' (d, dprime) are computed on the CPU only; use "
		                "--device cpu or auto, or --phased\n");
		return free(r), 1;
	}
	if (r->a.ld.device == GVK_DEVICE_GPU && snp_gpu_probe(&r->a.ld.gpu, NULL, 0, &r->err) < 0) {
		gvk_cli_no_gpu(r->err.msg);
		return free(r), 1;
	}
	gvk_outset_init(&r->os);
	gvk_cli_signals_watch(&r->os);
	r->t0 = gvk_seconds();
	int rc = run(r);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&r->os);
	const ld_args_t *a = &r->a;
	if (rc < 0 && rc != GVK_ERR_ARG) {
		fprintf(stderr, "gvk ld: %s\n", r->err.msg[0] ? r->err.msg : gvk_strerror(rc));
	} else if (rc < 0 && r->err.msg[0]) {
		fprintf(stderr, "gvk ld: %s\n", r->err.msg);
	} else if (rc == 0 && !a->quiet && a->prune_set) {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld samples, %lld pruned, %lld kept; lists in %s.prune.in / .prune.out, %.3f s\n",
		        (long long)r->d.n_snp, (long long)r->d.n_bits, (long long)r->n_pruned,
		        (long long)(r->d.n_snp - r->n_pruned), a->out_prefix, gvk_seconds() - r->t0);
	} else if (rc == 0 && !a->quiet && a->clump_set) {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld samples, %lld clumps%s%s, %.3f s\n", (long long)r->d.n_snp,
		        (long long)r->d.n_bits, (long long)r->n_clumps, r->n_clumps ? " in " : "", r->n_clumps ? a->out_prefix : "",
		        gvk_seconds() - r->t0);
	} else if (rc == 0 && !a->quiet && r->no_table) {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld samples, no pairs, no table file written%s%s\n", (long long)r->d.n_snp,
		        (long long)r->d.n_bits, r->log_path ? "; log in " : "", r->log_path ? r->log_path : "");
	} else if (rc == 0 && !a->quiet) {
		double dt = gvk_seconds() - r->t0;
		fprintf(stderr, "gvk ld: %lld SNPs x %lld %s, %llu pairs, %llu written to %s, %.3f s, %.3g pairs/s, %s, %d threads\n",
		        (long long)r->d.n_snp, (long long)r->d.n_bits, r->d.phased ? "haplotypes" : "samples",
		        (unsigned long long)r->rep.pairs, (unsigned long long)r->w.written, a->out ? a->out : r->path, dt,
		        dt > 0 ? (double)r->rep.pairs / dt : 0.0, r->rep.kernel[0] ? r->rep.kernel : ld_device_name(&a->ld),
		        a->ld.threads);
	}
	ld_writer_free(&r->w);
	ld_log_free(&r->log);
	snp_data_free(&r->d);
	ld_input_free(&r->in);
	free(r->path);
	free(r->log_path);
	free(r);
	return rc < 0 ? 1 : 0;
}
