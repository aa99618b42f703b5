/* SPDX-License-Identifier: MIT */
/* NULL in every pointer argument of every function of gvk.h, one at a time, with the others
 * valid: GVK_ERR_ARG (NULL for a constructor) with err naming the argument, or, for a function
 * that cannot fail, the no-op gvk.h documents. Each call runs in a child process, so that a crash
 * is reported as a failure of that call and the others still run. Built against the public
 * header only, as a program using the library is. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gvk.h"

static int fails, cases;

/* 0 when the call returned GVK_ERR_ARG and, where the function takes a gvk_err_t, err holds
 * that code and the message gvk.h promises: "FUNCTION: ARG is NULL". */
static int verdict(long rc, const gvk_err_t *err, const char *arg)
{
	char want[64];
	snprintf(want, sizeof want, "%s is NULL", arg ? arg : "");
	if (rc != GVK_ERR_ARG) return 1;
	if (arg && (err->code != GVK_ERR_ARG || !strstr(err->msg, want))) return 2;
	return 0;
}

static void report(const char *what, pid_t pid)
{
	int st = 0;
	++cases;
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		++fails, printf("FAIL: %s: cannot run\n", what);
		return;
	}
	if (WIFSIGNALED(st)) ++fails, printf("FAIL: %s: killed by signal %d\n", what, WTERMSIG(st));
	else if (WEXITSTATUS(st) == 1) ++fails, printf("FAIL: %s: not GVK_ERR_ARG\n", what);
	else if (WEXITSTATUS(st) == 2) ++fails, printf("FAIL: %s: message does not say which argument is NULL\n", what);
	else if (WEXITSTATUS(st)) ++fails, printf("FAIL: %s: exit status %d\n", what, WEXITSTATUS(st));
}

/* expr, evaluated in a child with `err` in scope, must give GVK_ERR_ARG naming arg (NULL: the
 * function has no err). A constructor's case maps its NULL result to GVK_ERR_ARG (CTOR). */
#define ARG(what, arg, expr)                                                                       \
	do {                                                                                       \
		fflush(stdout);                                                                    \
		pid_t pid_ = fork();                                                               \
		if (pid_ == 0) {                                                                   \
			gvk_err_t err = {0, ""};                                                   \
			long rc_ = (long)(expr);                                                   \
			_exit(verdict(rc_, &err, arg));                                            \
		}                                                                                  \
		report(what, pid_);                                                                \
	} while (0)
#define CTOR(call) ((call) == NULL ? GVK_ERR_ARG : 0)
/* A call that cannot fail: it returns, and check (evaluated after it) holds. */
#define NOOP(what, stmt, check)                                                                    \
	do {                                                                                       \
		fflush(stdout);                                                                    \
		pid_t pid_ = fork();                                                               \
		if (pid_ == 0) {                                                                   \
			stmt;                                                                      \
			_exit((check) ? 0 : 1);                                                    \
		}                                                                                  \
		report(what, pid_);                                                                \
	} while (0)

static const uint8_t q4[4] = {30, 30, 30, 30}, g4[4] = {10, 10, 10, 10};
static const gvk_read_t rd = {4, "ACGT", q4, q4, q4, g4};
static const gvk_hap_t hp = {4, "ACGT"};

