/* gvk pairhmm: log10 likelihood of every read-haplotype pair of an input file. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"
#include "commands.h"
#include "../common/lineio.h"
#include "../common/threads.h"
#include "../pairhmm/pairhmm_io.h"

typedef struct {
	gvk_pairhmm_opt_t eng;
	const char *out, *in;
	int format, tsv, quiet;
	size_t chunk;
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk pairhmm [options] <input>\n\n"
	        "Computes log10 P(read | haplotype) for every pair, exactly as Intel GKL does for GATK.\n"
	        "Input (format detected, gzip read transparently, '-' = standard input):\n"
	        "  gkl    GATK results-file lines: hap read quals ins del gcp [expected] (Phred+33;\n"
	        "         base qualities below 6 raised to 6, as GKL's test does)\n"
	        "  group  'R H' header, R lines 'bases quals ins del gcp' (Phred+33), H haplotype lines\n"
	        "  hex    hap read quals ins del gcp, qualities as raw bytes in hex\n"
	        "Output: one value per pair in input order (read-major within a group), %%.17g.\n\n"
	        "Options:\n"
	        "  -o FILE            write to FILE (default standard output); nothing is left on failure\n"
	        "  -t, --threads N    CPU threads (default: all processors)\n"
	        "      --device D     cpu, gpu or auto (default auto: the GPU when there is one)\n"
	        "      --flavour F    avx512 (default: fused multiply-adds, GKL on AVX-512 CPUs) or\n"
	        "                     avx2 (no fusion, GKL on AVX2-only CPUs)\n"
	        "      --double       double precision for every pair (GATK\n"
	        "                     --native-pair-hmm-use-double-precision)\n"
	        "      --format F     auto, gkl, group or hex (default auto)\n"
	        "      --tsv          write 'group read hap log10 used_double' per pair (0-based indices)\n"
	        "      --isa I        CPU kernel: auto, avx512 or scalar (default auto)\n"
	        "      --chunk N      pairs per batch (default 1048576); bounds memory use\n"
	        "  -q, --quiet        no progress and no summary line\n"
	        "  -h, --help         this text\n");
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option lo[] = {
		{"threads", required_argument, NULL, 't'}, {"device", required_argument, NULL, 1},
		{"flavour", required_argument, NULL, 2},   {"flavor", required_argument, NULL, 2},
		{"double", no_argument, NULL, 3},          {"format", required_argument, NULL, 4},
		{"tsv", no_argument, NULL, 5},             {"isa", required_argument, NULL, 6},
		{"chunk", required_argument, NULL, 7},     {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
	gvk_pairhmm_opt_init(&a->eng);
	a->eng.threads = gvk_ncpu();
	a->chunk = 1 << 20;
	int c;
	while ((c = getopt_long(argc, argv, "o:t:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 't':
			a->eng.threads = atoi(optarg);
			if (a->eng.threads < 1) return fprintf(stderr, "gvk pairhmm: -t needs a positive number\n"), -1;
			break;
		case 1:
			if ((a->eng.device = gvk_cli_device(optarg)) < 0) return fprintf(stderr, "gvk pairhmm: --device must be cpu, gpu or auto\n"), -1;
			break;
		case 2:
			if (!strcmp(optarg, "avx512")) a->eng.flavour = GVK_PHMM_FMA;
			else if (!strcmp(optarg, "avx2") || !strcmp(optarg, "avx")) a->eng.flavour = GVK_PHMM_NOFMA;
			else return fprintf(stderr, "gvk pairhmm: --flavour must be avx512 or avx2\n"), -1;
			break;
		case 3: a->eng.force_double = 1; break;
		case 4:
			if ((a->format = phmm_format_parse(optarg)) < 0)
				return fprintf(stderr, "gvk pairhmm: --format must be auto, gkl, group or hex\n"), -1;
			break;
		case 5: a->tsv = 1; break;
		case 6:
			if ((a->eng.isa = gvk_cli_isa(optarg, 0)) < 0) return fprintf(stderr, "gvk pairhmm: --isa must be auto, avx512 or scalar\n"), -1;
			break;
		case 7: {
			long v = atol(optarg);
			if (v < 1) return fprintf(stderr, "gvk pairhmm: --chunk needs a positive number\n"), -1;
			a->chunk = (size_t)v;
			break;
		}
		case 'q': a->quiet = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return -1;
	}
	a->in = argv[optind];
	a->eng.verbose = !a->quiet;
	return 0;
}

/* Output is formatted by all threads, each into its own buffer, then written in order:
 * printf's %.17g alone would take longer than the GPU's work on a large file. */
