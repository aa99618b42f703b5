/* SPDX-License-Identifier: MIT */
/* Read counting from indexed BAM/CRAM files (docs/cnv.md, Semantics 1): each record that is mapped and has
 * MAPQ >= min_mapq counts once, at its leftmost aligned position, in every window or target that
 * contains it; no flag filtering. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../common/err.h"
#include "../common/threads.h"
#include "cnv.h"
#include "cnv_bamhdr.h"
#include "cnv_progress.h"

void gvk_cnv_bam_opts_init(gvk_cnv_bam_opts_t *o)
{
	if (!o) return;
	o->wl = 25000;
	o->min_mapq = 1;
	o->threads = 1;
	o->reference = NULL;
	gvk_log_default(&o->log);
	o->progress_fn = NULL;
	o->progress_arg = NULL;
}

/* The NULL pointers gvk.h refuses, in the order of the arguments; *c zeroed where given. fn: the
 * public call, for the message. */
static int null_args(const char *fn, const char *const *paths, int n_paths, const gvk_cnv_bam_opts_t *o,
                     gvk_cnv_counts_t *c, gvk_err_t *err)
{
	if (c) memset(c, 0, sizeof *c);
	if (!paths && n_paths > 0) return gvk_err_null(err, fn, "paths");
	for (int k = 0; k < n_paths; ++k)
		if (!paths[k]) return gvk_err_set(err, GVK_ERR_ARG, "%s: paths[%d] is NULL", fn, k);
	if (!o) return gvk_err_null(err, fn, "o");
	return c ? 0 : gvk_err_null(err, fn, "c");
}

static int count_share(const char *const *paths, int n_paths, const char *bed_path, const gvk_cnv_bam_opts_t *o,
                       int share, int shares, int *row0, int *row1, gvk_cnv_counts_t *c, gvk_err_t *err);

int gvk_cnv_count_bams(const char *const *paths, int n_paths, const char *bed_path, const gvk_cnv_bam_opts_t *o,
                       gvk_cnv_counts_t *c, gvk_err_t *err)
{
	int row0, row1, rc = null_args(__func__, paths, n_paths, o, c, err);
	return rc < 0 ? rc : count_share(paths, n_paths, bed_path, o, 0, 1, &row0, &row1, c, err);
}

int gvk_cnv_count_bams_share(const char *const *paths, int n_paths, const char *bed_path, const gvk_cnv_bam_opts_t *o,
                             int share, int shares, int *row0, int *row1, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	int rc = null_args(__func__, paths, n_paths, o, c, err);
	if (rc == 0 && (!row0 || !row1)) rc = gvk_err_null(err, __func__, !row0 ? "row0" : "row1");
	if (rc == 0 && (shares < 1 || share < 0 || share >= shares))
		rc = gvk_err_set(err, GVK_ERR_ARG, "%s: share %d of %d (need 0 <= share < shares)", __func__, share, shares);
	return rc < 0 ? rc : count_share(paths, n_paths, bed_path, o, share, shares, row0, row1, c, err);
}

#ifdef GVK_HAVE_HTSLIB
#include <htslib/sam.h>

int gvk_cnv_have_bam(void)
{
	return 1;
}

/* Fixed windows over every @SQ (docs/cnv.md, Semantics 1), including the package's start-0 single window and the
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

/* A part of a file's work: rows [r0, r1) of sequence q, read through one index query. The rows
 * of a sequence are split so that there are several parts per thread: files of unequal depth,
 * and fewer files than threads, still keep every thread busy. Each row belongs to one part, so
 * the counts do not depend on how the work was split. */
typedef struct {
	int q, r0, r1;
} count_part_t;

typedef struct {
	const char *const *paths;
	int n;
	const gvk_cnv_bam_opts_t *o;
	const cnv_layout_t *l;
	const sam_hdr_t *h0;
	double *x;                  /* N x m */
	int nth;
	count_part_t *parts;        /* the same parts for every file */
	int n_parts;
	atomic_long next;           /* the next task: file * n_parts + part */
	atomic_int *left;           /* per file: parts not finished, for the progress line */
	pthread_mutex_t lock;       /* errs, rcs, bad_part */
	gvk_err_t *errs;            /* one per file: that of its first failing part */
	int *rcs;
	int *bad_part;
	cnv_progress_t *prog;
} count_run_t;

