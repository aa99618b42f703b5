/* SPDX-License-Identifier: MIT */
/* gvk_ld_job_opts_*: gvk ld's options with PLINK 1.9's defaults and the rules between them that
 * hold before anything is read; the messages are gvk ld's, naming the option. */
#include <stdio.h>
#include <string.h>

#include "ld_job.h"
#include "ld_write.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "../snp/snp_chrom.h"

void gvk_ld_job_opts_init(gvk_ld_job_opts_t *o)
{
	if (!o) return;
	memset(o, 0, sizeof *o);
	o->out_prefix = "plink";
	o->window_snps = 10, o->window_kb = 1000, o->window_cm = -1, o->window_r2 = 0.2;
	o->geno = 1.0, o->mind = 1.0;
	gvk_ld_prune_opts_init(&o->prune);
	o->clump_p1 = 1e-4, o->clump_p2 = 0.01, o->clump_r2 = 0.5, o->clump_kb = 250;
	gvk_log_default(&o->log);
}

void ld_job_args_from(const gvk_ld_job_opts_t *o, ld_job_args_t *a)
{
	memset(a, 0, sizeof *a);
	*a = (ld_job_args_t){.bfile = o->bfile, .bed = o->bed, .bim = o->bim, .fam = o->fam, .vcf = o->vcf,
	                     .out_prefix = o->out_prefix, .out = o->out, .chr = o->chr, .extract = o->extract,
	                     .exclude = o->exclude, .keep = o->keep, .remove = o->remove, .from = o->from, .to = o->to,
	                     .ld_snp = o->ld_snp, .ld_snp_list = o->ld_snp_list, .snps = (char **)o->snps,
	                     .ld_snps = (char **)o->ld_snps, .n_snps = o->n_snps, .n_ld_snps = o->n_ld_snps,
	                     .stat_set = o->stat_set, .r2 = o->r2, .gz = o->gz, .shape_set = o->shape_set, .bin = o->bin,
	                     .spaces = o->spaces, .with_freqs = o->with_freqs, .in_phase = o->in_phase, .dcol = o->dcol,
	                     .dprime = o->dprime, .yes_really = o->yes_really, .phased = o->phased,
	                     .keep_allele_order = o->keep_allele_order, .make_founders = o->make_founders,
	                     .nonfounders = o->nonfounders, .allow_extra = o->allow_extra_chr, .double_id = o->double_id,
	                     .verbose = o->verbose, .win_set = o->window_set, .r2_set = o->window_r2_set,
	                     .out_set = o->out_set, .geno = o->geno, .maf = o->maf, .mind = o->mind, .hwe = o->hwe,
	                     .hwe_midp = o->hwe_midp, .r2_min = o->window_r2, .prune_set = o->prune_set,
	                     .clump_set = o->clump_set, .clump_files = (char **)o->clump_files,
	                     .n_clump_files = o->n_clump_files, .clump_field = (char **)o->clump_field,
	                     .clump_snp_field = (char **)o->clump_snp_field, .n_clump_field = o->n_clump_field,
	                     .n_clump_snp_field = o->n_clump_snp_field, .clump_verbose = o->clump_verbose,
	                     .argc = o->argc, .argv = (char **)o->argv};
	ld_opt_init(&a->ld);
	a->ld.shape = o->shape, a->ld.inter_chr = o->inter_chr;
	a->ld.win_snps = o->window_snps, a->ld.win_bp = ld_window_bp(o->window_kb);
	a->ld.win_cm = o->window_cm < 0 ? -1 : ld_window_cm(o->window_cm);
	a->ld.threads = o->threads > 0 ? o->threads : gvk_ncpu();
	a->ld.device = o->device, a->ld.isa = o->isa;
	a->ld.gpu.path = o->gpu_path, a->ld.gpu.mem = o->gpu_mem, a->ld.gpu.log = o->log;
	/* PLINK: bin without a shape is a square matrix */
	if (a->bin && !a->shape_set) a->ld.shape = LD_SQUARE, a->shape_set = 1;
	a->ld.em = ld_job_args_em(a);
	a->prune = (ld_prune_opt_t){.win = o->prune.window, .kb = o->prune.window_kb != 0, .step = o->prune.step,
	                            .r2 = o->prune.r2, .mode = o->prune.mode};
	ld_clump_opt_init(&a->clump);
	a->clump.p1 = o->clump_p1, a->clump.p2 = o->clump_p2, a->clump.r2 = o->clump_r2;
	a->clump.bp_radius = ld_clump_kb_radius(o->clump_kb);
	a->clump.allow_overlap = o->clump_allow_overlap, a->clump.index_first = o->clump_index_first;
}