static void pairhmm(void)
{
	gvk_pairhmm_opts_t o;
	gvk_pairhmm_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	gvk_pairhmm_t *e = gvk_pairhmm_create(&o, NULL);
	if (!e) {
		++fails, printf("FAIL: cannot create a Pair-HMM engine\n");
		return;
	}
	double out[1];
	gvk_pair_t pr = {0, 0};
	gvk_pairhmm_out_t po = {out, NULL, NULL, NULL}, none = {NULL, NULL, NULL, NULL};
	gvk_pairhmm_file_result_t *fr = NULL;
	NOOP("gvk_pairhmm_opts_init(NULL)", gvk_pairhmm_opts_init(NULL), 1);
	ARG("gvk_pairhmm_create(opt NULL)", "opt", CTOR(gvk_pairhmm_create(NULL, &err)));
	NOOP("gvk_pairhmm_destroy(NULL)", gvk_pairhmm_destroy(NULL), 1);
	NOOP("gvk_pairhmm_device_name(NULL)", const char *n = gvk_pairhmm_device_name(NULL), n && !strcmp(n, "none"));
	ARG("gvk_pairhmm_batch(e NULL)", "e", gvk_pairhmm_batch(NULL, &rd, 1, &hp, 1, out, &err));
	ARG("gvk_pairhmm_batch(reads NULL)", "reads", gvk_pairhmm_batch(e, NULL, 1, &hp, 1, out, &err));
	ARG("gvk_pairhmm_batch(haps NULL)", "haps", gvk_pairhmm_batch(e, &rd, 1, NULL, 1, out, &err));
	ARG("gvk_pairhmm_batch(out NULL)", "out", gvk_pairhmm_batch(e, &rd, 1, &hp, 1, NULL, &err));
	ARG("gvk_pairhmm_pairs(e NULL)", "e", gvk_pairhmm_pairs(NULL, &rd, &hp, &pr, 1, &po, &err));
	ARG("gvk_pairhmm_pairs(reads NULL)", "reads", gvk_pairhmm_pairs(e, NULL, &hp, &pr, 1, &po, &err));
	ARG("gvk_pairhmm_pairs(haps NULL)", "haps", gvk_pairhmm_pairs(e, &rd, NULL, &pr, 1, &po, &err));
	ARG("gvk_pairhmm_pairs(pairs NULL)", "pairs", gvk_pairhmm_pairs(e, &rd, &hp, NULL, 1, &po, &err));
	ARG("gvk_pairhmm_pairs(out NULL)", "out", gvk_pairhmm_pairs(e, &rd, &hp, &pr, 1, NULL, &err));
	ARG("gvk_pairhmm_pairs(out->log10 NULL)", "log10", gvk_pairhmm_pairs(e, &rd, &hp, &pr, 1, &none, &err));
	NOOP("gvk_pairhmm_stats(e NULL)", gvk_pairhmm_stats_t st; memset(&st, 0xff, sizeof st); gvk_pairhmm_stats(NULL, &st),
	     st.pairs == 0 && st.cells == 0 && st.double_pairs == 0 && st.gpu_kernel_s == 0);
	NOOP("gvk_pairhmm_stats(st NULL)", gvk_pairhmm_stats(e, NULL), 1);
	ARG("gvk_pairhmm_file(e NULL)", "e", gvk_pairhmm_file(NULL, "x", &fr, &err));
	ARG("gvk_pairhmm_file(path NULL)", "path", gvk_pairhmm_file(e, NULL, &fr, &err));
	ARG("gvk_pairhmm_file(out NULL)", "out", gvk_pairhmm_file(e, "x", NULL, &err));
	NOOP("gvk_pairhmm_file_result_free(NULL)", gvk_pairhmm_file_result_free(NULL), 1);
	gvk_pairhmm_chunk_t *ch = gvk_pairhmm_chunk_new();
	gvk_pairhmm_reader_t *rdr = NULL; /* a real reader needs a file: NULL stands for "not opened" */
	ARG("gvk_pairhmm_reader_open(path NULL)", "path", CTOR(gvk_pairhmm_reader_open(NULL, GVK_PAIRHMM_FMT_AUTO, &err)));
	ARG("gvk_pairhmm_reader_next(r NULL)", "r", gvk_pairhmm_reader_next(rdr, ch, 10, 1, &err));
	NOOP("gvk_pairhmm_reader_close(NULL)", gvk_pairhmm_reader_close(NULL), 1);
	NOOP("gvk_pairhmm_reader_format(NULL)", int f = gvk_pairhmm_reader_format(NULL), f == -1);
	NOOP("gvk_pairhmm_reader_consumed(NULL)", size_t n = gvk_pairhmm_reader_consumed(NULL), n == 0);
	NOOP("gvk_pairhmm_reader_release(NULL)", gvk_pairhmm_reader_release(NULL, 10), 1);
	NOOP("gvk_pairhmm_reader_times(r NULL)", double t[4]; t[0] = t[1] = t[2] = t[3] = 1; gvk_pairhmm_reader_times(NULL, t),
	     t[0] == 0 && t[1] == 0 && t[2] == 0 && t[3] == 0);
	NOOP("gvk_pairhmm_chunk_free(NULL)", gvk_pairhmm_chunk_free(NULL), 1);
	NOOP("gvk_pairhmm_chunk_view(c NULL)", gvk_pairhmm_view_t v; memset(&v, 0xff, sizeof v); gvk_pairhmm_chunk_view(NULL, &v),
	     v.n_pairs == 0 && v.pairs == NULL && v.cells == 0);
	NOOP("gvk_pairhmm_chunk_view(v NULL)", gvk_pairhmm_chunk_view(ch, NULL), 1);
	NOOP("gvk_pairhmm_format_parse(NULL)", int f = gvk_pairhmm_format_parse(NULL), f == -1);
	NOOP("gvk_pairhmm_format_name(99)", const char *n = gvk_pairhmm_format_name(99), n && !strcmp(n, "?"));
	gvk_align_defaults_t adef = {{1, -1, -1, -1}, GVK_OVERHANG_SOFTCLIP, 0, 0};
	const gvk_align_pair_t *ap = NULL;
	ARG("gvk_align_reader_open(path NULL)", "path", CTOR(gvk_align_reader_open(NULL, &adef, &err)));
	ARG("gvk_align_reader_open(def NULL)", "def", CTOR(gvk_align_reader_open("x", NULL, &err)));
	ARG("gvk_align_reader_next(r NULL)", "r", gvk_align_reader_next(NULL, 10, &ap, NULL, &err));
	NOOP("gvk_align_reader_close(NULL)", gvk_align_reader_close(NULL), 1);
	NOOP("gvk_serve_opts_init(NULL)", gvk_serve_opts_init(NULL), 1);
	ARG("gvk_serve_opts_check(o NULL)", "o", gvk_serve_opts_check(NULL, &err));
	ARG("gvk_serve_create(o NULL)", "o", CTOR(gvk_serve_create(NULL, &err)));
	ARG("gvk_serve_run(s NULL)", "s", gvk_serve_run(NULL, &err));
	NOOP("gvk_serve_stop(NULL)", gvk_serve_stop(NULL), 1);
	NOOP("gvk_serve_summary(s NULL)", gvk_serve_summary_t m; memset(&m, 0xff, sizeof m); gvk_serve_summary(NULL, &m),
	     m.clients == 0 && m.calls[0] == 0 && m.device[0] == 0);
	NOOP("gvk_serve_summary(sum NULL)", gvk_serve_summary(NULL, NULL), 1);
	NOOP("gvk_serve_destroy(NULL)", gvk_serve_destroy(NULL), 1);
	ARG("gvk_serve_user_dir(dir NULL)", "dir", gvk_serve_user_dir("/tmp", 0, NULL, 10, &err));
	gvk_pairhmm_chunk_free(ch);
	gvk_pairhmm_destroy(e);
}

