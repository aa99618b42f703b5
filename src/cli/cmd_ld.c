/* gvk ld: PLINK 1.9 --r / --r2 with PLINK's own option names, so that a PLINK command line runs
 * with "gvk ld" in place of "plink". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvk.h"
#include "commands.h"
#include "../common/err.h"
#include "../common/lineio.h"
#include "../common/outset.h"
#include "../common/threads.h"
#include "../snp/ld_engine.h"
#include "../snp/ld_write.h"
#include "../snp/plink_io.h"
#include "../snp/vcf_io.h"

typedef struct {
	const char *bfile, *bed, *bim, *fam, *vcf, *out_prefix, *out, *chr, *extract, *exclude;
	int stat_set, r2, gz, shape_set, bin, spaces, with_freqs, in_phase, dcol, dprime, yes_really, phased;
	int keep_allele_order, all_samples, quiet, win_set, r2_set;
	ld_opt_t ld;
	double r2_min;
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk ld --bfile PREFIX (--r | --r2) [modifiers] [options]\n\n"
	        "PLINK 1.9 --r/--r2 linkage disequilibrium, same options, file names and output columns.\n"
	        "Input:\n"
	        "  --bfile PREFIX         PREFIX.bed/.bim/.fam (or --bed/--bim/--fam FILE each)\n"
	        "  --vcf FILE             VCF/BCF (GT field; needs a build with htslib)\n"
	        "Statistic: --r (signed r) or --r2 (r squared), followed by modifiers:\n"
	        "  square | square0 | triangle   matrix output (every pair, no windows)\n"
	        "  bin | bin4                    binary matrix, float64 / float32 (PREFIX.ld.bin)\n"
	        "  gz                            gzip-compressed text (PREFIX.ld.gz)\n"
	        "  spaces                        text matrix separated by spaces instead of tabs\n"
	        "  inter-chr                     table of every pair i < j, across chromosomes\n"
	        "  with-freqs | in-phase         MAF_A/MAF_B and PHASE table columns\n"
	        "  d | dprime | dprime-signed    D / D' columns: phased input only (--vcf ... --phased)\n"
	        "  yes-really                    allow an unfiltered matrix of more than 400,000 SNPs\n"
	        "Table windows (PLINK defaults):\n"
	        "  --ld-window N          B at most N-1 SNPs after A (10)\n"
	        "  --ld-window-kb X       bp(B) - bp(A) <= X kb (1000)\n"
	        "  --ld-window-cm X       cM(B) - cM(A) <= X (no limit)\n"
	        "  --ld-window-r2 T       write pairs with r^2 >= T (0.2)\n"
	        "Other options:\n"
	        "  --out PREFIX           output prefix (default 'plink'): PREFIX.ld or PREFIX.ld.bin\n"
	        "  -o FILE                write to FILE instead ('-' = standard output)\n"
	        "  --chr LIST             only these chromosomes (comma-separated, ranges like 1-4)\n"
	        "  --extract FILE         only the variant IDs listed in FILE (whitespace-separated)\n"
	        "  --exclude FILE         all but the variant IDs listed in FILE\n"
	        "  --keep-allele-order    keep the .bim A1 (otherwise A1 = founders' minor allele, as PLINK)\n"
	        "  --make-founders        use every sample, not only founders\n"
	        "  --phased               VCF haplotypes: r, r^2, D, D' from phased haplotypes (spec 4)\n"
	        "  -t, --threads N        CPU threads (default: all processors)\n"
	        "      --device D         cpu, gpu or auto (default auto: the GPU when usable)\n"
	        "      --isa I            CPU kernel: auto, avx512 or scalar\n"
	        "  -q, --silent           no progress and no summary line\n"
	        "  -h, --help             this text\n"
	        "Accepted and ignored: --noweb, --allow-no-sex, --memory N.\n");
}

static int is_opt(const char *s) { return s[0] == '-' && s[1] != 0 && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.'; }

static int num_arg(int argc, char **argv, int *i, double *v)
{
	if (*i + 1 >= argc) return fprintf(stderr, "gvk ld: %s needs a value\n", argv[*i]), -1;
	char *end;
	*v = strtod(argv[*i + 1], &end);
	if (end == argv[*i + 1] || *end) return fprintf(stderr, "gvk ld: %s: '%s' is not a number\n", argv[*i], argv[*i + 1]), -1;
	++*i;
	return 0;
}

static int str_arg(int argc, char **argv, int *i, const char **v)
{
	if (*i + 1 >= argc) return fprintf(stderr, "gvk ld: %s needs a value\n", argv[*i]), -1;
	*v = argv[++*i];
	return 0;
}

static int set_shape(args_t *a, int shape, const char *m)
{
	if (a->shape_set && a->ld.shape != shape)
		return fprintf(stderr, "gvk ld: modifier '%s' conflicts with an earlier matrix shape\n", m), -1;
	a->shape_set = 1;
	a->ld.shape = shape;
	return 0;
}

static int modifier(args_t *a, const char *m)
{
	if (!strcmp(m, "square")) return set_shape(a, LD_SQUARE, m);
	if (!strcmp(m, "square0")) return set_shape(a, LD_SQUARE0, m);
	if (!strcmp(m, "triangle")) return set_shape(a, LD_TRIANGLE, m);
	if (!strcmp(m, "bin") || !strcmp(m, "bin8")) a->bin = 8;
	else if (!strcmp(m, "bin4")) a->bin = 4;
	else if (!strcmp(m, "spaces")) a->spaces = 1;
	else if (!strcmp(m, "inter-chr")) a->ld.inter_chr = 1;
	else if (!strcmp(m, "with-freqs")) a->with_freqs = 1;
	else if (!strcmp(m, "in-phase")) a->in_phase = 1;
	else if (!strcmp(m, "d")) a->dcol = 1;
	else if (!strcmp(m, "dprime")) a->dprime = a->dprime ? a->dprime : LD_DP_ABS;
	else if (!strcmp(m, "dprime-signed")) a->dprime = LD_DP_SIGNED;
	else if (!strcmp(m, "yes-really")) a->yes_really = 1;
	else if (!strcmp(m, "gz")) a->gz = 1;
	else if (!strcmp(m, "single-prec")) a->bin = a->bin ? 4 : 0;
	else return fprintf(stderr, "gvk ld: unknown --r/--r2 modifier '%s'\n", m), -1;
	return 0;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	ld_opt_init(&a->ld);
	a->ld.threads = gvk_ncpu();
	a->out_prefix = "plink";
	a->r2_min = 0.2;
	for (int i = 1; i < argc; ++i) {
		const char *s = argv[i];
		double v;
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) usage(stdout), exit(0);
		else if (!strcmp(s, "--bfile")) { if (str_arg(argc, argv, &i, &a->bfile)) return -1; }
		else if (!strcmp(s, "--bed")) { if (str_arg(argc, argv, &i, &a->bed)) return -1; }
		else if (!strcmp(s, "--bim")) { if (str_arg(argc, argv, &i, &a->bim)) return -1; }
		else if (!strcmp(s, "--fam")) { if (str_arg(argc, argv, &i, &a->fam)) return -1; }
		else if (!strcmp(s, "--vcf") || !strcmp(s, "--bcf")) { if (str_arg(argc, argv, &i, &a->vcf)) return -1; }
		else if (!strcmp(s, "--out")) { if (str_arg(argc, argv, &i, &a->out_prefix)) return -1; }
		else if (!strcmp(s, "--chr")) { if (str_arg(argc, argv, &i, &a->chr)) return -1; }
		else if (!strcmp(s, "--extract")) { if (str_arg(argc, argv, &i, &a->extract)) return -1; }
		else if (!strcmp(s, "--exclude")) { if (str_arg(argc, argv, &i, &a->exclude)) return -1; }
		else if (!strcmp(s, "-o")) { if (str_arg(argc, argv, &i, &a->out)) return -1; }
		else if (!strcmp(s, "--r") || !strcmp(s, "--r2")) {
			if (a->stat_set) return fprintf(stderr, "gvk ld: give --r or --r2 once\n"), -1;
			a->stat_set = 1;
			a->r2 = s[3] == '2';
			while (i + 1 < argc && !is_opt(argv[i + 1]))
				if (modifier(a, argv[++i]) < 0) return -1;
		} else if (!strcmp(s, "--ld-window")) {
			if (num_arg(argc, argv, &i, &v)) return -1;
			if (v < 2 || v != (double)(int64_t)v) return fprintf(stderr, "gvk ld: --ld-window needs an integer >= 2\n"), -1;
			a->ld.win_snps = (int64_t)v, a->win_set = 1;
		} else if (!strcmp(s, "--ld-window-kb")) {
			if (num_arg(argc, argv, &i, &v)) return -1;
			if (v < 0) return fprintf(stderr, "gvk ld: --ld-window-kb must not be negative\n"), -1;
			a->ld.win_kb = v, a->win_set = 1;
		} else if (!strcmp(s, "--ld-window-cm")) {
			if (num_arg(argc, argv, &i, &v)) return -1;
			if (v < 0) return fprintf(stderr, "gvk ld: --ld-window-cm must not be negative\n"), -1;
			a->ld.win_cm = v, a->win_set = 1;
		} else if (!strcmp(s, "--ld-window-r2")) {
			if (num_arg(argc, argv, &i, &v)) return -1;
			if (v < 0 || v > 1) return fprintf(stderr, "gvk ld: --ld-window-r2 must be in [0, 1]\n"), -1;
			a->r2_min = v, a->r2_set = 1;
		} else if (!strcmp(s, "--threads") || !strcmp(s, "-t")) {
			if (num_arg(argc, argv, &i, &v)) return -1;
			if (v < 1) return fprintf(stderr, "gvk ld: %s needs a positive number\n", s), -1;
			a->ld.threads = (int)v;
		} else if (!strcmp(s, "--device")) {
			const char *d;
			if (str_arg(argc, argv, &i, &d)) return -1;
			if ((a->ld.device = gvk_cli_device(d)) < 0) return fprintf(stderr, "gvk ld: --device must be cpu, gpu or auto\n"), -1;
		} else if (!strcmp(s, "--isa")) {
			const char *d;
			if (str_arg(argc, argv, &i, &d)) return -1;
			if ((a->ld.isa = gvk_cli_isa(d, 0)) < 0) return fprintf(stderr, "gvk ld: --isa must be auto, avx512 or scalar\n"), -1;
		} else if (!strcmp(s, "--keep-allele-order")) a->keep_allele_order = 1;
		else if (!strcmp(s, "--make-founders") || !strcmp(s, "--nonfounders")) a->all_samples = 1;
		else if (!strcmp(s, "--phased")) a->phased = 1;
		else if (!strcmp(s, "-q") || !strcmp(s, "--silent") || !strcmp(s, "--quiet")) a->quiet = 1;
		else if (!strcmp(s, "--noweb") || !strcmp(s, "--allow-no-sex")) continue;
		else if (!strcmp(s, "--memory")) { if (num_arg(argc, argv, &i, &v)) return -1; }
		else return fprintf(stderr, "gvk ld: unknown option '%s' (see gvk ld -h)\n", s), -1;
	}
	return 0;
}

/* PLINK's own consistency rules between the modifiers and the window options. */
static int check_args(args_t *a, int64_t m)
{
	if (!a->stat_set) return fprintf(stderr, "gvk ld: give --r or --r2\n"), -1;
	if (a->bin && !a->shape_set) a->ld.shape = LD_SQUARE, a->shape_set = 1;
	if (a->gz && a->bin) return fprintf(stderr, "gvk ld: 'gz' applies to text output, not to bin/bin4\n"), -1;
	if (a->gz && !ld_writer_gz_available())
		return fprintf(stderr, "gvk ld: this gvk was built without zlib, so 'gz' is not available\n"), -1;
	if (a->spaces && (!a->shape_set || a->bin))
		return fprintf(stderr, "gvk ld: 'spaces' applies to text matrix output only\n"), -1;
	if (a->shape_set) {
		if (a->win_set || a->r2_set)
			return fprintf(stderr, "gvk ld: --ld-window* options cannot be used with matrix output (square, square0, triangle, bin)\n"), -1;
		if (a->ld.inter_chr || a->with_freqs || a->in_phase || a->dcol || a->dprime)
			return fprintf(stderr, "gvk ld: inter-chr, with-freqs, in-phase, d and dprime apply to table output only\n"), -1;
		if (m > 400000 && !a->yes_really)
			return fprintf(stderr, "gvk ld: a matrix of %lld SNPs is very large; add the 'yes-really' modifier\n", (long long)m), -1;
	}
	if (a->ld.inter_chr && a->win_set)
		return fprintf(stderr, "gvk ld: --ld-window, --ld-window-kb and --ld-window-cm cannot be used with inter-chr\n"), -1;
	if ((a->dcol || a->dprime) && !a->phased)
		return fprintf(stderr, "gvk ld: d/dprime need phased haplotypes (--vcf FILE --phased); PLINK 1.9's "
		                       "haplotype-frequency estimator for unphased genotypes is not implemented\n"), -1;
	return 0;
}

