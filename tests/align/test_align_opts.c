/* SPDX-License-Identifier: MIT */
/* The align engine's options and argument checks: out-of-range options are GVK_ERR_ARG with a
 * message (never an abort or a print), thread counts below 1 mean all processors, device gpu
 * without a usable GPU is an error, options take the process's log, NULL arguments are refused,
 * a large batch (checked on several threads) names its first invalid pair, and gvk_align_batch_copy gives the caller CIGARs that outlive the engine's next call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "align/align_engine.h"

static int fails;

#define CHECK(cond, ...)                                                                          \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "FAIL line %d: ", __LINE__), fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr), ++fails;                                             \
		}                                                                                 \
	} while (0)

/* Creates with o; returns the error code (0 when created) and destroys the engine. */
static int create_code(const gvk_align_opts_t *o, gvk_err_t *err)
{
	*err = (gvk_err_t){0, ""};
	gvk_align_t *e = gvk_align_create(o, err);
	if (!e) return err->code ? err->code : -100;
	gvk_align_destroy(e);
	return 0;
}

static void log_fn(void *arg, int level, const char *msg) { (void)arg, (void)level, (void)msg; }

int main(void)
{
	gvk_align_opts_t o;
	gvk_err_t err;
	int rc;

	const int bad_mb[] = {-1, -1000, GVK_ALIGN_MAX_CHUNK_MB + 1};
	for (int k = 0; k < 3; ++k) {
		gvk_align_opts_init(&o);
		o.gpu_chunk_mb = bad_mb[k];
		rc = create_code(&o, &err);
		CHECK(rc == GVK_ERR_ARG && strstr(err.msg, "gpu_chunk_mb"), "gpu_chunk_mb %d: %d %s", bad_mb[k], rc, err.msg);
	}
	const int good_mb[] = {0, 1, GVK_ALIGN_MAX_CHUNK_MB};
	for (int k = 0; k < 3; ++k) {
		gvk_align_opts_init(&o);
		o.gpu_chunk_mb = good_mb[k], o.device = GVK_DEVICE_CPU;
		CHECK((rc = create_code(&o, &err)) == 0, "gpu_chunk_mb %d: %d %s", good_mb[k], rc, err.msg);
	}
	const int threads[] = {0, -1, -64, 1, 3};
	for (int k = 0; k < 5; ++k) {
		gvk_align_opts_init(&o);
		o.threads = threads[k];
		CHECK((rc = create_code(&o, &err)) == 0, "threads %d: %d %s", threads[k], rc, err.msg);
	}
	gvk_align_opts_init(&o);
	o.device = 7;
	CHECK(create_code(&o, &err) == GVK_ERR_ARG && err.msg[0], "device 7: %s", err.msg);
	gvk_align_opts_init(&o);
	o.flavour = 5;
	CHECK(create_code(&o, &err) == GVK_ERR_ARG && err.msg[0], "flavour 5: %s", err.msg);
	CHECK(create_code(NULL, &err) == GVK_ERR_ARG, "NULL options: %s", err.msg);

	/* Device gpu: the GPU, the emulation when asked for, or an error naming the cause. */
	gvk_align_opts_init(&o);
	o.device = GVK_DEVICE_GPU;
	err = (gvk_err_t){0, ""};
	gvk_align_t *e = gvk_align_create(&o, &err);
	if (e)
		CHECK(!strncmp(gvk_align_device_name(e), "gpu-", 4), "device gpu runs on %s", gvk_align_device_name(e));
	else
		CHECK((err.code == GVK_ERR_GPU || err.code == GVK_ERR_UNSUPPORTED) && (strstr(err.msg, "no usable GPU") || !strncmp(err.msg, "no GPU (", 8)),
		      "device gpu without a GPU: %d %s", err.code, err.msg);
	gvk_align_destroy(e);
	e = al_create(&o, 1, &err);
	CHECK(e && !strncmp(gvk_align_device_name(e), "gpu-", 4), "device gpu with emulation: %s", e ? gvk_align_device_name(e) : err.msg);
	gvk_align_destroy(e);

	/* The log: opts_init copies the process default. */
	int tag = 0;
	gvk_set_log(log_fn, &tag, GVK_LOG_DEBUG);
	gvk_align_opts_init(&o);
	CHECK(o.log.fn == log_fn && o.log.arg == &tag && o.log.level == GVK_LOG_DEBUG, "opts_init did not take the log");
	gvk_set_log(NULL, NULL, GVK_LOG_WARN);

	/* NULL arguments. */
	gvk_align_opts_init(&o);
	o.device = GVK_DEVICE_CPU;
	e = gvk_align_create(&o, NULL);
	gvk_align_result_t r[3];
	const gvk_align_pair_t p[3] = {{"ACGTACGTAA", "CGTACG", 10, 6, {3, -1, -4, -3}, GVK_OVERHANG_SOFTCLIP},
	                               {"AAAAAAAA", "AAATAAAA", 8, 8, {3, -1, -4, -3}, GVK_OVERHANG_INDEL},
	                               {"GGGGGGTTTTTT", "AAACCCTTTTTT", 12, 12, {1, -4, -6, -1}, GVK_OVERHANG_IGNORE}};
	err = (gvk_err_t){0, ""};
	CHECK(gvk_align_batch(e, NULL, 3, r, &err) == GVK_ERR_ARG && err.msg[0], "NULL pairs");
	CHECK(gvk_align_batch(e, p, 3, NULL, &err) == GVK_ERR_ARG, "NULL results");
	CHECK(gvk_align_batch(NULL, p, 3, r, &err) == GVK_ERR_ARG, "NULL engine");
	CHECK(gvk_align_batch(e, p, 0, r, &err) == 0, "empty batch");

	/* Caller-owned CIGARs. */
	CHECK(gvk_align_batch(e, p, 3, r, &err) == 0, "batch: %s", err.msg);
	char want[3][64];
	size_t need = 0;
	for (int k = 0; k < 3; ++k) snprintf(want[k], sizeof want[k], "%s", r[k].cigar), need += strlen(r[k].cigar) + 1;
	char small[4], text[256];
	CHECK(gvk_align_batch_copy(r, 3, small, sizeof small, &err) == GVK_ERR_ARG && r[0].cigar != small, "small buffer");
	CHECK(gvk_align_batch_copy(r, 3, text, sizeof text, &err) == (long)need, "copy: %s", err.msg);
	gvk_align_result_t r2[3];
	CHECK(gvk_align_batch(e, p + 1, 2, r2, &err) == 0, "second batch: %s", err.msg);
	for (int k = 0; k < 3; ++k)
		CHECK(r[k].cigar >= text && r[k].cigar < text + sizeof text && !strcmp(r[k].cigar, want[k]),
		      "copied CIGAR %d: %s, want %s", k, r[k].cigar, want[k]);
	CHECK(!strcmp(want[2], "12M"), "IGNORE example: %s", want[2]);
	gvk_align_destroy(e);

	/* A large batch is checked on the threads: the message names the first invalid pair. */
	gvk_align_opts_init(&o);
	o.device = GVK_DEVICE_CPU, o.threads = 3;
	e = gvk_align_create(&o, NULL);
	const size_t nbig = 100000;
	gvk_align_pair_t *big = malloc(nbig * sizeof *big);
	gvk_align_result_t *rb = malloc(nbig * sizeof *rb);
	for (size_t k = 0; k < nbig; ++k) big[k] = p[k % 3];
	CHECK(gvk_align_batch(e, big, nbig, rb, &err) == 0, "large batch: %s", err.msg);
	for (size_t k = 0; k < nbig; ++k)
		if (strcmp(rb[k].cigar, want[k % 3])) {
			CHECK(0, "large batch pair %zu: %s, want %s", k, rb[k].cigar, want[k % 3]);
			break;
		}
	big[90001].alt_len = 0, big[70000].par.match = -1;
	CHECK(gvk_align_batch(e, big, nbig, rb, &err) == GVK_ERR_ARG && !strncmp(err.msg, "pair 70000: ", 12),
	      "first invalid pair: %s", err.msg);
	free(big), free(rb);
	gvk_align_destroy(e);

	printf("%s\n", fails ? "FAILED" : "all option checks passed");
	return fails ? 1 : 0;
}
