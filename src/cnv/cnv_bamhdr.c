/* SPDX-License-Identifier: MIT */
/* Sample names and BED contig checks from BAM/CRAM headers (see cnv_bamhdr.h). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/log.h"
#include "cnv.h"
#include "cnv_bamhdr.h"

char *cnv_path_sample(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *s = strdup(b);
	if (!s) return NULL;
	size_t n = strlen(s);
	if (n > 4 && !strcmp(s + n - 4, ".bam")) s[n - 4] = 0;
	else if (n > 5 && !strcmp(s + n - 5, ".cram")) s[n - 5] = 0;
	return s;
}

/* The files without SM, listed in one note: a run over many files says it once. */
static void note_file_names(char *const *sm, const char *const *paths, int n, const gvk_cnv_bam_opts_t *o)
{
	int k = 0;
	for (int f = 0; f < n; ++f)
		if (!sm[f]) ++k;
	if (k == 0 || !gvk_log_on(&o->log, GVK_LOG_INFO)) return;
	char text[1024];
	size_t at = (size_t)snprintf(text, sizeof text, "no @RG SM in ");
	for (int f = 0, shown = 0; f < n && at < sizeof text; ++f) {
		if (sm[f]) continue;
		if (shown == 3) {
			at += (size_t)snprintf(text + at, sizeof text - at, " and %d more", k - shown);
			break;
		}
		at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", shown ? ", " : "", paths[f]);
		++shown;
	}
	if (at < sizeof text) snprintf(text + at, sizeof text - at, "; sample names taken from the file name%s", k > 1 ? "s" : "");
	gvk_logf(&o->log, GVK_LOG_INFO, "%s", text);
}

int cnv_sample_names(char **sm, const char *const *paths, int n, const gvk_cnv_bam_opts_t *o, gvk_err_t *err)
{
	note_file_names(sm, paths, n, o);
	for (int f = 0; f < n; ++f)
		if (!sm[f] && !(sm[f] = cnv_path_sample(paths[f]))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	/* quadratic, but over files: a cohort of thousands compares a few million short strings */
	for (int f = 1; f < n; ++f)
		for (int g = 0; g < f; ++g)
			if (!strcmp(sm[f], sm[g]))
				return gvk_err_set(err, GVK_ERR_ARG,
				                   "%s and %s are both sample '%s' (@RG SM, or the file name without one); cn.mops "
				                   "needs one file per sample: merge them, or fix the header (samtools addreplacerg)",
				                   paths[g], paths[f], sm[f]);
	return 0;
}

#ifdef GVK_HAVE_HTSLIB
#include <htslib/kstring.h>

int cnv_hdr_sample(const sam_hdr_t *h, const char *path, char **sm, gvk_err_t *err)
{
	*sm = NULL;
	int n = sam_hdr_count_lines((sam_hdr_t *)h, "RG");
	kstring_t ks = {0, 0, NULL};
	int rc = 0;
	for (int i = 0; i < n && rc == 0; ++i) {
		if (sam_hdr_find_tag_pos((sam_hdr_t *)h, "RG", i, "SM", &ks) < 0 || ks.l == 0) continue;
		if (!*sm) {
			if (!(*sm = strdup(ks.s))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		} else if (strcmp(*sm, ks.s)) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT,
			                 "%s: read groups of two samples ('%s', '%s' in @RG SM); cn.mops counts one sample per "
			                 "file: split it (samtools split)", path, *sm, ks.s);
		}
	}
	free(ks.s);
	if (rc < 0) {
		free(*sm);
		*sm = NULL;
	}
	return rc;
}

/* The name as the other convention spells it: 'chr1' <-> '1', 'chrM' <-> 'MT'; NULL when none. */
static const char *other_spelling(const char *name, char *buf, size_t len)
{
	if (!strcmp(name, "MT")) return "chrM";
	if (!strcmp(name, "chrM")) return "MT";
	if (!strncmp(name, "chr", 3) && name[3]) return name + 3;
	snprintf(buf, len, "chr%s", name);
	return buf;
}

/* The first few @SQ names, for a message. */
static void header_names(const sam_hdr_t *h, char *buf, size_t len)
{
	int n = sam_hdr_nref(h), k = 0;
	size_t at = 0;
	buf[0] = 0;
	for (; k < n && k < 3 && at < len; ++k)
		at += (size_t)snprintf(buf + at, len - at, "%s'%s'", k ? ", " : "", sam_hdr_tid2name(h, k));
	if (k < n && at < len) snprintf(buf + at, len - at, "...");
}