static int load(args_t *a, snp_data_t *d, gvk_err_t *err)
{
	if (a->vcf) {
		if (a->bfile || a->bed) return gvk_err_set(err, GVK_ERR_ARG, "give either --vcf or --bfile, not both");
		snp_vcf_opt_t vo = {a->keep_allele_order, a->phased};
		return snp_read_vcf(a->vcf, &vo, d, err);
	}
	if (a->phased) return gvk_err_set(err, GVK_ERR_ARG, "--phased needs --vcf input with phased GT");
	snp_plink_opt_t po = {a->keep_allele_order, a->all_samples};
	if (a->bfile && !a->bed && !a->bim && !a->fam) return snp_read_bfile(a->bfile, &po, d, err);
	if (a->bed && a->bim && a->fam && !a->bfile) return snp_read_plink(a->bed, a->bim, a->fam, &po, d, err);
	return gvk_err_set(err, GVK_ERR_ARG, "give --bfile PREFIX, or all of --bed, --bim and --fam, or --vcf FILE");
}

typedef struct {
	ld_writer_t *w;
	int progress;
	int64_t m;
	double t0;
} sink_ctx_t;

/* The writer, plus a progress line on a terminal. */
static int sink(void *ctx, const ld_stripe_t *s, gvk_err_t *err)
{
	sink_ctx_t *c = ctx;
	int rc = ld_writer_sink(c->w, s, err);
	if (c->progress)
		fprintf(stderr, "\r[gvk ld] %lld of %lld rows, %.1f s", (long long)s->i1, (long long)c->m, gvk_seconds() - c->t0);
	return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* IDs of an --extract / --exclude file, sorted for bsearch; *n receives the count. */
static char **read_ids(const char *path, size_t *n, gvk_err_t *err)
{
	gvk_lr_t *lr = gvk_lr_open(path, err);
	if (!lr) return NULL;
	char **ids = NULL, *line;
	size_t len, cap = 0;
	*n = 0;
	int rc;
	while ((rc = gvk_lr_next(lr, &line, &len, err)) == 1)
		for (char *t = strtok(line, " \t"); t; t = strtok(NULL, " \t")) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				char **ni = realloc(ids, cap * sizeof *ni);
				if (!ni) break;
				ids = ni;
			}
			if (*n < cap && (ids[*n] = strdup(t))) ++*n;
		}
	gvk_lr_close(lr);
	if (rc < 0) {
		for (size_t k = 0; k < *n; ++k) free(ids[k]);
		free(ids);
		return NULL;
	}
	qsort(ids, *n, sizeof *ids, cmp_str);
	return ids ? ids : calloc(1, sizeof *ids);
}