static int same_dict(const sam_hdr_t *a, const sam_hdr_t *b)
{
	if (sam_hdr_nref(a) != sam_hdr_nref(b)) return 0;
	for (int q = 0; q < sam_hdr_nref(a); ++q)
		if (strcmp(sam_hdr_tid2name(a, q), sam_hdr_tid2name(b, q)) || sam_hdr_tid2len(a, q) != sam_hdr_tid2len(b, q))
			return 0;
	return 1;
}

/* The parts of the layout: one per sequence with one thread (or more files than threads can
 * share), else pieces of at most span / (4 threads / files) bases. NULL: no memory. */
static count_part_t *split_parts(const cnv_layout_t *l, int nth, int n_files, double span, int *n_parts)
{
	int per_file = nth > 1 ? (4 * nth + n_files - 1) / n_files : 1;
	double most = per_file > 1 ? span / per_file : 0;
	size_t cap = (size_t)l->n_seqs + (size_t)per_file + 1, n = 0;
	count_part_t *p = malloc(cap * sizeof *p);
	for (int q = 0; p && q < l->n_seqs; ++q) {
		int r = l->off[q], end = l->off[q + 1];
		do {
			int r1 = r + 1;
			if (most > 0)
				while (r1 < end && (double)(l->end[r1] - l->start[r]) <= most) ++r1;
			else r1 = end > r ? end : r;
			if (n == cap) {
				count_part_t *np = realloc(p, (cap *= 2) * sizeof *p);
				if (!np) return free(p), NULL;
				p = np;
			}
			p[n++] = (count_part_t){q, r, r1 > end ? end : r1};
			r = r1;
		} while (r < end);
	}
	*n_parts = (int)n;
	return p;
}

/* One thread's open file: kept while its tasks stay in the same file. */
typedef struct {
	int f;
	samFile *fp;
	sam_hdr_t *h;
	hts_idx_t *idx;
	bam1_t *b;
} count_file_t;

static void file_close(count_file_t *cf)
{
	if (cf->idx) hts_idx_destroy(cf->idx);
	if (cf->h) sam_hdr_destroy(cf->h);
	if (cf->fp) sam_close(cf->fp);
	cf->f = -1, cf->fp = NULL, cf->h = NULL, cf->idx = NULL;
}

static int file_open(count_run_t *run, count_file_t *cf, int f, gvk_err_t *err)
{
	if (cf->f == f && cf->idx) return 0;
	file_close(cf);
	const char *path = run->paths[f];
	cf->f = f;
	if (!(cf->fp = sam_open(path, "r"))) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open", path);
	if (run->o->reference) hts_set_fai_filename(cf->fp, run->o->reference);
	/* more threads than tasks: the spare ones decompress */
	long extra = run->o->threads / ((long)run->n * run->n_parts) - 1;
	if (extra > 0) hts_set_threads(cf->fp, (int)extra);
	if (!(cf->h = sam_hdr_read(cf->fp)))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: cannot read the header (not SAM/BAM/CRAM?)", path);
	if (!(cf->idx = sam_index_load(cf->fp, path)))
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s: no index found (.bai/.csi/.crai); sort and index it (samtools index)", path);
	return 0;
}

/* The first start and last end of rows [r0, r1) (INT64_MAX, 0 when there are none). */
static void rows_bounds(const cnv_layout_t *l, int r0, int r1, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX, *hi = 0;
	for (int r = r0; r < r1; ++r) {
		if (l->start[r] < *lo) *lo = l->start[r];
		if (l->end[r] > *hi) *hi = l->end[r];
	}
}

/* Bases the parts span, per file: the progress line's units. */
static double parts_span(const cnv_layout_t *l, const count_part_t *p, int n)
{
	double t = 0;
	for (int k = 0; k < n; ++k) {
		int64_t lo, hi;
		rows_bounds(l, p[k].r0, p[k].r1, &lo, &hi);
		if (hi > lo) t += (double)(hi - lo);
	}
	return t;
}

