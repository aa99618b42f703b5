/* SPDX-License-Identifier: MIT */
/* Option parsing for gvk ld, with PLINK 1.9's defaults and its refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_args.h"
#include "commands.h"
#include "cli_env.h"

void ld_usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk ld --bfile PREFIX (--r | --r2) [modifiers] [options]\n"
	        "       gvk ld --bfile PREFIX (--indep-pairwise | --indep-pairphase) W[kb] S R2 [options]\n"
	        "       gvk ld --bfile PREFIX --indep W[kb] S VIF [options]\n"
	        "       gvk ld --bfile PREFIX --clump FILE[,FILE...] [--clump-* options] [options]\n\n"
	        "PLINK 1.9 --r/--r2 linkage disequilibrium, --indep* pruning and --clump, same options, file\n"
	        "names and output columns.\n"
	        "Input:\n"
	        "  --bfile PREFIX         PREFIX.bed/.bim/.fam (or --bed/--bim/--fam FILE each)\n"
	        "  --vcf FILE             VCF/BCF imported as PLINK 1.9 does (needs a build with htslib)\n"
	        "Statistic: --r (signed r) or --r2 (r squared), followed by modifiers:\n"
	        "  square | square0 | triangle   matrix output (every pair, no windows)\n"
	        "  bin | bin4                    binary matrix, float64 / float32 (PREFIX.ld.bin)\n"
	        "  gz                            gzip-compressed text (PREFIX.ld.gz)\n"
	        "  spaces                        text matrix separated by spaces instead of tabs\n"
	        "  inter-chr                     table of every pair i < j, across chromosomes\n"
	        "  with-freqs | in-phase         MAF_A/MAF_B and PHASE table columns\n"
	        "  d | dprime | dprime-signed    D / D' column (unphased: PLINK's haplotype-frequency estimate)\n"
	        "  yes-really                    allow an unfiltered matrix of more than 400,000 SNPs\n"
	        "Pruning (PREFIX.prune.in / PREFIX.prune.out, after the filters below):\n"
	        "  --indep-pairwise W[kb] S R2   windows of W variants (or W kb) moved by S variants; of each\n"
	        "                                pair with r^2 > R2 the lower-MAF variant goes\n"
	        "  --indep-pairphase W[kb] S R2  the same with r^2 from maximum-likelihood haplotype frequencies\n"
	        "  --indep W[kb] S VIF           of each window, variants go until no variance inflation factor\n"
	        "                                exceeds VIF (at least 1)\n"
	        "Clumping (PREFIX.clumped, after the filters below):\n"
	        "  --clump FILE[,FILE...]   association reports with a variant ID and a p-value column\n"
	        "  --clump-p1 P           index variants: p <= P (0.0001)\n"
	        "  --clump-p2 P           clump members listed: p < P (0.01)\n"
	        "  --clump-r2 R           members: r^2 with the index above R (0.5)\n"
	        "  --clump-kb KB          members: within KB kb of the index (250)\n"
	        "  --clump-field NAME...      p-value column names, first found wins (P)\n"
	        "  --clump-snp-field NAME...  variant ID column names, first found wins (SNP)\n"
	        "  --clump-allow-overlap  a variant may join several clumps\n"
	        "  --clump-verbose        one block per clump with each member's distance, r^2 and alleles\n"
	        "  --clump-index-first    with several files, index variants come from the first only\n"
	        "  (--clump-best, --clump-replicate, --clump-range and --clump-annotate are not supported)\n"
	        "Table windows (PLINK defaults):\n"
	        "  --ld-window N          B at most N-1 SNPs after A (10)\n"
	        "  --ld-window-kb X       bp(B) - bp(A) <= X kb (1000)\n"
	        "  --ld-window-cm X       cM(B) - cM(A) <= X (no limit)\n"
	        "  --ld-window-r2 T       write pairs with r^2 >= T (0.2)\n"
	        "  --ld-snp ID            only pairs whose first variant is ID (window on both sides)\n"
	        "  --ld-snps LIST         the same for a list: IDs and ranges, e.g. rs1-rs5,rs9\n"
	        "  --ld-snp-list FILE     the same for the variant IDs listed in FILE\n"
	        "Variants:\n"
	        "  --chr LIST             only these chromosomes (comma-separated, ranges like 1-4)\n"
	        "  --from ID --to ID      the variants of one chromosome between two variants\n"
	        "  --snps LIST            only these variants: IDs and ranges, e.g. rs1-rs5,rs9\n"
	        "  --extract FILE         only the variant IDs listed in FILE (whitespace-separated)\n"
	        "  --exclude FILE         all but the variant IDs listed in FILE\n"
	        "  --geno [X]             drop variants with more than X missing calls (0.1)\n"
	        "  --maf [X]              drop variants with minor allele frequency below X (0.01)\n"
	        "  --hwe P [midp]         drop variants whose founders' Hardy-Weinberg exact test p < P (X:\n"
	        "                         non-males; Y and MT untested); runs after --geno, before --maf\n"
	        "  --mind [X]             drop samples with more than X missing calls (0.1), PREFIX.irem\n"
	        "  --allow-extra-chr      accept contig names that are not PLINK chromosome codes\n"
	        "Samples:\n"
	        "  --keep FILE            only the samples listed in FILE (FID IID per line)\n"
	        "  --remove FILE          all but the samples listed in FILE\n"
	        "  --double-id            VCF sample IDs are both FID and IID (default: FID_IID split at '_')\n"
	        "  --make-founders        samples missing a parent in the data count as founders\n"
	        "  --nonfounders          allele frequencies over all samples, not only founders\n"
	        "Other options:\n"
	        "  --out PREFIX           output prefix (default 'plink'): PREFIX.ld (.ld.bin) and PREFIX.log\n"
	        "  -o FILE                write to FILE instead ('-' = standard output; a log only with --out)\n"
	        "  --keep-allele-order    keep the .bim A1 (otherwise A1 = founders' minor allele, as PLINK)\n"
	        "  --phased               VCF haplotypes: r, r^2, D, D' from phased haplotypes (docs/snp.md)\n"
	        "  -t, --threads N        CPU threads (default: all processors)\n"
	        "      --device D         cpu, gpu or auto (default auto: the GPU when usable)\n"
	        "      --isa I            CPU kernel: auto, avx512, neon or scalar\n"
	        "  -q, --silent           no progress and no summary line\n"
	        "  -v, --verbose          each phase's time (reading, computing, writing) on stderr\n"
	        "  -h, --help             this text\n"
	        "Accepted and ignored: --noweb, --allow-no-sex, --memory N.\n"
	        "Environment: GVK_SNP_GPU_PATH=auto|popc|mma picks the GPU count kernel (CUDA cores or tensor\n"
	        "cores); GVK_SNP_GPU_MEM=BYTES lowers the GPU memory planned with (tests).\n");
}

/* An option, not a value: "-x" or "--x", but not a negative number. */
static int is_opt(const char *s) { return s[0] == '-' && s[1] != 0 && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.'; }

static int num_arg(int argc, char **argv, int *i, double *v)
{
	if (*i + 1 >= argc) return fprintf(stderr, "gvk ld: %s needs a value\n", argv[*i]), -1;
	char *end;
	*v = strtod(argv[*i + 1], &end);
	if (end == argv[*i + 1] || *end || isnan(*v))
		return fprintf(stderr, "gvk ld: %s: '%s' is not a number\n", argv[*i], argv[*i + 1]), -1;
	++*i;
	return 0;
}

static int str_arg(int argc, char **argv, int *i, const char **v)
{
	if (*i + 1 >= argc || (is_opt(argv[*i + 1]) && argv[*i + 1][1] == '-'))
		return fprintf(stderr, "gvk ld: %s needs a value\n", argv[*i]), -1;
	*v = argv[++*i];
	return 0;
}

/* The values after a multi-value option, up to the next option. */
static int list_arg(int argc, char **argv, int *i, const char *const **v, int *n)
{
	int k = *i + 1;
	while (k < argc && !is_opt(argv[k])) ++k;
	if (k == *i + 1) return fprintf(stderr, "gvk ld: %s needs at least one variant ID\n", argv[*i]), -1;
	*v = (const char *const *)(argv + *i + 1), *n = k - *i - 1;
	*i = k - 1;
	return 0;
}

/* An optional value (PLINK's --geno / --maf): dflt when the next argument is an option or absent. */
static int opt_num_arg(int argc, char **argv, int *i, double dflt, double *v)
{
	if (*i + 1 >= argc || is_opt(argv[*i + 1])) return *v = dflt, 0;
	return num_arg(argc, argv, i, v);
}

static int set_shape(ld_args_t *a, int shape, const char *m)
{
	if (a->o.shape_set)
		return fprintf(stderr, "gvk ld: modifier '%s': give one matrix shape (square, square0 or triangle), as PLINK "
		                       "requires\n", m), -1;
	a->o.shape_set = 1;
	a->o.shape = shape;
	return 0;
}

/* bin (float64) and bin4 (float32): one of them, as often as given. */
static int set_bin(ld_args_t *a, int bytes)
{
	if (a->o.bin && a->o.bin != bytes) return fprintf(stderr, "gvk ld: modifiers 'bin' and 'bin4' cannot be used together\n"), -1;
	a->o.bin = bytes;
	return 0;
}

static int modifier(ld_args_t *a, const char *m)
{
	if (!strcmp(m, "square")) return set_shape(a, GVK_LD_JOB_SQUARE, m);
	if (!strcmp(m, "square0")) return set_shape(a, GVK_LD_JOB_SQUARE0, m);
	if (!strcmp(m, "triangle")) return set_shape(a, GVK_LD_JOB_TRIANGLE, m);
	if (!strcmp(m, "bin") || !strcmp(m, "bin8") || !strcmp(m, "bin4")) return set_bin(a, m[3] == '4' ? 4 : 8);
	else if (!strcmp(m, "spaces")) a->o.spaces = 1;
	else if (!strcmp(m, "inter-chr")) a->o.inter_chr = 1;
	else if (!strcmp(m, "with-freqs")) a->o.with_freqs = 1;
	else if (!strcmp(m, "in-phase")) a->o.in_phase = 1;
	else if (!strcmp(m, "d")) a->o.dcol = 1;
	else if (!strcmp(m, "dprime")) a->o.dprime = a->o.dprime ? a->o.dprime : GVK_LD_JOB_DPRIME_ABS;
	else if (!strcmp(m, "dprime-signed")) a->o.dprime = GVK_LD_JOB_DPRIME_SIGNED;
	else if (!strcmp(m, "yes-really")) a->o.yes_really = 1;
	else if (!strcmp(m, "gz")) a->o.gz = 1;
	else if (!strcmp(m, "single-prec"))
		return fprintf(stderr, "gvk ld: modifier 'single-prec' is retired in PLINK 1.9; 'bin4' writes a float32 "
		                       "binary matrix\n"), -1;
	else return fprintf(stderr, "gvk ld: unknown --r/--r2 modifier '%s'\n", m), -1;
	return 0;
}

static int window_arg(ld_args_t *a, const char *s, double v)
{
	if (!strcmp(s, "--ld-window")) {
		if (v < 2 || v > 2147483646.0 || v != floor(v))
			return fprintf(stderr, "gvk ld: --ld-window needs an integer from 2 to 2147483646\n"), -1;
		a->o.window_snps = (int64_t)v;
	} else if (!strcmp(s, "--ld-window-kb")) {
		if (v < 0) return fprintf(stderr, "gvk ld: --ld-window-kb must not be negative\n"), -1;
		a->o.window_kb = v;
	} else {
		if (v < 0) return fprintf(stderr, "gvk ld: --ld-window-cm must not be negative\n"), -1;
		a->o.window_cm = v;
	}
	a->o.window_set = 1;
	return 0;
}

/* --hwe P ['midp'] ['include-nonctrl']: without phenotypes every sample is a control, so
 * include-nonctrl changes nothing. */
static int hwe_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	if (*i + 1 >= argc || is_opt(argv[*i + 1])) return fprintf(stderr, "gvk ld: --hwe needs a p-value threshold\n"), -1;
	if (num_arg(argc, argv, i, &a->o.hwe)) return -1;
	if (a->o.hwe < 0 || a->o.hwe >= 1) return fprintf(stderr, "gvk ld: --hwe threshold must be at least 0 and below 1\n"), -1;
	while (*i + 1 < argc && (!strcmp(argv[*i + 1], "midp") || !strcmp(argv[*i + 1], "include-nonctrl")))
		if (!strcmp(argv[++*i], "midp")) a->o.hwe_midp = 1;
	return 0;
}

