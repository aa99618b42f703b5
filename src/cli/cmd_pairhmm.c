/* SPDX-License-Identifier: MIT */
/* gvk pairhmm: log10 likelihood of every read-haplotype pair of an input file. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gvk.h"
#include "cli_batch.h"
#include "cli_env.h"
#include "commands.h"
#include "../common/buf.h"
#include "../common/fmtnum.h"
#include "../common/lineio.h"
#include "../common/outset.h"
#include "../common/threads.h"

/* Engines of a run (GVK_ENGINES) and chunk slots in the pipeline. */
enum { MAX_ENGINES = 8, MAX_SLOTS = MAX_ENGINES + 2 };

typedef struct {
	gvk_pairhmm_opts_t eng;
	cli_batch_t b;
	int format, tsv;
	int profile, engines; /* GVK_PROFILE, GVK_ENGINES (0: the default) */
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
	        "A line holds at most 64 MiB and no NUL byte (refused as soon as read).\n"
	        "Output: one value per pair in input order (read-major within a group), %%.17g.\n\n"
	        "Options:\n"
	        "  -o FILE            write to FILE (default standard output); nothing is left on failure\n"
	        "  -t, --threads N    CPU threads (default: all processors)\n"
	        "      --device D     cpu, gpu or auto (default auto: the CPU until a batch of at least 2e9\n"
	        "                     cells, read x haplotype length summed; from it on the GPU when usable)\n"
	        "      --flavour F    avx512 (default: fused multiply-adds, GKL on AVX-512 CPUs) or\n"
	        "                     avx2 (no fusion, GKL on AVX2-only CPUs)\n"
	        "      --double       double precision for every pair (GATK\n"
	        "                     --native-pair-hmm-use-double-precision)\n"
	        "      --format F     auto, gkl, group or hex (default auto)\n"
	        "      --tsv          write 'group read hap log10 used_double' per pair (0-based indices)\n"
	        "      --isa I        CPU kernel: auto, avx512, neon or scalar (default auto)\n"
	        "      --chunk N      pairs per batch (default 524288); bounds memory use\n"
	        "      --server PATH  send the batches to gvk serve at PATH (default: $GVK_SERVER) under\n"
	        "                     --device auto or gpu; without an answer, computed on the CPU here\n"
	        "  -q, --quiet        no progress and no summary line\n"
	        "  -h, --help         this text\n");
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option lo[] = {
		CLI_BATCH_LONGOPTS,
		{"flavour", required_argument, NULL, 2}, {"flavor", required_argument, NULL, 2},
		{"double", no_argument, NULL, 3},        {"format", required_argument, NULL, 4},
		{"tsv", no_argument, NULL, 5},           {"isa", required_argument, NULL, 6},
		{NULL, 0, NULL, 0}};
	gvk_pairhmm_opts_init(&a->eng);
	a->eng.threads = gvk_cli_default_threads();
	/* Half a million pairs: a smaller first chunk and less memory to fault in and to pin than a
	 * million, which measured slower on a 20 M-pair file, as did 128 k. */
	a->b = (cli_batch_t){.cmd = "pairhmm", .usage = usage, .chunk = 1 << 19};
	int c;
	while ((c = getopt_long(argc, argv, CLI_BATCH_SHORTOPTS, lo, NULL)) != -1) {
		int shared = cli_batch_opt(&a->b, c, optarg, &a->eng.threads, &a->eng.device);
		if (shared < 0) return -1;
		if (shared) continue;
		switch (c) {
		case 2:
			if (!strcmp(optarg, "avx512")) a->eng.flavour = GVK_PHMM_FMA;
			else if (!strcmp(optarg, "avx2") || !strcmp(optarg, "avx")) a->eng.flavour = GVK_PHMM_NOFMA;
			else return fprintf(stderr, "gvk pairhmm: --flavour must be avx512 or avx2\n"), -1;
			break;
		case 3: a->eng.force_double = 1; break;
		case 4:
			if ((a->format = gvk_pairhmm_format_parse(optarg)) < 0)
				return fprintf(stderr, "gvk pairhmm: --format must be auto, gkl, group or hex\n"), -1;
			break;
		case 5: a->tsv = 1; break;
		case 6:
			if ((a->eng.isa = gvk_cli_isa(optarg, 0)) < 0) return fprintf(stderr, "gvk pairhmm: --isa must be auto, avx512, neon or scalar\n"), -1;
			break;
		default: usage(stderr); return -1;
		}
	}
	if (cli_batch_finish(&a->b, argc, argv, a->eng.device, &a->eng.server, &a->eng.gpu_lock) < 0) return -1;
	/* Tuning switches, documented in docs/pairhmm-gpu.md: GVK_GPU_PROFILE (1: per GPU pass, 2: per
	 * kernel bin), GVK_GPU_SHARE=0 (no shared gap-open kernels), GVK_PROFILE (where the pipeline's
	 * time went) and GVK_ENGINES (engines for a GPU run). */
	long gp = 0, share = 1, prof = 0, engines = 0;
	if (cli_env_long("pairhmm", "GVK_GPU_PROFILE", 0, 2, &gp) < 0 || cli_env_long("pairhmm", "GVK_GPU_SHARE", 0, 1, &share) < 0 ||
	    cli_env_long("pairhmm", "GVK_PROFILE", 0, 2, &prof) < 0 ||
	    cli_env_long("pairhmm", "GVK_ENGINES", 1, MAX_ENGINES, &engines) < 0)
		return -1;
	a->eng.gpu_profile = (int)gp, a->eng.gpu_gap_share = (int)share;
	a->profile = (int)prof, a->engines = (int)engines;
	/* Profiling asked for is shown even with -q, as before. */
	gvk_cli_log_level(a->eng.gpu_profile ? GVK_LOG_INFO : a->b.quiet ? GVK_LOG_ERROR : GVK_LOG_WARN);
	gvk_log_default(&a->eng.log);
	return 0;
}

