/* SPDX-License-Identifier: MIT */
/* gvk cnv: copy-number variants from BAM files or a count matrix, as cn.mops calls them. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"
#include "cli_env.h"
#include "cli_paths.h"
#include "commands.h"
#include "../common/lineio.h"
#include "../common/outset.h"
#include "../common/threads.h"
#include "../cnv/cnv_testing.h" /* cnv_set_testing: GVK_CNV_GPU_CHUNK and GVK_CNV_FORCE_REDO of the tests */
#ifdef GVK_MPI
#include "mpi/mpi_drivers.h"
#endif

typedef struct {
	gvk_cnv_opts_t o;
	gvk_cnv_bam_opts_t b;
	gvk_cnv_plot_opts_t p;
	const char *out, *cnvr, *segs, *regions, *plot, *counts, *counts_out, *bed, *vcf, *calls_bed, *seg, *fai;
	int as_matrix, quiet, posterior, exome, count_only;
	char **bams;
	int n_bams;
	size_t gpu_chunk_regions; /* GVK_CNV_GPU_CHUNK, GVK_CNV_FORCE_REDO (tests) */
	int force_redo;
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk cnv [options] <s1.bam> <s2.bam> ...\n"
	        "       gvk cnv [options] --counts <matrix.tsv>\n\n"
	        "Copy-number variants with the cn.MOPS model, results identical to the R package cn.mops\n"
	        "(normalization, per-region EM, segmentation, CNVs, CNV regions, integer copy numbers).\n\n"
	        "Input:\n"
	        "      --counts FILE      count matrix: header 'chr start end S1 .. SN' (or sample names only),\n"
	        "                         non-negative integer counts, rows of a sequence contiguous;\n"
	        "                         a line holds at most 4 MiB and no NUL byte\n"
	        "      --matrix           treat the matrix as cn.mops does a plain matrix: one sequence 'undef'\n"
	        "      --fai FILE         with --counts: contig lengths for the VCF's ##contig lines (a samtools\n"
	        "                         faidx .fai, or 'name length' lines); without it they have no length\n"
	        "  -w, --window N         BAM input: window length (default 25000)\n"
	        "      --bed FILE         BAM input: count in these target intervals instead of windows\n"
	        "      --min-mapq N       BAM input: minimum mapping quality (default 1)\n"
	        "      --reference FASTA  CRAM input: reference sequence\n"
	        "Output (all written in full or not at all):\n"
	        "  -o FILE                CNVs: sample chr start end mean median CN (default standard output)\n"
	        "      --cnvr FILE        CNV regions: chr start end + one copy number per sample\n"
	        "      --segments FILE    every segment, same columns as the CNVs\n"
	        "      --vcf FILE         CNV regions as VCF 4.3 (<DEL>/<DUP>, GT:CN:SM per sample); a name ending\n"
	        "                         in .gz is bgzipped and indexed (FILE.tbi; FILE.csi for a\n"
	        "                         contig of 2^29 bases or more)\n"
	        "      --calls-bed FILE   CNVs as BED: chrom start end sample CN (0-based, by position)\n"
	        "      --seg FILE         every segment as SEG for IGV/GISTIC (seg.mean: mean sI/NI, log2 scale)\n"
	        "      --regions PREFIX   per-region tables PREFIX.{normalized,INI,sINI,region_CN,lambda,alpha,\n"
	        "                         seg_stat,individualCall,normalization_factors,seg_params,params}.tsv\n"
	        "      --posterior        with --regions, also PREFIX.posterior.tsv\n"
	        "      --plot PREFIX      plots: PREFIX.<sample>.genome.png (log2 ratio per region, segments, calls\n"
	        "                         by copy number), PREFIX.<sample>.<contig>.png for the contigs with a call,\n"
	        "                         PREFIX.cohort.png (heatmap of every sample's calls)\n"
	        "      --plot-format F    png, svg or png,svg (default png)\n"
	        "      --plot-contigs W   per-contig plots of the contigs with a call (calls), all or none\n"
	        "      --counts-out FILE  the read-count matrix (for BAM input)\n"
	        "      --count-only       only count reads: write the count matrix to -o and stop\n"
	        "Model (cn.mops defaults; --exome switches to exomecn.mops defaults):\n"
	        "      --exome            priorImpact 10, lowerThreshold -0.8, minWidth 5, minReadCount 1\n"
	        "      --prior-impact X   weight of the CN2 prior (1)\n"
	        "      --cyc N            EM cycles (20)\n"
	        "      --folds LIST       fold changes I of CN0..CNk, comma-separated\n"
	        "                         (0.025,0.5,1,1.5,2,2.5,3,3.5,4); the class with fold 1 is CN2\n"
	        "      --norm N           0 raw counts, 1 normalize, 2 raw counts + coverage factors (1)\n"
	        "      --norm-type T      poisson, mean, median, quant or mode (poisson)\n"
	        "      --size-factor T    mean, median, quant or mode (mean)\n"
	        "      --norm-qu X        quantile for --norm-type quant (0.25)\n"
	        "      --qu-size-factor X quantile for --size-factor quant (0.75)\n"
	        "      --upper X          gain threshold on a segment's mean sI/NI (0.5)\n"
	        "      --lower X          loss threshold (-0.9)\n"
	        "      --min-width N      minimum CNV length in regions (3)\n"
	        "      --min-read-count X regions with every normalized count <= X are not modelled (5)\n"
	        "      --use-median       call on segment medians instead of means\n"
	        "      --seg-alpha X, --seg-delta N, --seg-max-int N, --seg-cyber-weight X\n"
	        "                         fast segmentation parameters (0.05, 20, 40, 50)\n"
	        "      --log-domain       log-sum-exp E-step (differs from cn.mops when terms underflow)\n"
	        "      --exact-ties       after a GPU EM, redo on the CPU the EM of sequences whose segmentation\n"
	        "                         meets a near tie, so that segments equal the package's (slower)\n"
	        "Run:\n"
	        "  -t, --threads N        CPU threads (default: all processors)\n"
	        "      --device D         cpu, gpu or auto (default auto)\n"
	        "  -q, --quiet            no summary line\n"
	        "  -h, --help             this text\n");
}

