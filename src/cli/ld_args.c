/* SPDX-License-Identifier: MIT */
/* Option parsing for gvk ld, with PLINK 1.9's defaults and its refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ld_args.h"
#include "ld_prune_cmd.h"
#include "ld_clump_cmd.h"
#include "commands.h"
#include "../common/threads.h"
#include "../ld/ld_write.h"
#include "../snp/snp_chrom.h"
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
static int list_arg(int argc, char **argv, int *i, char ***v, int *n)
{
	int k = *i + 1;
	while (k < argc && !is_opt(argv[k])) ++k;
	if (k == *i + 1) return fprintf(stderr, "gvk ld: %s needs at least one variant ID\n", argv[*i]), -1;
	*v = argv + *i + 1, *n = k - *i - 1;
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
	if (a->shape_set)
		return fprintf(stderr, "gvk ld: modifier '%s': give one matrix shape (square, square0 or triangle), as PLINK "
		                       "requires\n", m), -1;
	a->shape_set = 1;
	a->ld.shape = shape;
	return 0;
}

/* bin (float64) and bin4 (float32): one of them, as often as given. */
static int set_bin(ld_args_t *a, int bytes)
{
	if (a->bin && a->bin != bytes) return fprintf(stderr, "gvk ld: modifiers 'bin' and 'bin4' cannot be used together\n"), -1;
	a->bin = bytes;
	return 0;
}

static int modifier(ld_args_t *a, const char *m)
{
	if (!strcmp(m, "square")) return set_shape(a, LD_SQUARE, m);
	if (!strcmp(m, "square0")) return set_shape(a, LD_SQUARE0, m);
	if (!strcmp(m, "triangle")) return set_shape(a, LD_TRIANGLE, m);
	if (!strcmp(m, "bin") || !strcmp(m, "bin8") || !strcmp(m, "bin4")) return set_bin(a, m[3] == '4' ? 4 : 8);
	else if (!strcmp(m, "spaces")) a->spaces = 1;
	else if (!strcmp(m, "inter-chr")) a->ld.inter_chr = 1;
	else if (!strcmp(m, "with-freqs")) a->with_freqs = 1;
	else if (!strcmp(m, "in-phase")) a->in_phase = 1;
	else if (!strcmp(m, "d")) a->dcol = 1;
	else if (!strcmp(m, "dprime")) a->dprime = a->dprime ? a->dprime : LD_DP_ABS;
	else if (!strcmp(m, "dprime-signed")) a->dprime = LD_DP_SIGNED;
	else if (!strcmp(m, "yes-really")) a->yes_really = 1;
	else if (!strcmp(m, "gz")) a->gz = 1;
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
		a->ld.win_snps = (int64_t)v;
	} else if (!strcmp(s, "--ld-window-kb")) {
		if (v < 0) return fprintf(stderr, "gvk ld: --ld-window-kb must not be negative\n"), -1;
		a->ld.win_bp = ld_window_bp(v);
	} else {
		if (v < 0) return fprintf(stderr, "gvk ld: --ld-window-cm must not be negative\n"), -1;
		a->ld.win_cm = ld_window_cm(v);
	}
	a->win_set = 1;
	return 0;
}

/* --hwe P ['midp'] ['include-nonctrl']: without phenotypes every sample is a control, so
 * include-nonctrl changes nothing. */
static int hwe_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	if (*i + 1 >= argc || is_opt(argv[*i + 1])) return fprintf(stderr, "gvk ld: --hwe needs a p-value threshold\n"), -1;
	if (num_arg(argc, argv, i, &a->hwe)) return -1;
	if (a->hwe < 0 || a->hwe >= 1) return fprintf(stderr, "gvk ld: --hwe threshold must be at least 0 and below 1\n"), -1;
	while (*i + 1 < argc && (!strcmp(argv[*i + 1], "midp") || !strcmp(argv[*i + 1], "include-nonctrl")))
		if (!strcmp(argv[++*i], "midp")) a->hwe_midp = 1;
	return 0;
}

