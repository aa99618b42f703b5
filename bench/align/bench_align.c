/* SPDX-License-Identifier: MIT */
/* CPU benchmark of the alignment engine on deterministic HaplotypeCaller-shaped batches:
 *   read x haplotype : reads of 50-250 bp against haplotypes of 100-600 bp (every read of a region
 *                      against every haplotype of it), ALIGNMENT_TO_BEST_HAPLOTYPE, SOFTCLIP;
 *   haplotype x ref  : haplotypes of 300-520 bp against their reference window,
 *                      NEW_SW_PARAMETERS, INDEL (GATK's CigarUtils.calculateCigar call).
 * GCUPS = ref_len * alt_len cells per second, traceback and CIGAR text included, the aligner alone
 * (--raw: no substring shortcut). "1/call" rows call the engine once per pair, GATK's call
 * pattern; the others give it the whole batch. With --gkl LIB (Debian libgkl-jni's libgkl_smithwaterman.so) it also times GKL's native
 * AVX2 and AVX-512 entry points on one thread, one pair per call, and checks that they return our
 * CIGARs and offsets.
 * GPU rows (when a GPU is usable): "whole call" = gvk_align_batch on the whole batch (sort, pack,
 * copies, fill, traceback on the GPU, CIGAR text on the host; packing and CIGAR text run on the
 * engine's threads, overlapped with the kernels of neighbouring chunks), second of two runs (the
 * first allocates the pinned and device buffers); "kernel" = the sum of the fill + traceback
 * kernels' times. The whole call approaches the kernel row when the host work hides behind the
 * kernels. The last column is the speed-up over the CPU engine on all threads in the same run.
 * The H100 figure: bench_align --quick -n 500000 -m 20000 (500 000 read x haplotype pairs).
 * Usage: bench_align [-n READ_PAIRS] [-m HAP_PAIRS] [-t THREADS] [--gkl LIB] [--scalar-pairs N]
 *                    [--quick] [--gpu] [--emulate] [--gpu-chunk-mb N] [--profile] [--results FILE]
 *   --quick    only the all-threads CPU rows and the GPU rows
 *   --gpu      GPU rows required: exit 1 without a usable GPU (default: GPU rows when usable)
 *   --emulate  without a GPU, GPU rows through the engine's CPU emulation of the GPU path (checks
 *              the chunk pipeline; "kernel" is then the emulated kernels' CPU time)
 *   --gpu-chunk-mb N  GPU memory per chunk (gvk_align_opts_t.gpu_chunk_mb; default automatic)
 *   --profile  the engine's DEBUG messages on stderr: where a batch's time went (checks, GPU
 *              plan, packing and CIGAR text, waiting for kernels, CPU part)
 *   --results  append the table, with host, GPU, commit ($GVK_COMMIT) and date, to FILE */
#include <dlfcn.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "bench_results.h"
#include "align/align_engine.h"
#include "common/threads.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static int rnd(uint64_t *s, int lo, int hi) { return lo + (int)(rng(s) % (uint64_t)(hi - lo + 1)); }

static char base(uint64_t *s) { return "ACGT"[rng(s) & 3]; }

/* A copy of src[beg..beg+len) with substitutions, insertions and deletions at rate pct/1000 each. */
static char *vary(uint64_t *s, const char *src, int len, int per_mille, int *out_len)
{
	char *q = malloc((size_t)len * 2 + 2);
	int k = 0;
	for (int i = 0; i < len; ++i) {
		int r = rnd(s, 0, 999);
		if (r < per_mille) continue;                        /* deletion */
		if (r < 2 * per_mille) q[k++] = base(s);            /* insertion */
		q[k++] = r < 3 * per_mille ? base(s) : src[i];      /* substitution */
	}
	if (!k) q[k++] = 'A';
	q[k] = 0;
	*out_len = k;
	return q;
}

typedef struct {
	gvk_align_pair_t *p;
	size_t n;
	uint64_t cells;
	double mean_ref, mean_alt;
} workload_t;

static void add_pair(workload_t *w, size_t *cap, const char *ref, int n, const char *alt, int m, gvk_sw_params_t par, int ovh)
{
	if (w->n == *cap) w->p = realloc(w->p, (*cap = *cap ? *cap * 2 : 1024) * sizeof *w->p);
	w->p[w->n++] = (gvk_align_pair_t){ref, alt, n, m, par, ovh};
	w->cells += (uint64_t)n * (uint64_t)m;
	w->mean_ref += n, w->mean_alt += m;
}

