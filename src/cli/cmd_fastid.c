/* gvk fastid: FastID identity and mixture searches of query profiles against a database. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "commands.h"
#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/outset.h"
#include "../common/threads.h"
#include "../snp/fastid_engine.h"
#include "../snp/vcf_io.h"

typedef struct {
	const char *out, *hits_out, *make_fidb, *db, *queries;
	int mixture, topk, threads, isa, device, quiet, minor;
	int64_t thresh, block;
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk fastid [options] <database.fidb> <queries.fidb>\n"
	        "       gvk fastid --make-fidb <in.vcf[.gz]|in.bcf> -o <out.fidb> [--minor]\n\n"
	        "FastID searches: identity score pc(q XOR d), mixture score pc(d AND NOT q) with the query\n"
	        "as the mixture. Lists the k smallest scores per query (ties: smaller database index)\n"
	        "and/or every hit at or under a threshold, without storing the score matrix.\n\n"
	        "Options:\n"
	        "      --identity      identity scores (default)\n"
	        "      --mixture       mixture scores\n"
	        "  -k, --top K         top-K list per query (default 10; 0 = none): 'query rank db score'\n"
	        "  -o FILE             top-K list (default standard output); the .fidb with --make-fidb\n"
	        "  -T, --threshold T   also list every (query, db) with score <= T\n"
	        "  -H, --hits FILE     where the threshold hits go: 'query db score', ordered by query,\n"
	        "                      score, db (default: standard output after the top-K list)\n"
	        "      --make-fidb VCF convert the samples of a VCF/BCF to profiles (bit = carries ALT)\n"
	        "      --minor         with --make-fidb: bit = carries the allele rarer in the file\n"
	        "      --block N       read and search the database N profiles at a time (default 16777216),\n"
	        "                      so databases larger than memory can be searched\n"
	        "  -t, --threads N     CPU threads (default: all processors)\n"
	        "      --device D      cpu, gpu or auto (default auto: the GPU when usable)\n"
	        "      --isa I         CPU kernel: auto, avx512 or scalar\n"
	        "  -q, --quiet         no summary line\n"
	        "  -h, --help          this text\n");
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
	a->threads = gvk_ncpu();
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, "k:o:T:H:t:qh", lo, NULL)) != -1) {
		switch (c) {
		case 1: a->mixture = 0; break;
		case 2: a->mixture = 1; break;
		case 'k':
			a->topk = (int)strtol(optarg, &end, 10);
			if (*end || a->topk < 0) return fprintf(stderr, "gvk fastid: -k needs a number >= 0\n"), -1;
			break;
		case 'T':
			a->thresh = strtoll(optarg, &end, 10);
			if (*end || a->thresh < 0) return fprintf(stderr, "gvk fastid: --threshold needs a number >= 0\n"), -1;
			break;
		case 'o': a->out = optarg; break;
		case 'H': a->hits_out = optarg; break;
		case 3: a->make_fidb = optarg; break;
		case 4: a->minor = 1; break;
		case 't':
			a->threads = atoi(optarg);
			if (a->threads < 1) return fprintf(stderr, "gvk fastid: -t needs a positive number\n"), -1;
			break;
		case 5:
			if ((a->device = gvk_cli_device(optarg)) < 0) return fprintf(stderr, "gvk fastid: --device must be cpu, gpu or auto\n"), -1;
			break;
		case 6:
			if ((a->isa = gvk_cli_isa(optarg, 0)) < 0) return fprintf(stderr, "gvk fastid: --isa must be auto, avx512 or scalar\n"), -1;
			break;
		case 7:
			a->block = strtoll(optarg, &end, 10);
			if (*end || a->block < 1) return fprintf(stderr, "gvk fastid: --block needs a positive number\n"), -1;
			break;
		case 'q': a->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (a->make_fidb) {
		if (optind != argc || !a->out) return usage(stderr), -1;
		return 0;
	}
	if (optind != argc - 2) return usage(stderr), -1;
	if (a->topk == 0 && a->thresh < 0) return fprintf(stderr, "gvk fastid: -k 0 without --threshold asks for nothing\n"), -1;
	a->db = argv[optind];
	a->queries = argv[optind + 1];
	return 0;
}

static int make_fidb(const args_t *a)
{
	gvk_err_t err = {0, ""};
	fid_prof_t p = {0};
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *fp = NULL;
	int rc = snp_vcf_to_profiles(a->make_fidb, a->minor, &p, &err);
	if (rc == 0 && !(fp = gvk_outset_open(&os, a->out, &err))) rc = GVK_ERR_IO;
	if (rc == 0 && fidb_write(fp, &p) < 0) rc = gvk_err_set(&err, GVK_ERR_IO, "%s: write error", a->out);
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) {
		fprintf(stderr, "gvk fastid: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a->quiet) {
		fprintf(stderr, "gvk fastid: %lld profiles of %u SNPs written to %s\n", (long long)p.n, p.n_snp, a->out);
	}
	fid_prof_free(&p);
	return rc < 0 ? 1 : 0;
}

int gvk_cmd_fastid(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
	if (a.make_fidb) return make_fidb(&a);
	gvk_err_t err = {0, ""};
	fid_prof_t db = {0}, q = {0};
	fid_result_t res = {0};
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *out_fp = NULL;
	fidb_reader_t rd = {0};
	double t0 = gvk_seconds(), tk = 0;
	int rc = fidb_read(a.queries, &q, &err);
	if (rc == 0) rc = fidb_open(&rd, a.db, &err);
	if (rc == 0 && q.n_snp != rd.n_snp)
		rc = gvk_err_set(&err, GVK_ERR_FORMAT, "%s: profiles have %u SNPs but those of %s have %u", a.queries, q.n_snp,
		                 a.db, rd.n_snp);
	/* The database in blocks; each block's top-k lists and hits are folded into res. */
	while (rc == 0 && rd.done < (int64_t)rd.n) {
		int64_t off = rd.done;
		if ((rc = fidb_read_block(&rd, a.block, &db, &err)) < 0) break;
		fid_job_t job = {&q, &db, a.mixture ? PG_ANDNOT : PG_XOR, a.topk, a.thresh, a.threads, a.isa,
		                 a.device, off};
		fid_result_t blk;
		double t1 = gvk_seconds();
		rc = fid_search(&job, &blk, &err);
		tk += gvk_seconds() - t1;
		if (rc == 0) {
			rc = fid_result_merge(&res, &blk, q.n, a.topk, &err);
			fid_result_free(&blk);
		}
		fid_prof_free(&db);
	}
	fidb_close(&rd);
	if (rc == 0) fid_result_sort_hits(&res);
	if (rc == 0 && (a.topk || !a.hits_out) && !(out_fp = gvk_outset_open(&os, a.out, &err))) rc = GVK_ERR_IO;
	if (rc == 0 && a.topk) {
		fprintf(out_fp, "query\trank\tdb\tscore\n");
		for (int64_t i = 0; i < q.n; ++i)
			for (int r = 0; r < res.k; ++r) {
				const fid_hit_t *h = &res.top[(size_t)i * (size_t)res.k + (size_t)r];
				fprintf(out_fp, "%u\t%d\t%lld\t%u\n", h->q, r, (long long)h->db, h->score);
			}
	}
	if (rc == 0 && a.thresh >= 0) {
		FILE *fp = a.hits_out ? gvk_outset_open(&os, a.hits_out, &err) : out_fp;
		if (!fp) rc = GVK_ERR_IO;
		if (rc == 0) {
			fprintf(fp, "query\tdb\tscore\n");
			for (size_t k = 0; k < res.n_hits; ++k)
				fprintf(fp, "%u\t%lld\t%u\n", res.hits[k].q, (long long)res.hits[k].db, res.hits[k].score);
		}
	}
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) {
		fprintf(stderr, "gvk fastid: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a.quiet) {
		double dt = gvk_seconds() - t0;
		fprintf(stderr, "gvk fastid: %lld queries x %lld profiles x %u SNPs (%s), %llu scores, %zu hits, %.3f s "
		                "(search %.3f s, %.3g pairs/s), %s, %d threads\n",
		        (long long)q.n, (long long)rd.n, rd.n_snp, a.mixture ? "mixture" : "identity",
		        (unsigned long long)res.pairs, res.n_hits, dt, tk, tk > 0 ? (double)res.pairs / tk : 0.0,
		        res.kernel[0] ? res.kernel : fid_device_name(a.isa), a.threads);
	}
	fid_result_free(&res);
	fid_prof_free(&db);
	fid_prof_free(&q);
	return rc < 0 ? 1 : 0;
}