int cnv_check_bed_contigs(const sam_hdr_t *h, const char *bam_path, const char *bed_path, char *const *names, int n,
                          const gvk_cnv_bam_opts_t *o, gvk_err_t *err)
{
	char has[256], buf[256];
	int found = 0;
	header_names(h, has, sizeof has);
	for (int q = 0; q < n; ++q) {
		if (sam_hdr_name2tid((sam_hdr_t *)h, names[q]) >= 0) {
			++found;
			continue;
		}
		const char *alt = other_spelling(names[q], buf, sizeof buf);
		if (sam_hdr_name2tid((sam_hdr_t *)h, alt) >= 0)
			return gvk_err_set(err, GVK_ERR_FORMAT,
			                   "BED contig '%s' is not in %s's header (it has %s; '%s' would match); rename the "
			                   "contigs of %s to the BAM's names", names[q], bam_path, has, alt, bed_path);
	}
	if (found == 0) {
		char first[200];
		snprintf(first, sizeof first, "'%s'%s", names[0], n > 1 ? ", ..." : "");
		return gvk_err_set(err, GVK_ERR_FORMAT,
		                   "none of the contigs of %s (%s) is in %s's header (it has %s); rename the contigs to the "
		                   "BAM's names", bed_path, first, bam_path, has);
	}
	for (int q = 0; q < n; ++q)
		if (sam_hdr_name2tid((sam_hdr_t *)h, names[q]) < 0)
			gvk_logf(&o->log, GVK_LOG_INFO, "note: BED contig '%s' is not in %s's header; its targets count 0", names[q],
			         bam_path);
	return 0;
}

/* The windows of length wl over the header's sequences, as cnv_bam.c lays them out. */
static double header_windows(const sam_hdr_t *h, int64_t wl)
{
	double m = 0;
	for (int q = 0; q < sam_hdr_nref(h); ++q) {
		int64_t L = sam_hdr_tid2len(h, q);
		if (wl >= L) m += 1;
		else m += (double)((L - (L % wl == 0) + wl - 1) / wl);
	}
	return m;
}

static int windows_fit(double m, double per, double have) { return m <= INT_MAX && m * per <= have; }

int cnv_check_windows(const sam_hdr_t *h, int wl, int n_samples, gvk_err_t *err)
{
	gvk_cnv_opts_t d; /* the model the counts are for, as far as counting knows it */
	gvk_cnv_opts_init(&d, 0);
	const double per = cnv_region_bytes(n_samples, d.n_classes, 0), have = cnv_phys_bytes();
	double m = header_windows(h, wl);
	if (windows_fit(m, per, have)) return 0;
	/* The shortest window that fits, to say what to give instead; up to the longest sequence,
	 * beyond which only fewer sequences (targets) help. */
	int64_t longest = 1, w = wl;
	for (int q = 0; q < sam_hdr_nref(h); ++q)
		if (sam_hdr_tid2len(h, q) > longest) longest = sam_hdr_tid2len(h, q);
	while (w < longest && w < INT_MAX && !windows_fit(header_windows(h, w), per, have)) w = w + w / 8 + 1;
	char fix[160];
	if (w < INT_MAX && windows_fit(header_windows(h, w), per, have))
		snprintf(fix, sizeof fix, "give a window length of at least %lld (-w) or count in target intervals (--bed)", (long long)w);
	else snprintf(fix, sizeof fix, "count in target intervals (--bed) over fewer sequences");
	if (m > INT_MAX)
		return gvk_err_set(err, GVK_ERR_ARG, "windows of %d bases over the %d sequences of the BAM header make %.0f "
		                   "windows, more than the %d a count matrix holds: %s", wl, sam_hdr_nref(h), m, INT_MAX, fix);
	return gvk_err_set(err, GVK_ERR_NOMEM,
	                   "windows of %d bases over the %d sequences of the BAM header make %.0f windows; their counts "
	                   "and the cn.MOPS model of %d samples need about %.1f GiB, more than the %.1f GiB of memory "
	                   "here: %s", wl, sam_hdr_nref(h), m, n_samples, m * per / (1 << 30), have / (1 << 30), fix);
}
#endif