static int parse_type(const char *s, int allow_poisson)
{
	if (!strcmp(s, "mean")) return GVK_CNV_NORM_MEAN;
	if (!strcmp(s, "median")) return GVK_CNV_NORM_MEDIAN;
	if (!strcmp(s, "quant")) return GVK_CNV_NORM_QUANT;
	if (!strcmp(s, "mode")) return GVK_CNV_NORM_MODE;
	if (allow_poisson && !strcmp(s, "poisson")) return GVK_CNV_NORM_POISSON;
	return -1;
}

static int num(const char *s, double *v)
{
	char *e;
	*v = strtod(s, &e);
	return *s && !*e && isfinite(*v) ? 0 : -1;
}

static int inum(const char *s, int *v, int min)
{
	char *e;
	long x = strtol(s, &e, 10);
	if (!*s || *e || x < min || x > 1000000000) return -1;
	*v = (int)x;
	return 0;
}

#define BAD(...) return fprintf(stderr, "gvk cnv: " __VA_ARGS__), fputc('\n', stderr), -1

static int parse_folds(const char *s, gvk_cnv_opts_t *o)
{
	int n = 0, h = -1;
	char *dup = strdup(s), *save = NULL;
	for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		double v;
		if (n == GVK_CNV_MAX_CLASSES || num(t, &v) < 0 || !(v > 0)) {
			free(dup);
			return -1;
		}
		if (v == 1.0) h = n;
		o->I[n++] = v;
	}
	free(dup);
	if (n < 2 || h < 0) return -1;
	o->n_classes = n, o->cn2 = h;
	return 0;
}

static int parse_plot_format(const char *s, gvk_cnv_plot_opts_t *p)
{
	p->png = p->svg = 0;
	if (!strcmp(s, "png")) p->png = 1;
	else if (!strcmp(s, "svg")) p->svg = 1;
	else if (!strcmp(s, "png,svg") || !strcmp(s, "svg,png")) p->png = p->svg = 1;
	else return -1;
	return 0;
}