typedef struct {
	const phmm_chunk_t *c;
	const double *v;
	const uint8_t *dbl;
	int tsv, nt;
	char **buf;
	size_t *len;
	int failed;
} fmt_job_t;

static void format_slice(void *arg, int tid)
{
	fmt_job_t *j = arg;
	size_t n = j->c->n_pairs, b = n * (size_t)tid / (size_t)j->nt, e = n * (size_t)(tid + 1) / (size_t)j->nt;
	size_t cap = (e - b) * (j->tsv ? 64 : 26) + 64, len = 0;
	char *p = malloc(cap);
	if (!p) {
		j->failed = 1;
		return;
	}
	for (size_t k = b; k < e; ++k) {
		if (cap - len < 96) {
			char *np = realloc(p, cap *= 2);
			if (!np) {
				free(p);
				j->failed = 1;
				return;
			}
			p = np;
		}
		if (j->tsv)
			len += (size_t)snprintf(p + len, cap - len, "%llu\t%d\t%d\t%.17g\t%d\n", (unsigned long long)j->c->group[k],
			                        j->c->rin[k], j->c->hin[k], j->v[k], j->dbl[k]);
		else
			len += (size_t)snprintf(p + len, cap - len, "%.17g\n", j->v[k]);
	}
	j->buf[tid] = p, j->len[tid] = len;
}

static int write_chunk(FILE *fp, const phmm_chunk_t *c, const double *v, const uint8_t *dbl, int tsv, int threads)
{
	int nt = c->n_pairs < 4096 ? 1 : threads;
	char *buf[256] = {0};
	size_t len[256] = {0};
	if (nt > 256) nt = 256;
	fmt_job_t j = {c, v, dbl, tsv, nt, buf, len, 0};
	gvk_parallel(nt, format_slice, &j);
	int rc = j.failed ? -1 : 0;
	for (int t = 0; t < nt; ++t) {
		if (rc == 0 && buf[t] && fwrite(buf[t], 1, len[t], fp) != len[t]) rc = -1;
		free(buf[t]);
	}
	return rc || ferror(fp) ? -1 : 0;
}

/* The next chunk is parsed on its own thread while the current one is computed and written. */
typedef struct {
	phmm_reader_t *rd;
	phmm_chunk_t *c;
	size_t max;
	int threads;
	long n;
	gvk_err_t err;
} prefetch_t;

static void *prefetch_main(void *arg)
{
	prefetch_t *p = arg;
	p->n = phmm_reader_next_mt(p->rd, p->c, p->max, p->threads, &p->err);
	return NULL;
}