/* PLINK's --chr list: names or numeric ranges such as 1-4,X. */
static int chr_listed(const char *list, const char *chr)
{
	char buf[256], norm[64];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
		char *dash = strchr(t, '-');
		if (dash && dash != t) {
			*dash = 0;
			char lo[64], hi[64];
			snp_chr_normalise(t, strlen(t), lo, sizeof lo);
			snp_chr_normalise(dash + 1, strlen(dash + 1), hi, sizeof hi);
			int c = atoi(chr);
			if (c > 0 && c >= atoi(lo) && c <= atoi(hi)) return 1;
			continue;
		}
		snp_chr_normalise(t, strlen(t), norm, sizeof norm);
		if (!strcmp(norm, chr)) return 1;
	}
	return 0;
}

/* Drops the variants --chr, --extract and --exclude leave out, before any window is formed. */
static int filter_variants(const args_t *a, snp_data_t *d, gvk_err_t *err)
{
	if (!a->chr && !a->extract && !a->exclude) return 0;
	size_t ne = 0, nx = 0;
	char **ext = a->extract ? read_ids(a->extract, &ne, err) : NULL;
	char **exc = a->exclude ? read_ids(a->exclude, &nx, err) : NULL;
	uint8_t *keep = malloc((size_t)d->n_snp + 1);
	int rc = 0;
	if ((a->extract && !ext) || (a->exclude && !exc)) rc = err->code ? err->code : GVK_ERR_NOMEM;
	else if (!keep) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	for (int64_t i = 0; rc == 0 && i < d->n_snp; ++i) {
		const char *id = d->var[i].id;
		keep[i] = (!a->chr || chr_listed(a->chr, d->var[i].chr)) &&
		          (!ext || bsearch(&id, ext, ne, sizeof *ext, cmp_str)) &&
		          (!exc || !bsearch(&id, exc, nx, sizeof *exc, cmp_str));
	}
	if (rc == 0) {
		snp_data_select(d, keep);
		if (d->n_snp == 0) rc = gvk_err_set(err, GVK_ERR_ARG, "no variants remain after --chr / --extract / --exclude");
	}
	for (size_t k = 0; k < ne; ++k) free(ext[k]);
	for (size_t k = 0; k < nx; ++k) free(exc[k]);
	free(ext);
	free(exc);
	free(keep);
	return rc;
}