static int filter_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	const char *s = argv[*i];
	if (!strcmp(s, "--hwe")) return hwe_arg(a, argc, argv, i);
	if (!strcmp(s, "--mind")) {
		if (opt_num_arg(argc, argv, i, 0.1, &a->o.mind)) return -1;
		if (a->o.mind < 0 || a->o.mind > 1) return fprintf(stderr, "gvk ld: --mind must be between 0 and 1\n"), -1;
		return 0;
	}
	if (!strcmp(s, "--geno")) {
		if (opt_num_arg(argc, argv, i, 0.1, &a->o.geno)) return -1;
		if (a->o.geno < 0 || a->o.geno > 1) return fprintf(stderr, "gvk ld: --geno must be between 0 and 1\n"), -1;
		return 0;
	}
	if (opt_num_arg(argc, argv, i, 0.01, &a->o.maf)) return -1;
	if (a->o.maf <= 0 || a->o.maf > 0.5) return fprintf(stderr, "gvk ld: --maf must be > 0 and <= 0.5\n"), -1;
	return 0;
}

/* Options that name a file or an ID: 1 when s is one of them (value read), 0 when not, -1 on error. */
static int named_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	static const char *const names[] = {"--bfile", "--bed", "--bim", "--fam", "--vcf", "--bcf", "--out", "--chr",
	                                    "--extract", "--exclude", "-o", "--keep", "--remove", "--from", "--to",
	                                    "--ld-snp", "--ld-snp-list"};
	const char **dst[] = {&a->o.bfile, &a->o.bed, &a->o.bim, &a->o.fam, &a->o.vcf, &a->o.vcf, &a->o.out_prefix, &a->o.chr,
	                      &a->o.extract, &a->o.exclude, &a->o.out, &a->o.keep, &a->o.remove, &a->o.from, &a->o.to,
	                      &a->o.ld_snp, &a->o.ld_snp_list};
	for (size_t k = 0; k < sizeof names / sizeof *names; ++k) {
		if (strcmp(argv[*i], names[k])) continue;
		if (dst[k] == &a->o.out_prefix) a->o.out_set = 1;
		else if (*dst[k]) return fprintf(stderr, "gvk ld: %s given twice\n", argv[*i]), -1;
		return str_arg(argc, argv, i, dst[k]) ? -1 : 1;
	}
	return 0;
}