int gvk_cmd_pairhmm(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
	gvk_err_t err = {0, ""};
	gvk_out_t out = {0};
	phmm_chunk_t chunks[2] = {{0}, {0}};
	double *v = NULL;
	uint8_t *dbl = NULL;
	uint64_t pairs = 0, cells = 0, ndouble = 0;
	int rc = -1, progress = !a.quiet && isatty(2), cur = 0;
	double t0 = gvk_seconds();
	/* GVK_PROFILE: where the main thread's time went (first parse, compute, output, parse waits). */
	double tp[4] = {0, 0, 0, 0}, ts;
	const int prof = getenv("GVK_PROFILE") != NULL;
	long n = 0;

	gvk_pairhmm_t *eng = gvk_pairhmm_create(&a.eng, &err);
	phmm_reader_t *rd = eng ? phmm_reader_open(a.in, (phmm_format_t)a.format, &err) : NULL;
	if (!rd || gvk_out_open(&out, a.out, &err) < 0) goto done;
	rc = 0;
	ts = gvk_seconds();
	n = phmm_reader_next_mt(rd, &chunks[0], a.chunk, a.eng.threads, &err);
	tp[0] += gvk_seconds() - ts;
	while (n > 0) {
		phmm_chunk_t *c = &chunks[cur];
		prefetch_t pf = {rd, &chunks[cur ^ 1], a.chunk, a.eng.threads, 0, {0, ""}};
		pthread_t th;
		int threaded = pthread_create(&th, NULL, prefetch_main, &pf) == 0;
		double *nv = realloc(v, (size_t)n * sizeof *v);
		uint8_t *nd = nv ? realloc(dbl, (size_t)n) : NULL;
		if (nv) v = nv;
		if (nd) dbl = nd;
		gvk_pairhmm_out_t o = {v, dbl, NULL, NULL};
		if (!nv || !nd)
			rc = GVK_ERR_NOMEM, snprintf(err.msg, sizeof err.msg, "out of memory");
		else {
			ts = gvk_seconds();
			rc = gvk_pairhmm_pairs(eng, c->reads, c->haps, c->pairs, c->n_pairs, &o, &err);
			tp[1] += gvk_seconds() - ts, ts = gvk_seconds();
			if (rc == 0 && write_chunk(out.fp, c, v, dbl, a.tsv, a.eng.threads) < 0)
				rc = GVK_ERR_IO, snprintf(err.msg, sizeof err.msg, "%s: write error", a.out ? a.out : "standard output");
			tp[2] += gvk_seconds() - ts;
		}
		ts = gvk_seconds();
		if (threaded)
			pthread_join(th, NULL);
		else
			prefetch_main(&pf);
		tp[3] += gvk_seconds() - ts;
		if (rc < 0) break;
		pairs += c->n_pairs, cells += c->cells;
		for (long k = 0; k < n; ++k) ndouble += dbl[k];
		if (progress)
			fprintf(stderr, "\r[gvk pairhmm] %llu pairs, %.3g G cells, %.1f s", (unsigned long long)pairs,
			        (double)cells * 1e-9, gvk_seconds() - t0);
		n = pf.n, cur ^= 1;
		if (n < 0) err = pf.err;
	}
	if (rc == 0 && n < 0) rc = (int)n;
	if (progress) fputc('\n', stderr);
	if (rc == 0) rc = gvk_out_commit(&out, &err);
	if (prof)
		fprintf(stderr, "[gvk pairhmm] main thread: first parse %.3f s, compute %.3f s, format+write %.3f s, waiting for parse %.3f s\n",
		        tp[0], tp[1], tp[2], tp[3]);
done:
	if (rc < 0) {
		gvk_out_abort(&out);
		fprintf(stderr, "gvk pairhmm: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a.quiet) {
		double dt = gvk_seconds() - t0;
		fprintf(stderr, "gvk pairhmm: %llu pairs, %.4g G cells, %.3f s, %.2f GCUPS, %llu pairs in double, %s, %d threads\n",
		        (unsigned long long)pairs, (double)cells * 1e-9, dt, dt > 0 ? (double)cells * 1e-9 / dt : 0.0,
		        (unsigned long long)ndouble, gvk_pairhmm_device_name(eng), a.eng.threads);
	}
	phmm_reader_close(rd);
	gvk_pairhmm_destroy(eng);
	phmm_chunk_free(&chunks[0]);
	phmm_chunk_free(&chunks[1]);
	free(v);
	free(dbl);
	return rc < 0 ? 1 : 0;
}
