/* SPDX-License-Identifier: MIT */
/* The small text parsers of gvk ld's options, on a fixed dataset, in gvk ld's order: the --keep
 * and --remove files (snp_samples_keep), --make-founders, the --chr list, the --snps list, the
 * --extract / --exclude file, then --ld-snp-list FILE or the --ld-snps list (src/snp/snp_select.c,
 * src/snp/snp_chrom.c). The input holds the --keep file, the --remove file, the variant list file,
 * the --snps arguments (one a line), the --ld-snps arguments and the --chr list, separated by
 * FZ_SEP; an empty part leaves its option out. The size's low bits pick --make-founders,
 * --allow-extra-chr, --extract or --exclude, --ld-snp-list or --ld-snps, and --from/--to from the
 * first two --ld-snps arguments. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "snp/snp_chrom.h"
#include "snp/snp_samples.h"
#include "snp/snp_select.h"

enum { P_KEEP, P_REMOVE, P_LIST, P_SNPS, P_LD_SNPS, P_CHR, N_PARTS };

/* Two families with parents, sexes known and not, and unrelated samples. */
static const char fam_text[] = "f1 p1 0 0 1 -9\nf1 p2 0 0 2 -9\nf1 c1 p1 p2 1 -9\nf1 c2 p1 x9 2 -9\n"
                               "f2 a 0 0 0 -9\nf2 b a 0 1 -9\nf3 s 0 0 2 -9\nf_4 s_1 0 0 1 -9\n";

/* Variants on autosomes, X, Y, MT and a contig; an ID twice and one with a dash. */
static const char *const var_desc[][3] = {
	{"1", "rs1", "100"}, {"1", "rs2", "200"},  {"1", "rs3", "300"}, {"2", "rs4", "50"},    {"2", "rs2b", "60"},
	{"23", "x1", "10"},  {"24", "y1", "10"},   {"26", "m1", "5"},   {"chrUn", "u-1", "7"}, {"2", "dup", "70"},
	{"2", "dup", "80"},  {"25", "rs9", "90"},
};
enum { N_VARS = sizeof var_desc / sizeof var_desc[0] };

static snp_data_t vars;
static fz_file_t fam;

static void make_vars(void)
{
	long offs[4 * N_VARS];
	vars.var = calloc(N_VARS, sizeof *vars.var);
	for (int i = 0; i < N_VARS; ++i) {
		const char *f[4] = {var_desc[i][0], var_desc[i][1], "A", "C"};
		for (int k = 0; k < 4; ++k) offs[4 * i + k] = snp_pool_add(&vars, f[k], strlen(f[k]));
		vars.var[i].bp = atoll(var_desc[i][2]);
	}
	vars.n_snp = N_VARS;
	snp_data_fix_strings(&vars, offs);
}

static void remove_fam(void)
{
	fz_remove(&fam);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	make_vars();
	fz_write(&fam, (const uint8_t *)fam_text, sizeof fam_text - 1, ".fam");
	atexit(remove_fam);
	return 0;
}

/* An error must carry its code and a message naming the file or the option it is about. */
static void check_err(int rc, const gvk_err_t *err, const char *path, const char *opt)
{
	const char *names[2] = {path ? path : opt, opt};
	fz_check_err_any(rc, err, names, 2);
}

/* --keep, --remove, --make-founders; 0 when samples remain. */
static int select_samples(fz_file_t *files, const size_t *len, size_t size)
{
	snp_samples_t ss = {0};
	gvk_err_t err = {0, ""};
	if (snp_samples_read_fam(fam.path, &ss, &err) < 0) fz_fail("the fixed .fam: %s", err.msg);
	int rc = 0;
	for (int k = 0; k < 2 && rc == 0; ++k) {
		if (!len[P_KEEP + k]) continue;
		int64_t left = -1;
		rc = snp_samples_keep(&ss, files[P_KEEP + k].path, !k, &left, &err);
		check_err(rc, &err, files[P_KEEP + k].path, k ? "--remove" : "--keep");
		if (rc == 0 && (left < 1 || left != snp_samples_count(&ss, 0, -1)))
			fz_fail("%lld samples left, %lld kept", (long long)left, (long long)snp_samples_count(&ss, 0, -1));
	}
	if (rc == 0 && (size & 1) && snp_samples_make_founders(&ss) < 0) fz_fail("--make-founders: out of memory");
	if (rc == 0 && snp_samples_count(&ss, 1, -1) > snp_samples_count(&ss, 0, -1)) fz_fail("more founders than samples");
	snp_samples_free(&ss);
	return rc;
}

