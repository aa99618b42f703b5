/* SPDX-License-Identifier: MIT */
/* Samples of a dataset as PLINK 1.9 sees them: IDs, parents, sex, the --keep/--remove selection
 * and founder status. */
#ifndef GVK_SNP_SAMPLES_H
#define GVK_SNP_SAMPLES_H

#include <stdint.h>
#include "gvk.h"

typedef struct {
	char *fid, *iid, *pat, *mat; /* one allocation each sample: fid points to it */
	uint8_t sex;                 /* 1 male, 2 female, 0 unknown */
	uint8_t kept;                /* still in after --keep / --remove */
	uint8_t founder;             /* both parents '0', or made a founder by --make-founders */
} snp_sample_t;

typedef struct {
	snp_sample_t *s;
	int64_t n;
} snp_samples_t;

void snp_samples_free(snp_samples_t *ss);

/* Reads a .fam (6 fields a line). Founders are the samples whose two parent IDs are '0'. Errors
 * name the file and line: wrong field count, empty line, duplicate FID+IID. */
int snp_samples_read_fam(const char *path, snp_samples_t *ss, gvk_err_t *err);

/* Samples named by VCF sample IDs as PLINK 1.9 imports them: by default an ID with one '_' is
 * FID_IID and an ID without '_' is both; double_id (--double-id) makes every ID both. All are
 * founders of unknown sex. path is for messages. */
int snp_samples_from_names(char *const *names, int64_t n, int double_id, const char *path, snp_samples_t *ss,
                           gvk_err_t *err);

/* --keep (keep = 1) or --remove (keep = 0): FILE holds one sample a line, FID and IID first. IDs not
 * in the data are ignored; a line with one token is an error, and so is keeping nobody. */
int snp_samples_keep(snp_samples_t *ss, const char *path, int keep, int64_t *left, gvk_err_t *err);

/* --make-founders: a kept non-founder with a parent that is not among the kept samples of its family
 * becomes a founder. Returns how many changed. */
int64_t snp_samples_make_founders(snp_samples_t *ss);

/* Counts among the kept samples. */
int64_t snp_samples_count(const snp_samples_t *ss, int founders_only, int sex);

#endif