/* Output is formatted by all threads, each into its own buffer, then written in order:
 * printf's %.17g alone would take longer than the GPU's work on a large file. */
typedef struct {
	const gvk_pairhmm_view_t *c;
	const double *v;
	const uint8_t *dbl;
	int tsv, nt;
	gvk_buf_t *buf; /* per thread, kept from chunk to chunk */
	size_t *len;
	int failed;
} fmt_job_t;

static void format_slice(void *arg, int tid)
{
	fmt_job_t *j = arg;
	size_t n = j->c->n_pairs, b = n * (size_t)tid / (size_t)j->nt, e = n * (size_t)(tid + 1) / (size_t)j->nt;
	/* A value takes at most 24 bytes, a TSV line's integers at most 44 more. */
	size_t per = j->tsv ? 96 : 26, len = 0, need = (e - b) * per + 64;
	char *p = gvk_buf_reserve(&j->buf[tid], need);
	if (!p) {
		j->failed = 1;
		return;
	}
	for (size_t k = b; k < e; ++k) {
		if (j->tsv) {
			len += (size_t)sprintf(p + len, "%llu\t%d\t%d\t", (unsigned long long)j->c->group[k], j->c->rin[k], j->c->hin[k]);
			len += (size_t)gvk_fmt_g17(p + len, j->v[k]);
			len += (size_t)sprintf(p + len, "\t%d\n", j->dbl[k]);
		} else {
			len += (size_t)gvk_fmt_g17(p + len, j->v[k]);
			p[len++] = '\n';
		}
	}
	j->len[tid] = len;
}

enum { WRITE_MAX_THREADS = 256 };

/* One chunk on its way through the pipeline: parsed, computed, then formatted and written. */
typedef struct {
	gvk_pairhmm_chunk_t *chunk; /* the parsed records, and their contents: */
	gvk_pairhmm_view_t c;
	long n;          /* pairs parsed, 0 at the end, < 0 on error */
	double *v;
	uint8_t *dbl;
	size_t cap;
	gvk_err_t err;  /* parsing */
	int crc;        /* computing */
	gvk_err_t cerr;
	long id;        /* chunk number */
	size_t consumed; /* input bytes read once the chunk was parsed */
	int eng;        /* which engine computed it */
	double tl[6];   /* GVK_PROFILE=2: parse, compute and write, start and end (gvk_seconds) */
} slot_t;

