/* SPDX-License-Identifier: MIT */
/* gvk fastid: FastID identity and mixture searches of query profiles against a database, through
 * the public API (gvk.h) alone. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "commands.h"
#include "../common/err.h"
#include "../common/outset.h"
#include "../common/threads.h"
#ifdef GVK_MPI
#include "mpi/mpi_drivers.h"
#endif
#include "snp_gpu_env.h"
#include "cli_env.h"

typedef struct {
	const char *out, *hits_out, *make_fidb, *db, *queries;
	int mixture, topk, threads, isa, device, quiet, minor;
	int64_t thresh, block;
	snp_gpu_env_t gpu; /* from the GVK_SNP_GPU_* variables */
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk fastid [options] <database.fidb> <queries.fidb>\n"
	        "       gvk fastid --make-fidb <in.vcf[.gz]|in.bcf|plink_prefix|in.bed> -o <out.fidb> [--minor]\n\n"
	        "FastID searches: identity score pc(q XOR d), mixture score pc(d AND NOT q) with the query\n"
	        "as the mixture. Lists the k smallest scores per query (ties: smaller database index)\n"
	        "and/or every hit at or under a threshold, without storing the score matrix. Rows name\n"
	        "both samples by ID and by 0-based index. The two files must share their SNP panel.\n"
	        "Either file may be '-', standard input.\n\n"
	        "Options:\n"
	        "      --identity      identity scores (default)\n"
	        "      --mixture       mixture scores\n"
	        "  -k, --top K         top-K list per query (default 10; 0 = none):\n"
	        "                      'query_id query rank db_id db score'\n"
	        "  -o FILE             top-K list (default standard output); the .fidb with --make-fidb\n"
	        "  -T, --threshold T   also list every (query, db) with score <= T\n"
	        "  -H, --hits FILE     where the threshold hits go: 'query_id query db_id db score', ordered\n"
	        "                      by query, score, db (default: standard output after the top-K list)\n"
	        "      --make-fidb IN  convert the samples of a VCF/BCF or a PLINK .bed/.bim/.fam fileset to\n"
	        "                      profiles with their SNP panel and sample IDs (bit = carries ALT / A1)\n"
	        "      --minor         with --make-fidb: bit = carries the allele rarer in the input\n"
	        "      --block N       read and search the database N profiles at a time (default 16777216),\n"
	        "                      so databases larger than memory can be searched\n"
	        "  -t, --threads N     CPU threads (default: all processors)\n"
	        "      --device D      cpu, gpu or auto (default auto: the GPU when usable)\n"
	        "      --isa I         CPU kernel: auto, avx512, neon or scalar\n"
	        "  -q, --quiet         no summary line (and no notes)\n"
	        "  -h, --help          this text\n\n"
	        "Environment: GVK_SNP_GPU_PATH=auto|popc|mma picks the GPU kernel (CUDA cores or tensor cores);\n"
	        "GVK_SNP_GPU_MEM, GVK_SNP_GPU_DB_BLOCK and GVK_SNP_GPU_QBATCH lower the GPU memory (bytes),\n"
	        "database block and query batch the GPU plans with (tests).\n");
}

/* An error line about the command line; returns -1. */
static int fail(const char *fmt, ...) GVK_PRINTF(1, 2);
static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gvk fastid: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return -1;
}

/* A file name for option opt; a value that is itself an option means the name was left out
 * (getopt would take "--minor" as the file of "--make-fidb --minor x.vcf"). */
static int path_arg(const char *opt, const char **dst)
{
	if (optarg[0] == '-' && optarg[1])
		return fail("%s needs a file name, but the next argument is the option '%s'", opt, optarg);
	*dst = optarg;
	return 0;
}