static int filter_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	const char *s = argv[*i];
	if (!strcmp(s, "--hwe")) return hwe_arg(a, argc, argv, i);
	if (!strcmp(s, "--mind")) {
		if (opt_num_arg(argc, argv, i, 0.1, &a->mind)) return -1;
		if (a->mind < 0 || a->mind > 1) return fprintf(stderr, "gvk ld: --mind must be between 0 and 1\n"), -1;
		return 0;
	}
	if (!strcmp(s, "--geno")) {
		if (opt_num_arg(argc, argv, i, 0.1, &a->geno)) return -1;
		if (a->geno < 0 || a->geno > 1) return fprintf(stderr, "gvk ld: --geno must be between 0 and 1\n"), -1;
		return 0;
	}
	if (opt_num_arg(argc, argv, i, 0.01, &a->maf)) return -1;
	if (a->maf <= 0 || a->maf > 0.5) return fprintf(stderr, "gvk ld: --maf must be > 0 and <= 0.5\n"), -1;
	return 0;
}

/* Options that name a file or an ID: 1 when s is one of them (value read), 0 when not, -1 on error. */
static int named_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	static const char *const names[] = {"--bfile", "--bed", "--bim", "--fam", "--vcf", "--bcf", "--out", "--chr",
	                                    "--extract", "--exclude", "-o", "--keep", "--remove", "--from", "--to",
	                                    "--ld-snp", "--ld-snp-list"};
	const char **dst[] = {&a->bfile, &a->bed, &a->bim, &a->fam, &a->vcf, &a->vcf, &a->out_prefix, &a->chr,
	                      &a->extract, &a->exclude, &a->out, &a->keep, &a->remove, &a->from, &a->to,
	                      &a->ld_snp, &a->ld_snp_list};
	for (size_t k = 0; k < sizeof names / sizeof *names; ++k) {
		if (strcmp(argv[*i], names[k])) continue;
		if (dst[k] == &a->out_prefix) a->out_set = 1;
		else if (*dst[k]) return fprintf(stderr, "gvk ld: %s given twice\n", argv[*i]), -1;
		return str_arg(argc, argv, i, dst[k]) ? -1 : 1;
	}
	return 0;
}

static int flag_arg(ld_args_t *a, const char *s)
{
	if (!strcmp(s, "--keep-allele-order")) a->keep_allele_order = 1;
	else if (!strcmp(s, "--make-founders")) a->make_founders = 1;
	else if (!strcmp(s, "--nonfounders")) a->nonfounders = 1;
	else if (!strcmp(s, "--allow-extra-chr")) a->allow_extra = 1;
	else if (!strcmp(s, "--double-id")) a->double_id = 1;
	else if (!strcmp(s, "--phased")) a->phased = 1;
	else if (!strcmp(s, "-q") || !strcmp(s, "--silent") || !strcmp(s, "--quiet")) a->quiet = 1;
	else if (!strcmp(s, "-v") || !strcmp(s, "--verbose")) a->verbose = 1;
	else if (!strcmp(s, "--noweb") || !strcmp(s, "--allow-no-sex")) return 1;
	else return 0;
	return 1;
}

