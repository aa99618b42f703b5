/* SPDX-License-Identifier: MIT */
/* Many HaplotypeCallers on one host: P client processes, one synchronous caller each, share a
 * HaplotypeCaller-shaped workload split by region (process k takes regions k, k + P, ...), in four
 * modes:
 *   cpu     each process its own CPU engine (1 thread)
 *   gpu     each process its own shared engine on the GPU (device gpu), as the GATK drop-in
 *           opened one in every process before the GPU lock
 *   auto    each process its own shared engine in device auto with the GPU lock (the process that
 *           wins the lock takes the GPU, the others their CPU engines)
 *   server  every process's calls through one gvk serve (started by the benchmark)
 * For Pair-HMM (one gvk_pairhmm_batch per region) and Smith-Waterman (per region, each haplotype
 * against the first and each read against a haplotype, as one batch or, with --sw-per-pair, one
 * call per pair as GATK's alignNative). Prints per mode the wall time from the processes' start
 * (all forked, then released at once) to the last one's end (engine start included), the speed-up
 * over cpu, the call latency p50 / p99, the slowest and the median engine start (server: the
 * connect), the median time from a process's start to its first call's end, whether every value equals
 * the cpu mode's bit for bit, and the server's summary (merged launch sizes).
 * Usage: bench_serve [-n PAIRS] [-P 4,16,64] [--modes cpu,gpu,auto,server] [--gvk PATH]
 *                    [--server-device gpu|cpu|auto] [-t SERVER_THREADS] [--no-sw] [--no-phmm]
 *                    [--sw-per-pair] [--seed N] [--serve-opt ARG ...] (ARG passed on to gvk serve)
 *                    [--server-log FILE] (each server's whole log appended to FILE)
 *                    [--server-min-work CELLS] (align clients' server_min_work: batches of at
 *                    least CELLS go whole to the server; default 0, the engine's model) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gvk.h"
#include "phmm_workload.h"

enum { M_CPU, M_GPU, M_AUTO, M_SERVER, N_MODES };
static const char *mode_name[N_MODES] = {"cpu", "gpu", "auto", "server"};
enum { MAX_P = 1024 };

typedef struct {
	size_t n_pairs;
	int P[16], nP, modes[N_MODES], sw, phmm, per_pair, threads;
	const char *gvk, *server_device, *server_log;
	unsigned long long seed;
	double server_min_work; /* align clients' gvk_align_opts_t.server_min_work */
	char sock[108], lock[128], dir[64];
	const char *serve_opt[16];
	int n_serve_opt;
} opts_t;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the work ---- */

typedef struct {
	const phmm_workload_t *w;
	size_t *read0, *hap0, *pair0;
	/* Smith-Waterman: per region, its pairs al[al0[k] .. al0[k + 1]) */
	gvk_align_pair_t *al;
	size_t *al0, n_al;
} work_t;

static int work_index(work_t *x, const phmm_workload_t *w)
{
	const size_t R = w->n_regions;
	x->w = w;
	x->read0 = calloc(R + 1, sizeof(size_t)), x->hap0 = calloc(R + 1, sizeof(size_t));
	x->pair0 = calloc(R + 1, sizeof(size_t)), x->al0 = calloc(R + 1, sizeof(size_t));
	if (!x->read0 || !x->hap0 || !x->pair0 || !x->al0) return -1;
	for (size_t k = 0; k < R; ++k) {
		x->read0[k + 1] = x->read0[k] + (size_t)w->region_reads[k];
		x->hap0[k + 1] = x->hap0[k] + (size_t)w->region_haps[k];
		x->pair0[k + 1] = x->pair0[k] + (size_t)w->region_reads[k] * (size_t)w->region_haps[k];
		x->al0[k + 1] = x->al0[k] + (size_t)w->region_haps[k] - 1 + (size_t)w->region_reads[k];
	}
	x->n_al = x->al0[R];
	if (!(x->al = malloc((x->n_al ? x->n_al : 1) * sizeof *x->al))) return -1;
	/* HaplotypeCaller's two uses: haplotypes against the reference (here the region's first
	 * haplotype) and reads against their best haplotype (here one by index), with GATK's presets. */
	gvk_sw_params_t hap_par, read_par;
	gvk_sw_preset("NEW_SW_PARAMETERS", &hap_par);
	gvk_sw_preset("ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS", &read_par);
	for (size_t k = 0; k < R; ++k) {
		const gvk_hap_t *h = w->haps + x->hap0[k];
		const gvk_read_t *r = w->reads + x->read0[k];
		gvk_align_pair_t *p = x->al + x->al0[k];
		for (int j = 1; j < w->region_haps[k]; ++j)
			*p++ = (gvk_align_pair_t){h[0].bases, h[j].bases, h[0].len, h[j].len, hap_par, GVK_OVERHANG_INDEL};
		for (int j = 0; j < w->region_reads[k]; ++j) {
			const gvk_hap_t *b = &h[j % w->region_haps[k]];
			*p++ = (gvk_align_pair_t){b->bases, r[j].bases, b->len, r[j].len, read_par, GVK_OVERHANG_SOFTCLIP};
		}
	}
	return 0;
}