/* Regions of 2-8 haplotypes (100-600 bp, variants of one window) and 5-40 reads sampled from them
 * with sequencing errors; every read against every haplotype. */
static workload_t make_read_hap(size_t want, uint64_t seed)
{
	workload_t w = {0};
	size_t cap = 0;
	uint64_t s = seed;
	gvk_sw_params_t par;
	gvk_sw_preset("ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS", &par);
	while (w.n < want) {
		int L = rnd(&s, 100, 600), nh = rnd(&s, 2, 8), nr = rnd(&s, 5, 40);
		char *win = malloc((size_t)L + 1);
		for (int k = 0; k < L; ++k) win[k] = base(&s);
		char *hap[8];
		int hl[8];
		for (int h = 0; h < nh; ++h) {
			hap[h] = vary(&s, win, L, h ? 4 : 0, &hl[h]);
			if (hl[h] > 600) hl[h] = 600, hap[h][600] = 0;
			if (hl[h] < 100) hl[h] = L; /* keep every haplotype within the workload's 100-600 bp */
		}
		for (int r = 0; r < nr && w.n < want; ++r) {
			int h = rnd(&s, 0, nh - 1), len = rnd(&s, 50, 250);
			if (len > hl[h]) len = hl[h];
			int beg = rnd(&s, 0, hl[h] - len), rl;
			char *read = vary(&s, hap[h] + beg, len, 3, &rl);
			if (rl > 250) rl = 250, read[250] = 0;
			for (int g = 0; g < nh && w.n < want; ++g) add_pair(&w, &cap, hap[g], hl[g], read, rl, par, GVK_OVERHANG_SOFTCLIP);
		}
		free(win);
	}
	return w;
}

/* Haplotypes of 300-520 bp with 1-4 variants against the reference window they came from. */
static workload_t make_hap_ref(size_t want, uint64_t seed)
{
	workload_t w = {0};
	size_t cap = 0;
	uint64_t s = seed;
	gvk_sw_params_t par;
	gvk_sw_preset("NEW_SW_PARAMETERS", &par);
	while (w.n < want) {
		int L = rnd(&s, 300, 520), hl;
		char *ref = malloc((size_t)L + 1);
		for (int k = 0; k < L; ++k) ref[k] = base(&s);
		ref[L] = 0;
		char *hap = vary(&s, ref, L, rnd(&s, 1, 4), &hl);
		add_pair(&w, &cap, ref, L, hap, hl, par, GVK_OVERHANG_INDEL);
	}
	return w;
}

/* Times one batch; the results (and their CIGARs, owned by the engine) stay valid until the
 * engine *keep is destroyed by the caller. */
static int g_emulate, g_chunk_mb, g_need_gpu;

static void log_stderr(void *arg, int level, const char *msg)
{
	(void)arg, (void)level;
	fprintf(stderr, "  [%s]\n", msg);
}

static double run_dev(const workload_t *w, size_t n, int isa, int threads, size_t per_call, gvk_align_result_t *res,
                      gvk_align_t **keep, int device)
{
	gvk_align_opts_t o;
	gvk_align_opts_init(&o);
	o.isa = isa, o.threads = threads, o.raw = 1, o.device = device;
	o.gpu_chunk_mb = g_chunk_mb;
	gvk_err_t err = {0, ""};
	gvk_align_t *e = al_create(&o, g_emulate, &err);
	if (!e && device == GVK_DEVICE_GPU && !g_need_gpu) return -1;
	if (!e) {
		fprintf(stderr, "bench_align: %s\n", err.msg);
		exit(1);
	}
	if (device == GVK_DEVICE_GPU && strncmp(gvk_align_device_name(e), "gpu-", 4)) {
		gvk_align_destroy(e);
		return -1;
	}
	if (device == GVK_DEVICE_GPU && gvk_align_batch(e, w->p, n, res, &err) < 0) { /* warm-up */
		fprintf(stderr, "bench_align: %s\n", err.msg);
		exit(1);
	}
	double t0 = gvk_seconds();
	for (size_t k = 0; k < n; k += per_call) {
		if (gvk_align_batch(e, w->p + k, n - k < per_call ? n - k : per_call, res + k, &err) < 0) {
			fprintf(stderr, "bench_align: %s\n", err.msg);
			exit(1);
		}
	}
	double dt = gvk_seconds() - t0;
	gvk_align_destroy(*keep);
	*keep = e;
	return dt;
}

