/* SPDX-License-Identifier: MIT */
/* Benchmark of the CNV pipeline on synthetic cohorts (deterministic, generated on the fly): the
 * whole `gvk cnv --counts` process on a count matrix written to $TMPDIR (parsing, normalization,
 * EM, segmentation, calls, writing), on the CPU with all host cores and with the EM on the GPU,
 * stage times read from the command's summary line; for the small cohort the EM is also timed on
 * its own in memory (best of three, warm).
 * Usage: bench_cnv [small | large | both | M N | realistic] [-t THREADS] [--device cpu|gpu|both]
 *                  [--windows M] [--samples N] [--results FILE] [--gvk PATH]
 *   small = 50,000 windows x 20 samples (default), large = 3,000,000 windows x 100 samples;
 *   realistic = 3,000,000 x 100 with the counts of a ~30x genome (mean ~5,000, over-dispersed,
 *   24 sequences; real_cohort.h), written straight to a temporary directory, also reporting each
 *   command's peak memory (--windows / --samples change its size). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gvk.h"
#include "bench_results.h"
#include "common/splitmix.h"
#include "common/threads.h"
#include "cnv/cnv_em.h"
#include "real_cohort.h"

#ifndef GVK_BIN
#define GVK_BIN "gvk"
#endif

/* Poisson by inversion for small means, normal approximation above 50. */
static double poisson(uint64_t *s, double mu)
{
	if (mu > 50) {
		double g = sqrt(-2 * log(gvk_splitmix_unif(s))) * cos(6.283185307179586 * gvk_splitmix_unif(s));
		double v = floor(mu + sqrt(mu) * g + 0.5);
		return v < 0 ? 0 : v;
	}
	double l = exp(-mu), p = gvk_splitmix_unif(s), k = 0, t = l;
	while (p > t && k < 1000) p -= t, ++k, t *= mu / k;
	return k;
}

/* 22 sequences of 1 kb windows, ~100 reads per window, per-sample coverage, 10 % gamma-like
 * over-dispersion, and one CNV (CN0, CN1, CN3 or CN4) of 5-50 windows per 5,000 windows and sample. */
typedef struct {
	gvk_cnv_counts_t *c;
	const double *base, *cov;
	uint64_t st;
	int nth;
} gen_t;

/* Samples are independent streams, so the cohort does not depend on the thread count. */
static void gen_worker(void *arg, int tid)
{
	gen_t *g = arg;
	gvk_cnv_counts_t *c = g->c;
	int m = c->m;
	static const double fold[4] = {0.01, 0.5, 1.5, 2};
	for (int s = tid; s < c->N; s += g->nth) {
		double *col = c->x + (size_t)s * m;
		uint64_t ss = g->st ^ ((uint64_t)s * 0x632be59bd9b4e019ULL);
		const double *base = g->base, *cov = g->cov;
		int ev_start = -1, ev_end = -1;
		double f = 1;
		for (int r = 0; r < m; ++r) {
			if (r % 5000 == 0) {
				ev_start = r + (int)(gvk_splitmix_unif(&ss) * 4000), ev_end = ev_start + 5 + (int)(gvk_splitmix_unif(&ss) * 45);
				f = fold[(int)(gvk_splitmix_unif(&ss) * 4)];
			}
			double mu = base[r] * cov[s] * (r >= ev_start && r < ev_end ? f : 1) * (0.9 + 0.2 * gvk_splitmix_unif(&ss));
			col[r] = poisson(&ss, mu);
		}
	}
}