/* ---- one run: P processes in one mode ---- */

/* Shared with the children (MAP_SHARED before the fork): values, per-call latencies, start times. */
typedef struct {
	double *phmm;     /* n_pairs log10 values */
	uint64_t *sw;     /* per align pair: a hash of CIGAR, offset and score */
	double *lat;      /* per call */
	double *start;    /* per process: seconds to make its engines */
	double *first;    /* per process: seconds to its first call's end from its start (a server's
	                     hello is answered by then) */
	int *fallback;    /* per process: its engines did not use what the mode asked */
} shared_t;

static uint64_t sw_hash(const gvk_align_result_t *r)
{
	uint64_t h = 1469598103934665603ull;
	for (int k = 0; k < r->cigar_len; ++k) h = (h ^ (uint8_t)r->cigar[k]) * 1099511628211ull;
	h = (h ^ (uint32_t)r->offset) * 1099511628211ull;
	return (h ^ (uint32_t)r->score) * 1099511628211ull;
}

static void quiet_log(void *arg, int level, const char *msg)
{
	(void)arg;
	if (level <= GVK_LOG_WARN) fprintf(stderr, "  [process %d] %s\n", (int)getpid(), msg);
}

static int child(const opts_t *o, const work_t *x, int mode, int sw, int p, int P, shared_t *sh)
{
	gvk_err_t err = {0, ""};
	gvk_log_t log = {quiet_log, NULL, GVK_LOG_WARN};
	double t0 = now_s();
	gvk_pairhmm_t *ph = NULL;
	gvk_align_t *al = NULL;
	if (!sw) {
		gvk_pairhmm_opts_t po;
		gvk_pairhmm_opts_init(&po);
		po.threads = 1, po.log = log;
		po.device = mode == M_CPU ? GVK_DEVICE_CPU : mode == M_GPU ? GVK_DEVICE_GPU : GVK_DEVICE_AUTO;
		po.shared = mode != M_CPU;
		if (mode == M_AUTO) po.gpu_lock = o->lock;
		if (mode == M_SERVER) po.server = o->sock;
		if (!(ph = gvk_pairhmm_create(&po, &err))) return fprintf(stderr, "  process %d: %s\n", p, err.msg), 1;
		sh->fallback[p] = mode == M_SERVER && strncmp(gvk_pairhmm_device_name(ph), "server:", 7) != 0;
	} else {
		gvk_align_opts_t ao;
		gvk_align_opts_init(&ao);
		ao.threads = 1, ao.log = log, ao.raw = 1;
		ao.device = mode == M_CPU ? GVK_DEVICE_CPU : mode == M_GPU ? GVK_DEVICE_GPU : GVK_DEVICE_AUTO;
		if (mode == M_AUTO) ao.gpu_lock = o->lock;
		if (mode == M_SERVER) ao.server = o->sock, ao.server_min_work = o->server_min_work;
		if (!(al = gvk_align_create(&ao, &err))) return fprintf(stderr, "  process %d: %s\n", p, err.msg), 1;
		sh->fallback[p] = mode == M_SERVER && strncmp(gvk_align_device_name(al), "server:", 7) != 0;
	}
	sh->start[p] = now_s() - t0;
	sh->first[p] = -1;
	const phmm_workload_t *w = x->w;
	gvk_align_result_t res[1024];
	int rc = 0;
	size_t call = 0;
	for (size_t k = (size_t)p; k < w->n_regions && rc == 0; k += (size_t)P) {
		if (!sw) {
			double t = now_s();
			rc = gvk_pairhmm_batch(ph, w->reads + x->read0[k], w->region_reads[k], w->haps + x->hap0[k], w->region_haps[k],
			                       sh->phmm + x->pair0[k], &err);
			sh->lat[k] = now_s() - t;
			if (sh->first[p] < 0) sh->first[p] = now_s() - t0;
			continue;
		}
		const size_t b = x->al0[k], n = x->al0[k + 1] - b;
		double t = now_s();
		for (size_t i = 0; i < n && rc == 0; i += o->per_pair ? 1 : n) {
			size_t m = o->per_pair ? 1 : n, done = 0;
			while (done < m && rc == 0) {
				size_t c = m - done < 1024 ? m - done : 1024;
				if ((rc = gvk_align_batch(al, x->al + b + i + done, c, res, &err)) == 0)
					for (size_t j = 0; j < c; ++j) sh->sw[b + i + done + j] = sw_hash(&res[j]);
				done += c;
			}
			if (o->per_pair) sh->lat[b + i] = now_s() - t, t = now_s(), ++call;
		}
		if (!o->per_pair) sh->lat[k] = now_s() - t;
		if (sh->first[p] < 0) sh->first[p] = now_s() - t0;
	}
	(void)call;
	if (rc < 0) fprintf(stderr, "  process %d: %s\n", p, err.msg);
	gvk_pairhmm_destroy(ph);
	gvk_align_destroy(al);
	return rc < 0;
}