static double run_gvk(const workload_t *w, size_t n, int isa, int threads, size_t per_call, gvk_align_result_t *res,
                      gvk_align_t **keep)
{
	return run_dev(w, n, isa, threads, per_call, res, keep, GVK_DEVICE_CPU);
}

typedef int (*gkl_fn)(int, int, int, int, uint8_t *, uint8_t *, int16_t, int16_t, int8_t, char *, int32_t, uint32_t *, int32_t *);

/* GKL one pair at a time, as GATK calls it; returns seconds, counts CIGAR/offset disagreements
 * with res (the GKL-flavour raw results). */
static double run_gkl(gkl_fn fn, const workload_t *w, size_t n, const gvk_align_result_t *res, size_t *diff)
{
	size_t cap = 0;
	char *cig = NULL;
	*diff = 0;
	double t = 0;
	for (size_t k = 0; k < n; ++k) {
		const gvk_align_pair_t *p = &w->p[k];
		size_t need = 2 * (size_t)(p->ref_len > p->alt_len ? p->ref_len : p->alt_len);
		if (need + 1 > cap) cig = realloc(cig, cap = need + 1);
		memset(cig, 0, need + 1);
		uint32_t count = 0;
		int32_t off = 0;
		double t0 = gvk_seconds();
		int rc = fn(p->par.match, p->par.mismatch, p->par.gap_open, p->par.gap_extend, (uint8_t *)p->ref, (uint8_t *)p->alt,
		            (int16_t)p->ref_len, (int16_t)p->alt_len, (int8_t)p->overhang, cig, (int32_t)need, &count, &off);
		t += gvk_seconds() - t0;
		if (rc != 0 || strcmp(cig, res[k].cigar) || off != res[k].offset) {
			if (getenv("BENCH_ALIGN_SHOW") && *diff < 3)
				fprintf(stderr, "%.*s\t%.*s\t%d\t%d\t%d\t%d\t%d\tGKL %s %d gvk %s %d\n", p->ref_len, p->ref, p->alt_len, p->alt, p->par.match, p->par.mismatch, p->par.gap_open, p->par.gap_extend, p->overhang, cig, off, res[k].cigar, res[k].offset);
			++*diff;
		}
	}
	free(cig);
	return t;
}

typedef struct {
	char wl[20], eng[48];
	int threads;
	size_t n;
	uint64_t cells;
	double sec;
} row_t;

typedef struct {
	row_t r[64];
	int n;
	double base[2]; /* GCUPS of the CPU engine on all threads, per workload */
} table_t;

static table_t tab;

static double gcups(const row_t *r) { return r->sec > 0 ? (double)r->cells * 1e-9 / r->sec : 0.0; }

static void row(const char *wl, const char *eng, int threads, size_t n, uint64_t cells, double sec)
{
	if (tab.n == 64) return;
	row_t *r = &tab.r[tab.n++];
	snprintf(r->wl, sizeof r->wl, "%s", wl);
	snprintf(r->eng, sizeof r->eng, "%s", eng);
	r->threads = threads, r->n = n, r->cells = cells, r->sec = sec;
	printf("| %-16s | %-26s | %3d | %7zu | %8.3f | %8.4f | %7.2f |\n", wl, eng, threads, n, (double)cells * 1e-9, sec, gcups(r));
	fflush(stdout);
}

static void print_table(FILE *fp, const char *names[2])
{
	fprintf(fp, "| workload | engine | threads | pairs | G cells | seconds | GCUPS | vs CPU all threads |\n");
	fprintf(fp, "|---|---|---|---|---|---|---|---|\n");
	for (int k = 0; k < tab.n; ++k) {
		const row_t *r = &tab.r[k];
		const double b = tab.base[strcmp(r->wl, names[0]) ? 1 : 0];
		fprintf(fp, "| %s | %s | %d | %zu | %.3f | %.4f | %.2f | %.2fx |\n", r->wl, r->eng, r->threads, r->n,
		        (double)r->cells * 1e-9, r->sec, gcups(r), b > 0 ? gcups(r) / b : 0.0);
	}
}