/* Counts the reads of one part of file cf->f into its column. */
static int count_part(count_run_t *run, count_file_t *cf, const count_part_t *pt, gvk_err_t *err)
{
	const char *path = run->paths[cf->f];
	const cnv_layout_t *l = run->l;
	double *col = run->x + (size_t)cf->f * l->m;
	int rc = 0, q = pt->q, r0 = pt->r0, r1 = pt->r1;
	int tid = sam_hdr_name2tid(cf->h, l->names[q]);
	int64_t lo, hi;
	rows_bounds(l, r0, r1, &lo, &hi);
	if (r0 == r1 || tid < 0) { /* nothing to read: done at once, for the progress line */
		cnv_progress_add(run->prog, hi > lo ? (double)(hi - lo) : 0, 0, 0);
		return 0;
	}
	int fixed = 1; /* disjoint sorted windows: position -> row by bisection */
	for (int r = r0 + 1; r < r1; ++r)
		if (l->start[r] <= l->end[r - 1]) fixed = 0;
	hts_itr_t *it = sam_itr_queryi(cf->idx, tid, lo > 0 ? lo - 1 : 0, hi);
	if (!it) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: index query on %s failed", path, l->names[q]);
	bam1_t *b = cf->b;
	int64_t prev = -1, shown = lo, nrec = 0;
	int ret;
	while ((ret = sam_itr_next(cf->fp, it, b)) >= 0) {
		/* the progress line moves within a part too: chr1 of a deep BAM takes minutes */
		if ((++nrec & 0x3ffff) == 0) {
			int64_t at = b->core.pos + 1 > shown ? b->core.pos + 1 : shown;
			cnv_progress_add(run->prog, (double)(at - shown), 0x40000, 0);
			shown = at;
		}
		if (b->core.pos < prev) {
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: not sorted by coordinate (%s:%lld after %lld)", path, l->names[q],
			                 (long long)b->core.pos + 1, (long long)prev + 1);
			break;
		}
		prev = b->core.pos;
		if ((b->core.flag & BAM_FUNMAP) || b->core.qual < run->o->min_mapq) continue;
		/* reads that start before the part's first row (the query returns those overlapping it)
		 * fall in no row of it: each read counts in the part of its start only */
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
	cnv_progress_add(run->prog, hi > shown ? (double)(hi - shown) : 0, nrec & 0x3ffff, 0);
	return rc;
}

/* A file's error is that of its first failing part, as a count file by file would stop there. */
static void keep_error(count_run_t *run, int f, int part, int rc, const gvk_err_t *e)
{
	pthread_mutex_lock(&run->lock);
	if (run->rcs[f] == 0 || part < run->bad_part[f]) run->rcs[f] = rc, run->bad_part[f] = part, run->errs[f] = *e;
	pthread_mutex_unlock(&run->lock);
}

/* Takes tasks in order (file by file, part by part) until none is left. */
static void count_worker(void *arg, int tid)
{
	(void)tid;
	count_run_t *run = arg;
	count_file_t cf = {-1, NULL, NULL, NULL, bam_init1()};
	const long n_tasks = (long)run->n * run->n_parts;
	for (long t; (t = atomic_fetch_add(&run->next, 1)) < n_tasks;) {
		int f = (int)(t / run->n_parts), part = (int)(t % run->n_parts);
		gvk_err_t e;
		int rc = cf.b ? file_open(run, &cf, f, &e) : gvk_err_set(&e, GVK_ERR_NOMEM, "out of memory for a BAM record");
		if (rc == 0) rc = count_part(run, &cf, &run->parts[part], &e);
		if (rc < 0) keep_error(run, f, part, rc, &e);
		if (atomic_fetch_sub(&run->left[f], 1) == 1) cnv_progress_add(run->prog, 0, 0, 1);
	}
	file_close(&cf);
	if (cf.b) bam_destroy1(cf.b);
}