/* A job on its own thread, or run in place when no thread can be made. */
typedef struct {
	pthread_t th;
	int running;
} worker_t;

static void worker_start(worker_t *w, void *(*fn)(void *), void *arg)
{
	w->running = pthread_create(&w->th, NULL, fn, arg) == 0;
	if (!w->running) fn(arg);
}

static void worker_join(worker_t *w)
{
	if (w->running) pthread_join(w->th, NULL);
	w->running = 0;
}

typedef struct {
	gvk_pairhmm_reader_t *rd;
	slot_t *sl;
	FILE *fp;
	const args_t *a;
	gvk_pairhmm_t *eng; /* compute stages */
	int id;             /* the compute stage's engine number */
	double tl0;         /* writer, GVK_PROFILE=2: the command's start, for the chunks' timeline */
	double busy;        /* seconds in the stage's function */
	gvk_buf_t *wbuf;    /* writer: format buffers per thread, WRITE_MAX_THREADS of them */
	int rc;
	int eno; /* the errno of a failed write */
	worker_t w;
} stage_t;

static void *parse_main(void *arg)
{
	stage_t *st = arg;
	st->sl->tl[0] = gvk_seconds();
	st->sl->n = gvk_pairhmm_reader_next(st->rd, st->sl->chunk, st->a->b.chunk, st->a->eng.threads, &st->sl->err);
	gvk_pairhmm_chunk_view(st->sl->chunk, &st->sl->c);
	st->sl->consumed = gvk_pairhmm_reader_consumed(st->rd);
	st->sl->tl[1] = gvk_seconds();
	return NULL;
}

static int slot_reserve(slot_t *sl, long n)
{
	if ((size_t)n <= sl->cap) return 0;
	double *v = realloc(sl->v, (size_t)n * sizeof *v);
	if (v) sl->v = v;
	uint8_t *d = v ? realloc(sl->dbl, (size_t)n) : NULL;
	if (d) sl->dbl = d;
	if (!v || !d) return GVK_ERR_NOMEM;
	sl->cap = (size_t)n;
	return 0;
}

static void *compute_main(void *arg)
{
	stage_t *st = arg;
	slot_t *sl = st->sl;
	const gvk_pairhmm_view_t *c = &sl->c;
	sl->crc = slot_reserve(sl, sl->n);
	if (sl->crc < 0) {
		snprintf(sl->cerr.msg, sizeof sl->cerr.msg, "out of memory");
		return NULL;
	}
	gvk_pairhmm_out_t o = {sl->v, sl->dbl, NULL, NULL};
	double t0 = gvk_seconds();
	sl->crc = gvk_pairhmm_pairs(st->eng, c->reads, c->haps, c->pairs, c->n_pairs, &o, &sl->cerr);
	sl->tl[2] = t0, sl->tl[3] = gvk_seconds(), sl->eng = st->id;
	st->busy += sl->tl[3] - t0;
	return NULL;
}

/* GVK_PROFILE=2: a chunk's times, printed by the writer when it is done with it (the slot then
 * goes to another chunk). */
static void timeline(const slot_t *sl, double t0)
{
	const double *t = sl->tl;
	fprintf(stderr, "[gvk pairhmm] chunk %ld: parse %.3f-%.3f, engine %d %.3f-%.3f, write %.3f-%.3f s\n", sl->id,
	        t[0] - t0, t[1] - t0, sl->eng, t[2] - t0, t[3] - t0, t[4] - t0, t[5] - t0);
}

static void *write_main(void *arg)
{
	stage_t *st = arg;
	slot_t *sl = st->sl;
	int nt = sl->c.n_pairs < 4096 ? 1 : st->a->eng.threads;
	size_t len[WRITE_MAX_THREADS] = {0};
	if (nt > WRITE_MAX_THREADS) nt = WRITE_MAX_THREADS;
	fmt_job_t j = {&sl->c, sl->v, sl->dbl, st->a->tsv, nt, st->wbuf, len, 0};
	double t0 = gvk_seconds();
	gvk_parallel(nt, format_slice, &j);
	st->rc = j.failed ? GVK_ERR_NOMEM : 0;
	errno = 0;
	for (int t = 0; t < nt && st->rc == 0; ++t)
		if (fwrite(st->wbuf[t].p, 1, len[t], st->fp) != len[t]) st->rc = GVK_ERR_IO, st->eno = errno;
	if (st->rc == 0 && ferror(st->fp)) st->rc = GVK_ERR_IO, st->eno = errno;
	/* The mapped input's pages of the chunks written go back, so that a large input does not stay
	 * mapped whole; here rather than in the parser, which sets the pace and would wait for the
	 * unmapping. */
	gvk_pairhmm_reader_release(st->rd, sl->consumed);
	sl->tl[4] = t0, sl->tl[5] = gvk_seconds();
	st->busy += sl->tl[5] - t0;
	if (st->tl0 > 0) timeline(sl, st->tl0);
	return NULL;
}