static uint64_t cells_of(const workload_t *w, size_t n)
{
	uint64_t c = 0;
	for (size_t k = 0; k < n; ++k) c += (uint64_t)w->p[k].ref_len * (uint64_t)w->p[k].alt_len;
	return c;
}

/* GPU rows of one workload, checked against the CPU results in res. */
static void gpu_rows(const workload_t *w, const char *name, int threads, const gvk_align_result_t *res, char *gpu_name,
                     size_t cap)
{
	gvk_align_result_t *g = malloc(w->n * sizeof *g);
	gvk_align_t *e = NULL;
	double sec = run_dev(w, w->n, GVK_ISA_AUTO, threads, w->n, g, &e, GVK_DEVICE_GPU);
	if (sec < 0 && g_need_gpu) {
		fprintf(stderr, "bench_align: --gpu: no usable GPU\n");
		exit(1);
	}
	if (sec < 0) {
		printf("  (no usable GPU: no GPU rows; --emulate runs the GPU path on the CPU)\n");
		free(g);
		return;
	}
	snprintf(gpu_name, cap, "%s", gvk_align_device_name(e));
	const char *kind = strstr(gpu_name, "emulated") ? "gpu-emulated" : "gpu";
	char eng[48];
	snprintf(eng, sizeof eng, "gvk %s (whole call)", kind);
	row(name, eng, threads, w->n, w->cells, sec);
	snprintf(eng, sizeof eng, "gvk %s (kernel)", kind);
	row(name, eng, threads, w->n, w->cells, gvk_align_gpu_kernel_seconds(e));
	size_t bad = 0;
	for (size_t k = 0; k < w->n; ++k)
		bad += strcmp(g[k].cigar, res[k].cigar) || g[k].offset != res[k].offset || g[k].score != res[k].score;
	printf("  GPU vs CPU: %zu of %zu results differ\n", bad, w->n);
	gvk_align_destroy(e);
	free(g);
}

