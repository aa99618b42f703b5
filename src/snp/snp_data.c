/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "snp_data.h"
#include "snp_chrom.h"
#include "../common/err.h"
#include "../common/threads.h"

void snp_data_free(snp_data_t *d)
{
	free(d->w);
	free(d->full);
	free(d->var);
	free(d->pool);
	for (int64_t i = 0; i < d->n_sample_id; ++i) free(d->sample_id[i]);
	free(d->sample_id);
	free(d->a2f);
	free(d->rate);
	free(d->male);
	free(d->male_raw);
	memset(d, 0, sizeof *d);
}

/* d's sizes and per-SNP flags, with planes for n_planes SNPs (0 or n_snp). */
static int alloc_meta(snp_data_t *d, int64_t n_snp, int64_t n_planes, int64_t n_bits, gvk_err_t *err)
{
	int64_t nw = (n_bits + 63) / 64;
	nw = (nw + 7) & ~(int64_t)7;
	if (nw == 0) nw = 8;
	if (nw > (1 << 30)) return gvk_err_set(err, GVK_ERR_ARG, "%lld samples is too many", (long long)n_bits);
	size_t bytes = (size_t)n_planes * SNP_PLANES * (size_t)nw * 8;
	d->w = bytes ? aligned_alloc(64, bytes) : NULL;
	d->full = calloc((size_t)n_snp + 1, 1);
	if ((bytes && !d->w) || !d->full)
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %lld SNPs x %lld samples", (long long)n_snp,
		                   (long long)n_bits);
	d->n_snp = n_snp;
	d->n_bits = n_bits;
	d->nw = (int)nw;
	return 0;
}

int snp_data_alloc_planes_unset(snp_data_t *d, int64_t n_snp, int64_t n_bits, gvk_err_t *err)
{
	return alloc_meta(d, n_snp, n_snp, n_bits, err);
}

int snp_data_alloc_no_planes(snp_data_t *d, int64_t n_snp, int64_t n_bits, gvk_err_t *err)
{
	return alloc_meta(d, n_snp, 0, n_bits, err);
}

int snp_data_alloc_planes(snp_data_t *d, int64_t n_snp, int64_t n_bits, gvk_err_t *err)
{
	int rc = snp_data_alloc_planes_unset(d, n_snp, n_bits, err);
	if (rc == 0 && d->w) memset(d->w, 0, (size_t)n_snp * SNP_PLANES * (size_t)d->nw * 8);
	return rc;
}

long snp_pool_add(snp_data_t *d, const char *s, size_t len)
{
	if (d->pool_len + len + 1 > d->pool_cap) {
		size_t cap = (d->pool_cap + len + 1) * 2 + 4096;
		char *p = realloc(d->pool, cap);
		if (!p) return -1;
		d->pool = p;
		d->pool_cap = cap;
	}
	long off = (long)d->pool_len;
	memcpy(d->pool + d->pool_len, s, len);
	d->pool[d->pool_len + len] = 0;
	d->pool_len += len + 1;
	return off;
}

void snp_data_fix_strings(snp_data_t *d, const long *offs)
{
	for (int64_t i = 0; i < d->n_snp; ++i) {
		const long *o = offs + 4 * i;
		d->var[i].chr = d->pool + o[0];
		d->var[i].id = d->pool + o[1];
		d->var[i].a1 = d->pool + o[2];
		d->var[i].a2 = d->pool + o[3];
	}
}

void snp_chr_normalise(const char *name, size_t len, char *out, size_t out_size)
{
	snp_chr_code(name, len, out, out_size);
}

void snp_data_set_full(snp_data_t *d, int64_t i)
{
	const uint64_t *v = snp_plane(d, i, SNP_PV);
	int64_t full_words = d->n_bits / 64, rem = d->n_bits % 64;
	int ok = 1;
	for (int64_t k = 0; k < full_words && ok; ++k) ok = v[k] == ~(uint64_t)0;
	if (ok && rem) ok = v[full_words] == (((uint64_t)1 << rem) - 1);
	d->full[i] = (uint8_t)ok;
}