static void ld(void)
{
	gvk_ld_opts_t o;
	gvk_ld_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	gvk_ld_t *e = gvk_ld_create(&o, NULL);
	if (!e) {
		++fails, printf("FAIL: cannot create an LD engine\n");
		return;
	}
	static const int8_t geno[4] = {0, 1, 2, 0};
	gvk_ld_matrix_t *m = NULL;
	gvk_ld_table_t *t = NULL;
	NOOP("gvk_ld_opts_init(NULL)", gvk_ld_opts_init(NULL), 1);
	ARG("gvk_ld_create(o NULL)", "o", CTOR(gvk_ld_create(NULL, &err)));
	NOOP("gvk_ld_destroy(NULL)", gvk_ld_destroy(NULL), 1);
	NOOP("gvk_ld_device_name(NULL)", const char *n = gvk_ld_device_name(NULL), n && !strcmp(n, "none"));
	ARG("gvk_ld_matrix_bfile(e NULL)", "e", gvk_ld_matrix_bfile(NULL, "x", &m, &err));
	ARG("gvk_ld_matrix_bfile(prefix NULL)", "prefix", gvk_ld_matrix_bfile(e, NULL, &m, &err));
	ARG("gvk_ld_matrix_bfile(out NULL)", "out", gvk_ld_matrix_bfile(e, "x", NULL, &err));
	ARG("gvk_ld_table_bfile(e NULL)", "e", gvk_ld_table_bfile(NULL, "x", &t, &err));
	ARG("gvk_ld_table_bfile(prefix NULL)", "prefix", gvk_ld_table_bfile(e, NULL, &t, &err));
	ARG("gvk_ld_table_bfile(out NULL)", "out", gvk_ld_table_bfile(e, "x", NULL, &err));
	ARG("gvk_ld_matrix_geno(e NULL)", "e", gvk_ld_matrix_geno(NULL, geno, 2, 2, 0, &m, &err));
	ARG("gvk_ld_matrix_geno(geno NULL)", "geno", gvk_ld_matrix_geno(e, NULL, 2, 2, 0, &m, &err));
	ARG("gvk_ld_matrix_geno(out NULL)", "out", gvk_ld_matrix_geno(e, geno, 2, 2, 0, NULL, &err));
	ARG("gvk_ld_table_geno(e NULL)", "e", gvk_ld_table_geno(NULL, geno, 2, 2, 0, NULL, NULL, &t, &err));
	ARG("gvk_ld_table_geno(geno NULL)", "geno", gvk_ld_table_geno(e, NULL, 2, 2, 0, NULL, NULL, &t, &err));
	ARG("gvk_ld_table_geno(out NULL)", "out", gvk_ld_table_geno(e, geno, 2, 2, 0, NULL, NULL, NULL, &err));
	NOOP("gvk_ld_table_geno(chrom, bp NULL: allowed)", int rc = gvk_ld_table_geno(e, geno, 2, 2, 0, NULL, NULL, &t, NULL),
	     rc == 0 && t);
	gvk_ld_prune_opts_t po;
	gvk_ld_prune_result_t *pr = NULL;
	gvk_ld_prune_opts_init(&po);
	NOOP("gvk_ld_prune_opts_init(NULL)", gvk_ld_prune_opts_init(NULL), 1);
	ARG("gvk_ld_prune_bfile(e NULL)", "e", gvk_ld_prune_bfile(NULL, "x", &po, &pr, &err));
	ARG("gvk_ld_prune_bfile(prefix NULL)", "prefix", gvk_ld_prune_bfile(e, NULL, &po, &pr, &err));
	ARG("gvk_ld_prune_bfile(o NULL)", "o", gvk_ld_prune_bfile(e, "x", NULL, &pr, &err));
	ARG("gvk_ld_prune_bfile(out NULL)", "out", gvk_ld_prune_bfile(e, "x", &po, NULL, &err));
	NOOP("gvk_ld_prune_free(NULL)", gvk_ld_prune_free(NULL), 1);
	gvk_ld_clump_opts_t co;
	gvk_ld_clump_result_t *cr = NULL;
	const char *files[] = {"x.assoc"};
	gvk_ld_clump_opts_init(&co);
	NOOP("gvk_ld_clump_opts_init(NULL)", gvk_ld_clump_opts_init(NULL), 1);
	ARG("gvk_ld_clump_bfile(e NULL)", "engine", gvk_ld_clump_bfile(NULL, "x", files, 1, &co, &cr, &err));
	ARG("gvk_ld_clump_bfile(prefix NULL)", "prefix", gvk_ld_clump_bfile(e, NULL, files, 1, &co, &cr, &err));
	ARG("gvk_ld_clump_bfile(files NULL)", "files", gvk_ld_clump_bfile(e, "x", NULL, 1, &co, &cr, &err));
	ARG("gvk_ld_clump_bfile(o NULL)", "options o", gvk_ld_clump_bfile(e, "x", files, 1, NULL, &cr, &err));
	ARG("gvk_ld_clump_bfile(out NULL)", "out", gvk_ld_clump_bfile(e, "x", files, 1, &co, NULL, &err));
	NOOP("gvk_ld_clump_free(NULL)", gvk_ld_clump_free(NULL), 1);
	NOOP("gvk_ld_matrix_free(NULL)", gvk_ld_matrix_free(NULL), 1);
	NOOP("gvk_ld_table_free(NULL)", gvk_ld_table_free(NULL), 1);
	gvk_ld_destroy(e);
}

