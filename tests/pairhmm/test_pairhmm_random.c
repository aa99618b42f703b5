/* SPDX-License-Identifier: MIT */
/* Every kernel returns the same bits as the scalar reference on random pairs: reads 1..maxR,
 * haplotypes 1..maxH, N / lowercase / IUPAC bases, qualities 0..255. Covers the float and double
 * passes in both flavours, and reads whose insertion and deletion qualities allow the GPU to share
 * the gap-open product. Usage: test_pairhmm_random cpu|gpu [pairs] [maxR] [maxH] [seed].
 * Exit 77 = skipped (no GPU). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static char random_base(uint64_t *s)
{
	static const char alpha[] = "ACGTACGTACGTACGTACGTACGTACGTNacgtRY";
	return alpha[rng(s) % (sizeof alpha - 1)];
}

/* Engines bound to one GPU each (gvk_pairhmm_opts_t.gpu, as the CLI makes them with several GPUs)
 * against the reference values; with one GPU, its first pairs only. A GPU index past the last must
 * be refused. Returns 0 when all agree. */
static int check_each_gpu(const gvk_pairhmm_opts_t *base, const gvk_read_t *reads, const gvk_hap_t *haps,
                          const gvk_pair_t *pairs, size_t n, const double *want)
{
	const int ng = gvk_pairhmm_gpu_count();
	int rc = 0;
	if (ng == 1 && n > 10000) n = 10000;
	double *v = malloc(n * sizeof *v);
	for (int g = 0; g <= ng && v; ++g) {
		gvk_pairhmm_opts_t o = *base;
		o.gpu = g;
		gvk_err_t err;
		gvk_pairhmm_t *e = gvk_pairhmm_create(&o, &err);
		if (g == ng) {
			printf("GPU %d of %d: %s\n", g, ng, e ? "accepted (wrong)" : err.msg);
			rc |= e != NULL || err.code != GVK_ERR_ARG;
			gvk_pairhmm_destroy(e);
			break;
		}
		gvk_pairhmm_out_t out = {v, NULL, NULL, NULL};
		if (!e || gvk_pairhmm_pairs(e, reads, haps, pairs, n, &out, &err) < 0) {
			printf("GPU %d: %s\n", g, err.msg);
			rc = 1;
		} else {
			size_t bad = 0;
			for (size_t k = 0; k < n; ++k) bad += memcmp(&v[k], &want[k], sizeof *v) != 0;
			printf("GPU %d alone (%s): %zu pairs, %zu differ\n", g, gvk_pairhmm_device_name(e), n, bad);
			rc |= bad != 0;
		}
		gvk_pairhmm_destroy(e);
	}
	free(v);
	return rc;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "cpu";
	size_t n = argc > 2 ? (size_t)atol(argv[2]) : 20000;
	int maxR = argc > 3 ? atoi(argv[3]) : 300, maxH = argc > 4 ? atoi(argv[4]) : 600;
	uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 12345;
	uint64_t s = seed | 1;
	/* Reads and haplotypes are shared between pairs so that memory stays small. */
	int nr = 4000, nh = 1000;
	gvk_read_t *reads = calloc(nr, sizeof *reads);
	gvk_hap_t *haps = calloc(nh, sizeof *haps);
	for (int i = 0; i < nr; ++i) {
		int R = 1 + (int)(rng(&s) % (uint64_t)maxR);
		if (i % 10 == 0) R = 1 + (int)(rng(&s) % 8);
		char *b = malloc(R);
		uint8_t *q = malloc(4 * (size_t)R);
		int wide = rng(&s) % 10 == 0; /* some reads use the whole byte range */
		int good = rng(&s) % 2;       /* others look like real data, mostly in the float pass */
		for (int k = 0; k < R; ++k) {
			b[k] = random_base(&s);
			for (int f = 0; f < 4; ++f) {
				uint64_t x = rng(&s);
				q[f * R + k] = wide ? (uint8_t)x : good ? (uint8_t)(f == 3 ? 10 : 20 + x % 25) : (uint8_t)(x % 128);
			}
		}
		/* Most reads have one gap quality throughout (a third of them 45 and GCP 10, the others
		 * any byte, 128 and up included), so that the GPU's float pass shares the gap-open
		 * product (its SHARE kernels; a pass uses them when at least half of its pairs qualify).
		 * Every eighth read misses by one byte at one row (an insertion, deletion or continuation
		 * quality), and a quarter have none, in the same pass: those must not be taken for reads
		 * that qualify. */
		if (i % 4 != 0) {
			const uint8_t go = i % 4 == 1 ? 45 : (uint8_t)(rng(&s) % (wide ? 256 : 128));
			const uint8_t gc = i % 4 == 1 ? 10 : (uint8_t)(rng(&s) % (wide ? 256 : 128));
			for (int k = 0; k < R; ++k) q[R + k] = q[2 * R + k] = go, q[3 * R + k] = gc;
			if (i % 8 == 3) q[(1 + (int)(rng(&s) % 3)) * R + (int)(rng(&s) % (uint64_t)R)] ^= 1;
		}
		reads[i] = (gvk_read_t){R, b, q, q + R, q + 2 * R, q + 3 * R};
	}
	for (int i = 0; i < nh; ++i) {
		int H = 1 + (int)(rng(&s) % (uint64_t)maxH);
		char *b = malloc(H);
		for (int k = 0; k < H; ++k) b[k] = random_base(&s);
		haps[i] = (gvk_hap_t){H, b};
	}
	gvk_pair_t *pairs = malloc(n * sizeof *pairs);
	for (size_t k = 0; k < n; ++k) pairs[k] = (gvk_pair_t){(int32_t)(rng(&s) % nr), (int32_t)(rng(&s) % nh)};
	/* Make some pairs near-matches so that the float pass is exercised, not only underflow. */
	for (size_t k = 0; k < n; k += 3) {
		const gvk_read_t *r = &reads[pairs[k].read];
		for (int h = 0; h < nh; ++h)
			if (haps[h].len >= r->len) {
				memcpy((char *)haps[h].bases, r->bases, (size_t)r->len);
				pairs[k].hap = h;
				break;
			}
	}

	/* An optional sixth argument narrows the check to one pair, to look at a reported difference. */
	if (argc > 6) {
		size_t only = (size_t)atol(argv[6]);
		if (only < n) pairs[0] = pairs[only], n = 1;
	}
	int rc = 0;
	for (int flavour = 0; flavour < 2 && rc != 77; ++flavour) {
		gvk_pairhmm_opts_t ref_opt, opt;
		gvk_pairhmm_opts_init(&ref_opt);
		/* CPU kernels are checked against the scalar reference; the GPU against the fastest CPU
		 * kernel on every core (itself checked against the scalar one by the CPU test). */
		const int gpu = !strcmp(dev, "gpu");
		ref_opt.flavour = flavour, ref_opt.device = GVK_DEVICE_CPU, ref_opt.threads = 0;
		ref_opt.isa = gpu ? GVK_ISA_AUTO : GVK_ISA_SCALAR;
		opt = ref_opt;
		opt.isa = GVK_ISA_AUTO;
		opt.device = gpu ? GVK_DEVICE_GPU : GVK_DEVICE_CPU;
		gvk_err_t err;
		gvk_pairhmm_t *ref = gvk_pairhmm_create(&ref_opt, &err), *eng = gvk_pairhmm_create(&opt, &err);
		if (!eng) {
			printf("SKIP: %s engine unavailable: %s\n", dev, err.msg);
			gvk_pairhmm_destroy(ref);
			rc = 77;
			break;
		}
		double *v[2], *d[2];
		float *f[2];
		uint8_t *u[2];
		for (int k = 0; k < 2; ++k) {
			v[k] = malloc(n * 8), d[k] = malloc(n * 8), f[k] = malloc(n * 4), u[k] = malloc(n);
			gvk_pairhmm_out_t o = {v[k], u[k], f[k], d[k]};
			if (gvk_pairhmm_pairs(k ? eng : ref, reads, haps, pairs, n, &o, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				return 1;
			}
		}
		size_t bad = 0, ndbl = 0;
		for (size_t k = 0; k < n; ++k) {
			ndbl += u[0][k];
			if (memcmp(&v[0][k], &v[1][k], 8) || memcmp(&f[0][k], &f[1][k], 4) || memcmp(&d[0][k], &d[1][k], 8) ||
			    u[0][k] != u[1][k]) {
				if (bad++ < 5)
					fprintf(stderr, "flavour %d pair %zu (R=%d H=%d): ref %.17g/%a/%a, %s %.17g/%a/%a\n", flavour, k,
					        reads[pairs[k].read].len, haps[pairs[k].hap].len, v[0][k], f[0][k], d[0][k],
					        gvk_pairhmm_device_name(eng), v[1][k], f[1][k], d[1][k]);
			}
		}
		printf("flavour %s: %zu pairs (%zu in double), %s vs %s: %zu differ\n", flavour ? "avx2" : "avx512", n, ndbl,
		       gvk_pairhmm_device_name(eng), gvk_pairhmm_device_name(ref), bad);
		rc |= bad != 0;
		if (gpu) rc |= check_each_gpu(&opt, reads, haps, pairs, n, v[0]);
		for (int k = 0; k < 2; ++k) free(v[k]), free(d[k]), free(f[k]), free(u[k]);
		gvk_pairhmm_destroy(ref);
		gvk_pairhmm_destroy(eng);
	}
	for (int i = 0; i < nr; ++i) free((void *)reads[i].bases), free((void *)reads[i].qual);
	for (int i = 0; i < nh; ++i) free((void *)haps[i].bases);
	free(reads), free(haps), free(pairs);
	return rc;
}