void snp_data_select(snp_data_t *d, const uint8_t *keep)
{
	int64_t k = 0;
	size_t words = (size_t)SNP_PLANES * (size_t)d->nw;
	for (int64_t i = 0; i < d->n_snp; ++i) {
		if (!keep[i]) continue;
		if (k != i) {
			if (d->w) memmove(snp_plane(d, k, 0), snp_plane(d, i, 0), words * 8);
			d->var[k] = d->var[i];
			d->full[k] = d->full[i];
			if (d->a2f) d->a2f[k] = d->a2f[i];
			if (d->rate) d->rate[k] = d->rate[i];
		}
		++k;
	}
	d->n_snp = k;
}

int snp_split_ws(char *line, char **f, size_t *fl, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t') ++p;
		if (!*p) break;
		char *s = p;
		while (*p && *p != ' ' && *p != '\t') ++p;
		if (n < max) f[n] = s, fl[n] = (size_t)(p - s);
		++n;
		if (*p) *p++ = 0;
	}
	return n;
}

/* Byte classes of a line: field bytes, separators (space, tab) and its '\n'. */
enum { CL_FIELD, CL_SEP, CL_NL };
static const uint8_t byte_class[256] = {[' '] = CL_SEP, ['\t'] = CL_SEP, ['\n'] = CL_NL};

int snp_split_line(const char *s, const char **f, size_t *fl, int max, const char **eol)
{
	const unsigned char *p = (const unsigned char *)s, *t = NULL;
	int n = 0;
	for (;;) {
		while (byte_class[*p] == CL_SEP) ++p;
		if (byte_class[*p] == CL_NL) break;
		t = p;
		while (byte_class[*p] == CL_FIELD) ++p;
		if (n < max) f[n] = (const char *)t, fl[n] = (size_t)(p - t);
		++n;
	}
	*eol = (const char *)p;
	if (n && p[-1] == '\r') { /* the last field ends the line: it loses the '\r' */
		if (p - 1 == t) return n - 1;
		if (n <= max) --fl[n - 1];
	}
	return n;
}

const char *snp_last_lines_end(const char *s, const char *e)
{
	while (e > s && e[-1] != '\n') --e;
	return e;
}

void *snp_big_alloc(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	n = (n + huge - 1) / huge * huge;
	void *p = aligned_alloc(huge, n);
#ifdef MADV_HUGEPAGE
	if (p) madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

/* One thread's slice of the description table, and the run starts found in it. */
typedef struct {
	const snp_data_t *d;
	int nt;
	int64_t *brk[64], nb[64];
	int nomem;
} runs_job_t;

static void runs_worker(void *arg, int tid)
{
	runs_job_t *j = arg;
	int64_t a = (int64_t)gvk_part((size_t)j->d->n_snp, tid, j->nt), b = (int64_t)gvk_part((size_t)j->d->n_snp, tid + 1, j->nt);
	int64_t cap = 0;
	for (int64_t i = a > 0 ? a : 1; i < b; ++i) {
		if (snp_same_chr(j->d, i, i - 1)) continue;
		if (j->nb[tid] == cap) {
			cap = cap ? 2 * cap : 64;
			int64_t *g = realloc(j->brk[tid], sizeof *g * (size_t)cap);
			if (!g) {
				__atomic_store_n(&j->nomem, 1, __ATOMIC_RELAXED);
				return;
			}
			j->brk[tid] = g;
		}
		j->brk[tid][j->nb[tid]++] = i;
	}
}

int snp_chr_runs(const snp_data_t *d, int threads, int64_t **start, int64_t *n)
{
	runs_job_t j = {.d = d, .nt = threads < 1 || d->n_snp < ((int64_t)1 << 16) ? 1 : threads > 64 ? 64 : threads};
	gvk_parallel(j.nt, runs_worker, &j);
	int64_t total = d->n_snp > 0;
	for (int t = 0; t < j.nt; ++t) total += j.nb[t];
	int64_t *s = j.nomem ? NULL : malloc(sizeof *s * (size_t)(total + 1));
	if (s) {
		int64_t k = 0;
		if (d->n_snp > 0) s[k++] = 0;
		for (int t = 0; t < j.nt; ++t)
			if (j.nb[t]) memcpy(s + k, j.brk[t], sizeof *s * (size_t)j.nb[t]), k += j.nb[t];
		s[k] = d->n_snp;
		*start = s, *n = total;
	}
	for (int t = 0; t < j.nt; ++t) free(j.brk[t]);
	return s ? 0 : -1;
}
