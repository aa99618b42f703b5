/* SPDX-License-Identifier: MIT */
/* gvk command-line dispatcher: gvk <command> [options] <inputs>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "commands.h"
#include "../common/parse_num.h"
#ifdef GVK_MPI
#include "mpi/mpi_drivers.h"
#endif
#ifdef GVK_CLI_HTSLIB
#include <htslib/hts_log.h>
#endif

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"pairhmm", gvk_cmd_pairhmm, "Pair-HMM forward log10 likelihoods (GATK/GKL-identical)"},
	{"ld", gvk_cmd_ld, "Linkage disequilibrium, PLINK 1.9 --r/--r2 (options, files and columns)"},
	{"fastid", gvk_cmd_fastid, "FastID identity and mixture searches of SNP profiles"},
	{"align", gvk_cmd_align, "Smith-Waterman CIGAR and offset (GATK/GKL-identical)"},
	{"cnv", gvk_cmd_cnv, "copy-number variants with the cn.MOPS model (cn.mops-identical)"},
	{"serve", gvk_cmd_serve, "one GPU service per host for many Pair-HMM and align client processes"},
};

int gvk_cli_device(const char *arg)
{
	return !strcmp(arg, "cpu") ? GVK_DEVICE_CPU : !strcmp(arg, "gpu") ? GVK_DEVICE_GPU : !strcmp(arg, "auto") ? GVK_DEVICE_AUTO : -1;
}

int gvk_cli_threads(const char *arg)
{
	long v;
	return gvk_parse_long(arg, 1, 65536, &v) < 0 ? -1 : (int)v;
}

int gvk_cli_isa(const char *arg, int allow_avx2)
{
	if (!strcmp(arg, "auto")) return GVK_ISA_AUTO;
	if (!strcmp(arg, "avx512")) return GVK_ISA_AVX512;
	if (!strcmp(arg, "scalar")) return GVK_ISA_SCALAR;
	if (!strcmp(arg, "neon")) return GVK_ISA_NEON;
	return allow_avx2 && !strcmp(arg, "avx2") ? GVK_ISA_AVX2 : -1;
}

/* The library's messages on stderr, prefixed with the command (a fall-back to the CPU is a warning;
 * device choices and profiling are info, shown with -v). */
static void cli_log(void *arg, int level, const char *msg)
{
	fprintf(stderr, "gvk %s: %s%s\n", (const char *)arg, level == GVK_LOG_ERROR ? "error: " : level == GVK_LOG_WARN ? "warning: " : "", msg);
}

static const char *log_command = "";

void gvk_cli_log_level(int level) { gvk_set_log(cli_log, (void *)log_command, level); }

int gvk_cli_no_gpu(const char *why)
{
	/* The engines' messages for the library say "no usable ... GPU", "no GPU (...)" on a machine
	 * without one, or give only the reason; the line reads the same for every command either way. */
	if (!strncmp(why, "device gpu: ", 12)) why += 12;
	if (!strncmp(why, "no usable ", 10) || !strncmp(why, "no GPU (", 8))
		fprintf(stderr, "gvk %s: --device gpu: %s\n", log_command, why);
	else fprintf(stderr, "gvk %s: --device gpu: no usable GPU (%s)\n", log_command, why);
	return 1;
}

static void usage(FILE *fp)
{
	fprintf(fp, "gvk %s: GPU variant kernels\n\nUsage: gvk <command> [options] <inputs>\n\nCommands:\n", GVK_VERSION);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "\n'gvk <command> -h' describes a command's options; 'gvk --version' prints the version.\n");
}

/* The library's lines, then what only the command and the build have: MPI (the gvk executable
 * alone links it) and the GATK drop-in libraries. */
static int print_version(void)
{
	char feat[1024];
	gvk_feature_string(feat, sizeof feat);
	printf("gvk %s\n%s", gvk_version(), feat);
#ifdef GVK_MPI
	/* MPI allows this call before MPI_Init; the first line names the library and its version. */
	char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;
	if (MPI_Get_library_version(mpi, &len) != MPI_SUCCESS) snprintf(mpi, sizeof mpi, "yes");
	mpi[strcspn(mpi, "\n,")] = 0;
	printf("MPI: %s\n", mpi);
#else
	printf("MPI: none\n");
#endif
#ifdef GVK_JNI_LIBS
	printf("GKL drop-in JNI libraries: gkl_pairhmm, gkl_pairhmm_omp, gkl_smithwaterman, gkl_utils (PREFIX/%s)\n",
	       GVK_JNI_LIBS);
#else
	printf("GKL drop-in JNI libraries: none\n");
#endif
	return 0;
}

/* The exit status, made non-zero when standard output could not take what was written to it
 * (gvk -h > /dev/full): a command that fails to print must not look like one that succeeded. */
static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0) fprintf(stderr, "gvk: standard output: write error\n");
		return rc ? rc : 1;
	}
	return rc;
}

_Noreturn void gvk_cli_help_exit(void) { exit(finish(0)); }

#ifdef GVK_MPI
/* Under mpirun or srun: pairhmm and align split their input into one byte range per rank; the
 * other commands run on every rank and split their work themselves (src/cli/mpi). */
static int run_mpi(size_t i, int argc, char **argv)
{
	gvk_mpi_world_t w;
	if (gvk_mpi_start(commands[i].name, &argc, &argv, &w) < 0) return 1;
	const char *name = commands[i].name;
	const int records = w.size > 1 && (!strcmp(name, "pairhmm") || !strcmp(name, "align"));
	return gvk_mpi_end(&w, records ? gvk_mpi_records(&w, name, argc, argv) : commands[i].fn(argc, argv));
}
#endif

static int run_command(size_t i, int argc, char **argv)
{
	/* 'gvk <command> --version' as in samtools and bcftools. */
	for (int k = 1; k < argc; ++k)
		if (!strcmp(argv[k], "--version")) return print_version();
	if (gvk_cli_signals_start() < 0) {
		fprintf(stderr, "gvk: cannot set up signal handling\n");
		return 1;
	}
	log_command = commands[i].name;
	gvk_cli_log_level(GVK_LOG_WARN);
	/* getopt names argv[0] in its messages: "gvk cnv: unrecognized option". */
	char name[32];
	snprintf(name, sizeof name, "gvk %s", commands[i].name);
	argv[0] = name;
#ifdef GVK_MPI
	if (gvk_mpi_launched()) return run_mpi(i, argc, argv);
#endif
	return commands[i].fn(argc, argv);
}

static long find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
		if (!strcmp(name, commands[i].name)) return (long)i;
	return -1;
}

int main(int argc, char **argv)
{
#ifdef GVK_CLI_HTSLIB
	/* htslib would print "[E::hts_open_format] ..." before gvk's own message on a file that is not
	 * a BAM or VCF; gvk's message names the file and what it is not. */
	hts_set_log_level(HTS_LOG_OFF);
#endif
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) return finish(print_version());
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		long i = argc > 2 && !strcmp(argv[1], "help") ? find_command(argv[2]) : -1;
		if (i >= 0) {
			/* 'gvk help cnv' is 'gvk cnv -h'. */
			char h[] = "-h", *hv[] = {argv[2], h, NULL};
			return finish(run_command((size_t)i, 2, hv));
		}
		usage(stdout);
		return finish(0);
	}
	long i = find_command(argv[1]);
	if (i >= 0) return finish(run_command((size_t)i, argc - 1, argv + 1));
	fprintf(stderr, "gvk: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 1;
}