/* ---- the server ---- */

static pid_t server_start(const opts_t *o, const char *log)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) dup2(fd, 2);
		char t[16];
		const char *av[40];
		int n = 0;
		snprintf(t, sizeof t, "%d", o->threads);
		av[n++] = o->gvk, av[n++] = "serve", av[n++] = "--socket", av[n++] = o->sock, av[n++] = "--device", av[n++] = o->server_device;
		if (o->threads > 0) av[n++] = "-t", av[n++] = t;
		for (int k = 0; k < o->n_serve_opt; ++k) av[n++] = o->serve_opt[k];
		av[n] = NULL;
		execv(o->gvk, (char *const *)av);
		_exit(127);
	}
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, o->sock, strlen(o->sock));
	for (int k = 0; k < 3000; ++k) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		int up = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
		if (fd >= 0) close(fd);
		if (up) return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid) break;
		usleep(10000);
	}
	fprintf(stderr, "bench_serve: the server did not start (%s):\n", log);
	FILE *fp = fopen(log, "r");
	char line[1024];
	while (fp && fgets(line, sizeof line, fp)) fprintf(stderr, "  %s", line);
	if (fp) fclose(fp);
	return -1;
}

static void server_stop(pid_t pid, const char *log, const char *keep)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	FILE *fp = fopen(log, "r"), *kp = keep ? fopen(keep, "a") : NULL;
	char line[1024];
	while (fp && fgets(line, sizeof line, fp)) {
		if (strstr(line, "merged launches") || strstr(line, " calls, ")) printf("    %s", line);
		if (kp) fputs(line, kp);
	}
	if (fp) fclose(fp);
	if (kp) fclose(kp);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double q)
{
	if (!n) return 0;
	qsort(v, n, sizeof *v, cmp_d);
	size_t k = (size_t)(q * (double)(n - 1) + 0.5);
	return v[k];
}

/* P processes in one mode; prints a row. ref (the cpu mode's values) NULL: this is the cpu mode,
 * whose values become ref. Returns the wall time, or a negative number on failure. */