static int make_cohort(gvk_cnv_counts_t *c, int m, int N)
{
	memset(c, 0, sizeof *c);
	int Q = m >= 22 * 100 ? 22 : 1;
	c->m = m, c->N = N, c->n_seqs = Q;
	c->samples = calloc((size_t)N, sizeof *c->samples);
	c->seq_names = calloc((size_t)Q, sizeof *c->seq_names);
	c->seq_off = malloc((size_t)(Q + 1) * sizeof *c->seq_off);
	c->start = malloc((size_t)m * sizeof *c->start), c->end = malloc((size_t)m * sizeof *c->end);
	c->x = malloc((size_t)m * N * sizeof *c->x);
	double *base = malloc((size_t)m * sizeof *base), *cov = malloc((size_t)N * sizeof *cov);
	if (!c->samples || !c->seq_names || !c->seq_off || !c->start || !c->end || !c->x || !base || !cov) return -1;
	for (int s = 0; s < N; ++s) {
		c->samples[s] = malloc(16);
		snprintf(c->samples[s], 16, "S%03d", s + 1);
	}
	for (int q = 0; q <= Q; ++q) c->seq_off[q] = (int)((int64_t)m * q / Q);
	for (int q = 0; q < Q; ++q) {
		c->seq_names[q] = malloc(16);
		snprintf(c->seq_names[q], 16, Q == 1 ? "chr1" : "chr%d", q + 1);
		for (int r = c->seq_off[q]; r < c->seq_off[q + 1]; ++r) {
			int64_t i = r - c->seq_off[q];
			c->start[r] = i * 1000 + 1, c->end[r] = (i + 1) * 1000;
		}
	}
	uint64_t st = 20240611;
	for (int r = 0; r < m; ++r) base[r] = 100 * (0.7 + 0.6 * gvk_splitmix_unif(&st));
	for (int s = 0; s < N; ++s) cov[s] = 0.7 + 0.8 * gvk_splitmix_unif(&st);
	gen_t g = {c, base, cov, st, gvk_ncpu()};
	gvk_parallel(g.nth, gen_worker, &g);
	free(base), free(cov);
	return 0;
}

enum { TSV_ROWS = 16384 }; /* rows per thread and round */

typedef struct {
	const gvk_cnv_counts_t *c;
	const int *seq_of;
	int r0, nth;
	char **buf;
	size_t *len;
} tsv_t;

/* Formats rows [r0 + tid * TSV_ROWS, +TSV_ROWS) into the thread's buffer. */
static void tsv_worker(void *arg, int tid)
{
	tsv_t *w = arg;
	const gvk_cnv_counts_t *c = w->c;
	int a = w->r0 + tid * TSV_ROWS, b = a + TSV_ROWS < c->m ? a + TSV_ROWS : c->m;
	char *o = w->buf[tid];
	for (int r = a; r < b; ++r) {
		o += sprintf(o, "%s\t%lld\t%lld", c->seq_names[w->seq_of[r]], (long long)c->start[r], (long long)c->end[r]);
		for (int s = 0; s < c->N; ++s) {
			char d[24];
			int k = 0;
			unsigned long v = (unsigned long)c->x[(size_t)s * c->m + r];
			do d[k++] = (char)('0' + v % 10), v /= 10; while (v);
			*o++ = '\t';
			while (k) *o++ = d[--k];
		}
		*o++ = '\n';
	}
	w->len[tid] = (size_t)(o - w->buf[tid]);
}

/* The count matrix as `gvk cnv --counts` reads it, formatted by all threads. */
static int write_tsv(const gvk_cnv_counts_t *c, const char *path)
{
	int nth = gvk_ncpu(), rc = -1;
	FILE *fp = fopen(path, "w");
	int *seq_of = malloc((size_t)c->m * sizeof *seq_of);
	char **buf = calloc((size_t)nth, sizeof *buf);
	size_t *len = calloc((size_t)nth, sizeof *len), cap = (size_t)TSV_ROWS * (64 + 21 * (size_t)c->N);
	if (!fp || !seq_of || !buf || !len) goto out;
	for (int t = 0; t < nth; ++t)
		if (!(buf[t] = malloc(cap))) goto out;
	for (int q = 0; q < c->n_seqs; ++q)
		for (int r = c->seq_off[q]; r < c->seq_off[q + 1]; ++r) seq_of[r] = q;
	fputs("chr\tstart\tend", fp);
	for (int s = 0; s < c->N; ++s) fprintf(fp, "\t%s", c->samples[s]);
	fputc('\n', fp);
	for (int r0 = 0; r0 < c->m; r0 += nth * TSV_ROWS) {
		tsv_t w = {c, seq_of, r0, nth, buf, len};
		gvk_parallel(nth, tsv_worker, &w);
		for (int t = 0; t < nth; ++t)
			if (len[t] && fwrite(buf[t], 1, len[t], fp) != len[t]) goto out;
	}
	rc = 0;
out:
	for (int t = 0; buf && t < nth; ++t) free(buf[t]);
	free(buf), free(len), free(seq_of);
	if (fp && fclose(fp) != 0) rc = -1;
	return rc;
}

typedef struct {
	const char *dev;
	double wall, counts, norm, em, seg, rss_gb, cpu; /* cpu: the command's user + system seconds */
	long cnvs;
	int ok;
} row_t;

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int same = fa && fb, ca, cb;
	while (same && ((ca = getc(fa)) != EOF) | ((cb = getc(fb)) != EOF)) same = ca == cb;
	if (fa) fclose(fa);
	if (fb) fclose(fb);
	return same;
}