/* Hooks of a split LD job that are never called: gvk_ld_job_set_split checks them only. */
static int sp_agree(void *ctx, int rc, gvk_err_t *err) { return (void)ctx, (void)err, rc; }
static void sp_reduce(void *ctx, int64_t *v, int64_t n, int op) { (void)ctx, (void)v, (void)n, (void)op; }
static void sp_gather(void *ctx, void *buf, const int64_t *cnt, const int64_t *at)
{
	(void)ctx, (void)buf, (void)cnt, (void)at;
}
static void sp_bcast(void *ctx, void *buf, int64_t n) { (void)ctx, (void)buf, (void)n; }
static int sp_open(void *ctx, const char *name, gvk_err_t *err) { return (void)ctx, (void)name, (void)err, -1; }
static int sp_write(void *ctx, int64_t off, const void *p, int64_t n) { return (void)ctx, (void)off, (void)p, (void)n, -1; }
static int sp_close(void *ctx) { return (void)ctx, -1; }
static int sp_ordered(void *ctx, FILE *part, char *buf, size_t size, gvk_ld_put_t put, void *arg, gvk_err_t *err)
{
	return (void)ctx, (void)part, (void)buf, (void)size, (void)put, (void)arg, (void)err, -1;
}

/* The gvk ld job: options that pass the check (a run of --r2 on a fileset that is never read). */
static void ld_job(void)
{
	gvk_ld_job_opts_t o;
	gvk_ld_job_opts_init(&o);
	o.bfile = "x", o.stat_set = 1, o.r2 = 1, o.device = GVK_DEVICE_CPU;
	gvk_err_t e0 = {0, ""};
	gvk_ld_job_t *j = gvk_ld_job_create(&o, &e0);
	if (!j) {
		++fails, printf("FAIL: cannot create an LD job: %s\n", e0.msg);
		return;
	}
	gvk_ld_job_summary_t sum;
	NOOP("gvk_ld_job_opts_init(NULL)", gvk_ld_job_opts_init(NULL), 1);
	ARG("gvk_ld_job_opts_check(o NULL)", "o", gvk_ld_job_opts_check(NULL, &err));
	ARG("gvk_ld_job_create(o NULL)", "o", CTOR(gvk_ld_job_create(NULL, &err)));
	ARG("gvk_ld_job_run(j NULL)", "job", gvk_ld_job_run(NULL, NULL, &sum, &err));
	ARG("gvk_ld_job_run(sum NULL)", "sum", gvk_ld_job_run(j, NULL, NULL, &err));
	NOOP("gvk_ld_job_destroy(NULL)", gvk_ld_job_destroy(NULL), 1);
	gvk_ld_split_t sp = {.rank = 0, .size = 1};
	ARG("gvk_ld_job_set_split(j NULL)", "job", gvk_ld_job_set_split(NULL, &sp, &err));
	ARG("gvk_ld_job_set_split(sp->agree NULL)", "agree", gvk_ld_job_set_split(j, &sp, &err));
	NOOP("gvk_ld_job_set_split(sp NULL)", int rc_ = gvk_ld_job_set_split(j, NULL, NULL), rc_ == 0);
	gvk_ld_split_t all = {2, 2, NULL, NULL, sp_agree, sp_reduce, sp_gather, sp_bcast, sp_open, sp_write, sp_close,
	                      sp_ordered, NULL};
	ARG("gvk_ld_job_set_split(rank 2 of 2)", NULL, gvk_ld_job_set_split(j, &all, &err));
	all.rank = 1;
	NOOP("gvk_ld_job_set_split(rank 1 of 2)", int rc_ = gvk_ld_job_set_split(j, &all, NULL), rc_ == 0);
	gvk_ld_job_destroy(j);
}

/* A version 1 .fidb of one profile of 8 SNPs, in a temporary file; 0 or -1. */
static int tiny_fidb(char *name)
{
	static const unsigned char f[24] = {'F', 'I', 'D', 'B', 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 5};
	int fd = mkstemp(name);
	int ok = fd >= 0 && write(fd, f, sizeof f) == (ssize_t)sizeof f;
	if (fd >= 0) close(fd);
	return ok ? 0 : -1;
}