static double run(const opts_t *o, const work_t *x, int mode, int sw, int P, shared_t *sh, const void *ref, double cpu_wall)
{
	const size_t nv = sw ? x->n_al : x->w->n_pairs, ncall = sw && o->per_pair ? x->n_al : x->w->n_regions;
	memset(sh->lat, 0, ncall * sizeof *sh->lat);
	memset(sh->fallback, 0, (size_t)P * sizeof *sh->fallback);
	char log[128];
	snprintf(log, sizeof log, "%s/serve.log", o->dir);
	pid_t server = mode == M_SERVER ? server_start(o, log) : 0;
	if (server < 0) return -1;
	pid_t pids[MAX_P];
	/* Every process waits, after its fork, until all exist (the pipe's end of file), so that the
	 * wall and the connects measure the processes' work and not the forks of this large parent
	 * one after the other, which no HaplotypeCaller pays. */
	int go[2];
	if (pipe(go) < 0) return perror("pipe"), -1;
	for (int p = 0; p < P; ++p)
		if ((pids[p] = fork()) == 0) {
			char c;
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR) {
			}
			_exit(child(o, x, mode, sw, p, P, sh));
		}
	close(go[0]);
	double t0 = now_s();
	close(go[1]);
	int failed = 0, fell = 0;
	for (int p = 0; p < P; ++p) {
		int st;
		waitpid(pids[p], &st, 0);
		failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		fell += sh->fallback[p];
	}
	double wall = now_s() - t0;
	int exact = !ref || !memcmp(ref, sw ? (const void *)sh->sw : (const void *)sh->phmm, nv * (sw ? sizeof(uint64_t) : sizeof(double)));
	double *lat = malloc(ncall * sizeof *lat), smax = 0, *st = malloc((size_t)P * sizeof *st), *fc = malloc((size_t)P * sizeof *fc);
	memcpy(lat, sh->lat, ncall * sizeof *lat);
	memcpy(st, sh->start, (size_t)P * sizeof *st);
	memcpy(fc, sh->first, (size_t)P * sizeof *fc);
	for (int p = 0; p < P; ++p) smax = sh->start[p] > smax ? sh->start[p] : smax;
	printf("  %-7s %5d %9.3f %8.2fx %9.3f %9.3f %10.1f %9.3f %9.3f  %s%s%s\n", mode_name[mode], P, wall, cpu_wall > 0 ? cpu_wall / wall : 1.0,
	       1e3 * pct(lat, ncall, 0.5), 1e3 * pct(lat, ncall, 0.99), 1e3 * smax, 1e3 * pct(st, (size_t)P, 0.5), 1e3 * pct(fc, (size_t)P, 0.5),
	       failed ? "FAILED " : "", exact ? "exact" : "DIFFERENT", fell ? " (some processes computed on their own)" : "");
	free(lat), free(st), free(fc);
	if (server > 0) server_stop(server, log, o->server_log);
	fflush(stdout);
	return failed || !exact ? -1 : wall;
}

static int parse_list(const char *s, int *v, int max)
{
	int n = 0;
	for (char *end; *s && n < max; s = *end ? end + 1 : end) {
		long x = strtol(s, &end, 10);
		if (end == s || x < 1 || x > MAX_P || (*end && *end != ',')) return -1;
		v[n++] = (int)x;
	}
	return n;
}

static int parse_modes(const char *s, int *m)
{
	memset(m, 0, N_MODES * sizeof *m);
	char buf[128];
	snprintf(buf, sizeof buf, "%s", s);
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
		int k = 0;
		while (k < N_MODES && strcmp(t, mode_name[k])) ++k;
		if (k == N_MODES) return -1;
		m[k] = 1;
	}
	m[M_CPU] = 1; /* the reference of every other mode */
	return 0;
}