int ld_job_args_em(const ld_job_args_t *a) { return (a->dcol || a->dprime) && !a->phased; }

/* Which runs the options ask for, one at a time. */
static int check_runs(const gvk_ld_job_opts_t *o, gvk_err_t *err)
{
	if (!o->bfile && !o->bed && !o->bim && !o->fam && !o->vcf)
		return gvk_err_set(err, GVK_ERR_ARG, "no input: give --bfile PREFIX (or --bed, --bim and --fam), or --vcf FILE");
	if (!o->stat_set && !o->prune_set && !o->clump_set)
		return gvk_err_set(err, GVK_ERR_ARG, "give --r, --r2, --indep-pairwise, --indep-pairphase, --indep or --clump");
	if (o->clump_set && (o->stat_set || o->prune_set))
		return gvk_err_set(err, GVK_ERR_ARG, "give --clump and --r/--r2 or --indep* in separate runs");
	if (o->stat_set && o->prune_set)
		return gvk_err_set(err, GVK_ERR_ARG, "give --r/--r2 and %s in separate runs", ld_prune_mode_name(o->prune.mode));
	/* PLINK reads its options in name order, so p2 is checked against the final p1 */
	if (o->clump_set && o->clump_p2 < o->clump_p1)
		return gvk_err_set(err, GVK_ERR_ARG, "--clump-p2 (%g) must not be below --clump-p1 (%g)", o->clump_p2, o->clump_p1);
	return 0;
}

/* PLINK's rules between the modifiers and the window options. */
static int check_modifiers(const gvk_ld_job_opts_t *o, gvk_err_t *err)
{
	int matrix = o->shape_set || o->bin;
	if (o->gz && o->bin) return gvk_err_set(err, GVK_ERR_ARG, "'gz' applies to text output, not to bin/bin4");
	if (o->gz && !ld_writer_gz_available())
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "this gvk was built without zlib, so 'gz' is not available");
	if (o->spaces && (!matrix || o->bin)) return gvk_err_set(err, GVK_ERR_ARG, "'spaces' applies to text matrix output only");
	int idx1 = o->ld_snp || o->ld_snp_list || o->ld_snps;
	if (matrix) {
		if (o->window_set || o->window_r2_set)
			return gvk_err_set(err, GVK_ERR_ARG, "--ld-window* options cannot be used with matrix output (square, square0, triangle, bin)");
		if (o->inter_chr || o->with_freqs || o->in_phase || o->dcol || o->dprime)
			return gvk_err_set(err, GVK_ERR_ARG, "inter-chr, with-freqs, in-phase, d and dprime apply to table output only");
		if (idx1) return gvk_err_set(err, GVK_ERR_ARG, "--ld-snp, --ld-snps and --ld-snp-list apply to table output only");
	}
	if (o->inter_chr && o->window_set)
		return gvk_err_set(err, GVK_ERR_ARG, "--ld-window, --ld-window-kb and --ld-window-cm cannot be used with inter-chr");
	if (!o->phased && o->dcol && o->dprime)
		return gvk_err_set(err, GVK_ERR_ARG, "'d' cannot be used with 'dprime' or 'dprime-signed' (as in PLINK)");
	return 0;
}