static void fastid_db(gvk_fastid_t *e)
{
	char name[] = "/tmp/gvk_null_args_XXXXXX";
	gvk_fastid_db_t *d = tiny_fidb(name) == 0 ? gvk_fastid_db_read(name, NULL) : NULL;
	gvk_fastid_result_t *r = NULL;
	if (!d || gvk_fastid_search_db(e, d, d, 0, &r, NULL) < 0) {
		++fails, printf("FAIL: cannot read or search a .fidb (%s)\n", name);
		gvk_fastid_db_close(d);
		unlink(name);
		return;
	}
	gvk_fastid_make_opts_t mo;
	gvk_fastid_make_opts_init(&mo);
	gvk_fastid_db_info_t in;
	FILE *fp = fopen("/dev/null", "w");
	NOOP("gvk_fastid_make_opts_init(NULL)", gvk_fastid_make_opts_init(NULL), 1);
	ARG("gvk_fastid_make_opts_check(NULL)", "o", gvk_fastid_make_opts_check(NULL, &err));
	ARG("gvk_fastid_db_make(in NULL)", "in", CTOR(gvk_fastid_db_make(NULL, &mo, &err)));
	ARG("gvk_fastid_db_make(o NULL)", "o", CTOR(gvk_fastid_db_make(name, NULL, &err)));
	ARG("gvk_fastid_db_read(path NULL)", "path", CTOR(gvk_fastid_db_read(NULL, &err)));
	ARG("gvk_fastid_db_open(path NULL)", "path", CTOR(gvk_fastid_db_open(NULL, &err)));
	NOOP("gvk_fastid_db_close(NULL)", gvk_fastid_db_close(NULL), 1);
	NOOP("gvk_fastid_db_info(d NULL)", gvk_fastid_db_info(NULL, &in), !strcmp(in.name, "none") && in.n == 0);
	NOOP("gvk_fastid_db_info(info NULL)", gvk_fastid_db_info(d, NULL), 1);
	ARG("gvk_fastid_db_write(d NULL)", "d", gvk_fastid_db_write(NULL, fp, &err));
	ARG("gvk_fastid_db_write(fp NULL)", "fp", gvk_fastid_db_write(d, NULL, &err));
	ARG("gvk_fastid_db_match(queries NULL)", "queries", gvk_fastid_db_match(NULL, d, &err));
	ARG("gvk_fastid_db_match(db NULL)", "db", gvk_fastid_db_match(d, NULL, &err));
	ARG("gvk_fastid_db_range(d NULL)", "d", gvk_fastid_db_range(NULL, 0, 1, &err));
	ARG("gvk_fastid_db_read_ids(d NULL)", "d", gvk_fastid_db_read_ids(NULL, r, &err));
	ARG("gvk_fastid_db_read_ids(r NULL)", "r", gvk_fastid_db_read_ids(d, NULL, &err));
	NOOP("gvk_fastid_db_id(NULL)", const char *id = gvk_fastid_db_id(NULL, 0), id == NULL);
	ARG("gvk_fastid_search_db(e NULL)", "e", gvk_fastid_search_db(NULL, d, d, 0, &r, &err));
	ARG("gvk_fastid_search_db(queries NULL)", "queries", gvk_fastid_search_db(e, NULL, d, 0, &r, &err));
	ARG("gvk_fastid_search_db(db NULL)", "db", gvk_fastid_search_db(e, d, NULL, 0, &r, &err));
	ARG("gvk_fastid_search_db(out NULL)", "out", gvk_fastid_search_db(e, d, d, 0, NULL, &err));
	ARG("gvk_fastid_result_merge(e NULL)", "e", gvk_fastid_result_merge(NULL, r, r, &err));
	ARG("gvk_fastid_result_merge(acc NULL)", "acc", gvk_fastid_result_merge(e, NULL, r, &err));
	ARG("gvk_fastid_result_merge(part NULL)", "part", gvk_fastid_result_merge(e, r, NULL, &err));
	ARG("gvk_fastid_write_top(fp NULL)", "fp", gvk_fastid_write_top(NULL, r, d, d, &err));
	ARG("gvk_fastid_write_top(r NULL)", "r", gvk_fastid_write_top(fp, NULL, d, d, &err));
	ARG("gvk_fastid_write_top(queries NULL)", "queries", gvk_fastid_write_top(fp, r, NULL, d, &err));
	ARG("gvk_fastid_write_top(db NULL)", "db", gvk_fastid_write_top(fp, r, d, NULL, &err));
	ARG("gvk_fastid_write_hits(fp NULL)", "fp", gvk_fastid_write_hits(NULL, r, d, d, &err));
	ARG("gvk_fastid_write_hits(r NULL)", "r", gvk_fastid_write_hits(fp, NULL, d, d, &err));
	ARG("gvk_fastid_write_hits(queries NULL)", "queries", gvk_fastid_write_hits(fp, r, NULL, d, &err));
	ARG("gvk_fastid_write_hits(db NULL)", "db", gvk_fastid_write_hits(fp, r, d, NULL, &err));
	if (fp) fclose(fp);
	gvk_fastid_result_free(r);
	gvk_fastid_db_close(d);
	unlink(name);
}