static int other_arg(ld_args_t *a, int argc, char **argv, int *i)
{
	const char *s = argv[*i];
	double v;
	if (!strcmp(s, "--r") || !strcmp(s, "--r2")) {
		if (a->stat_set) return fprintf(stderr, "gvk ld: give --r or --r2 once\n"), -1;
		a->stat_set = 1;
		a->r2 = s[3] == '2';
		while (*i + 1 < argc && !is_opt(argv[*i + 1]))
			if (modifier(a, argv[++*i]) < 0) return -1;
	} else if (!strcmp(s, "--ld-window") || !strcmp(s, "--ld-window-kb") || !strcmp(s, "--ld-window-cm")) {
		return num_arg(argc, argv, i, &v) || window_arg(a, s, v) ? -1 : 0;
	} else if (!strcmp(s, "--ld-window-r2")) {
		if (num_arg(argc, argv, i, &v)) return -1;
		if (v < 0 || v > 1) return fprintf(stderr, "gvk ld: --ld-window-r2 must be in [0, 1]\n"), -1;
		a->r2_min = v, a->r2_set = 1;
	} else if (!strcmp(s, "--indep-pairwise") || !strcmp(s, "--indep-pairphase") || !strcmp(s, "--indep")) {
		return ld_prune_parse(argc, argv, i, a);
	} else if (!strncmp(s, "--clump", 7)) {
		return ld_clump_parse(argc, argv, i, a);
	} else if (!strcmp(s, "--geno") || !strcmp(s, "--maf") || !strcmp(s, "--mind") || !strcmp(s, "--hwe")) {
		return filter_arg(a, argc, argv, i);
	} else if (!strcmp(s, "--snps") || !strcmp(s, "--ld-snps")) {
		int ld = s[2] == 'l';
		if (ld ? a->ld_snps != NULL : a->snps != NULL) return fprintf(stderr, "gvk ld: %s given twice\n", s), -1;
		return list_arg(argc, argv, i, ld ? &a->ld_snps : &a->snps, ld ? &a->n_ld_snps : &a->n_snps);
	} else if (!strcmp(s, "--threads") || !strcmp(s, "-t")) {
		if (num_arg(argc, argv, i, &v)) return -1;
		if (v < 1 || v > 65536) return fprintf(stderr, "gvk ld: %s needs a positive number\n", s), -1;
		a->ld.threads = (int)v;
	} else if (!strcmp(s, "--device")) {
		const char *d;
		if (str_arg(argc, argv, i, &d)) return -1;
		if ((a->ld.device = gvk_cli_device(d)) < 0) return fprintf(stderr, "gvk ld: --device must be cpu, gpu or auto\n"), -1;
	} else if (!strcmp(s, "--isa")) {
		const char *d;
		if (str_arg(argc, argv, i, &d)) return -1;
		if ((a->ld.isa = gvk_cli_isa(d, 0)) < 0) return fprintf(stderr, "gvk ld: --isa must be auto, avx512, neon or scalar\n"), -1;
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
	ld_opt_init(&a->ld);
	a->ld.threads = gvk_cli_default_threads();
	a->out_prefix = "plink";
	a->r2_min = 0.2;
	a->geno = 1.0;
	a->mind = 1.0;
	ld_clump_opt_init(&a->clump);
	a->argc = argc, a->argv = argv;
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

int ld_args_em(const ld_args_t *a) { return (a->dcol || a->dprime) && !a->phased; }

/* The variant and sample selection options among themselves and with the input. */
static int check_selection(ld_args_t *a)
{
	char msg[256];
	if (a->chr && snp_chr_list_check(a->chr, a->allow_extra, msg, sizeof msg) < 0)
		return fprintf(stderr, "gvk ld: %s\n", msg), -1;
	if ((a->from || a->to) && a->chr) return fprintf(stderr, "gvk ld: --from and --to cannot be used with --chr\n"), -1;
	if ((a->from || a->to) && a->snps) return fprintf(stderr, "gvk ld: --snps cannot be used with --from or --to\n"), -1;
	if ((a->ld_snp != NULL) + (a->ld_snp_list != NULL) + (a->ld_snps != NULL) > 1)
		return fprintf(stderr, "gvk ld: give only one of --ld-snp, --ld-snps and --ld-snp-list\n"), -1;
	if (a->hwe > 0 && a->nonfounders)
		return fprintf(stderr, "gvk ld: --hwe with --nonfounders is not supported (the test counts founders)\n"), -1;
	if (a->mind < 1 && a->vcf) return fprintf(stderr, "gvk ld: --mind applies to --bfile input only in gvk ld\n"), -1;
	if (a->phased && (a->keep || a->remove || a->geno < 1 || a->maf > 0 || a->make_founders || a->nonfounders))
		return fprintf(stderr, "gvk ld: --keep, --remove, --geno, --maf, --make-founders and --nonfounders apply to "
		                       "genotypes, not to --phased haplotypes\n"), -1;
	if (a->vcf && (a->bfile || a->bed || a->bim || a->fam))
		return fprintf(stderr, "gvk ld: give either --vcf or --bfile, not both\n"), -1;
	return 0;
}

/* PLINK's rules between the modifiers and the window options. */
static int check_modifiers(ld_args_t *a)
{
	if (a->bin && !a->shape_set) a->ld.shape = LD_SQUARE, a->shape_set = 1;
	if (a->gz && a->bin) return fprintf(stderr, "gvk ld: 'gz' applies to text output, not to bin/bin4\n"), -1;
	if (a->gz && !ld_writer_gz_available())
		return fprintf(stderr, "gvk ld: this gvk was built without zlib, so 'gz' is not available\n"), -1;
	if (a->spaces && (!a->shape_set || a->bin))
		return fprintf(stderr, "gvk ld: 'spaces' applies to text matrix output only\n"), -1;
	int idx1 = a->ld_snp || a->ld_snp_list || a->ld_snps;
	if (a->shape_set) {
		if (a->win_set || a->r2_set)
			return fprintf(stderr, "gvk ld: --ld-window* options cannot be used with matrix output (square, square0, triangle, bin)\n"), -1;
		if (a->ld.inter_chr || a->with_freqs || a->in_phase || a->dcol || a->dprime)
			return fprintf(stderr, "gvk ld: inter-chr, with-freqs, in-phase, d and dprime apply to table output only\n"), -1;
		if (idx1) return fprintf(stderr, "gvk ld: --ld-snp, --ld-snps and --ld-snp-list apply to table output only\n"), -1;
	}
	if (a->ld.inter_chr && a->win_set)
		return fprintf(stderr, "gvk ld: --ld-window, --ld-window-kb and --ld-window-cm cannot be used with inter-chr\n"), -1;
	if (!a->phased && a->dcol && a->dprime)
		return fprintf(stderr, "gvk ld: 'd' cannot be used with 'dprime' or 'dprime-signed' (as in PLINK)\n"), -1;
	return 0;
}

int ld_args_check_input(const ld_args_t *a)
{
	if (a->bfile || a->bed || a->bim || a->fam || a->vcf) return 0;
	return fprintf(stderr, "gvk ld: no input: give --bfile PREFIX (or --bed, --bim and --fam), or --vcf FILE\n"), -1;
}

int ld_args_check(ld_args_t *a)
{
	if (ld_args_check_input(a) < 0) return -1;
	if (!a->stat_set && !a->prune_set && !a->clump_set)
		return fprintf(stderr, "gvk ld: give --r, --r2, --indep-pairwise, --indep-pairphase, --indep or --clump\n"), -1;
	if (a->clump_set && (a->stat_set || a->prune_set))
		return fprintf(stderr, "gvk ld: give --clump and --r/--r2 or --indep* in separate runs\n"), -1;
	if (a->stat_set && a->prune_set)
		return fprintf(stderr, "gvk ld: give --r/--r2 and %s in separate runs\n", ld_prune_mode_name(a->prune.mode)), -1;
	if (ld_clump_check(a) < 0) return -1;
	if (check_modifiers(a) < 0 || check_selection(a) < 0) return -1;
	a->ld.em = ld_args_em(a);
	return 0;
}

int ld_args_check_count(const ld_args_t *a, int64_t m)
{
	if (a->shape_set && m > 400000 && !a->yes_really)
		return fprintf(stderr, "gvk ld: a matrix of %lld SNPs is very large; add the 'yes-really' modifier\n", (long long)m), -1;
	return 0;
}