/* The variant and sample selection options among themselves and with the input. */
static int check_selection(const gvk_ld_job_opts_t *o, gvk_err_t *err)
{
	char msg[256];
	if (o->chr && snp_chr_list_check(o->chr, o->allow_extra_chr, msg, sizeof msg) < 0)
		return gvk_err_set(err, GVK_ERR_ARG, "%s", msg);
	if ((o->from || o->to) && o->chr) return gvk_err_set(err, GVK_ERR_ARG, "--from and --to cannot be used with --chr");
	if ((o->from || o->to) && o->snps) return gvk_err_set(err, GVK_ERR_ARG, "--snps cannot be used with --from or --to");
	if ((o->ld_snp != NULL) + (o->ld_snp_list != NULL) + (o->ld_snps != NULL) > 1)
		return gvk_err_set(err, GVK_ERR_ARG, "give only one of --ld-snp, --ld-snps and --ld-snp-list");
	if (o->hwe > 0 && o->nonfounders)
		return gvk_err_set(err, GVK_ERR_ARG, "--hwe with --nonfounders is not supported (the test counts founders)");
	if (o->mind < 1 && o->vcf) return gvk_err_set(err, GVK_ERR_ARG, "--mind applies to --bfile input only in gvk ld");
	if (o->phased && (o->keep || o->remove || o->geno < 1 || o->maf > 0 || o->make_founders || o->nonfounders))
		return gvk_err_set(err, GVK_ERR_ARG, "--keep, --remove, --geno, --maf, --make-founders and --nonfounders apply to "
		                                     "genotypes, not to --phased haplotypes");
	if (o->vcf && (o->bfile || o->bed || o->bim || o->fam))
		return gvk_err_set(err, GVK_ERR_ARG, "give either --vcf or --bfile, not both");
	return 0;
}

/* Values out of the ranges the command line lets through, for a program that fills the fields. */
static int check_values(const gvk_ld_job_opts_t *o, gvk_err_t *err)
{
	if (!o->out_prefix || !*o->out_prefix) return gvk_err_set(err, GVK_ERR_ARG, "out_prefix: NULL or empty");
	if (o->shape < GVK_LD_JOB_TABLE || o->shape > GVK_LD_JOB_TRIANGLE) return gvk_err_set(err, GVK_ERR_ARG, "shape: %d is no GVK_LD_JOB_* shape", o->shape);
	if (o->bin != 0 && o->bin != 4 && o->bin != 8) return gvk_err_set(err, GVK_ERR_ARG, "bin: give 0, 4 or 8");
	if (o->window_snps < 2) return gvk_err_set(err, GVK_ERR_ARG, "window_snps (--ld-window): at least 2");
	if (o->window_kb < 0) return gvk_err_set(err, GVK_ERR_ARG, "window_kb (--ld-window-kb): must not be negative");
	if (!(o->window_r2 >= 0 && o->window_r2 <= 1)) return gvk_err_set(err, GVK_ERR_ARG, "window_r2 (--ld-window-r2): in [0, 1]");
	if (!(o->geno >= 0 && o->geno <= 1) || !(o->mind >= 0 && o->mind <= 1) || !(o->maf >= 0 && o->maf <= 0.5) ||
	    !(o->hwe >= 0 && o->hwe < 1))
		return gvk_err_set(err, GVK_ERR_ARG, "geno, mind (0 .. 1), maf (0 .. 0.5) or hwe ([0, 1)) out of range");
	if ((o->n_snps && !o->snps) || (o->n_ld_snps && !o->ld_snps) || (o->n_clump_files && !o->clump_files) ||
	    (o->n_clump_field && !o->clump_field) || (o->n_clump_snp_field && !o->clump_snp_field) || (o->argc && !o->argv))
		return gvk_err_set(err, GVK_ERR_ARG, "an array (snps, ld_snps, clump_*, argv) is NULL with a count");
	return 0;
}

int gvk_ld_job_opts_check(const gvk_ld_job_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_set(err, GVK_ERR_ARG, "gvk_ld_job_opts_check: the options o is NULL");
	int rc = check_runs(o, err);
	if (rc == 0) rc = check_values(o, err);
	if (rc == 0) rc = check_modifiers(o, err);
	if (rc == 0) rc = check_selection(o, err);
	return rc;
}

void ld_job_phase(const gvk_log_t *log, int verbose, const char *what, double *t)
{
	double now = gvk_seconds();
	if (verbose) gvk_logf(log, GVK_LOG_INFO, "%s %.3f s", what, now - *t);
	*t = now;
}