/* The engines, made on their own thread while the first two chunks are parsed: a GPU engine's
 * CUDA context start-up, a noticeable part of a short run, then overlaps the parsing. */
typedef struct {
	const args_t *a;
	int n;      /* engines wanted: GVK_ENGINES, or 0 for two (one GPU) or one per GPU */
	int probe;  /* count the GPUs (CUDA's start costs a small input more than it computes) */
	int ngpu;   /* GPUs counted, each with engines of its own when there are several */
	gvk_pairhmm_t *eng[MAX_ENGINES];
	gvk_err_t err;  /* the first engine that could not start */
	worker_t w;
	double made[2]; /* seconds to make the first engine, and the others */
} engines_t;

/* Makes engines t, t + step, ... (step: the GPUs when there are several, else 1). */
typedef struct {
	engines_t *es;
	gvk_pairhmm_opts_t o;
	double t0;
	gvk_err_t err[MAX_ENGINES];
} make_job_t;

static void make_worker(void *arg, int t)
{
	make_job_t *j = arg;
	engines_t *es = j->es;
	for (int k = t; k < es->n; k += es->ngpu > 1 ? es->ngpu : 1) {
		gvk_pairhmm_opts_t o = j->o;
		if (es->ngpu > 1) o.gpu = t;
		if (k > 0 && o.log.level > GVK_LOG_ERROR && !o.gpu_profile) o.log.level = GVK_LOG_ERROR; /* the first one says it */
		if (!(es->eng[k] = gvk_pairhmm_create(&o, &j->err[k]))) return;
		if (k == 0) es->made[0] = gvk_seconds() - j->t0;
	}
}

static void *engines_main(void *arg)
{
	engines_t *es = arg;
	make_job_t j = {es, es->a->eng, gvk_seconds(), {{0, ""}}};
	/* Several GPUs: engine k takes GPU k mod ngpu, so that whole chunks go round the GPUs. A pass
	 * split between them (gvk_pairhmm_opts_t.gpu = -1) packs each part on its own, which repeats
	 * the host work that sets the pace. */
	es->ngpu = es->probe && j.o.device != GVK_DEVICE_CPU ? gvk_pairhmm_gpu_count() : 0;
	if (es->n == 0) es->n = es->ngpu > 1 ? es->ngpu : 2;
	if (es->n > MAX_ENGINES) es->n = MAX_ENGINES;
	/* More engines only where compute is not all-CPU: CPU engines would just share cores. */
	if (j.o.device == GVK_DEVICE_CPU) es->n = 1;
	/* Each GPU's engines on a thread of their own: making a CUDA context is slow, and one after
	 * the other the GPUs' start-ups would add up. */
	gvk_parallel(es->ngpu > 1 ? (es->ngpu < es->n ? es->ngpu : es->n) : 1, make_worker, &j);
	/* An engine that could not start (its GPU busy or out of memory, say) leaves its share to the
	 * others, with a message; with none, the first failure is the error. */
	int made = 0;
	for (int k = 0; k < es->n; ++k) {
		if (es->eng[k]) es->eng[made++] = es->eng[k];
		else if (!es->err.code) es->err = j.err[k];
	}
	for (int k = 0; made > 0 && !es->a->b.quiet && k < es->n; ++k)
		if (j.err[k].code)
			fprintf(stderr, "[gvk pairhmm] engine %d could not start (%s); going on without it\n", k, j.err[k].msg);
	for (int k = made; k < es->n; ++k) es->eng[k] = NULL;
	if (made == 0 && !es->err.code) es->err = (gvk_err_t){GVK_ERR_GPU, "no engine could start"};
	es->made[1] = gvk_seconds() - j.t0 - es->made[0];
	return NULL;
}