static int flag_arg(ld_args_t *a, const char *s)
{
	if (!strcmp(s, "--keep-allele-order")) a->o.keep_allele_order = 1;
	else if (!strcmp(s, "--make-founders")) a->o.make_founders = 1;
	else if (!strcmp(s, "--nonfounders")) a->o.nonfounders = 1;
	else if (!strcmp(s, "--allow-extra-chr")) a->o.allow_extra_chr = 1;
	else if (!strcmp(s, "--double-id")) a->o.double_id = 1;
	else if (!strcmp(s, "--phased")) a->o.phased = 1;
	else if (!strcmp(s, "-q") || !strcmp(s, "--silent") || !strcmp(s, "--quiet")) a->quiet = 1;
	else if (!strcmp(s, "-v") || !strcmp(s, "--verbose")) a->o.verbose = 1;
	else if (!strcmp(s, "--noweb") || !strcmp(s, "--allow-no-sex")) return 1;
	else return 0;
	return 1;
}

static int other_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	const char *s = argv[*i];
	double v;
	if (!strcmp(s, "--r") || !strcmp(s, "--r2")) {
		if (a->o.stat_set) return fprintf(stderr, "gvk ld: give --r or --r2 once\n"), -1;
		a->o.stat_set = 1;
		a->o.r2 = s[3] == '2';
		while (*i + 1 < argc && !is_opt(argv[*i + 1]))
			if (modifier(a, argv[++*i]) < 0) return -1;
	} else if (!strcmp(s, "--ld-window") || !strcmp(s, "--ld-window-kb") || !strcmp(s, "--ld-window-cm")) {
		return num_arg(argc, argv, i, &v) || window_arg(a, s, v) ? -1 : 0;
	} else if (!strcmp(s, "--ld-window-r2")) {
		if (num_arg(argc, argv, i, &v)) return -1;
		if (v < 0 || v > 1) return fprintf(stderr, "gvk ld: --ld-window-r2 must be in [0, 1]\n"), -1;
		a->o.window_r2 = v, a->o.window_r2_set = 1;
	} else if (!strcmp(s, "--indep-pairwise") || !strcmp(s, "--indep-pairphase") || !strcmp(s, "--indep")) {
		return ld_prune_parse(argc, argv, i, a);
	} else if (!strncmp(s, "--clump", 7)) {
		return ld_clump_parse(argc, argv, i, a);
	} else if (!strcmp(s, "--geno") || !strcmp(s, "--maf") || !strcmp(s, "--mind") || !strcmp(s, "--hwe")) {
		return filter_arg(a, argc, argv, i);
	} else if (!strcmp(s, "--snps") || !strcmp(s, "--ld-snps")) {
		int ld = s[2] == 'l';
		if (ld ? a->o.ld_snps != NULL : a->o.snps != NULL) return fprintf(stderr, "gvk ld: %s given twice\n", s), -1;
		return list_arg(argc, argv, i, ld ? &a->o.ld_snps : &a->o.snps, ld ? &a->o.n_ld_snps : &a->o.n_snps);
	} else if (!strcmp(s, "--threads") || !strcmp(s, "-t")) {
		if (num_arg(argc, argv, i, &v)) return -1;
		if (v < 1 || v > 65536) return fprintf(stderr, "gvk ld: %s needs a positive number\n", s), -1;
		a->o.threads = (int)v;
	} else if (!strcmp(s, "--device")) {
		const char *d;
		if (str_arg(argc, argv, i, &d)) return -1;
		if ((a->o.device = gvk_cli_device(d)) < 0) return fprintf(stderr, "gvk ld: --device must be cpu, gpu or auto\n"), -1;
	} else if (!strcmp(s, "--isa")) {
		const char *d;
		if (str_arg(argc, argv, i, &d)) return -1;
		if ((a->o.isa = gvk_cli_isa(d, 0)) < 0) return fprintf(stderr, "gvk ld: --isa must be auto, avx512, neon or scalar\n"), -1;
	} else if (!strcmp(s, "--memory")) {
		if (num_arg(argc, argv, i, &v)) return -1;
		if (v < 64 || v != floor(v)) return fprintf(stderr, "gvk ld: --memory needs an integer >= 64 (MB), as in PLINK\n"), -1;
	} else {
		return fprintf(stderr, "gvk ld: unknown option '%s' (see gvk ld -h)\n", s), -1;
	}
	return 0;
}