/* Every file's header before any counting, so that a wrong file fails at once: the same reference
 * dictionary as the first, and its sample name (@RG SM) into sm[f]. */
static int header_pass(const char *const *paths, int n, const sam_hdr_t *h0, const gvk_cnv_bam_opts_t *o, char **sm,
                       gvk_err_t *err)
{
	int rc = 0;
	for (int f = 0; f < n && rc == 0; ++f) {
		samFile *fp = sam_open(paths[f], "r");
		if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open", paths[f]);
		if (o->reference) hts_set_fai_filename(fp, o->reference);
		sam_hdr_t *h = sam_hdr_read(fp);
		if (!h) rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: cannot read the header (not SAM/BAM/CRAM?)", paths[f]);
		else if (!same_dict(h, h0))
			rc = gvk_err_set(err, GVK_ERR_FORMAT, "%s: its reference dictionary (@SQ names and lengths) differs from %s's",
			                 paths[f], paths[0]);
		else rc = cnv_hdr_sample(h, paths[f], &sm[f], err);
		if (h) sam_hdr_destroy(h);
		sam_close(fp);
	}
	return rc;
}

/* Lengths of the layout's sequences from the header (0 for one it lacks), for VCF contig lines. */
static int64_t *seq_lengths(const sam_hdr_t *h, const cnv_layout_t *l)
{
	int64_t *len = calloc((size_t)(l->n_seqs ? l->n_seqs : 1), sizeof *len);
	for (int q = 0; len && q < l->n_seqs; ++q) {
		int tid = sam_hdr_name2tid((sam_hdr_t *)h, l->names[q]);
		len[q] = tid >= 0 ? sam_hdr_tid2len(h, tid) : 0;
	}
	return len;
}

/* Bases the layout spans, per file: what the parts divide. */
static double layout_span(const cnv_layout_t *l)
{
	double t = 0;
	for (int q = 0; q < l->n_seqs; ++q) {
		int64_t lo, hi;
		rows_bounds(l, l->off[q], l->off[q + 1], &lo, &hi);
		if (hi > lo) t += (double)(hi - lo);
	}
	return t;
}

/* Keeps the parts' rows within [row0, row1), dropping the parts left empty. */
static void clip_parts(count_part_t *p, int *n, int row0, int row1)
{
	int k = 0;
	for (int i = 0; i < *n; ++i) {
		int r0 = p[i].r0 > row0 ? p[i].r0 : row0, r1 = p[i].r1 < row1 ? p[i].r1 : row1;
		if (r1 > r0) p[k++] = (count_part_t){p[i].q, r0, r1};
	}
	*n = k;
}

