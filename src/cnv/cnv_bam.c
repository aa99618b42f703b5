/* Read counting from indexed BAM/CRAM files (spec section 2): each record that is mapped and has
 * MAPQ >= min_mapq counts once, at its leftmost aligned position, in every window or target that
 * contains it; no flag filtering. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "cnv.h"

void gvk_cnv_bam_opt_init(gvk_cnv_bam_opt_t *o)
{
	o->wl = 25000;
	o->min_mapq = 1;
	o->threads = 1;
	o->reference = NULL;
}

/* Sample name of a path: the base name without .bam / .cram. */
static char *sample_name(const char *path)
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

#ifdef GVK_HAVE_HTSLIB
#include <htslib/sam.h>

int gvk_cnv_have_bam(void)
{
	return 1;
}

/* Fixed windows over every @SQ (spec 2.1), including the package's start-0 single window and the
 * dropped last base of a sequence whose length is a multiple of the window length. */
static int windows_layout(const sam_hdr_t *h, int wl, cnv_layout_t *l, gvk_err_t *err)
{
	int ns = sam_hdr_nref(h);
	size_t m = 0;
	if (ns < 1) return gvk_err_set(err, GVK_ERR_FORMAT, "the BAM header has no @SQ lines");
	for (int q = 0; q < ns; ++q) {
		int64_t L = sam_hdr_tid2len(h, q);
		if (wl >= L) m += 1;
		else {
			if (L % wl == 0) --L;
			m += (size_t)((L + wl - 1) / wl);
		}
	}
	memset(l, 0, sizeof *l);
	l->n_seqs = ns, l->m = (int)m;
	l->names = calloc((size_t)ns, sizeof *l->names);
	l->off = malloc((size_t)(ns + 1) * sizeof *l->off);
	l->start = malloc((m ? m : 1) * sizeof *l->start), l->end = malloc((m ? m : 1) * sizeof *l->end);
	if (!l->names || !l->off || !l->start || !l->end) goto nomem;
	int r = 0;
	for (int q = 0; q < ns; ++q) {
		if (!(l->names[q] = strdup(sam_hdr_tid2name(h, q)))) goto nomem;
		l->off[q] = r;
		int64_t L = sam_hdr_tid2len(h, q);
		if (wl >= L) {
			l->start[r] = 0, l->end[r] = L, ++r;
			continue;
		}
		if (L % wl == 0) --L;
		for (int64_t s = 1; s <= L; s += wl) l->start[r] = s, l->end[r] = s + wl - 1 < L ? s + wl - 1 : L, ++r;
	}
	l->off[ns] = r;
	return 0;
nomem:
	cnv_layout_free(l);
	return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the window layout");
}

typedef struct {
	const char *const *paths;
	int n;
	const gvk_cnv_bam_opt_t *o;
	const cnv_layout_t *l;
	const sam_hdr_t *h0;
	double *x;                  /* N x m */
	int nth;
	gvk_err_t *errs;            /* one per file */
	int *rcs;
} count_run_t;

static int same_dict(const sam_hdr_t *a, const sam_hdr_t *b)
{
	if (sam_hdr_nref(a) != sam_hdr_nref(b)) return 0;
	for (int q = 0; q < sam_hdr_nref(a); ++q)
		if (strcmp(sam_hdr_tid2name(a, q), sam_hdr_tid2name(b, q)) || sam_hdr_tid2len(a, q) != sam_hdr_tid2len(b, q))
			return 0;
	return 1;
}

static int count_one(count_run_t *run, int f, gvk_err_t *err)
{
	const char *path = run->paths[f];
	const cnv_layout_t *l = run->l;
	int rc = 0;
	samFile *fp = sam_open(path, "r");
	sam_hdr_t *h = NULL;
	hts_idx_t *idx = NULL;
	bam1_t *b = bam_init1();
	double *col = run->x + (size_t)f * l->m;
	if (!fp) {
		rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot open", path);
		goto out;
	}
	if (run->o->reference) hts_set_fai_filename(fp, run->o->reference);
	/* more threads than files: the spare ones decompress */
	int extra = run->o->threads / run->n - 1;
	if (extra > 0) hts_set_threads(fp, extra);
	if (!(h = sam_hdr_read(fp))) {
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: cannot read the header (not SAM/BAM/CRAM?)", path);
		goto out;
	}
	if (!same_dict(h, run->h0)) {
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: its reference dictionary (@SQ names and lengths) differs from %s's",
		                 path, run->paths[0]);
		goto out;
	}
	if (!(idx = sam_index_load(fp, path))) {
		rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: no index found (.bai/.csi/.crai); sort and index it (samtools index)", path);
		goto out;
	}
	for (int q = 0; q < l->n_seqs && rc == 0; ++q) {
		int r0 = l->off[q], r1 = l->off[q + 1];
		int tid = sam_hdr_name2tid(h, l->names[q]);
		if (r0 == r1 || tid < 0) continue;
		int64_t lo = INT64_MAX, hi = 0;
		for (int r = r0; r < r1; ++r) {
			if (l->start[r] < lo) lo = l->start[r];
			if (l->end[r] > hi) hi = l->end[r];
		}
		int fixed = 1; /* disjoint sorted windows: position -> row by bisection */
		for (int r = r0 + 1; r < r1; ++r)
			if (l->start[r] <= l->end[r - 1]) fixed = 0;
		hts_itr_t *it = sam_itr_queryi(idx, tid, lo > 0 ? lo - 1 : 0, hi);
		if (!it) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: index query on %s failed", path, l->names[q]);
			break;
		}
		int64_t prev = -1;
		int ret;
		while ((ret = sam_itr_next(fp, it, b)) >= 0) {
			if (b->core.pos < prev) {
				rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: not sorted by coordinate (%s:%lld after %lld)", path, l->names[q],
				                 (long long)b->core.pos + 1, (long long)prev + 1);
				break;
			}
			prev = b->core.pos;
			if ((b->core.flag & BAM_FUNMAP) || b->core.qual < run->o->min_mapq) continue;
			int64_t pos = b->core.pos + 1;
			if (fixed) {
				int a = r0, z = r1 - 1;
				while (a < z) {
					int mid = (a + z + 1) / 2;
					if (l->start[mid] <= pos) a = mid;
					else z = mid - 1;
				}
				if (l->start[a] <= pos && pos <= l->end[a]) col[a] += 1;
			} else {
				for (int r = r0; r < r1; ++r)
					if (l->start[r] <= pos && pos <= l->end[r]) col[r] += 1;
			}
		}
		if (rc == 0 && ret < -1) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: truncated or corrupt data in %s", path, l->names[q]);
		hts_itr_destroy(it);
	}