int gvk_cmd_ld(int argc, char **argv)
{
	args_t a = {0};
	if (parse_args(argc, argv, &a) < 0) return 1;
	if (!a.stat_set) {
		fprintf(stderr, "gvk ld: give --r or --r2\n");
		usage(stderr);
		return 1;
	}
	gvk_err_t err = {0, ""};
	snp_data_t d = {0};
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *out_fp;
	ld_writer_t w = {0};
	char *path = NULL;
	ld_report_t rep;
	memset(&rep, 0, sizeof rep);
	double t0 = gvk_seconds();
	int rc = load(&a, &d, &err);
	if (rc == 0) rc = filter_variants(&a, &d, &err);
	if (rc < 0) goto done;
	if (check_args(&a, d.n_snp) < 0) {
		gvk_outset_abort(&os);
		snp_data_free(&d);
		return 1;
	}
	if (!a.quiet)
		for (int64_t i = 0; i < d.n_snp; ++i)
			if (atoi(d.var[i].chr) >= 23 && atoi(d.var[i].chr) <= 26) {
				fprintf(stderr, "gvk ld: warning: chromosome %s variants are treated as diploid autosomes; PLINK 1.9 "
				                "codes male X and Y/MT genotypes differently\n", d.var[i].chr);
				break;
			}
	a.ld.haplotype = a.phased;
	a.ld.r2 = a.r2;
	a.ld.single = a.bin == 4;
	if (!a.out) {
		size_t n = strlen(a.out_prefix) + 8;
		if (!(path = malloc(n))) {
			rc = gvk_err_set(&err, GVK_ERR_NOMEM, "out of memory");
			goto done;
		}
		snprintf(path, n, "%s%s", a.out_prefix, a.bin ? ".ld.bin" : a.gz ? ".ld.gz" : ".ld");
	}
	if (!(out_fp = gvk_outset_open(&os, a.out ? a.out : path, &err))) {
		rc = GVK_ERR_IO;
		goto done;
	}
	w = (ld_writer_t){.fp = out_fp, .d = &d, .shape = a.ld.shape, .r2 = a.r2, .bin = a.bin, .spaces = a.spaces,
	                  .r2_min = a.r2_min, .with_freqs = a.with_freqs, .in_phase = a.in_phase, .dcol = a.dcol,
	                  .dprime = a.dprime, .gz = a.gz};
	if ((rc = ld_writer_init(&w, &err)) < 0) goto done;
	sink_ctx_t sc = {&w, !a.quiet && isatty(2), d.n_snp, t0};
	rc = ld_run(&d, &a.ld, sink, &sc, &rep, &err);
	if (sc.progress) fputc('\n', stderr);
	if (rc == 0) rc = ld_writer_finish(&w, &err);
	if (rc == 0) rc = gvk_outset_commit(&os, &err);
done:
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (rc < 0) {
		fprintf(stderr, "gvk ld: %s\n", err.msg[0] ? err.msg : gvk_strerror(rc));
	} else if (!a.quiet) {
		double dt = gvk_seconds() - t0;
		fprintf(stderr, "gvk ld: %lld SNPs x %lld %s, %llu pairs, %llu written to %s, %.3f s, %.3g pairs/s, %s, %d threads\n",
		        (long long)d.n_snp, (long long)d.n_bits, d.phased ? "haplotypes" : "samples", (unsigned long long)rep.pairs, (unsigned long long)w.written,
		        a.out ? a.out : path, dt, dt > 0 ? (double)rep.pairs / dt : 0.0, rep.kernel[0] ? rep.kernel : ld_device_name(&a.ld),
		        a.ld.threads);
	}
	ld_writer_free(&w);
	snp_data_free(&d);
	free(path);
	return rc < 0 ? 1 : 0;
}
