/* SPDX-License-Identifier: MIT */
/* gvk align: GATK's semi-global Smith-Waterman (CIGAR, offset, score) for every pair of a table. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"
#include "cli_batch.h"
#include "cli_env.h"
#include "commands.h"
#include "../align/align_testing.h"
#include "../common/lineio.h"
#include "../common/outset.h"
#include "../common/threads.h"

typedef struct {
	gvk_align_opts_t eng;
	gvk_align_defaults_t def;
	cli_batch_t b;
	int emulate;
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk align [options] <input.tsv>\n\n"
	        "Aligns every pair as GATK's Smith-Waterman does (semi-global, with traceback) and writes\n"
	        "'cigar<TAB>offset<TAB>score' per input line, in input order.\n"
	        "Input (gzip read transparently, '-' = standard input): tab-separated lines\n"
	        "  ref alt [match mismatch gap_open gap_extend strategy]\n"
	        "a first line starting with 'ref<TAB>' is a header and skipped; strategy is SOFTCLIP,\n"
	        "INDEL, LEADING_INDEL or IGNORE (or GKL's code 9..12). Lines of two fields take the\n"
	        "--preset/--scores and --overhang values. A line holds at most 64 MiB and no NUL byte.\n"
	        "By default the result is what GATK returns with its default (GKL) aligner: the\n"
	        "exact-substring shortcut for SOFTCLIP/IGNORE, else GKL's answer.\n\n"
	        "Options:\n"
	        "  -o FILE             write to FILE (default standard output); nothing is left on failure\n"
	        "  -t, --threads N     CPU threads (default: all processors)\n"
	        "      --device D      cpu, gpu or auto (default auto: the GPU for batches of 2e7 cells or\n"
	        "                      more when one is usable; gpu without one is an error)\n"
	        "  -p, --preset NAME   scores of a GATK preset for every line: ORIGINAL_DEFAULT,\n"
	        "                      STANDARD_NGS, NEW_SW_PARAMETERS (default for 2-field lines),\n"
	        "                      ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS\n"
	        "      --scores M,X,O,E  match, mismatch, gap_open, gap_extend for every line\n"
	        "      --overhang S    strategy for every line (default for 2-field lines: SOFTCLIP)\n"
	        "      --raw           the aligner alone, without GATK's substring shortcut (what GKL's\n"
	        "                      alignNative returns)\n"
	        "      --java          reproduce GATK's Java aligner instead of GKL (differs only for\n"
	        "                      IGNORE trailing overhangs, very long CIGARs, scores below -1e8)\n"
	        "      --isa I         CPU kernel: auto, avx512, avx2, neon or scalar (default auto: the widest\n"
	        "                      this CPU runs)\n"
	        "      --chunk N       pairs per batch (default 65536); bounds memory use\n"
	        "      --server PATH   send the batches to gvk serve at PATH (default: $GVK_SERVER) under\n"
	        "                      --device auto or gpu; without an answer, aligned on the CPU here\n"
	        "  -q, --quiet         no progress and no summary line\n"
	        "  -h, --help          this text\n\n"
	        "Environment:\n"
	        "  GVK_ALIGN_GPU_CHUNK_MB=N  GPU memory per chunk of a batch in MiB (default: a quarter of\n"
	        "                      the free memory, at most 4096); small values stream many chunks\n"
	        "  GVK_ALIGN_GPU_EMULATE=1   tests: without a usable GPU, --device gpu runs the GPU code\n"
	        "                      path on the CPU\n"
	        "  GVK_SERVER=PATH     gvk serve's socket, as --server\n");
}

static int parse_scores(const char *s, gvk_sw_params_t *p)
{
	long v[4];
	char *end;
	for (int k = 0; k < 4; ++k) {
		v[k] = strtol(s, &end, 10);
		if (end == s || (k < 3 ? *end != ',' : *end != 0) || v[k] < INT32_MIN || v[k] > INT32_MAX) return -1;
		s = end + 1;
	}
	*p = (gvk_sw_params_t){(int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3]};
	return 0;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option lo[] = {
		CLI_BATCH_LONGOPTS,
		{"preset", required_argument, NULL, 'p'}, {"scores", required_argument, NULL, 2},
		{"overhang", required_argument, NULL, 3}, {"raw", no_argument, NULL, 4},
		{"java", no_argument, NULL, 5},           {"isa", required_argument, NULL, 6},
		{NULL, 0, NULL, 0}};
	gvk_align_opts_init(&a->eng);
	a->eng.threads = gvk_cli_default_threads();
	gvk_sw_preset("NEW_SW_PARAMETERS", &a->def.par);
	a->def.overhang = GVK_OVERHANG_SOFTCLIP;
	a->b = (cli_batch_t){.cmd = "align", .usage = usage, .chunk = 1 << 16};
	int c;
	while ((c = getopt_long(argc, argv, CLI_BATCH_SHORTOPTS "p:", lo, NULL)) != -1) {
		int shared = cli_batch_opt(&a->b, c, optarg, &a->eng.threads, &a->eng.device);
		if (shared < 0) return -1;
		if (shared) continue;
		switch (c) {
		case 'p':
			if (gvk_sw_preset(optarg, &a->def.par) < 0)
				return fprintf(stderr, "gvk align: unknown preset '%s' (ORIGINAL_DEFAULT, STANDARD_NGS, NEW_SW_PARAMETERS, ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS)\n", optarg), -1;
			a->def.force_par = 1;
			break;
		case 2:
			if (parse_scores(optarg, &a->def.par) < 0)
				return fprintf(stderr, "gvk align: --scores needs four integers M,X,O,E\n"), -1;
			a->def.force_par = 1;
			break;
		case 3:
			if ((a->def.overhang = gvk_overhang_parse(optarg)) < 0)
				return fprintf(stderr, "gvk align: unknown overhang strategy '%s' (SOFTCLIP, INDEL, LEADING_INDEL, IGNORE)\n", optarg), -1;
			a->def.force_overhang = 1;
			break;
		case 4: a->eng.raw = 1; break;
		case 5: a->eng.flavour = GVK_SW_JAVA; break;
		case 6:
			if ((a->eng.isa = gvk_cli_isa(optarg, 1)) < 0) return fprintf(stderr, "gvk align: --isa must be auto, avx512, avx2, neon or scalar\n"), -1;
			break;
		default: usage(stderr); return -1;
		}
	}
	if (cli_batch_finish(&a->b, argc, argv, a->eng.device, &a->eng.server, &a->eng.gpu_lock) < 0) return -1;
	/* The library's notes (a GPU that cannot be used) unless -q; warnings always. */
	a->eng.log.level = a->b.quiet ? GVK_LOG_WARN : GVK_LOG_INFO;
	long mb = a->eng.gpu_chunk_mb;
	if (cli_env_long("align", "GVK_ALIGN_GPU_CHUNK_MB", 0, GVK_ALIGN_MAX_CHUNK_MB, &mb) < 0) return -1;
	a->eng.gpu_chunk_mb = (int)mb;
	a->emulate = getenv("GVK_ALIGN_GPU_EMULATE") != NULL;
	return 0;
}