/* The name an option is known by, so that aliases count as the same option. */
static const char *opt_name(const char *s)
{
	if (!strcmp(s, "-t")) return "--threads";
	if (!strcmp(s, "-q") || !strcmp(s, "--quiet")) return "--silent";
	if (!strcmp(s, "--bcf")) return "--vcf";
	if (!strcmp(s, "-v")) return "--verbose";
	return s;
}

/* PLINK refuses a flag given twice; so does gvk ld, naming it. seen: argc entries, set at the
 * options met so far. */
static int once(int argc, char **argv, uint8_t *seen, int i)
{
	for (int k = 1; k < i && k < argc; ++k)
		if (seen[k] && !strcmp(opt_name(argv[k]), opt_name(argv[i])))
			return fprintf(stderr, "gvk ld: %s given twice\n", argv[i]), -1;
	seen[i] = 1;
	return 0;
}

int ld_args_parse(int argc, char **argv, ld_args_t *a)
{
	memset(a, 0, sizeof *a);
	gvk_ld_job_opts_init(&a->o);
	a->o.threads = gvk_cli_default_threads();
	a->o.argc = argc, a->o.argv = argv;
	uint8_t *seen = calloc((size_t)argc + 1, 1);
	if (!seen) return fprintf(stderr, "gvk ld: out of memory\n"), -1;
	int rc = 0;
	for (int i = 1; i < argc && rc == 0; ++i) {
		const char *s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) free(seen), ld_usage(stdout), gvk_cli_help_exit();
		if ((rc = once(argc, argv, seen, i)) < 0) break;
		rc = named_arg(a, argc, argv, &i);
		if (rc != 0) rc = rc < 0 ? -1 : 0;
		else if (!flag_arg(a, s)) rc = other_arg(a, argc, argv, &i) < 0 ? -1 : 0;
	}
	free(seen);
	return rc;
}

int ld_args_check_input(const ld_args_t *a)
{
	if (a->o.bfile || a->o.bed || a->o.bim || a->o.fam || a->o.vcf) return 0;
	return fprintf(stderr, "gvk ld: no input: give --bfile PREFIX (or --bed, --bim and --fam), or --vcf FILE\n"), -1;
}