/* The parts that are arguments, as NUL-terminated strings; a line each for the lists. */
static char *arg_text(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

static int split_args(char *s, char **args, int max)
{
	int n = 0;
	for (char *p = s; n < max;) {
		args[n++] = p;
		p = strchr(p, '\n');
		if (!p) break;
		*p++ = 0;
	}
	return n;
}

static void check_ranges(const snp_ranges_t *r)
{
	for (int k = 0; k < r->n; ++k) {
		if (!r->name[k][0] || strchr(r->name[k], ',')) fz_fail("list item %d is '%s'", k, r->name[k]);
		if (r->starts[k] && (k + 1 >= r->n || r->starts[k + 1])) fz_fail("list item %d starts a range that does not end", k);
	}
}

/* A list option's arguments parsed; 1 when given and parsed, 0 when not given, or an error. */
static int parse_list(const uint8_t *p, size_t n, const char *flag, snp_ranges_t *r, char **text)
{
	char *args[64];
	gvk_err_t err = {0, ""};
	memset(r, 0, sizeof *r);
	*text = NULL;
	if (!n) return 0;
	*text = arg_text(p, n);
	int rc = snp_ranges_parse(args, split_args(*text, args, 64), flag, r, &err);
	check_err(rc, &err, NULL, flag);
	if (rc == 0) check_ranges(r);
	return rc == 0 ? 1 : rc;
}

/* --chr, --from/--to, --snps, --extract / --exclude as snp_select_vars runs them. */
static int select_variants(const fz_file_t *list, size_t list_len, const uint8_t **part, const size_t *len,
                           const snp_ranges_t *ld_snps, int have_ld_snps, size_t size)
{
	snp_ranges_t snps;
	char *snps_text, *chr = len[P_CHR] ? arg_text(part[P_CHR], len[P_CHR]) : NULL, msg[512];
	int rc = parse_list(part[P_SNPS], len[P_SNPS], "--snps", &snps, &snps_text);
	if (rc >= 0 && chr && snp_chr_list_check(chr, (int)(size >> 1 & 1), msg, sizeof msg) < 0) {
		if (!strstr(msg, "--chr")) fz_fail("a --chr message without its option: %s", msg);
		rc = -1;
	}
	if (rc >= 0) {
		snp_varsel_t o = {chr, NULL, NULL, NULL, NULL, rc == 1 ? &snps : NULL};
		const char *file = list_len ? list->path : NULL;
		if (size >> 2 & 1) o.extract = file;
		else o.exclude = file;
		if ((size >> 4 & 1) && have_ld_snps && !chr && !o.snps)
			o.from = ld_snps->name[0], o.to = ld_snps->n > 1 ? ld_snps->name[1] : NULL;
		uint8_t keep[N_VARS];
		gvk_err_t err = {0, ""};
		rc = snp_select_vars(&vars, &o, keep, &err);
		check_err(rc, &err, file, "--");
	}
	snp_ranges_free(&snps);
	free(snps_text);
	free(chr);
	return rc;
}

/* --ld-snp-list FILE or --ld-snps: the index variants, as many as snp_select_index says. */
static void select_index(const fz_file_t *list, size_t list_len, const snp_ranges_t *ld_snps, int have_ld_snps, size_t size)
{
	const char *file = (size >> 3 & 1) && list_len ? list->path : NULL;
	if (!file && !have_ld_snps) return;
	uint8_t idx[N_VARS];
	gvk_err_t err = {0, ""};
	int64_t n = snp_select_index(&vars, NULL, file, file ? NULL : ld_snps, idx, &err);
	check_err(n < 0 ? (int)n : 0, &err, file, "--ld-snp");
	int64_t marked = 0;
	for (int i = 0; i < N_VARS; ++i) marked += idx[i] != 0;
	if (n >= 0 && (n < 1 || n != marked)) fz_fail("%lld index variants, %lld marked", (long long)n, (long long)marked);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[N_PARTS];
	size_t len[N_PARTS];
	fz_split(data, size, part, len, N_PARTS);
	fz_file_t files[3];
	for (int k = 0; k < 3; ++k) fz_write(&files[k], part[k], len[k], ".txt");
	snp_ranges_t ld_snps;
	char *ld_text;
	int have = parse_list(part[P_LD_SNPS], len[P_LD_SNPS], "--ld-snps", &ld_snps, &ld_text);
	if (have >= 0 && select_samples(files, len, size) == 0 &&
	    select_variants(&files[P_LIST], len[P_LIST], part, len, &ld_snps, have == 1, size) == 0)
		select_index(&files[P_LIST], len[P_LIST], &ld_snps, have == 1, size);
	snp_ranges_free(&ld_snps);
	free(ld_text);
	for (int k = 0; k < 3; ++k) fz_remove(&files[k]);
	return 0;
}