int main(int argc, char **argv)
{
	opts_t o;
	memset(&o, 0, sizeof o);
	o.n_pairs = 2000000, o.sw = o.phmm = 1, o.gvk = "gvk", o.server_device = "auto", o.seed = 42;
	o.nP = parse_list("4,16,64", o.P, 16);
	parse_modes("cpu,gpu,auto,server", o.modes);
	static const struct option lo[] = {
		{"modes", required_argument, NULL, 1}, {"gvk", required_argument, NULL, 2},
		{"server-device", required_argument, NULL, 3}, {"no-sw", no_argument, NULL, 4},
		{"no-phmm", no_argument, NULL, 5}, {"sw-per-pair", no_argument, NULL, 6},
		{"seed", required_argument, NULL, 7}, {"serve-opt", required_argument, NULL, 8},
		{"server-log", required_argument, NULL, 9}, {"server-min-work", required_argument, NULL, 10},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "n:P:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o.n_pairs = (size_t)atoll(optarg); break;
		case 'P':
			if ((o.nP = parse_list(optarg, o.P, 16)) < 1) return fprintf(stderr, "bench_serve: -P needs process counts 1..%d\n", MAX_P), 2;
			break;
		case 't': o.threads = atoi(optarg); break;
		case 1:
			if (parse_modes(optarg, o.modes) < 0) return fprintf(stderr, "bench_serve: --modes takes cpu, gpu, auto, server\n"), 2;
			break;
		case 2: o.gvk = optarg; break;
		case 3: o.server_device = optarg; break;
		case 4: o.sw = 0; break;
		case 5: o.phmm = 0; break;
		case 6: o.per_pair = 1; break;
		case 7: o.seed = strtoull(optarg, NULL, 10); break;
		case 8:
			if (o.n_serve_opt == 16) return fprintf(stderr, "bench_serve: at most 16 --serve-opt\n"), 2;
			o.serve_opt[o.n_serve_opt++] = optarg;
			break;
		case 9: o.server_log = optarg; break;
		case 10: o.server_min_work = atof(optarg); break;
		default:
			fprintf(stderr, "usage: bench_serve [-n PAIRS] [-P 4,16,64] [--modes cpu,gpu,auto,server] [--gvk PATH]\n"
			                "       [--server-device gpu|cpu|auto] [-t SERVER_THREADS] [--no-sw] [--no-phmm] [--sw-per-pair] [--seed N]\n"
			                "       [--serve-opt ARG ...] [--server-log FILE] [--server-min-work CELLS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	snprintf(o.dir, sizeof o.dir, "/tmp/gvk-bench-serve-XXXXXX");
	if (!mkdtemp(o.dir)) return perror("mkdtemp"), 1;
	snprintf(o.sock, sizeof o.sock, "%s/serve.sock", o.dir);
	snprintf(o.lock, sizeof o.lock, "%s/gpu.lock", o.dir);
	phmm_workload_t w;
	work_t x;
	memset(&x, 0, sizeof x);
	if (phmm_workload_hc(&w, o.n_pairs, o.seed, 0) < 0 || work_index(&x, &w) < 0) return fprintf(stderr, "out of memory\n"), 1;
	size_t ncall = x.n_al > w.n_regions ? x.n_al : w.n_regions;
	shared_t sh;
	size_t bytes = w.n_pairs * sizeof(double) + x.n_al * sizeof(uint64_t) + ncall * sizeof(double) + MAX_P * (2 * sizeof(double) + sizeof(int));
	uint8_t *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) return perror("mmap"), 1;
	sh.phmm = (double *)m, sh.sw = (uint64_t *)(sh.phmm + w.n_pairs), sh.lat = (double *)(sh.sw + x.n_al);
	sh.start = sh.lat + ncall, sh.first = sh.start + MAX_P, sh.fallback = (int *)(sh.first + MAX_P);
	void *ref = malloc((w.n_pairs > x.n_al ? w.n_pairs : x.n_al) * 8);
	int bad = 0;
	for (int sw = 0; sw < 2; ++sw) {
		if ((sw && !o.sw) || (!sw && !o.phmm)) continue;
		printf("%s: %zu pairs in %zu regions (%.3g G cells), one synchronous caller per process, %s per %s\n",
		       sw ? "Smith-Waterman" : "Pair-HMM", sw ? x.n_al : w.n_pairs, w.n_regions, w.cells * 1e-9,
		       sw ? "one call" : "one gvk_pairhmm_batch", sw && o.per_pair ? "pair" : "region");
		printf("  %-7s %5s %9s %9s %9s %9s %10s %9s %9s  %s\n", "mode", "P", "wall s", "vs cpu", "p50 ms", "p99 ms", "start max",
		       "start p50", "1st p50", "values");
		for (int i = 0; i < o.nP; ++i) {
			double cpu = run(&o, &x, M_CPU, sw, o.P[i], &sh, NULL, 0);
			if (cpu < 0) {
				bad = 1;
				continue;
			}
			memcpy(ref, sw ? (void *)sh.sw : (void *)sh.phmm, sw ? x.n_al * 8 : w.n_pairs * 8);
			for (int md = M_GPU; md < N_MODES; ++md)
				if (o.modes[md] && run(&o, &x, md, sw, o.P[i], &sh, ref, cpu) < 0) bad = 1;
		}
	}
	free(ref), munmap(m, bytes);
	free(x.read0), free(x.hap0), free(x.pair0), free(x.al0), free(x.al);
	phmm_workload_free(&w);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", o.dir);
	if (system(cmd) != 0) fprintf(stderr, "bench_serve: could not remove %s\n", o.dir);
	return bad;
}