static int number_opt(int c, args_t *a)
{
	char *end;
	switch (c) {
	case 'k':
		a->topk = (int)strtol(optarg, &end, 10);
		if (*end || !*optarg || a->topk < 0) return fail("-k needs a number >= 0");
		return 0;
	case 'T':
		a->thresh = strtoll(optarg, &end, 10);
		if (*end || !*optarg || a->thresh < 0) return fail("--threshold needs a number >= 0");
		return 0;
	case 't':
		if ((a->threads = gvk_cli_threads(optarg)) < 0) return fail("-t needs a positive number");
		return 0;
	default:
		a->block = strtoll(optarg, &end, 10);
		if (*end || !*optarg || a->block < 1) return fail("--block needs a positive number");
		return 0;
	}
}

static int one_opt(int c, char **argv, args_t *a)
{
	switch (c) {
	case 1: a->mixture = 0; return 0;
	case 2: a->mixture = 1; return 0;
	case 'k': case 'T': case 't': case 7: return number_opt(c, a);
	case 'o': return path_arg("-o", &a->out);
	case 'H': return path_arg("--hits", &a->hits_out);
	case 3: return path_arg("--make-fidb", &a->make_fidb);
	case 4: a->minor = 1; return 0;
	case 5:
		if ((a->device = gvk_cli_device(optarg)) < 0) return fail("--device must be cpu, gpu or auto");
		return 0;
	case 6:
		if ((a->isa = gvk_cli_isa(optarg, 0)) < 0) return fail("--isa must be auto, avx512, neon or scalar");
		return 0;
	case 'q': a->quiet = 1; return 0;
	case 'h': usage(stdout); gvk_cli_help_exit();
	case ':': return fail("%s needs a value", argv[optind - 1]);
	default:
		if (optopt > ' ' && optopt < 127) return fail("unknown option '-%c' (gvk fastid --help lists them)", optopt);
		return fail("unknown option '%s' (gvk fastid --help lists them)", argv[optind - 1]);
	}
}

/* What the options and file names ask for, checked as a whole. */
static int check_args(int nfiles, char **files, args_t *a)
{
	if (a->make_fidb) {
		if (!a->out) return fail("--make-fidb needs -o FILE (the .fidb to write, - for standard output)");
		if (nfiles) return fail("--make-fidb takes no database or query file, but got '%s'", files[0]);
		return 0;
	}
	if (a->minor) return fail("--minor needs --make-fidb");
	if (nfiles == 0) return fail("needs a database and a query file (gvk fastid [options] DB.fidb QUERIES.fidb)");
	if (nfiles == 1) return fail("needs a query file after the database '%s' (- reads it from standard input)", files[0]);
	if (nfiles > 2) return fail("takes one database and one query file, but got a third, '%s'", files[2]);
	a->db = files[0];
	a->queries = files[1];
	if (strcmp(a->db, "-") == 0 && strcmp(a->queries, "-") == 0)
		return fail("the database and the queries cannot both come from standard input");
	if (a->hits_out && a->thresh < 0) return fail("--hits needs --threshold");
	if (a->topk == 0 && a->thresh < 0) return fail("-k 0 without --threshold asks for nothing");
	const char *outs[] = {a->topk || !a->hits_out ? (a->out ? a->out : "-") : NULL, a->hits_out};
	gvk_err_t err;
	if (gvk_outset_check(outs, 2, &err) < 0) return fail("%s", err.msg);
	return 0;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option lo[] = {
		{"identity", no_argument, NULL, 1},     {"mixture", no_argument, NULL, 2},
		{"top", required_argument, NULL, 'k'},  {"threshold", required_argument, NULL, 'T'},
		{"hits", required_argument, NULL, 'H'}, {"make-fidb", required_argument, NULL, 3},
		{"minor", no_argument, NULL, 4},        {"threads", required_argument, NULL, 't'},
		{"device", required_argument, NULL, 5}, {"isa", required_argument, NULL, 6},
		{"quiet", no_argument, NULL, 'q'},      {"help", no_argument, NULL, 'h'},
		{"block", required_argument, NULL, 7},
		{NULL, 0, NULL, 0}};
	a->topk = 10;
	a->thresh = -1;
	a->block = (int64_t)1 << 24;
	a->threads = gvk_cli_default_threads();
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":k:o:T:H:t:qh", lo, NULL)) != -1)
		if (one_opt(c, argv, a) < 0) return -1;
	if (snp_gpu_env("fastid", &a->gpu) < 0) return -1;
	return check_args(argc - optind, argv + optind, a);
}