/* The library's progress text on stderr, redrawn in place ('\r', padded so that a shorter text
 * hides a longer one). */
static void print_progress(void *arg, int kind, const char *text)
{
	(void)arg;
	fprintf(stderr, "\rgvk cnv: %s   %s", text, kind == GVK_PROGRESS_END ? "\n" : "");
	fflush(stderr);
}

/* Documented variables for tests: GVK_CNV_GPU_CHUNK=R (GPU EM chunks of R regions),
 * GVK_CNV_FORCE_REDO (the near-tie redo path after a CPU EM too). */
static int env_opts(args_t *a)
{
	long r = 0;
	if (cli_env_long("cnv", "GVK_CNV_GPU_CHUNK", 1, LONG_MAX, &r) < 0) return -1;
	a->gpu_chunk_regions = (size_t)r;
	a->force_redo = getenv("GVK_CNV_FORCE_REDO") != NULL;
	return 0;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	enum { O_COUNTS = 256, O_MATRIX, O_BED, O_MAPQ, O_REF, O_CNVR, O_SEGS, O_REGIONS, O_POST, O_PLOT, O_COUT, O_EXOME,
	       O_PRIOR, O_CYC, O_FOLDS, O_NORM, O_NTYPE, O_SF, O_NQU, O_QSF, O_UP, O_LO, O_MINW, O_MRC, O_MED, O_SA, O_SD,
	       O_SM, O_SC, O_LOG, O_DEV, O_CONLY, O_EXACT, O_VCF, O_CBED, O_SEG, O_PFMT, O_PCTG, O_FAI };
	static const struct option lo[] = {
		{"counts", required_argument, NULL, O_COUNTS}, {"matrix", no_argument, NULL, O_MATRIX},
		{"fai", required_argument, NULL, O_FAI},
		{"window", required_argument, NULL, 'w'},      {"bed", required_argument, NULL, O_BED},
		{"min-mapq", required_argument, NULL, O_MAPQ}, {"reference", required_argument, NULL, O_REF},
		{"cnvr", required_argument, NULL, O_CNVR},     {"segments", required_argument, NULL, O_SEGS},
		{"vcf", required_argument, NULL, O_VCF},       {"calls-bed", required_argument, NULL, O_CBED},
		{"seg", required_argument, NULL, O_SEG},       {"plot-format", required_argument, NULL, O_PFMT},
		{"plot-contigs", required_argument, NULL, O_PCTG},
		{"regions", required_argument, NULL, O_REGIONS}, {"posterior", no_argument, NULL, O_POST},
		{"plot", required_argument, NULL, O_PLOT},     {"counts-out", required_argument, NULL, O_COUT},
		{"exome", no_argument, NULL, O_EXOME},         {"prior-impact", required_argument, NULL, O_PRIOR},
		{"cyc", required_argument, NULL, O_CYC},       {"folds", required_argument, NULL, O_FOLDS},
		{"norm", required_argument, NULL, O_NORM},     {"norm-type", required_argument, NULL, O_NTYPE},
		{"size-factor", required_argument, NULL, O_SF}, {"norm-qu", required_argument, NULL, O_NQU},
		{"qu-size-factor", required_argument, NULL, O_QSF}, {"upper", required_argument, NULL, O_UP},
		{"lower", required_argument, NULL, O_LO},      {"min-width", required_argument, NULL, O_MINW},
		{"min-read-count", required_argument, NULL, O_MRC}, {"use-median", no_argument, NULL, O_MED},
		{"seg-alpha", required_argument, NULL, O_SA},  {"seg-delta", required_argument, NULL, O_SD},
		{"seg-max-int", required_argument, NULL, O_SM}, {"seg-cyber-weight", required_argument, NULL, O_SC},
		{"log-domain", no_argument, NULL, O_LOG},      {"exact-ties", no_argument, NULL, O_EXACT},      {"count-only", no_argument, NULL, O_CONLY},      {"threads", required_argument, NULL, 't'},
		{"device", required_argument, NULL, O_DEV},    {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0}};
	/* --exome changes defaults, so it is applied before every other option. */
	for (int i = 1; i < argc; ++i)
		if (!strcmp(argv[i], "--exome")) a->exome = 1;
	gvk_cnv_opts_init(&a->o, a->exome);
	if (env_opts(a) < 0) return -1;
	gvk_cnv_bam_opts_init(&a->b);
	gvk_cnv_plot_opts_init(&a->p);
	a->p.plain_svg = getenv("GVK_CNV_PLAIN_SVG") != NULL;
	a->o.threads = a->b.threads = gvk_cli_default_threads();
	int c;
	double v;
	while ((c = getopt_long(argc, argv, "o:w:t:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case O_COUNTS: a->counts = optarg; break;
		case O_MATRIX: a->as_matrix = 1; break;
		case O_FAI: a->fai = optarg; break;
		case 'w': if (inum(optarg, &a->b.wl, 1) < 0) BAD("--window needs a positive integer"); break;
		case O_BED: a->bed = optarg; break;
		case O_MAPQ: if (inum(optarg, &a->b.min_mapq, 0) < 0) BAD("--min-mapq needs a non-negative integer"); break;
		case O_REF: a->b.reference = optarg; break;
		case O_CNVR: a->cnvr = optarg; break;
		case O_SEGS: a->segs = optarg; break;
		case O_VCF: a->vcf = optarg; break;
		case O_CBED: a->calls_bed = optarg; break;
		case O_SEG: a->seg = optarg; break;
		case O_REGIONS: a->regions = optarg; break;
		case O_POST: a->posterior = 1; break;
		case O_PLOT: a->plot = optarg; break;
		case O_PFMT: if (parse_plot_format(optarg, &a->p) < 0) BAD("--plot-format must be png, svg or png,svg"); break;
		case O_PCTG:
			if (!strcmp(optarg, "calls")) a->p.contigs = GVK_CNV_PLOT_CONTIGS_CALLS;
			else if (!strcmp(optarg, "all")) a->p.contigs = GVK_CNV_PLOT_CONTIGS_ALL;
			else if (!strcmp(optarg, "none")) a->p.contigs = GVK_CNV_PLOT_CONTIGS_NONE;
			else BAD("--plot-contigs must be calls, all or none");
			break;
		case O_COUT: a->counts_out = optarg; break;
		case O_EXOME: break;
		case O_PRIOR: if (num(optarg, &a->o.prior_impact) < 0 || a->o.prior_impact < 0) BAD("--prior-impact needs a non-negative number"); break;
		case O_CYC: if (inum(optarg, &a->o.cyc, 1) < 0) BAD("--cyc needs a positive integer"); break;
		case O_FOLDS: if (parse_folds(optarg, &a->o) < 0) BAD("--folds needs 2..%d positive numbers, one of them 1", GVK_CNV_MAX_CLASSES); break;
		case O_NORM: if (inum(optarg, &a->o.norm, 0) < 0 || a->o.norm > 2) BAD("--norm must be 0, 1 or 2"); break;
		case O_NTYPE: if ((a->o.norm_type = parse_type(optarg, 1)) < 0) BAD("--norm-type must be poisson, mean, median, quant or mode"); break;
		case O_SF: if ((a->o.size_factor = parse_type(optarg, 0)) < 0) BAD("--size-factor must be mean, median, quant or mode"); break;
		case O_NQU: if (num(optarg, &a->o.norm_qu) < 0 || a->o.norm_qu < 0 || a->o.norm_qu > 1) BAD("--norm-qu must be in [0, 1]"); break;
		case O_QSF: if (num(optarg, &a->o.qu_size_factor) < 0 || a->o.qu_size_factor < 0 || a->o.qu_size_factor > 1) BAD("--qu-size-factor must be in [0, 1]"); break;
		case O_UP: if (num(optarg, &a->o.upper) < 0) BAD("--upper needs a number"); break;
		case O_LO: if (num(optarg, &a->o.lower) < 0) BAD("--lower needs a number"); break;
		case O_MINW: if (inum(optarg, &a->o.min_width, 1) < 0) BAD("--min-width needs a positive integer"); break;
		case O_MRC: if (num(optarg, &a->o.min_read_count) < 0) BAD("--min-read-count needs a number"); break;
		case O_MED: a->o.use_median = 1; break;
		case O_SA: if (num(optarg, &v) < 0 || !(v > 0)) BAD("--seg-alpha needs a positive number"); a->o.seg_alpha = v; break;
		case O_SD: if (inum(optarg, &a->o.seg_delta, 0) < 0) BAD("--seg-delta needs a non-negative integer"); break;
		case O_SM: if (inum(optarg, &a->o.seg_max_int, 1) < 0) BAD("--seg-max-int needs a positive integer"); break;
		case O_SC: if (num(optarg, &a->o.seg_cyber_weight) < 0) BAD("--seg-cyber-weight needs a number"); break;
		case O_LOG: a->o.log_domain = 1; break;
		case O_EXACT: a->o.exact_ties = 1; break;
		case O_CONLY: a->count_only = 1; break;
		case 't':
			if (inum(optarg, &a->o.threads, 1) < 0) BAD("-t needs a positive number");
			a->b.threads = a->o.threads;
			break;
		case O_DEV:
			if ((a->o.device = gvk_cli_device(optarg)) < 0) BAD("--device must be cpu, gpu or auto");
			break;
		case 'q': a->quiet = 1; break;
		case 'h': usage(stdout); gvk_cli_help_exit();
		default: usage(stderr); return -1;
		}
	}
	a->bams = argv + optind, a->n_bams = argc - optind;
	if (a->counts && a->n_bams) BAD("give either --counts or BAM files, not both");
	if (!a->counts && !a->n_bams) {
		usage(stderr);
		return -1;
	}
	if (a->posterior && !a->regions) BAD("--posterior needs --regions");
	/* BAM headers give the lengths; a plain matrix has no contigs */
	if (a->fai && (!a->counts || a->as_matrix)) BAD("--fai applies to --counts input without --matrix");
	/* before any counting: a run of hours should not end in this */
	if (a->plot && a->p.png && !(gvk_features() & GVK_FEATURE_CAIRO))
		BAD("this gvk was built without cairo, so it cannot write PNG plots; use --plot-format svg or rebuild with "
		    "cairo (Debian: libcairo2-dev)");
	if (!a->quiet && isatty(STDERR_FILENO)) a->b.progress_fn = print_progress;
	/* the library's notes (INFO) are shown unless -q, as the summary line is */
	gvk_cli_log_level(a->quiet ? GVK_LOG_WARN : GVK_LOG_INFO);
	gvk_log_default(&a->o.log);
	a->b.log = a->o.log;
	a->o.keep_posterior = a->posterior;
	return 0;
}

/* The count matrix, for save_table (the tables' codes are 0 and up). */
enum { COUNTS_TABLE = -1 };

/* One table (or the counts) to path, a member of the output set. */
static int save_table(gvk_outset_t *os, const char *path, int table, const gvk_cnv_counts_t *c,
                      const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o, gvk_err_t *err)
{
	FILE *fp = gvk_outset_open(os, path, err);
	if (!fp) return GVK_ERR_IO;
	return table == COUNTS_TABLE ? gvk_cnv_counts_write(fp, c, err) : gvk_cnv_write_table(fp, table, c, r, o, err);
}

/* PREFIX + each table's suffix, in the library's order; a table that cannot be written is
 * reported by the code's text alone, as it always was. */
static int write_regions(gvk_outset_t *os, const char *prefix, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                         const gvk_cnv_opts_t *o, int posterior, gvk_err_t *err)
{
	int last = posterior ? GVK_CNV_TABLE_POSTERIOR : GVK_CNV_TABLE_SEG_PARAMS;
	for (int t = GVK_CNV_TABLE_NORMALIZED; t <= last; ++t) {
		char *p = cli_with_ext(prefix, gvk_cnv_table_suffix(t));
		FILE *fp = p ? gvk_outset_open(os, p, err) : NULL;
		free(p);
		if (!fp || gvk_cnv_write_table(fp, t, c, r, o, NULL) < 0) return GVK_ERR_IO;
	}
	return 0;
}

/* Every output can be made, before any counting or modelling: one that cannot would drop all the
 * others at the end. The directories of the prefixes may be missing (they are made then). */
static int check_paths(const args_t *a)
{
	const char *opt[] = {"-o", "--cnvr", "--segments", "--counts-out", "--vcf", "--calls-bed", "--seg"};
	const char *path[] = {a->out, a->cnvr, a->segs, a->counts_out, a->vcf, a->calls_bed, a->seg};
	int n = a->count_only ? 1 : (int)(sizeof path / sizeof path[0]);
	for (int k = 0; k < n; ++k)
		if (cli_path_creatable("cnv", opt[k], path[k]) < 0) return -1;
	if (a->count_only) return 0;
	return cli_prefix_creatable("cnv", "--regions", a->regions) < 0 || cli_prefix_creatable("cnv", "--plot", a->plot) < 0
	               ? -1
	               : 0;
}

int gvk_cmd_cnv(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
	gvk_err_t err = {0, ""};
	const char *outs[] = {a.out ? a.out : "-", a.cnvr, a.segs, a.counts_out, a.vcf, a.calls_bed, a.seg};
	if (gvk_outset_check(outs, a.count_only ? 1 : (int)(sizeof outs / sizeof outs[0]), &err) < 0)
		return fprintf(stderr, "gvk cnv: %s\n", err.msg), 1;
	if (check_paths(&a) < 0) return 1;
	gvk_cnv_counts_t c = {0};
	gvk_cnv_result_t *r = NULL;
	gvk_cnv_t *e = NULL;
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	double t0 = gvk_seconds();
	int rc = 0;
	int counted = 0;
	/* the engine first: a GPU asked for and missing should not wait for hours of counting (and
	 * --device gpu means the GPU or an error, with --count-only too) */
	if ((!a.count_only || a.o.device == GVK_DEVICE_GPU) && (e = gvk_cnv_create(&a.o, &err)) != NULL)
		cnv_set_testing(e, a.gpu_chunk_regions, a.force_redo);
	if ((!a.count_only || a.o.device == GVK_DEVICE_GPU) && !e) {
		rc = err.code < 0 ? err.code : GVK_ERR_ARG;
		if (a.o.device == GVK_DEVICE_GPU && (rc == GVK_ERR_GPU || rc == GVK_ERR_UNSUPPORTED)) {
			gvk_cli_signals_watch(NULL);
			gvk_outset_abort(&os);
			return gvk_cli_no_gpu(err.msg);
		}
		goto done;
	}
#ifdef GVK_MPI
	/* Under MPI the ranks count the BAM files; rank 0 joins the counts, models and writes. */
	if (gvk_mpi_several()) {
		counted = !a.counts;
		rc = counted ? gvk_mpi_cnv_count(a.bams, a.n_bams, a.bed, &a.b, &c, &err) : 0;
		if (rc < 0 || (a.count_only && gvk_mpi_rank() > 0)) goto done;
		/* the model runs on every rank (EM by regions, segmentation by sample and sequence) */
		if (counted && !a.count_only && (rc = gvk_mpi_cnv_share(&c, &err)) < 0) goto done;
	}
#endif
#ifdef GVK_MPI
	if (a.counts && !a.count_only && gvk_mpi_several()) rc = gvk_mpi_cnv_read(a.counts, a.as_matrix, a.o.threads, &c, &err);
	else
#endif
	if (a.counts) rc = gvk_cnv_counts_read_mt(a.counts, a.as_matrix, a.o.threads, &c, &err);
	else if (!counted) rc = gvk_cnv_count_bams((const char *const *)a.bams, a.n_bams, a.bed, &a.b, &c, &err);
	if (rc == 0 && a.fai) rc = gvk_cnv_counts_read_lengths(a.fai, &c, &err);
	if (rc < 0) goto done;
	if (a.as_matrix && !a.counts) {
		/* BAM counts as a plain matrix: drop coordinates */
		for (int q = 1; q < c.n_seqs; ++q) free(c.seq_names[q]);
		free(c.seq_names[0]);
		free(c.seq_len);
		c.seq_len = NULL;
		c.seq_names[0] = strdup("undef");
		c.n_seqs = 1, c.seq_off[1] = c.m, c.is_matrix = 1;
		for (int i = 0; i < c.m; ++i) c.start[i] = c.end[i] = i + 1;
	}
	double t1 = gvk_seconds();
	if (a.count_only) {
		if ((rc = save_table(&os, a.out, COUNTS_TABLE, &c, NULL, NULL, &err)) < 0) goto done;
		rc = gvk_outset_commit(&os, &err);
		if (rc == 0 && !a.quiet)
			fprintf(stderr, "gvk cnv: counted %d regions x %d samples in %.3f s\n", c.m, c.N, t1 - t0);
		goto done;
	}
#ifdef GVK_MPI
	if (gvk_mpi_several()) {
		int writes = 0;
		if ((rc = gvk_mpi_cnv_run(e, &c, &r, &writes, &err)) < 0 || !writes) goto done;
	} else
#endif
	if ((rc = gvk_cnv_run(e, &c, &r, &err)) < 0) goto done;
	/* the files the library makes itself (the VCF and its index, the plots) commit with the others */
	gvk_files_t files = gvk_outset_files(&os);
	const struct {
		const char *path;
		int table;
	} tables[] = {{a.out ? a.out : "-", GVK_CNV_TABLE_CNVS}, {a.cnvr, GVK_CNV_TABLE_CNVR},
	              {a.segs, GVK_CNV_TABLE_SEGMENTS}, {a.counts_out, COUNTS_TABLE}};
	for (size_t k = 0; k < sizeof tables / sizeof tables[0]; ++k)
		if (tables[k].path && (rc = save_table(&os, tables[k].path, tables[k].table, &c, r, &a.o, &err)) < 0) goto done;
	if (a.vcf && (rc = gvk_cnv_write_vcf(a.vcf, &files, &c, r, &a.o, a.b.reference, a.o.threads, &err)) < 0) goto done;
	if (a.calls_bed && (rc = save_table(&os, a.calls_bed, GVK_CNV_TABLE_CALLS_BED, &c, r, &a.o, &err)) < 0) goto done;
	if (a.seg && (rc = save_table(&os, a.seg, GVK_CNV_TABLE_SEG, &c, r, &a.o, &err)) < 0) goto done;
	if (a.regions && ((rc = cli_mkdir_parents(a.regions, &err)) < 0 ||
	                  (rc = write_regions(&os, a.regions, &c, r, &a.o, a.posterior, &err)) < 0))
		goto done;
	if (a.plot && ((rc = cli_mkdir_parents(a.plot, &err)) < 0 ||
	               (rc = gvk_cnv_plot(a.plot, &a.p, &files, &c, r, &a.o, &err)) < 0))
		goto done;
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
	if (rc == 0 && !a.quiet) {
		double dt = gvk_seconds() - t0;
		fprintf(stderr,
		        "gvk cnv: %d regions x %d samples, %zu CNVs in %zu CNV regions, %.3f s (counts %.3f, normalization %.3f, "
		        "EM %.3f, segmentation+calls %.3f), %.0f regions/s, %s, %d threads\n",
		        c.m, c.N, r->n_cnvs, r->n_cnvr, dt, t1 - t0, r->t_norm, r->t_em, r->t_call, dt > 0 ? c.m / dt : 0.0,
		        r->device_name, a.o.threads);
	}
done:
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) {
		fprintf(stderr, "gvk cnv: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	}
	gvk_cnv_result_free(r);
	gvk_cnv_destroy(e);
	gvk_cnv_counts_free(&c);
	return rc < 0 ? 1 : 0;
}
