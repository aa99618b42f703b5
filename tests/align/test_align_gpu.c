/* SPDX-License-Identifier: MIT */
/* GPU back end = CPU engine, exactly (CIGAR, offset, score), on random pairs: both flavours, with
 * and without the substring shortcut, every preset and strategy (random_pairs.h), plus pairs of
 * 1 and of up to 1000+ bases, a few longer than the device output's element cap and one above the
 * GPU's pair size (aligned by the CPU engine within the same GPU batch).
 * Usage: test_align_gpu gpu|emu [PAIRS] [MAXLEN] [SEED] [THREADS] [CHUNK_MB] [ASSIST]
 *   gpu: the CUDA back end (exit 77 when there is no usable GPU);
 *   emu: its per-thread logic and the chunk pipeline run on the CPU (opts.gpu_emulate);
 *   THREADS: the GPU engine's threads, which pack and format the chunks (default all processors);
 *   CHUNK_MB: opts.gpu_chunk_mb (default GVK_ALIGN_GPU_CHUNK_MB, else automatic); at 1 MiB a
 *   block of 64 pairs of a few hundred bases needs more than a chunk's budget, so nearly every
 *   block is a chunk of its own and all slots of the pipeline cycle many times;
 *   ASSIST: 1 lets the CPU threads align the longest pairs of a small batch (align_assist.c).
 * The reference is the CPU engine's widest kernel (itself checked against scalar by
 * test_align_random) on all processors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "gpu_env.h"
#include "random_pairs.h"

static int g_emu, g_threads, g_chunk_mb, g_assist;

static gvk_align_t *engine(int device, int flavour, int raw, gvk_err_t *err)
{
	gvk_align_opts_t o;
	gvk_align_opts_init(&o);
	o.flavour = flavour, o.raw = raw, o.threads = device == GVK_DEVICE_GPU ? g_threads : 0, o.device = device;
	if (g_chunk_mb > 0) o.gpu_chunk_mb = g_chunk_mb;
	gvk_align_t *e = gpu_env_create(&o, g_emu, err);
	if (e && g_assist) al_set_cpu_assist(e, 1);
	return e;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "gpu") && strcmp(argv[1], "emu"))) {
		fprintf(stderr, "usage: test_align_gpu gpu|emu [PAIRS] [MAXLEN] [SEED] [THREADS] [CHUNK_MB] [ASSIST]\n");
		return 2;
	}
	g_emu = !strcmp(argv[1], "emu");
	size_t n = argc > 2 ? (size_t)atol(argv[2]) : 20000;
	int maxlen = argc > 3 ? atoi(argv[3]) : 1000;
	uint64_t s = (argc > 4 ? strtoull(argv[4], NULL, 10) : 4242) | 1;
	g_threads = argc > 5 ? atoi(argv[5]) : 0;
	g_chunk_mb = argc > 6 ? atoi(argv[6]) : 0;
	g_assist = argc > 7 ? atoi(argv[7]) : 0;
	gvk_err_t perr = {0, ""};
	gvk_align_t *probe = engine(GVK_DEVICE_GPU, GVK_SW_GKL, 1, &perr);
	if (!probe || strncmp(gvk_align_device_name(probe), "gpu-", 4)) {
		printf("SKIP: %s\n", probe ? "no usable GPU for the align engine" : perr.msg);
		gvk_align_destroy(probe);
		return 77;
	}
	printf("device: %s\n", gvk_align_device_name(probe));
	gvk_align_destroy(probe);
	const size_t nbig = 5;
	gvk_align_pair_t *pairs = calloc(n + nbig, sizeof *pairs);
	for (size_t k = 0; k < n; ++k) random_pair(&s, maxlen, &pairs[k]);
	/* Long, gappy pairs: CIGARs of more elements than the device output's cap. */
	for (size_t k = n; k < n + nbig; ++k) {
		/* the last one is above the GPU's pair size and takes the CPU inside the same batch */
		int len = k == n + nbig - 1 ? 2300 : 1500 + (int)(k - n) * 17;
		char *a = random_seq(&s, len, "ACGT"), *b = random_seq(&s, len - 40, "ACGT");
		pairs[k] = (gvk_align_pair_t){a, b, len, len - 40, {3, -1, -4, -3}, GVK_OVERHANG_SOFTCLIP + (int)(k - n) % 4};
	}
	n += nbig;
	gvk_align_result_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
	int bad = 0;
	for (int fl = 0; fl < 2; ++fl)
		for (int r = 1; r >= 0; --r) {
			gvk_align_t *ec = engine(GVK_DEVICE_CPU, fl, r, NULL), *eg = engine(GVK_DEVICE_GPU, fl, r, NULL);
			gvk_err_t err = {0, ""};
			if (gvk_align_batch(ec, pairs, n, a, &err) < 0 || gvk_align_batch(eg, pairs, n, b, &err) < 0)
				return fprintf(stderr, "batch failed: %s\n", err.msg), 1;
			if (strncmp(gvk_align_device_name(eg), "gpu-", 4))
				return fprintf(stderr, "the GPU engine fell back to the CPU\n"), 1;
			size_t diff = 0;
			for (size_t k = 0; k < n; ++k) {
				if (!strcmp(a[k].cigar, b[k].cigar) && a[k].offset == b[k].offset && a[k].score == b[k].score) continue;
				if (diff++ < 5)
					fprintf(stderr, "pair %zu (%d x %d, %s, %d/%d/%d/%d) flavour %d raw %d: cpu %s %d %d, gpu %s %d %d\n", k,
					        pairs[k].ref_len, pairs[k].alt_len, gvk_overhang_name(pairs[k].overhang), pairs[k].par.match,
					        pairs[k].par.mismatch, pairs[k].par.gap_open, pairs[k].par.gap_extend, fl, r, a[k].cigar,
					        a[k].offset, a[k].score, b[k].cigar, b[k].offset, b[k].score);
			}
			printf("%s vs %s flavour %s raw %d: %zu pairs, %zu differences\n", gvk_align_device_name(eg),
			       gvk_align_device_name(ec), fl ? "java" : "gkl", r, n, diff);
			bad += diff != 0;
			gvk_align_destroy(ec);
			gvk_align_destroy(eg);
		}
	for (size_t k = 0; k < n; ++k) free((char *)pairs[k].ref), free((char *)pairs[k].alt);
	free(pairs), free(a), free(b);
	return bad ? 1 : 0;
}