static void fastid(void)
{
	gvk_fastid_opts_t o;
	gvk_fastid_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	gvk_fastid_t *e = gvk_fastid_create(&o, NULL);
	if (!e) {
		++fails, printf("FAIL: cannot create a FastID engine\n");
		return;
	}
	static const uint64_t q[1] = {1}, db[1] = {3};
	gvk_fastid_result_t *r = NULL;
	NOOP("gvk_fastid_opts_init(NULL)", gvk_fastid_opts_init(NULL), 1);
	ARG("gvk_fastid_create(o NULL)", "o", CTOR(gvk_fastid_create(NULL, &err)));
	NOOP("gvk_fastid_destroy(NULL)", gvk_fastid_destroy(NULL), 1);
	NOOP("gvk_fastid_device_name(NULL)", const char *n = gvk_fastid_device_name(NULL), n && !strcmp(n, "none"));
	ARG("gvk_fastid_search(e NULL)", "e", gvk_fastid_search(NULL, q, 1, db, 1, 8, &r, &err));
	ARG("gvk_fastid_search(queries NULL)", "queries", gvk_fastid_search(e, NULL, 1, db, 1, 8, &r, &err));
	ARG("gvk_fastid_search(db NULL)", "db", gvk_fastid_search(e, q, 1, NULL, 1, 8, &r, &err));
	ARG("gvk_fastid_search(out NULL)", "out", gvk_fastid_search(e, q, 1, db, 1, 8, NULL, &err));
	NOOP("gvk_fastid_result_free(NULL)", gvk_fastid_result_free(NULL), 1);
	fastid_db(e);
	gvk_fastid_destroy(e);
}

static void align(void)
{
	gvk_align_opts_t o;
	gvk_align_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	gvk_align_t *e = gvk_align_create(&o, NULL);
	if (!e) {
		++fails, printf("FAIL: cannot create an align engine\n");
		return;
	}
	gvk_sw_params_t par;
	gvk_sw_preset("ORIGINAL_DEFAULT", &par);
	gvk_align_pair_t p = {"ACGT", "ACGT", 4, 4, par, GVK_OVERHANG_SOFTCLIP}, no_ref = p, no_alt = p;
	no_ref.ref = NULL, no_alt.alt = NULL;
	gvk_align_result_t res[1];
	char text[16];
	ARG("gvk_sw_preset(name NULL)", NULL, gvk_sw_preset(NULL, &par));
	ARG("gvk_sw_preset(p NULL)", NULL, gvk_sw_preset("STANDARD_NGS", NULL));
	ARG("gvk_overhang_parse(NULL)", NULL, gvk_overhang_parse(NULL));
	NOOP("gvk_align_opts_init(NULL)", gvk_align_opts_init(NULL), 1);
	ARG("gvk_align_create(opt NULL)", "opt", CTOR(gvk_align_create(NULL, &err)));
	ARG("gvk_align_opts_check(NULL)", "o", gvk_align_opts_check(NULL, &err));
	ARG("gvk_pairhmm_opts_check(NULL)", "o", gvk_pairhmm_opts_check(NULL, &err));
	ARG("gvk_ld_opts_check(NULL)", "o", gvk_ld_opts_check(NULL, &err));
	ARG("gvk_fastid_opts_check(NULL)", "o", gvk_fastid_opts_check(NULL, &err));
	ARG("gvk_cnv_opts_check(NULL)", "o", gvk_cnv_opts_check(NULL, &err));
	NOOP("gvk_align_destroy(NULL)", gvk_align_destroy(NULL), 1);
	NOOP("gvk_align_device_name(NULL)", const char *n = gvk_align_device_name(NULL), n && !strcmp(n, "none"));
	NOOP("gvk_align_gpu_kernel_seconds(NULL)", double s = gvk_align_gpu_kernel_seconds(NULL), s == 0);
	ARG("gvk_align_check_pair(p NULL)", "p", gvk_align_check_pair(NULL, &err));
	ARG("gvk_align_check_pair(p->ref NULL)", "ref", gvk_align_check_pair(&no_ref, &err));
	ARG("gvk_align_check_pair(p->alt NULL)", "alt", gvk_align_check_pair(&no_alt, &err));
	ARG("gvk_align_batch(e NULL)", "e", gvk_align_batch(NULL, &p, 1, res, &err));
	ARG("gvk_align_batch(pairs NULL)", "pairs", gvk_align_batch(e, NULL, 1, res, &err));
	ARG("gvk_align_batch(out NULL)", "out", gvk_align_batch(e, &p, 1, NULL, &err));
	ARG("gvk_align_batch(pairs[0].ref NULL)", "ref", gvk_align_batch(e, &no_ref, 1, res, &err));
	if (gvk_align_batch(e, &p, 1, res, NULL) == 0) {
		ARG("gvk_align_batch_copy(out NULL)", "out", gvk_align_batch_copy(NULL, 1, text, sizeof text, &err));
		ARG("gvk_align_batch_copy(text NULL)", "text", gvk_align_batch_copy(res, 1, NULL, sizeof text, &err));
	} else {
		++fails, printf("FAIL: cannot align one pair\n");
	}
	gvk_align_destroy(e);
}