int gvk_cmd_align(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
	gvk_err_t err = {0, ""};
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *out_fp = NULL;
	const gvk_align_pair_t *cp = NULL;
	uint64_t ccells = 0;
	gvk_align_result_t *res = NULL;
	uint64_t pairs = 0, cells = 0;
	int rc = -1, progress = !a.b.quiet && isatty(2);
	double t0 = gvk_seconds();

	/* GVK_ALIGN_GPU_EMULATE (tests): the GPU back end's code on the CPU where there is no GPU. */
	gvk_align_t *eng = a.emulate ? al_create(&a.eng, 1, &err) : gvk_align_create(&a.eng, &err);
	if (!eng && a.eng.device == GVK_DEVICE_GPU && (err.code == GVK_ERR_GPU || err.code == GVK_ERR_UNSUPPORTED)) {
		gvk_cli_signals_watch(NULL);
		gvk_outset_abort(&os);
		return gvk_cli_no_gpu(err.msg);
	}
	gvk_align_reader_t *rd = eng ? gvk_align_reader_open(a.b.in, &a.def, &err) : NULL;
	if (!rd || !(out_fp = gvk_outset_open(&os, a.b.out, &err))) goto done;
	for (;;) {
		long n = gvk_align_reader_next(rd, a.b.chunk, &cp, &ccells, &err);
		if (n <= 0) {
			rc = (int)n;
			break;
		}
		gvk_align_result_t *nr = realloc(res, (size_t)n * sizeof *res);
		if (!nr) {
			rc = GVK_ERR_NOMEM, snprintf(err.msg, sizeof err.msg, "out of memory");
			break;
		}
		res = nr;
		if ((rc = gvk_align_batch(eng, cp, (size_t)n, res, &err)) < 0) break;
		errno = 0;
		for (long k = 0; k < n; ++k) fprintf(out_fp, "%s\t%d\t%d\n", res[k].cigar, res[k].offset, res[k].score);
		if (ferror(out_fp)) {
			rc = GVK_ERR_IO, snprintf(err.msg, sizeof err.msg, "%s: %s", a.b.out ? a.b.out : "standard output",
			                          errno ? strerror(errno) : "write error");
			break;
		}
		pairs += (uint64_t)n, cells += ccells;
		if (progress)
			fprintf(stderr, "\r[gvk align] %llu pairs, %.3g G cells, %.1f s", (unsigned long long)pairs,
			        (double)cells * 1e-9, gvk_seconds() - t0);
	}
	if (progress) fputc('\n', stderr);
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
done:
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) {
		fprintf(stderr, "gvk align: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a.b.quiet) {
		double dt = gvk_seconds() - t0;
		fprintf(stderr, "gvk align: %llu pairs, %.4g G cells, %.3f s, %.2f GCUPS, %s, %d threads\n",
		        (unsigned long long)pairs, (double)cells * 1e-9, dt, dt > 0 ? (double)cells * 1e-9 / dt : 0.0,
		        gvk_align_device_name(eng), a.eng.threads);
	}
	gvk_align_reader_close(rd);
	gvk_align_destroy(eng);
	free(res);
	return rc < 0 ? 1 : 0;
}