static void stage_start(stage_t *st, void *(*fn)(void *)) { worker_start(&st->w, fn, st); }
static void stage_join(stage_t *st) { worker_join(&st->w); }


/* Waits for chunk sl (computed by cs, unless NULL) and for the writer's previous chunk, then starts the
 * writer on sl and adds its pairs, cells and pairs in double to tot. Returns a compute or write
 * error. */
static int hand_to_writer(stage_t *writer, stage_t *cs, slot_t *sl, gvk_err_t *err, double *tp, uint64_t tot[3])
{
	double ts = gvk_seconds();
	if (cs) stage_join(cs);
	tp[1] += gvk_seconds() - ts, ts = gvk_seconds();
	stage_join(writer);
	tp[2] += gvk_seconds() - ts;
	if (sl->crc < 0) return *err = sl->cerr, sl->crc;
	if (writer->rc < 0) return writer->rc;
	writer->sl = sl;
	stage_start(writer, write_main);
	tot[0] += sl->c.n_pairs, tot[1] += sl->c.cells;
	for (long k = 0; k < sl->n; ++k) tot[2] += sl->dbl[k];
	return 0;
}

/* After a successful run the process ends at once: unmapping the input, freeing the chunks and
 * unpinning the engines' buffers are a visible part of a short GPU run, for memory that the exit
 * frees anyway. Sanitizer builds clean up, so that leaks are still found. */
#if defined(__SANITIZE_ADDRESS__)
#define FAST_EXIT 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAST_EXIT 0
#endif
#endif
#ifndef FAST_EXIT
#define FAST_EXIT 1
#endif