/* The writers of gvk cnv's outputs, given a result of c. */
static void cnv_outputs(gvk_cnv_t *e, const gvk_cnv_counts_t *c)
{
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	gvk_cnv_result_t *r = NULL;
	FILE *fp = fopen("/dev/null", "w");
	if (!fp || gvk_cnv_run(e, c, &r, NULL) < 0) {
		++fails, printf("FAIL: cannot run the CNV engine for its writers\n");
		if (fp) fclose(fp);
		return;
	}
	gvk_cnv_plot_opts_t po;
	gvk_cnv_plot_opts_init(&po);
	NOOP("gvk_cnv_table_suffix(unknown)", const char *s = gvk_cnv_table_suffix(-1), s == NULL);
	ARG("gvk_cnv_write_table(fp NULL)", "fp", gvk_cnv_write_table(NULL, GVK_CNV_TABLE_CNVS, c, r, &o, &err));
	ARG("gvk_cnv_write_table(c NULL)", "c", gvk_cnv_write_table(fp, GVK_CNV_TABLE_CNVS, NULL, r, &o, &err));
	ARG("gvk_cnv_write_table(r NULL)", "r", gvk_cnv_write_table(fp, GVK_CNV_TABLE_CNVS, c, NULL, &o, &err));
	ARG("gvk_cnv_write_table(params, o NULL)", "o", gvk_cnv_write_table(fp, GVK_CNV_TABLE_PARAMS, c, r, NULL, &err));
	ARG("gvk_cnv_counts_write(fp NULL)", "fp", gvk_cnv_counts_write(NULL, c, &err));
	ARG("gvk_cnv_counts_write(c NULL)", "c", gvk_cnv_counts_write(fp, NULL, &err));
	ARG("gvk_cnv_write_vcf(path NULL)", "path", gvk_cnv_write_vcf(NULL, NULL, c, r, &o, NULL, 1, &err));
	ARG("gvk_cnv_write_vcf(c NULL)", "c", gvk_cnv_write_vcf("/dev/null", NULL, NULL, r, &o, NULL, 1, &err));
	ARG("gvk_cnv_write_vcf(r NULL)", "r", gvk_cnv_write_vcf("/dev/null", NULL, c, NULL, &o, NULL, 1, &err));
	ARG("gvk_cnv_write_vcf(o NULL)", "o", gvk_cnv_write_vcf("/dev/null", NULL, c, r, NULL, NULL, 1, &err));
	NOOP("gvk_cnv_plot_opts_init(NULL)", gvk_cnv_plot_opts_init(NULL), 1);
	ARG("gvk_cnv_plot_opts_check(NULL)", "po", gvk_cnv_plot_opts_check(NULL, &err));
	ARG("gvk_cnv_plot(prefix NULL)", "prefix", gvk_cnv_plot(NULL, &po, NULL, c, r, &o, &err));
	ARG("gvk_cnv_plot(po NULL)", "po", gvk_cnv_plot("/nonexistent/p", NULL, NULL, c, r, &o, &err));
	ARG("gvk_cnv_plot(c NULL)", "c", gvk_cnv_plot("/nonexistent/p", &po, NULL, NULL, r, &o, &err));
	ARG("gvk_cnv_plot(r NULL)", "r", gvk_cnv_plot("/nonexistent/p", &po, NULL, c, NULL, &o, &err));
	ARG("gvk_cnv_plot(o NULL)", "o", gvk_cnv_plot("/nonexistent/p", &po, NULL, c, r, NULL, &err));
	gvk_cnv_result_free(r);
	fclose(fp);
}