/* The code of a call that failed with err. */
static int failed(const gvk_err_t *err)
{
	return err->code < 0 ? err->code : GVK_ERR_ARG;
}

/* The engine the command line asks for, with CPU kernel isa; NULL with err set. */
static gvk_fastid_t *engine(const args_t *a, int isa, gvk_err_t *err)
{
	gvk_fastid_opts_t o;
	gvk_fastid_opts_init(&o);
	o.mixture = a->mixture;
	o.topk = a->topk;
	/* no score exceeds 2^32 - 1: a larger threshold keeps every pair, as that one does */
	o.threshold = a->thresh > UINT32_MAX ? (int64_t)UINT32_MAX : a->thresh;
	o.threads = a->threads;
	o.device = a->device;
	o.isa = isa;
	o.gpu_path = a->gpu.path, o.gpu_mem = a->gpu.mem, o.gpu_db_block = a->gpu.db_block, o.gpu_q_batch = a->gpu.q_batch;
	if (!a->quiet) o.log.level = GVK_LOG_INFO; /* notes such as a GPU kernel that cannot be used */
	return gvk_fastid_create(&o, err);
}

/* --device gpu: the GPU or an error, before any input is read (--make-fidb too, which has no GPU
 * work: the option means the same in every command). The probe asks for no particular CPU kernel,
 * and notes nothing: --isa is for the search, which says itself when this CPU lacks the kernel. */
static int gpu_usable(const args_t *a, gvk_err_t *err)
{
	args_t probe = *a;
	probe.quiet = 1;
	gvk_fastid_t *e = engine(&probe, GVK_ISA_AUTO, err);
	const int usable = e != NULL;
	gvk_fastid_destroy(e);
	return usable;
}

static int make_fidb(const args_t *a)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_make_opts_t mo;
	gvk_fastid_make_opts_init(&mo);
	mo.minor = a->minor, mo.threads = a->threads;
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *fp = NULL;
	gvk_fastid_db_t *f = gvk_fastid_db_make(a->make_fidb, &mo, &err);
	int rc = f ? 0 : failed(&err);
	if (rc == 0 && !(fp = gvk_outset_open(&os, a->out, &err))) rc = GVK_ERR_IO;
	if (rc == 0 && gvk_fastid_db_write(f, fp, &err) < 0)
		rc = gvk_err_set(&err, GVK_ERR_IO, "%s: write error", strcmp(a->out, "-") ? a->out : "standard output");
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) {
		fprintf(stderr, "gvk fastid: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a->quiet) {
		gvk_fastid_db_info_t in;
		gvk_fastid_db_info(f, &in);
		fprintf(stderr, "gvk fastid: %lld profiles of %u SNPs (panel %016llx) written to %s\n", (long long)in.n, in.n_snp,
		        (unsigned long long)in.panel_hash, strcmp(a->out, "-") ? a->out : "standard output");
	}
	gvk_fastid_db_close(f);
	return rc < 0 ? 1 : 0;
}

/* The queries against the database's header: the same number of SNPs, and the same panel when
 * both have one. A version 1 file has none; with a version 2 file on the other side the panels
 * cannot be compared, which is said unless quiet. */
static int check_panels(const args_t *a, const gvk_fastid_db_t *q, const gvk_fastid_db_t *db, gvk_err_t *err)
{
	int rc = gvk_fastid_db_match(q, db, err);
	gvk_fastid_db_info_t qi, di;
	gvk_fastid_db_info(q, &qi);
	gvk_fastid_db_info(db, &di);
	if (rc == 0 && qi.has_panel != di.has_panel && !a->quiet)
		fprintf(stderr, "gvk fastid: warning: %s has no SNP panel (a version 1 .fidb), so the panels were not compared\n",
		        qi.has_panel ? di.name : qi.name);
	return rc;
}