int gvk_cmd_pairhmm(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
	gvk_err_t err = {0, ""};
	/* --device gpu without a GPU: an engine made now says why (no CUDA context is made for it) */
	if (a.eng.device == GVK_DEVICE_GPU && !a.eng.server && gvk_pairhmm_gpu_count() == 0) {
		gvk_pairhmm_t *e = gvk_pairhmm_create(&a.eng, &err);
		if (!e) return gvk_cli_no_gpu(err.msg);
		gvk_pairhmm_destroy(e);
	}
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *out_fp = NULL;
	/* Chunk i + 2 is parsed while chunks i - ne + 1 ... i are computed (several engines, so that
	 * one chunk's host work overlaps another's GPU work) and the chunk before is formatted and
	 * written, every stage on all threads. */
	slot_t sl[MAX_SLOTS];
	memset(sl, 0, sizeof sl);
	uint64_t tot[3] = {0, 0, 0}; /* pairs, cells, pairs in double, of the chunks handed to the writer */
	int rc = -1, progress = !a.b.quiet && isatty(2), no_gpu = 0;
	double t0 = gvk_seconds();
	/* GVK_PROFILE: where the main thread's time went (first parse, waiting for a computation,
	 * for the writer, for the parser). */
	double tp[4] = {0, 0, 0, 0}, ts;
	const int prof = a.profile;
	gvk_pairhmm_t *eng[MAX_ENGINES] = {NULL};
	char devname[320] = "";
	double td = 0; /* seconds destroying the engines */
	stage_t comp[MAX_ENGINES], parser, writer;
	gvk_pairhmm_reader_t *rd = NULL;
	memset(comp, 0, sizeof comp), memset(&parser, 0, sizeof parser), memset(&writer, 0, sizeof writer);
	gvk_buf_t wbuf[WRITE_MAX_THREADS];
	memset(wbuf, 0, sizeof wbuf);
	writer.wbuf = wbuf;
	if (prof > 1) writer.tl0 = t0; /* the chunks' timeline, from t0 */

	for (int k = 0; k < MAX_SLOTS; ++k)
		if (!(sl[k].chunk = gvk_pairhmm_chunk_new())) {
			rc = gvk_err_set(&err, GVK_ERR_NOMEM, "out of memory");
			goto done;
		}
	rd = gvk_pairhmm_reader_open(a.b.in, a.format, &err);
	if (!rd || !(out_fp = gvk_outset_open(&os, a.b.out, &err))) goto done;
	/* GVK_ENGINES: engines for a GPU run (tuning; by default 2 with one GPU, one per GPU with
	 * several). The GPUs are counted for --device gpu, and in auto mode for inputs that may reach
	 * the GPU at all. */
	struct stat sb;
	engines_t es = {&a, a.engines, 0, 0, {NULL}, {0, ""}, {0}, {0, 0}};
	es.probe = a.eng.server ? 0 : a.eng.device == GVK_DEVICE_GPU || strcmp(a.b.in, "-") == 0 || stat(a.b.in, &sb) != 0 ||
	           sb.st_size >= ((off_t)64 << 20);
	worker_start(&es.w, engines_main, &es);
	parser.rd = rd, parser.a = &a, writer.fp = out_fp, writer.a = &a, writer.rd = rd;
	ts = gvk_seconds();
	parser.sl = &sl[0];
	parse_main(&parser);
	tp[0] = gvk_seconds() - ts;
	/* The second chunk is parsed while the engines finish starting. */
	if (sl[0].n > 0) parser.sl = &sl[1], sl[1].id = 1, stage_start(&parser, parse_main);
	worker_join(&es.w);
	memcpy(eng, es.eng, sizeof eng);
	if (!eng[0]) {
		stage_join(&parser);
		err = es.err;
		no_gpu = a.eng.device == GVK_DEVICE_GPU;
		goto done;
	}
	int ne = 1;
	while (ne < MAX_ENGINES && eng[ne]) ++ne;
	/* Chunk i computes on comp[i % ne]. Once it has started, chunk i - lag (the oldest one in
	 * flight, or with one engine the one finished before) goes to the writer; the slots then hold
	 * the chunk being written, those computed, the one parsed and the one being parsed. */
	const long lag = ne > 1 ? ne - 1 : 1, nslot = lag + 3;
	for (int k = 0; k < ne; ++k) comp[k].a = &a, comp[k].eng = eng[k], comp[k].id = k;
	rc = sl[0].n < 0 ? (int)sl[0].n : 0;
	if (rc < 0) err = sl[0].err;
	long i = 0;
	for (; rc == 0 && sl[i % nslot].n > 0; ++i) {
		stage_t *cs = &comp[i % ne];
		ts = gvk_seconds();
		stage_join(cs);
		tp[1] += gvk_seconds() - ts;
		cs->sl = &sl[i % nslot];
		stage_start(cs, compute_main);
		/* The parser goes on first (it sets the pace): slot i + 2 held chunk i - lag - 1, whose
		 * writing ends here. Then chunk i - lag goes to the writer once it is computed. */
		ts = gvk_seconds();
		stage_join(&writer);
		tp[2] += gvk_seconds() - ts, ts = gvk_seconds();
		stage_join(&parser);
		tp[3] += gvk_seconds() - ts;
		slot_t *next = &sl[(i + 1) % nslot];
		if (next->n < 0) {
			rc = (int)next->n, err = next->err;
			break;
		}
		if (next->n > 0) parser.sl = &sl[(i + 2) % nslot], parser.sl->id = i + 2, stage_start(&parser, parse_main);
		/* With one engine, chunk i - 1 was joined before chunk i started on it. */
		if (i >= lag && (rc = hand_to_writer(&writer, ne == 1 ? NULL : &comp[(i - lag) % ne], &sl[(i - lag) % nslot], &err, tp, tot)) < 0)
			break;
		if (progress)
			fprintf(stderr, "\r[gvk pairhmm] %llu pairs, %.3g G cells, %.1f s", (unsigned long long)tot[0],
			        (double)tot[1] * 1e-9, gvk_seconds() - t0);
	}
	/* The chunks still in flight (or, after an error, whatever still runs). */
	for (long k = i > lag ? i - lag : 0; rc == 0 && k < i; ++k)
		rc = hand_to_writer(&writer, &comp[k % ne], &sl[k % nslot], &err, tp, tot);
	for (int k = 0; k < ne; ++k) stage_join(&comp[k]);
	/* The engines are done: their GPU memory and pinned buffers (slow to unpin) go while the
	 * writer formats the last chunk, whose values live in the slot. */
	if (es.ngpu > 1 && ne > 1 && strncmp(gvk_pairhmm_device_name(eng[0]), "gpu:", 4) == 0)
		snprintf(devname, sizeof devname, "gpu:%d x %s", ne < es.ngpu ? ne : es.ngpu, gvk_pairhmm_device_name(eng[0]) + 4);
	else
		snprintf(devname, sizeof devname, "%s", gvk_pairhmm_device_name(eng[0]));
	td = gvk_seconds();
	for (int k = 0; k < ne && !FAST_EXIT; ++k) gvk_pairhmm_destroy(eng[k]), eng[k] = NULL;
	td = gvk_seconds() - td;
	stage_join(&parser);
	stage_join(&writer);
	if (writer.rc < 0 && (rc == 0 || (rc == writer.rc && !err.msg[0])))
		rc = writer.rc, snprintf(err.msg, sizeof err.msg, "%s: %s", a.b.out ? a.b.out : "standard output",
		                         writer.rc != GVK_ERR_IO ? "out of memory" : writer.eno ? strerror(writer.eno) : "write error");
	if (progress) fputc('\n', stderr);
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
	if (prof) {
		double tr[4];
		gvk_pairhmm_reader_times(rd, tr);
		fprintf(stderr, "[gvk pairhmm] main thread: first parse %.3f s, waiting for compute %.3f s, for output %.3f s, for parse %.3f s; %d engine(s)\n"
		        "[gvk pairhmm] parser: read %.3f s, cut %.3f s, parse %.3f s, join %.3f s\n",
		        tp[0], tp[1], tp[2], tp[3], ne, tr[0], tr[1], tr[2], tr[3]);
		fprintf(stderr, "[gvk pairhmm] engines made in %.3f s (the first) + %.3f s\n", es.made[0], es.made[1]);
		fprintf(stderr, "[gvk pairhmm] busy: engines");
		for (int k = 0; k < ne; ++k) fprintf(stderr, " %.3f s", comp[k].busy);
		fprintf(stderr, ", writer %.3f s\n", writer.busy);
		struct rusage ru;
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			fprintf(stderr, "[gvk pairhmm] user %.3f s, system %.3f s, %ld minor faults, %ld voluntary and %ld involuntary switches\n",
			        ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec, ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec,
			        ru.ru_minflt, ru.ru_nvcsw, ru.ru_nivcsw);
	}
done:
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0 && no_gpu) {
		gvk_cli_no_gpu(err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (rc < 0) {
		fprintf(stderr, "gvk pairhmm: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a.b.quiet) {
		double dt = gvk_seconds() - t0;
		fprintf(stderr, "gvk pairhmm: %llu pairs, %.4g G cells, %.3f s, %.2f GCUPS, %llu pairs in double, %s, %d threads\n",
		        (unsigned long long)tot[0], (double)tot[1] * 1e-9, dt, dt > 0 ? (double)tot[1] * 1e-9 / dt : 0.0,
		        (unsigned long long)tot[2], devname, a.eng.threads);
	}
	if (prof) {
		/* Wall-clock times of the command's start and end, to set against the process's. */
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		double end = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
		fprintf(stderr, "[gvk pairhmm] real-time clock: command from %.3f s to %.3f s\n", end - (gvk_seconds() - t0), end);
	}
	if (FAST_EXIT && rc >= 0) {
		fflush(NULL);
		_exit(0);
	}
	ts = gvk_seconds();
	gvk_pairhmm_reader_close(rd);
	for (int k = 0; k < MAX_ENGINES; ++k) gvk_pairhmm_destroy(eng[k]);
	for (int k = 0; k < MAX_SLOTS; ++k) gvk_pairhmm_chunk_free(sl[k].chunk), free(sl[k].v), free(sl[k].dbl);
	for (int t = 0; t < WRITE_MAX_THREADS; ++t) gvk_buf_free(&wbuf[t]);
	if (prof) fprintf(stderr, "[gvk pairhmm] teardown %.3f s (engines %.3f s before)\n", gvk_seconds() - ts, td);
	return rc < 0 ? 1 : 0;
}