static void cnv(const char *counts_path)
{
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	o.device = GVK_DEVICE_CPU;
	gvk_cnv_t *e = gvk_cnv_create(&o, NULL);
	gvk_cnv_counts_t c;
	memset(&c, 0, sizeof c);
	if (!e || gvk_cnv_counts_read(counts_path, 0, &c, NULL) < 0) {
		++fails, printf("FAIL: cannot create a CNV engine or read %s\n", counts_path);
		gvk_cnv_destroy(e);
		return;
	}
	static const double x[4] = {1, 2, 3, 4};
	gvk_cnv_count_arrays_t a = {2, 2, x, NULL, GVK_CNV_REGION_MAJOR, NULL, NULL, NULL, NULL};
	gvk_cnv_counts_t out;
	gvk_cnv_result_t *r = NULL;
	gvk_cnv_bam_opts_t bo;
	gvk_cnv_bam_opts_init(&bo);
	const char *bams[2] = {"x.bam", "y.bam"}, *half[2] = {"x.bam", NULL};
	NOOP("gvk_cnv_counts_free(NULL)", gvk_cnv_counts_free(NULL), 1);
	ARG("gvk_cnv_counts_read(path NULL)", "path", gvk_cnv_counts_read(NULL, 0, &out, &err));
	ARG("gvk_cnv_counts_read(c NULL)", "c", gvk_cnv_counts_read(counts_path, 0, NULL, &err));
	ARG("gvk_cnv_counts_read_mt(path NULL)", "path", gvk_cnv_counts_read_mt(NULL, 0, 2, &out, &err));
	ARG("gvk_cnv_counts_read_mt(c NULL)", "c", gvk_cnv_counts_read_mt(counts_path, 0, 2, NULL, &err));
	ARG("gvk_cnv_counts_from_arrays(a NULL)", "a", gvk_cnv_counts_from_arrays(NULL, &out, &err));
	ARG("gvk_cnv_counts_from_arrays(c NULL)", "c", gvk_cnv_counts_from_arrays(&a, NULL, &err));
	NOOP("gvk_cnv_bam_opts_init(NULL)", gvk_cnv_bam_opts_init(NULL), 1);
	ARG("gvk_cnv_count_bams(paths NULL)", "paths", gvk_cnv_count_bams(NULL, 2, NULL, &bo, &out, &err));
	ARG("gvk_cnv_count_bams(paths[1] NULL)", "paths[1]", gvk_cnv_count_bams(half, 2, NULL, &bo, &out, &err));
	ARG("gvk_cnv_count_bams(o NULL)", "o", gvk_cnv_count_bams(bams, 2, NULL, NULL, &out, &err));
	ARG("gvk_cnv_count_bams(c NULL)", "c", gvk_cnv_count_bams(bams, 2, NULL, &bo, NULL, &err));
	NOOP("gvk_cnv_opts_init(NULL)", gvk_cnv_opts_init(NULL, 0), 1);
	ARG("gvk_cnv_create(o NULL)", "o", CTOR(gvk_cnv_create(NULL, &err)));
	NOOP("gvk_cnv_destroy(NULL)", gvk_cnv_destroy(NULL), 1);
	ARG("gvk_cnv_run(e NULL)", "e", gvk_cnv_run(NULL, &c, &r, &err));
	ARG("gvk_cnv_run(c NULL)", "c", gvk_cnv_run(e, NULL, &r, &err));
	ARG("gvk_cnv_run(res NULL)", "res", gvk_cnv_run(e, &c, NULL, &err));
	NOOP("gvk_cnv_result_free(NULL)", gvk_cnv_result_free(NULL), 1);
	ARG("gvk_cnv_counts_read_lengths(path NULL)", "path", gvk_cnv_counts_read_lengths(NULL, &c, &err));
	ARG("gvk_cnv_counts_read_lengths(c NULL)", "c", gvk_cnv_counts_read_lengths(counts_path, NULL, &err));
	ARG("gvk_cnv_counts_read_range(path NULL)", "path", gvk_cnv_counts_read_range(NULL, 0, 1, 0, 0, 2, &out, &err));
	ARG("gvk_cnv_counts_read_range(c NULL)", "c", gvk_cnv_counts_read_range(counts_path, 0, 1, 0, 0, 2, NULL, &err));
	int row0, row1;
	ARG("gvk_cnv_count_bams_share(paths NULL)", "paths",
	    gvk_cnv_count_bams_share(NULL, 2, NULL, &bo, 0, 1, &row0, &row1, &out, &err));
	ARG("gvk_cnv_count_bams_share(o NULL)", "o",
	    gvk_cnv_count_bams_share(bams, 2, NULL, NULL, 0, 1, &row0, &row1, &out, &err));
	ARG("gvk_cnv_count_bams_share(row0 NULL)", "row0",
	    gvk_cnv_count_bams_share(bams, 2, NULL, &bo, 0, 1, NULL, &row1, &out, &err));
	ARG("gvk_cnv_count_bams_share(row1 NULL)", "row1",
	    gvk_cnv_count_bams_share(bams, 2, NULL, &bo, 0, 1, &row0, NULL, &out, &err));
	ARG("gvk_cnv_count_bams_share(c NULL)", "c",
	    gvk_cnv_count_bams_share(bams, 2, NULL, &bo, 0, 1, &row0, &row1, NULL, &err));
	gvk_cnv_split_t sp = {0, 0, 0, 0, NULL, NULL, NULL, NULL};
	ARG("gvk_cnv_run_split(e NULL)", "e", gvk_cnv_run_split(NULL, &c, &sp, &r, &err));
	ARG("gvk_cnv_run_split(c NULL)", "c", gvk_cnv_run_split(e, NULL, &sp, &r, &err));
	ARG("gvk_cnv_run_split(res NULL)", "res", gvk_cnv_run_split(e, &c, &sp, NULL, &err));
	ARG("gvk_cnv_run_split(sp->em_join NULL)", "em_join", gvk_cnv_run_split(e, &c, &sp, &r, &err));
	cnv_outputs(e, &c);
	gvk_cnv_counts_free(&c);
	gvk_cnv_destroy(e);
}

static void common(void)
{
	NOOP("gvk_strerror(any code)", const char *s = gvk_strerror(12345), s != NULL);
	NOOP("gvk_feature_string(NULL, 0)", int n = gvk_feature_string(NULL, 0), n > 0);
	NOOP("gvk_struct_layout(NULL)", const gvk_layout_t *l = gvk_struct_layout(NULL), l != NULL);
	NOOP("gvk_set_log(NULL, NULL, level)", gvk_set_log(NULL, NULL, GVK_LOG_WARN), 1);
	NOOP("gvk_log_default(NULL)", gvk_log_default(NULL), 1);
	NOOP("gvk_overhang_name(unknown)", const char *s = gvk_overhang_name(0), s == NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) return fprintf(stderr, "usage: test_null_args COUNTS.tsv\n"), 2;
	common();
	pairhmm();
	ld();
	ld_job();
	fastid();
	align();
	cnv(argv[1]);
	printf("%d cases, %s\n", cases, fails ? "FAILED" : "all passed");
	return fails != 0;
}
