/* SPDX-License-Identifier: MIT */
/* gvk ld: PLINK 1.9 --r / --r2, --indep* and --clump with PLINK's own option names, so that a
 * PLINK command line runs with "gvk ld" in place of "plink". Options are parsed in ld_args.c; the
 * run is the library's gvk_ld_job_*, its files members of this command's output set. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"
#include "commands.h"
#include "ld_args.h"
#include "snp_gpu_env.h"
#include "../common/err.h"
#include "../common/outset.h"
#include "../common/threads.h"
#ifdef GVK_MPI
#include "mpi/mpi_ld_job.h"
#endif

/* PLINK 1.9 skips --r/--r2 with a warning, rather than failing, when fewer than two founders remain. */
#define FOUNDERS_SKIP "fewer than two founders remain, so there is no LD to compute and no table file is written (--make-founders may help)"

typedef struct {
	ld_args_t a;
	gvk_outset_t os;
	gvk_ld_job_summary_t sum;
	gvk_err_t err;
	double t0;
	void *split; /* the MPI ranks' hooks (gvk_mpi_ld_job_split); NULL in one process */
} run_t;

/* Warnings unless -q, phases with -v, as "gvk ld: TEXT". */
static void say(void *arg, int level, const char *msg)
{
	const ld_args_t *a = arg;
	if ((level <= GVK_LOG_WARN && !a->quiet) || (level == GVK_LOG_INFO && a->o.verbose)) fprintf(stderr, "gvk ld: %s\n", msg);
}

typedef struct {
	double t0;
} progress_t;

/* A progress line on a terminal; done -1 ends it. */
static void progress(void *arg, int64_t done, int64_t rows)
{
	const run_t *r = arg;
	if (done < 0) fputc('\n', stderr);
	else fprintf(stderr, "\r[gvk ld] %lld of %lld rows, %.1f s", (long long)done, (long long)rows, gvk_seconds() - r->t0);
}

/* The GVK_SNP_GPU_* variables into the job's GPU options. */
static int gpu_env(gvk_ld_job_opts_t *o)
{
	snp_gpu_env_t v = {o->gpu_path, o->gpu_mem, 0, 0};
	if (snp_gpu_env("ld", &v) < 0) return -1;
	o->gpu_path = v.path, o->gpu_mem = v.mem;
	return 0;
}

/* The run, then the output set's commit on the process that wrote it. */
static int run(run_t *r, gvk_ld_job_t *j)
{
	gvk_files_t files = gvk_outset_files(&r->os);
	int rc = gvk_ld_job_run(j, &files, &r->sum, &r->err);
	if (r->sum.few_founders && r->sum.writes) fprintf(stderr, "gvk ld: warning: %s\n", FOUNDERS_SKIP);
	if (rc < 0 || !r->sum.writes) return rc;
	double t = gvk_seconds();
	rc = gvk_outset_commit(&r->os, &r->err);
	/* the table split over ranks and a run without a table say nothing of their commit */
	int lists = r->a.o.prune_set || r->a.o.clump_set;
	if (rc == 0 && r->a.o.verbose && !r->sum.no_table && (lists || !r->split))
		fprintf(stderr, "gvk ld: writing the log and committing %.3f s\n", gvk_seconds() - t);
	return rc;
}

/* The one-line summary. */
static void summary(const run_t *r)
{
	const ld_args_t *a = &r->a;
	const gvk_ld_job_summary_t *s = &r->sum;
	double dt = gvk_seconds() - r->t0;
	if (a->o.prune_set) {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld samples, %lld pruned, %lld kept; lists in %s.prune.in / .prune.out, %.3f s\n",
		        (long long)s->n_snps, (long long)s->n_samples, (long long)s->n_pruned, (long long)(s->n_snps - s->n_pruned),
		        a->o.out_prefix, dt);
	} else if (a->o.clump_set) {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld samples, %lld clumps%s%s, %.3f s\n", (long long)s->n_snps,
		        (long long)s->n_samples, (long long)s->n_clumps, s->n_clumps ? " in " : "", s->n_clumps ? a->o.out_prefix : "", dt);
	} else if (s->no_table) {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld samples, no pairs, no table file written%s%s\n", (long long)s->n_snps,
		        (long long)s->n_samples, s->log_path[0] ? "; log in " : "", s->log_path);
	} else {
		fprintf(stderr, "gvk ld: %lld SNPs x %lld %s, %llu pairs, %llu written to %s, %.3f s, %.3g pairs/s, %s, %d threads\n",
		        (long long)s->n_snps, (long long)s->n_samples, s->phased ? "haplotypes" : "samples",
		        (unsigned long long)s->pairs, (unsigned long long)s->written, s->out, dt,
		        dt > 0 ? (double)s->pairs / dt : 0.0, s->kernel, s->threads);
	}
}

/* Parses and checks the command line; 1 when the command ends here (messages given). */
static int setup(int argc, char **argv, run_t *r)
{
	ld_args_t *a = &r->a;
	if (ld_args_parse(argc, argv, a) < 0) return 1;
	/* the input is named first: without one, nothing else can be said of the run */
	int no_input = ld_args_check_input(a) < 0;
	if (!no_input && ld_clump_check(a) < 0) return 1;
	if (no_input || (!a->o.stat_set && !a->o.prune_set && !a->o.clump_set)) {
		if (!no_input) fprintf(stderr, "gvk ld: give --r, --r2, --indep-pairwise, --indep-pairphase, --indep or --clump\n");
		ld_usage(stderr);
		return 1;
	}
	if (gvk_ld_job_opts_check(&a->o, &r->err) < 0) return fprintf(stderr, "gvk ld: %s\n", r->err.msg), 1;
	if (gpu_env(&a->o) < 0) return 1;
	a->o.log = (gvk_log_t){say, a, GVK_LOG_DEBUG};
	if (!a->quiet && isatty(2)) a->o.progress = progress, a->o.progress_arg = r;
	return 0;
}

int gvk_cmd_ld(int argc, char **argv)
{
	run_t *r = calloc(1, sizeof *r);
	if (!r) return fprintf(stderr, "gvk ld: out of memory\n"), 1;
	if (setup(argc, argv, r)) return free(r), 1;
	gvk_ld_job_t *j = gvk_ld_job_create(&r->a.o, &r->err);
	if (!j && r->a.o.device == GVK_DEVICE_GPU && r->err.code != GVK_ERR_ARG) {
		gvk_cli_no_gpu(r->err.msg);
		return free(r), 1;
	}
	if (!j) return fprintf(stderr, "gvk ld: %s\n", r->err.msg), free(r), 1;
#ifdef GVK_MPI
	if (gvk_mpi_ld_job_split(j, r->a.quiet, &r->split, &r->err) < 0) {
		fprintf(stderr, "gvk ld: %s\n", r->err.msg);
		return gvk_ld_job_destroy(j), free(r), 1;
	}
#endif
	gvk_outset_init(&r->os);
	gvk_cli_signals_watch(&r->os);
	r->t0 = gvk_seconds();
	int rc = run(r, j);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&r->os);
	if (rc < 0) fprintf(stderr, "gvk ld: %s\n", r->err.msg[0] ? r->err.msg : gvk_strerror(rc));
	else if (!r->a.quiet && r->sum.writes) summary(r);
	gvk_ld_job_destroy(j);
	free(r->split);
	free(r);
	return rc < 0 ? 1 : 0;
}