static int count_share(const char *const *paths, int n_paths, const char *bed_path, const gvk_cnv_bam_opts_t *o,
                       int share, int shares, int *row0, int *row1, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	gvk_cnv_bam_opts_t ot = *o; /* threads 0: all processors, as in every engine */
	if (ot.threads < 1) ot.threads = gvk_ncpu();
	o = &ot;
	if (n_paths < 2) return gvk_err_set(err, GVK_ERR_ARG, "cn.mops needs at least two samples (got %d BAM file%s)", n_paths, n_paths == 1 ? "" : "s");
	if (!bed_path && o->wl < 1) return gvk_err_set(err, GVK_ERR_ARG, "the window length must be positive");
	samFile *fp = sam_open(paths[0], "r");
	if (!fp) return gvk_err_set(err, GVK_ERR_IO, "%s: cannot open", paths[0]);
	sam_hdr_t *h0 = sam_hdr_read(fp);
	sam_close(fp);
	if (!h0) return gvk_err_set(err, GVK_ERR_FORMAT, "%s: cannot read the header (not SAM/BAM/CRAM?)", paths[0]);
	cnv_layout_t l;
	/* The window count is checked against memory before any window is laid out. */
	int rc = bed_path ? cnv_read_bed(bed_path, &l, err) : cnv_check_windows(h0, o->wl, n_paths, err);
	if (rc == 0 && !bed_path) rc = windows_layout(h0, o->wl, &l, err);
	if (rc < 0) {
		sam_hdr_destroy(h0);
		return rc;
	}
	cnv_progress_t prog;
	count_run_t run = {.paths = paths, .n = n_paths, .o = o, .l = &l, .h0 = h0, .prog = &prog,
	                   .x = calloc((size_t)l.m * n_paths, sizeof(double)), .errs = calloc((size_t)n_paths, sizeof(gvk_err_t)),
	                   .rcs = calloc((size_t)n_paths, sizeof(int)), .bad_part = calloc((size_t)n_paths, sizeof(int)),
	                   .left = malloc((size_t)n_paths * sizeof(atomic_int))};
	const int nth = o->threads;
	/* one share of the rows: a whole run's parts, then those of the share's rows */
	run.parts = split_parts(&l, shares > 1 ? nth * shares : nth, n_paths, layout_span(&l), &run.n_parts);
	*row0 = (int)((int64_t)l.m * share / shares), *row1 = (int)((int64_t)l.m * (share + 1) / shares);
	if (run.parts && shares > 1) clip_parts(run.parts, &run.n_parts, *row0, *row1);
	cnv_progress_init(&prog, o, "counting reads", run.parts ? parts_span(&l, run.parts, run.n_parts) * n_paths : 1, n_paths);
	run.nth = run.parts && (long)n_paths * run.n_parts < nth ? n_paths * run.n_parts : nth;
	atomic_init(&run.next, 0);
	for (int f = 0; run.left && f < n_paths; ++f) atomic_init(&run.left[f], run.n_parts);
	pthread_mutex_init(&run.lock, NULL);
	char **sm = calloc((size_t)n_paths, sizeof *sm);
	int64_t *len = seq_lengths(h0, &l);
	if (!run.x || !run.errs || !run.rcs || !run.bad_part || !run.left || !run.parts || !sm || !len) {
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for the counts");
		goto out;
	}
	if (bed_path && (rc = cnv_check_bed_contigs(h0, paths[0], bed_path, l.names, l.n_seqs, o, err)) < 0) goto out;
	if ((rc = header_pass(paths, n_paths, h0, o, sm, err)) < 0) goto out;
	if ((rc = cnv_sample_names(sm, paths, n_paths, o, err)) < 0) goto out;
	gvk_parallel(run.nth, count_worker, &run);
	cnv_progress_end(&prog);
	for (int f = 0; f < n_paths; ++f)
		if (run.rcs[f] < 0) {
			if (err) *err = run.errs[f];
			rc = run.rcs[f];
			goto out;
		}
	c->m = l.m, c->N = n_paths, c->n_seqs = l.n_seqs;
	c->samples = sm, c->seq_len = len;
	c->seq_names = l.names, c->seq_off = l.off, c->start = l.start, c->end = l.end, c->x = run.x;
	memset(&l, 0, sizeof l);
	run.x = NULL, sm = NULL, len = NULL;
out:
	cnv_progress_end(&prog);
	cnv_progress_free(&prog);
	if (rc < 0) gvk_cnv_counts_free(c);
	for (int f = 0; sm && f < n_paths; ++f) free(sm[f]);
	free(sm), free(len);
	cnv_layout_free(&l);
	free(run.x), free(run.errs), free(run.rcs), free(run.bad_part), free(run.left), free(run.parts);
	pthread_mutex_destroy(&run.lock);
	sam_hdr_destroy(h0);
	return rc;
}

#else

int gvk_cnv_have_bam(void)
{
	return 0;
}

static int count_share(const char *const *paths, int n_paths, const char *bed, const gvk_cnv_bam_opts_t *o,
                       int share, int shares, int *row0, int *row1, gvk_cnv_counts_t *c, gvk_err_t *err)
{
	(void)paths, (void)n_paths, (void)bed, (void)o, (void)share, (void)shares, (void)c;
	*row0 = *row1 = 0;
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED,
	                   "this gvk was built without htslib, so it cannot read BAM/CRAM; give a count matrix with --counts "
	                   "or rebuild with htslib (Debian: libhts-dev)");
}
#endif