static int append_results(const char *path, const char *names[2], int threads, const char *gpu_name)
{
	FILE *fp = bench_results_open(path, "bench_align");
	if (!fp) return 1;
	fprintf(fp, "%d CPU threads; GPU: %s. GCUPS = ref x alt cells per second; gpu whole call includes sorting, "
	            "packing, copies, traceback and CIGAR text; --raw (no substring shortcut).\n\n",
	        threads, gpu_name[0] ? gpu_name : "none");
	print_table(fp, names);
	fclose(fp);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n_rh = 20000, n_hr = 3000, n_scalar = 1000;
	int threads = gvk_ncpu(), quick = 0;
	const char *gkl_path = NULL, *results = NULL;
	for (int k = 1; k < argc; ++k) {
		if (!strcmp(argv[k], "-n") && k + 1 < argc) n_rh = (size_t)atol(argv[++k]);
		else if (!strcmp(argv[k], "-m") && k + 1 < argc) n_hr = (size_t)atol(argv[++k]);
		else if (!strcmp(argv[k], "-t") && k + 1 < argc) threads = atoi(argv[++k]);
		else if (!strcmp(argv[k], "--gkl") && k + 1 < argc) gkl_path = argv[++k];
		else if (!strcmp(argv[k], "--scalar-pairs") && k + 1 < argc) n_scalar = (size_t)atol(argv[++k]);
		else if (!strcmp(argv[k], "--results") && k + 1 < argc) results = argv[++k];
		else if (!strcmp(argv[k], "--quick")) quick = 1;
		else if (!strcmp(argv[k], "--gpu")) g_need_gpu = 1;
		else if (!strcmp(argv[k], "--emulate")) g_emulate = 1;
		else if (!strcmp(argv[k], "--profile")) gvk_set_log(log_stderr, NULL, GVK_LOG_DEBUG);
		else if (!strcmp(argv[k], "--gpu-chunk-mb") && k + 1 < argc) g_chunk_mb = atoi(argv[++k]);
		else {
			fprintf(stderr, "usage: bench_align [-n READ_PAIRS] [-m HAP_PAIRS] [-t THREADS] [--gkl LIB] [--scalar-pairs N] "
			                "[--quick] [--gpu] [--emulate] [--gpu-chunk-mb N] [--profile] [--results FILE]\n");
			return 1;
		}
	}
	gkl_fn gkl = NULL, gkl512 = NULL;
	if (gkl_path) {
		void *h = dlopen(gkl_path, RTLD_NOW | RTLD_LOCAL);
		if (h) gkl = (gkl_fn)dlsym(h, "_Z19runSWOnePairBT_avx2iiiiPhS_ssaPciPjPi");
		if (!gkl) fprintf(stderr, "bench_align: cannot use %s: %s\n", gkl_path, dlerror());
		/* GKL's AVX-512 entry crashes at 1024 bp and longer (docs/align.md, Semantics 9); these workloads
		 * stay below. */
#if defined(__x86_64__)
		__builtin_cpu_init();
		if (h && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
			gkl512 = (gkl_fn)dlsym(h, "_Z21runSWOnePairBT_avx512iiiiPhS_ssaPciPjPi");
#endif
	}
	workload_t wl[2] = {make_read_hap(n_rh, 0x9e3779b97f4a7c15ull), make_hap_ref(n_hr, 0x2545f4914f6cdd1dull)};
	const char *names[2] = {"read x haplotype", "haplotype x ref"};
	printf("| workload         | engine                     | thr |   pairs |  G cells |  seconds |   GCUPS |\n");
	printf("|------------------|----------------------------|-----|---------|----------|----------|---------|\n");
	char gpu_name[96] = "";
	for (int k = 0; k < 2; ++k) {
		workload_t *w = &wl[k];
		gvk_align_result_t *res = malloc(w->n * sizeof *res);
		size_t ns = n_scalar < w->n ? n_scalar : w->n;
		gvk_align_t *e = NULL;
		double sec;
		if (quick) goto threads_rows;
		sec = run_gvk(w, ns, GVK_ISA_SCALAR, 1, ns, res, &e);
		row(names[k], "gvk scalar", 1, ns, cells_of(w, ns), sec);
		/* One pair per call, as GKL's JNI entry is called today. */
		sec = run_gvk(w, w->n, GVK_ISA_AUTO, 1, 1, res, &e);
		char eng1[32];
		snprintf(eng1, sizeof eng1, "gvk %s 1/call", gvk_align_device_name(e) + 4);
		row(names[k], eng1, 1, w->n, w->cells, sec);
		/* The AVX2 kernels too when the widest is AVX-512 (an AVX2-only CPU runs them as "auto"). */
		gvk_align_opts_t probe;
		gvk_align_opts_init(&probe);
		probe.isa = GVK_ISA_AVX512;
		gvk_align_t *p512 = gvk_align_create(&probe, NULL);
		if (p512) {
			gvk_align_destroy(p512);
			sec = run_gvk(w, w->n, GVK_ISA_AVX2, 1, 1, res, &e);
			row(names[k], "gvk avx2 1/call", 1, w->n, w->cells, sec);
			sec = run_gvk(w, w->n, GVK_ISA_AVX2, 1, w->n, res, &e);
			row(names[k], "gvk avx2", 1, w->n, w->cells, sec);
		}
threads_rows:
		for (int t = quick ? threads : 1; t <= threads; t = t == threads ? threads + 1 : threads) {
			sec = run_gvk(w, w->n, GVK_ISA_AUTO, t, w->n, res, &e);
			char eng[32];
			snprintf(eng, sizeof eng, "gvk %s", gvk_align_device_name(e) + 4);
			row(names[k], eng, t, w->n, w->cells, sec);
			if (t == threads) tab.base[k] = (double)w->cells * 1e-9 / sec;
		}
		gpu_rows(w, names[k], threads, res, gpu_name, sizeof gpu_name);
		if (gkl) {
			size_t diff;
			sec = run_gkl(gkl, w, w->n, res, &diff);
			row(names[k], "GKL avx2", 1, w->n, w->cells, sec);
			if (diff) printf("  (GKL disagrees with gvk on %zu of %zu pairs)\n", diff, w->n);
		}
		if (gkl512) {
			size_t diff;
			sec = run_gkl(gkl512, w, w->n, res, &diff);
			row(names[k], "GKL avx512", 1, w->n, w->cells, sec);
			if (diff) printf("  (GKL disagrees with gvk on %zu of %zu pairs)\n", diff, w->n);
		}
		fprintf(stderr, "%s: mean ref %.0f bp, mean alt %.0f bp\n", names[k], w->mean_ref / (double)w->n,
		        w->mean_alt / (double)w->n);
		gvk_align_destroy(e);
		free(res);
	}
	if (results) return append_results(results, names, threads, gpu_name);
	return 0;
}
