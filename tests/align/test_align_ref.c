/* SPDX-License-Identifier: MIT */
/* Every case of a reference file (tests/data/align, see tests/data/README.md) against its four expected column
 * pairs: gatk_gkl_* (default engine), gkl_* (raw), gatk_java_* (Java flavour), java_dp_* (Java,
 * raw); CIGAR and offset must be identical. Usage: test_align_ref FILE ISA[:BATCH] [SEQFILE]
 * (ISA = scalar | avx512 | avx2 | auto; BATCH = pairs per gvk_align_batch call, default all, 1 selects
 * the one-pair kernels; SEQFILE: the sequences the ShanshanRen file indexes). Exit 77 when the CPU
 * cannot run ISA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "gpu_env.h"
#include "common/lineio.h"

typedef struct {
	char **f;
	int nf;
} row_t;

static int split(char *line, char **f, int max)
{
	int n = 0;
	for (char *s = line;;) {
		if (n < max) f[n] = s;
		++n;
		char *t = strchr(s, '\t');
		if (!t) break;
		*t = 0, s = t + 1;
	}
	return n;
}

static int col(char **h, int nh, const char *name)
{
	for (int k = 0; k < nh; ++k)
		if (!strcmp(h[k], name)) return k;
	return -1;
}

static char **read_lines(const char *path, size_t *n)
{
	gvk_err_t err = {0, ""};
	gvk_lr_t *lr = gvk_lr_open(path, &err);
	if (!lr) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	size_t cap = 1024;
	char **v = malloc(cap * sizeof *v), *line;
	size_t len;
	*n = 0;
	while (gvk_lr_next(lr, &line, &len, &err) == 1) {
		if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
		v[(*n)++] = strdup(line);
	}
	gvk_lr_close(lr);
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_align_ref FILE ISA [SEQFILE]\n");
		return 2;
	}
	int isa = !strncmp(argv[2], "scalar", 6) ? GVK_ISA_SCALAR
	          : !strncmp(argv[2], "avx512", 6) ? GVK_ISA_AVX512
	          : !strncmp(argv[2], "avx2", 4)   ? GVK_ISA_AVX2
	          : !strncmp(argv[2], "neon", 4)   ? GVK_ISA_NEON
	                                           : GVK_ISA_AUTO;
	/* gpu: the CUDA back end (77 without one); emu: its logic emulated on the CPU. */
	const int gpu = !strncmp(argv[2], "gpu", 3) || !strncmp(argv[2], "emu", 3);
	const int emu = !strncmp(argv[2], "emu", 3);
	if (gpu) { /* skip before allocating anything (LeakSanitizer reports what a skip leaves) */
		gvk_align_opts_t o;
		gvk_align_opts_init(&o);
		o.device = GVK_DEVICE_GPU;
		gvk_err_t e0 = {0, ""};
		gvk_align_t *probe = gpu_env_create(&o, emu, &e0);
		int usable = probe && !strncmp(gvk_align_device_name(probe), "gpu-", 4);
		gvk_align_destroy(probe);
		if (!usable) {
			printf("SKIP: %s\n", probe ? "no usable GPU" : e0.msg);
			return 77;
		}
	}
	const char *colon = strchr(argv[2], ':');
	size_t batch = colon ? (size_t)atol(colon + 1) : 0;
	size_t nl, ns = 0;
	char **lines = read_lines(argv[1], &nl);
	char **seqs = argc > 3 ? read_lines(argv[3], &ns) : NULL;
	enum { MAXF = 32 };
	char *h[MAXF];
	int nh = split(lines[0], h, MAXF);
	int c_ref = col(h, nh, "padded_ref") >= 0 ? col(h, nh, "padded_ref") : col(h, nh, "ref");
	int c_alt = col(h, nh, "padded_alt") >= 0 ? col(h, nh, "padded_alt") : col(h, nh, "alt");
	int c_ri = col(h, nh, "ref_index"), c_ai = col(h, nh, "alt_index");
	int c_par = col(h, nh, "match"), c_st = col(h, nh, "strategy");
	if ((c_ref < 0 && c_ri < 0) || c_par < 0 || c_st < 0 || (c_ri >= 0 && !seqs)) {
		fprintf(stderr, "%s: unexpected header\n", argv[1]);
		return 2;
	}
	size_t n = nl - 1;
	gvk_align_pair_t *pairs = calloc(n, sizeof *pairs);
	char ***rows = calloc(n, sizeof *rows);
	for (size_t k = 0; k < n; ++k) {
		char **f = rows[k] = calloc(MAXF, sizeof *f);
		if (split(lines[k + 1], f, MAXF) != nh) {
			fprintf(stderr, "%s:%zu: field count\n", argv[1], k + 2);
			return 2;
		}
		gvk_align_pair_t *p = &pairs[k];
		p->ref = c_ri >= 0 ? seqs[atoi(f[c_ri])] : f[c_ref];
		p->alt = c_ai >= 0 ? seqs[atoi(f[c_ai])] : f[c_alt];
		p->ref_len = (int32_t)strlen(p->ref), p->alt_len = (int32_t)strlen(p->alt);
		p->par = (gvk_sw_params_t){atoi(f[c_par]), atoi(f[c_par + 1]), atoi(f[c_par + 2]), atoi(f[c_par + 3])};
		p->overhang = gvk_overhang_parse(f[c_st]);
	}
	static const struct {
		const char *col;
		int flavour, raw;
	} cfg[4] = {{"gatk_gkl", GVK_SW_GKL, 0}, {"gkl", GVK_SW_GKL, 1}, {"gatk_java", GVK_SW_JAVA, 0}, {"java_dp", GVK_SW_JAVA, 1}};
	gvk_align_result_t *res = calloc(n, sizeof *res);
	int bad = 0, skip = 0;
	for (int c = 0; c < 4; ++c) {
		char name[64];
		snprintf(name, sizeof name, "%s_cigar", cfg[c].col);
		int cc = col(h, nh, name);
		if (cc < 0) {
			fprintf(stderr, "%s: no column %s\n", argv[1], name);
			return 2;
		}
		gvk_align_opts_t opt;
		gvk_align_opts_init(&opt);
		opt.flavour = cfg[c].flavour, opt.raw = cfg[c].raw, opt.isa = isa, opt.threads = 2;
		opt.device = gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU;
		gvk_err_t err = {0, ""};
		gvk_align_t *e = gpu_env_create(&opt, emu, &err);
		if (!e || (gpu && strncmp(gvk_align_device_name(e), "gpu-", 4))) {
			printf("SKIP: %s\n", e ? "no usable GPU" : err.msg);
			gvk_align_destroy(e);
			skip = 1; /* everything freed below, so that a leak check sees a clean skip */
			break;
		}
		if (batch == 0) batch = n;
		for (size_t k = 0; k < n; k += batch) {
			if (gvk_align_batch(e, pairs + k, n - k < batch ? n - k : batch, res + k, &err) < 0) {
				fprintf(stderr, "%s: %s\n", argv[1], err.msg);
				return 1;
			}
			/* The engine owns the CIGAR text only until its next call. */
			for (size_t q = k; q < n && q < k + batch; ++q) res[q].cigar = strdup(res[q].cigar);
		}
		size_t ok = 0;
		for (size_t k = 0; k < n; ++k) {
			const char *xc = rows[k][cc];
			int xo = atoi(rows[k][cc + 1]);
			if (!strcmp(xc, res[k].cigar) && xo == res[k].offset && (int)strlen(res[k].cigar) == res[k].cigar_len) {
				++ok;
				continue;
			}
			if (bad++ < 10)
				fprintf(stderr, "%s row %zu (%s): %s expected %s %d, got %s %d\n", argv[1], k + 2, rows[k][0], cfg[c].col, xc,
				        xo, res[k].cigar, res[k].offset);
		}
		printf("%s %s (%zu per call) %s: %zu/%zu exact\n", argv[1], gvk_align_device_name(e), batch, cfg[c].col, ok, n);
		for (size_t k = 0; k < n; ++k) free((char *)res[k].cigar);
		gvk_align_destroy(e);
	}
	for (size_t k = 0; k < n; ++k) free(rows[k]);
	for (size_t k = 0; k < nl; ++k) free(lines[k]);
	for (size_t k = 0; k < ns; ++k) free(seqs[k]);
	free(rows), free(lines), free(seqs), free(pairs), free(res);
	return skip ? 77 : bad ? 1 : 0;
}