out:
	bam_destroy1(b);
	if (idx) hts_idx_destroy(idx);
	if (h) sam_hdr_destroy(h);
	if (fp) sam_close(fp);
	return rc;
}

static void count_worker(void *arg, int tid)
{
	count_run_t *run = arg;
	for (int f = tid; f < run->n; f += run->nth) run->rcs[f] = count_one(run, f, &run->errs[f]);
}

int gvk_cnv_count_bams(const char *const *paths, int n_paths, const char *bed_path, const gvk_cnv_bam_opt_t *o,
                       gvk_cnv_counts_t *c, gvk_err_t *err)
{
	memset(c, 0, sizeof *c);
	if (n_paths < 2) return gvk_err_set(err, GVK_ERR_ARG, "cn.mops needs at least two samples (got %d BAM file%s)", n_paths, n_paths == 1 ? "" : "s");
	if (!bed_path && o->wl < 1) return gvk_err_set(err, GVK_ERR_ARG, "the window length must be positive");
	samFile *fp = sam_open(paths[0], "r");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open", paths[0]);
	sam_hdr_t *h0 = sam_hdr_read(fp);
	sam_close(fp);
	if (!h0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: cannot read the header (not SAM/BAM/CRAM?)", paths[0]);
	cnv_layout_t l;
	int rc = bed_path ? cnv_read_bed(bed_path, &l, err) : windows_layout(h0, o->wl, &l, err);
	if (rc < 0) {
		sam_hdr_destroy(h0);
		return rc;
	}
	count_run_t run = {paths, n_paths, o, &l, h0, calloc((size_t)l.m * n_paths, sizeof(double)),
	                   o->threads < 1 ? 1 : (o->threads > n_paths ? n_paths : o->threads),
	                   calloc((size_t)n_paths, sizeof(gvk_err_t)), calloc((size_t)n_paths, sizeof(int))};
	if (!run.x || !run.errs || !run.rcs) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the counts");
		goto out;
	}
	gvk_parallel(run.nth, count_worker, &run);
	for (int f = 0; f < n_paths; ++f)
		if (run.rcs[f] < 0) {
			if (err) *err = run.errs[f];
			rc = run.rcs[f];
			goto out;
		}
	c->m = l.m, c->N = n_paths, c->n_seqs = l.n_seqs;
	c->samples = calloc((size_t)n_paths, sizeof *c->samples);
	if (!c->samples) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (int f = 0; f < n_paths; ++f)
		if (!(c->samples[f] = sample_name(paths[f]))) {
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			goto out;
		}
	c->seq_names = l.names, c->seq_off = l.off, c->start = l.start, c->end = l.end, c->x = run.x;
	memset(&l, 0, sizeof l);
	run.x = NULL;
out:
	if (rc < 0) gvk_cnv_counts_free(c);
	cnv_layout_free(&l);
	free(run.x), free(run.errs), free(run.rcs);
	sam_hdr_destroy(h0);
	return rc;
}

#else

int gvk_cnv_have_bam(void)
{
	return 0;
}

int gvk_cnv_count_bams(const char *const *paths, int n_paths, const char *bed, const gvk_cnv_bam_opt_t *o,
                       gvk_cnv_counts_t *c, gvk_err_t *err)
{
	(void)paths, (void)n_paths, (void)bed, (void)o, (void)sample_name;
	memset(c, 0, sizeof *c);
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED,
	                   "this gvk was built without htslib, so it cannot read BAM/CRAM; give a count matrix with --counts "
	                   "or rebuild with htslib (Debian: libhts-dev)");
}
#endif