static int write_tables(const args_t *a, gvk_outset_t *os, const gvk_fastid_result_t *res, const gvk_fastid_db_t *q,
                        const gvk_fastid_db_t *db, gvk_err_t *err)
{
	FILE *out_fp = NULL;
	int rc = 0;
	if ((a->topk || !a->hits_out) && !(out_fp = gvk_outset_open(os, a->out, err))) return GVK_ERR_IO;
	if (a->topk) rc = gvk_fastid_write_top(out_fp, res, q, db, err);
	if (rc < 0 || a->thresh < 0) return rc;
	FILE *fp = a->hits_out ? gvk_outset_open(os, a->hits_out, err) : out_fp;
	if (!fp) return GVK_ERR_IO;
	return gvk_fastid_write_hits(fp, res, q, db, err);
}

static void summary(const args_t *a, const gvk_fastid_db_t *q, const gvk_fastid_db_t *db,
                    const gvk_fastid_result_t *res, double dt)
{
	gvk_fastid_db_info_t qi, di;
	gvk_fastid_db_info(q, &qi);
	gvk_fastid_db_info(db, &di);
	const double tk = res->search_s;
	fprintf(stderr, "gvk fastid: %lld queries x %lld profiles x %u SNPs (%s), %llu scores, %zu hits, %.3f s "
	                "(search %.3f s, %.3g pairs/s), %s, %d threads\n",
	        (long long)qi.n, (long long)di.n, di.n_snp, a->mixture ? "mixture" : "identity",
	        (unsigned long long)res->pairs, res->n_hits, dt, tk, tk > 0 ? (double)res->pairs / tk : 0.0, res->kernel,
	        a->threads);
}

/* The queries read whole, the database a block at a time (each rank its slice under MPI), the
 * tables written and committed. The engine is made where the search begins, so that a CPU
 * kernel this CPU lacks is said after the inputs were checked. */
static int search(args_t *a)
{
	gvk_err_t err = {0, ""};
	gvk_fastid_t *e = NULL;
	gvk_fastid_db_t *q = NULL, *db = NULL;
	gvk_fastid_result_t *res = NULL;
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	double t0 = gvk_seconds();
	int rc = (q = gvk_fastid_db_read(a->queries, &err)) ? 0 : failed(&err);
	if (rc == 0) rc = (db = gvk_fastid_db_open(a->db, &err)) ? 0 : failed(&err);
	if (rc == 0) rc = check_panels(a, q, db, &err);
	int writes = 1;
#ifdef GVK_MPI
	/* Under MPI each rank searches its slice of the database and rank 0 writes. */
	if (rc == 0) rc = gvk_mpi_fastid_slice(db, &err);
#endif
	if (rc == 0) rc = (e = engine(a, a->isa, &err)) ? 0 : failed(&err);
	if (rc == 0) rc = gvk_fastid_search_db(e, q, db, (size_t)a->block, &res, &err);
#ifdef GVK_MPI
	rc = gvk_mpi_fastid_reduce(e, res, rc, &writes, &err);
	if (!writes) a->quiet = 1;
#endif
	if (rc == 0 && writes) rc = gvk_fastid_db_read_ids(db, res, &err);
	if (rc == 0 && writes) rc = write_tables(a, &os, res, q, db, &err);
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) fprintf(stderr, "gvk fastid: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	else if (!a->quiet) summary(a, q, db, res, gvk_seconds() - t0);
	gvk_fastid_result_free(res);
	gvk_fastid_db_close(db);
	gvk_fastid_db_close(q);
	gvk_fastid_destroy(e);
	return rc < 0 ? 1 : 0;
}

int gvk_cmd_fastid(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
#ifdef GVK_MPI
	/* a conversion has nothing to split: rank 0 makes the database, the other ranks nothing */
	if (a.make_fidb && gvk_mpi_rank() > 0) return 0;
#endif
	gvk_err_t err = {0, ""};
	if (a.device == GVK_DEVICE_GPU && !gpu_usable(&a, &err)) return gvk_cli_no_gpu(err.msg);
	return a.make_fidb ? make_fidb(&a) : search(&a);
}