/* Reads the stage times from the command's summary line; other lines go to stderr. */
static void read_summary(FILE *p, row_t *r)
{
	char line[4096];
	while (fgets(line, sizeof line, p)) {
		char *s = strstr(line, "gvk cnv: ");
		long regions, samples, cnvr;
		double tot;
		if (s && sscanf(s, "gvk cnv: %ld regions x %ld samples, %ld CNVs in %ld CNV regions, %lf s (counts %lf, "
		                   "normalization %lf, EM %lf, segmentation+calls %lf)",
		                &regions, &samples, &r->cnvs, &cnvr, &tot, &r->counts, &r->norm, &r->em, &r->seg) == 9)
			r->ok = 1;
		else
			fputs(line, stderr);
	}
}

/* Runs the gvk command on the matrix as a child (its peak memory from wait4) and reads the stage
 * times from its summary line. */
static row_t run_cli(const char *gvk, const char *tsv, const char *dev, int threads, const char *out)
{
	row_t r = {dev, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	char th[16], o1[2048], o2[2048];
	snprintf(th, sizeof th, "%d", threads);
	snprintf(o1, sizeof o1, "%s.cnvs", out), snprintf(o2, sizeof o2, "%s.cnvr", out);
	int fd[2];
	if (pipe(fd) < 0) return r;
	double t0 = gvk_seconds();
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1), dup2(fd[1], 2), close(fd[0]), close(fd[1]);
		execlp(gvk, gvk, "cnv", "--device", dev, "-t", th, "--counts", tsv, "-o", o1, "--cnvr", o2, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	FILE *p = pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (p) read_summary(p, &r), fclose(p);
	else close(fd[0]);
	int status = 1;
	struct rusage ru;
	if (pid > 0 && wait4(pid, &status, 0, &ru) == pid) {
		r.rss_gb = (double)ru.ru_maxrss / (1024.0 * 1024.0);
		r.cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	}
	r.ok = r.ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	r.wall = gvk_seconds() - t0;
	return r;
}

/* The EM alone, in memory, on the normalized counts of a CPU run: best of three. */
static double em_alone(const gvk_cnv_counts_t *c, int gpu, int threads)
{
	gvk_cnv_opts_t o;
	gvk_cnv_opts_init(&o, 0);
	o.threads = threads, o.device = GVK_DEVICE_CPU;
	gvk_cnv_result_t *r;
	gvk_err_t err;
	gvk_cnv_t *e = gvk_cnv_create(&o, &err);
	int rc0 = e ? gvk_cnv_run(e, c, &r, &err) : -1;
	gvk_cnv_destroy(e);
	if (rc0 < 0) return -1;
	cnv_em_par_t par;
	cnv_em_par_init(&par, &o, c->N, r->cov);
	cnv_em_job_t job = {(size_t)c->m, (size_t)c->m, r->norm, r->cov, r->lambda, r->alpha, NULL, r->sini, r->ini, r->cls};
	double best = -1;
	for (int k = 0; k < 3; ++k) {
		double t0 = gvk_seconds();
		int rc = gpu ? cnv_em_gpu(&par, &job, threads, 0, -1, &o.log, &err) : cnv_em_cpu(&par, &job, threads, &err);
		double dt = gvk_seconds() - t0;
		if (rc < 0) break;
		if (best < 0 || dt < best) best = dt;
	}
	gvk_cnv_result_free(r);
	return best;
}


typedef struct {
	char text[8192];
	size_t len;
} table_t;

static void tprintf(table_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void tprintf(table_t *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(t->text + t->len, sizeof t->text - t->len, fmt, ap);
	va_end(ap);
	if (k > 0) t->len = t->len + (size_t)k < sizeof t->text ? t->len + (size_t)k : sizeof t->text - 1;
}

static int bench_size(int m, int N, int threads, const char *gvk, int have_gpu, table_t *t)
{
	gvk_cnv_counts_t c;
	double t0 = gvk_seconds();
	if (make_cohort(&c, m, N) < 0) return fprintf(stderr, "bench_cnv: out of memory\n"), -1;
	const char *td = getenv("TMPDIR");
	char tsv[1024], out[1024];
	snprintf(tsv, sizeof tsv, "%s/gvk_bench_cnv_%d.tsv", td ? td : "/tmp", (int)getpid());
	snprintf(out, sizeof out, "%s/gvk_bench_cnv_%d.out", td ? td : "/tmp", (int)getpid());
	if (write_tsv(&c, tsv) < 0) return fprintf(stderr, "bench_cnv: cannot write %s\n", tsv), -1;
	fprintf(stderr, "cohort %d x %d generated and written in %.2f s\n", m, N, gvk_seconds() - t0);
	row_t rows[2];
	int nr = 0;
	double em_mem[2] = {-1, -1};
	char outd[2][1100];
	for (int d = 0; d < 1 + have_gpu; ++d) {
		snprintf(outd[d], sizeof outd[d], "%s.%s", out, d ? "gpu" : "cpu");
		rows[nr++] = run_cli(gvk, tsv, d ? "gpu" : "cpu", threads, outd[d]);
		if ((size_t)m * N <= 10000000) em_mem[d] = em_alone(&c, d, threads);
	}
	unlink(tsv);
	/* CNV regions hold only integers: the GPU run must give the very same file */
	char p[2300] = "", q[2300] = "";
	int same = -1;
	if (nr == 2) {
		snprintf(p, sizeof p, "%s.cnvr", outd[0]), snprintf(q, sizeof q, "%s.cnvr", outd[1]);
		same = same_file(p, q);
	}
	for (int d = 0; d < nr; ++d) {
		snprintf(p, sizeof p, "%s.cnvs", outd[d]), unlink(p);
		snprintf(p, sizeof p, "%s.cnvr", outd[d]), unlink(p);
	}
	for (int k = 0; k < nr; ++k) {
		row_t *r = &rows[k];
		if (!r->ok) {
			tprintf(t, "| %d x %d | %s | %d | failed | | | | | | | | |\n", m, N, r->dev, threads);
			continue;
		}
		tprintf(t, "| %d x %d | %s | %d | %.2f | %.2f | %.2f | %.3f | %.2f | %.4f | %.3g | %.2fx | %.2fx | %ld |\n", m, N,
		        r->dev, threads, r->wall, r->counts, r->norm, r->em, r->seg, em_mem[k], m / r->em,
		        rows[0].wall / r->wall, rows[0].em / r->em, r->cnvs);
	}
	if (nr == 2 && rows[0].ok && rows[1].ok)
		fprintf(stderr, "bench_cnv: %d x %d: CNV regions of the CPU and GPU runs %s\n", m, N,
		        same == 1 ? "identical" : "DIFFER");
	gvk_cnv_counts_free(&c);
	return 0;
}

/* The realistic cohort: written to a fresh temporary directory, run on each device asked for, then
 * removed. devs: bit 0 CPU, bit 1 GPU. */
static int bench_realistic(int m, int N, int threads, const char *gvk, int devs, table_t *t)
{
	const char *td = getenv("TMPDIR");
	char dir[1024], tsv[1100], out[2][1100], p[2300], q[2300];
	snprintf(dir, sizeof dir, "%s/gvk_bench_cnv_XXXXXX", td ? td : "/tmp");
	if (!mkdtemp(dir)) return fprintf(stderr, "bench_cnv: cannot create a directory under %s\n", td ? td : "/tmp"), -1;
	snprintf(tsv, sizeof tsv, "%s/counts.tsv", dir);
	double t0 = gvk_seconds();
	int rc = real_cohort_write(tsv, m, N, gvk_ncpu());
	FILE *fp = fopen(tsv, "rb");
	long bytes = fp && fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
	if (fp) fclose(fp);
	fprintf(stderr, "realistic cohort %d x %d written in %.1f s (%.2f GB of text)\n", m, N, gvk_seconds() - t0, bytes / 1e9);
	row_t rows[2];
	int nr = 0;
	for (int d = 0; rc == 0 && d < 2; ++d) {
		if (!(devs >> d & 1)) continue;
		snprintf(out[nr], sizeof out[nr], "%s/%s", dir, d ? "gpu" : "cpu");
		rows[nr] = run_cli(gvk, tsv, d ? "gpu" : "cpu", threads, out[nr]);
		++nr;
	}
	if (nr == 2 && rows[0].ok && rows[1].ok) {
		snprintf(p, sizeof p, "%s.cnvr", out[0]), snprintf(q, sizeof q, "%s.cnvr", out[1]);
		fprintf(stderr, "bench_cnv: CNV regions of the CPU and GPU runs %s\n", same_file(p, q) ? "identical" : "DIFFER");
	}
	for (int k = 0; k < nr; ++k) {
		snprintf(p, sizeof p, "%s.cnvs", out[k]), unlink(p);
		snprintf(p, sizeof p, "%s.cnvr", out[k]), unlink(p);
		row_t *r = &rows[k];
		if (!r->ok) tprintf(t, "| %d x %d | %s | %d | failed | | | | | | | |\n", m, N, r->dev, threads);
		else
			tprintf(t, "| %d x %d | %s | %d | %.2f | %.1f | %.2f | %.3f | %.2f | %.2f | %.1f | %ld |\n", m, N, r->dev, threads,
			        r->wall, r->cpu, r->counts, r->norm, r->em, r->seg, r->rss_gb, r->cnvs);
	}
	unlink(tsv);
	rmdir(dir);
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_cnv [small | large | both | M N | realistic] [-t THREADS] [--device cpu|gpu|both]\n"
	                "                 [--windows M] [--samples N] [--results FILE] [--gvk PATH]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int threads = gvk_ncpu(), sizes[2][2] = {{50000, 20}, {3000000, 100}}, ns = 0, first = 0;
	const char *results = NULL, *gvk = GVK_BIN;
	int sel[2][2], a = 1, realistic = 0, devs = 0, rm = 3000000, rn = 100;
	if (argc > 1 && !strcmp(argv[1], "large")) first = 1, ns = 1, a = 2;
	else if (argc > 1 && !strcmp(argv[1], "both")) ns = 2, a = 2;
	else if (argc > 1 && !strcmp(argv[1], "realistic")) realistic = 1, a = 2;
	else if (argc > 2 && atoi(argv[1]) > 0 && atoi(argv[2]) > 1) sizes[0][0] = atoi(argv[1]), sizes[0][1] = atoi(argv[2]), ns = 1, a = 3;
	else ns = 1, a = argc > 1 && !strcmp(argv[1], "small") ? 2 : 1;
	for (; a < argc; ++a) {
		if (!strcmp(argv[a], "-t") && a + 1 < argc) threads = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--results") && a + 1 < argc) results = argv[++a];
		else if (!strcmp(argv[a], "--gvk") && a + 1 < argc) gvk = argv[++a];
		else if (!strcmp(argv[a], "--windows") && a + 1 < argc) rm = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--samples") && a + 1 < argc) rn = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--device") && a + 1 < argc) {
			const char *d = argv[++a];
			devs = !strcmp(d, "cpu") ? 1 : !strcmp(d, "gpu") ? 2 : !strcmp(d, "both") ? 3 : -1;
			if (devs < 0) return usage();
		} else return usage();
	}
	if (threads < 1) threads = 1;
	for (int k = 0; k < ns; ++k) sel[k][0] = sizes[first + k][0], sel[k][1] = sizes[first + k][1];
	int have_gpu = cnv_em_gpu_available();
	if (devs == 0) devs = have_gpu ? 3 : 1;
	char gpu[256], cpu[128];
	cnv_em_gpu_name(gpu, sizeof gpu);
	bench_host_cpu(cpu, sizeof cpu);
	table_t t = {"", 0};
	if (realistic) {
		tprintf(&t, "| windows x samples | EM device | threads | wall s (whole command) | CPU s (user + system) | parse s | "
		            "normalization s | EM s | segmentation+calls s | peak memory GB | CNVs |\n"
		            "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		if (bench_realistic(rm, rn, threads, gvk, devs, &t) < 0) return 1;
	} else {
		tprintf(&t, "| windows x samples | EM device | threads | wall s (whole command) | parse s | normalization s | EM s | "
		            "segmentation+calls s | EM in memory s | EM regions/s | speed-up (wall) | speed-up (EM) | CNVs |\n");
		tprintf(&t, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (int k = 0; k < ns; ++k)
			if (bench_size(sel[k][0], sel[k][1], threads, gvk, have_gpu && (devs & 2), &t) < 0) return 1;
	}
	fputs(t.text, stdout);
	if (results) {
		FILE *fp = bench_results_open(results, "bench_cnv");
		if (!fp) return 1;
		fprintf(fp, "Host: %s, %d threads; GPU: %s. Whole `gvk cnv --counts` process on a synthetic matrix%s.\n\n", cpu,
		        threads, gpu, realistic ? " with realistic counts (real_cohort.h)" : "; speed-ups over the CPU row");
		fputs(t.text, fp);
		fclose(fp);
	}
	return 0;
}
