/* SPDX-License-Identifier: MIT */
/* The SNP panel of a version 2 .fidb file: one text line per SNP, "chromosome TAB ID TAB position
 * TAB allele1 TAB allele2 LF", allele 1 being the allele whose carriers have the SNP's bit set, and
 * the FNV-1a 64-bit hash of those bytes. Queries are searched against a database only when both
 * were made on the same panel; the hash names a panel in one number. */
#ifndef GVK_SNP_FID_PANEL_H
#define GVK_SNP_FID_PANEL_H

#include <stdint.h>
#include "gvk.h"

typedef struct {
	const char *chr, *id;
	int64_t pos;
	const char *a1, *a2; /* a1: the allele the bit marks (ALT, the .bim A1, or the minor allele) */
} fid_snp_t;

typedef struct {
	int present;    /* 0: the file has no panel (version 1) */
	uint32_t n;     /* SNPs */
	fid_snp_t *snp; /* n entries; strings point into text */
	char *raw;      /* the section as stored, len bytes; owned */
	char *text;     /* a copy with every separator turned into a NUL; owned */
	uint64_t len;
	uint64_t hash;  /* fid_fnv1a of raw */
} fid_panel_t;

/* FNV-1a, 64 bits, over len bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3). */
uint64_t fid_fnv1a(const void *p, size_t len);

/* Parses and checks a panel section of len bytes that must describe n_snp SNPs. raw (malloc'ed,
 * len + 1 bytes) is taken over, also on failure. Errors name path and the SNP's index. */
int fid_panel_parse(fid_panel_t *pl, char *raw, uint64_t len, uint32_t n_snp, const char *path, gvk_err_t *err);

/* Builds a panel from n SNP descriptions, refusing fields that break the text rule
 * (fid_field.h), naming the SNP. */
int fid_panel_build(fid_panel_t *pl, const fid_snp_t *snp, uint32_t n, gvk_err_t *err);

/* 0 when a (of file apath) and b (of bpath) list the same SNPs, or when either has no panel;
 * otherwise GVK_ERR_FORMAT naming the first SNP that differs, as each file has it. */
int fid_panel_match(const fid_panel_t *a, const char *apath, const fid_panel_t *b, const char *bpath, gvk_err_t *err);

void fid_panel_free(fid_panel_t *pl);

#endif
