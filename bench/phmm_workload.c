/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phmm_workload.h"
#include "pairhmm/pairhmm_io.h"

static unsigned long long next(unsigned long long *s)
{
	*s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double unif(unsigned long long *s) { return (double)(next(s) >> 11) * 0x1p-53; }

typedef struct {
	int nh, nr, hlen[16], rlen[128];
} region_t;

/* Reads and haplotypes live in one block: per read 5*R bytes, per haplotype H bytes. */
static int alloc(phmm_workload_t *w, const region_t *rg, size_t n)
{
	size_t bytes = 0, nr = 0, nh = 0, np = 0;
	for (size_t k = 0; k < n; ++k) {
		for (int h = 0; h < rg[k].nh; ++h) bytes += 521 + (size_t)rg[k].hlen[h];
		for (int r = 0; r < rg[k].nr; ++r) bytes += 5 * (size_t)rg[k].rlen[r];
		nr += (size_t)rg[k].nr, nh += (size_t)rg[k].nh, np += (size_t)rg[k].nr * (size_t)rg[k].nh;
	}
	memset(w, 0, sizeof *w);
	w->mem = malloc(bytes);
	w->reads = malloc(nr * sizeof *w->reads);
	w->haps = malloc(nh * sizeof *w->haps);
	w->pairs = malloc(np * sizeof *w->pairs);
	w->region_reads = malloc(n * sizeof(int));
	w->region_haps = malloc(n * sizeof(int));
	return w->mem && w->reads && w->haps && w->pairs && w->region_reads && w->region_haps ? 0 : GVK_ERR_NOMEM;
}

static void fill(phmm_workload_t *w, const region_t *rg, size_t n, unsigned long long *s, int realistic, int flags)
{
	static const char acgt[] = "ACGT";
	char *p = w->mem;
	for (size_t k = 0; k < n; ++k) {
		size_t h0 = w->n_haps, r0 = w->n_reads;
		/* A region's haplotypes are pieces of one local sequence (the first haplotype, the
		 * longest-to-be) with a few variants each, as assembled haplotypes are. */
		int hlen_max = 0;
		for (int h = 0; h < rg[k].nh; ++h) hlen_max = rg[k].hlen[h] > hlen_max ? rg[k].hlen[h] : hlen_max;
		char *base = p;
		for (int j = 0; j < hlen_max; ++j) base[j] = acgt[next(s) & 3];
		for (int h = 0; h < rg[k].nh; ++h) {
			int H = rg[k].hlen[h], start = (int)(next(s) % (unsigned)(hlen_max - H + 1)) / 4;
			char *hp = h == 0 ? base : p;
			if (h > 0) {
				memcpy(hp, base + start, (size_t)H);
				for (int v = 0; v < 3; ++v) hp[next(s) % (unsigned)H] = acgt[next(s) & 3];
			}
			w->haps[w->n_haps++] = (gvk_hap_t){h == 0 ? hlen_max : H, hp};
			p += h == 0 ? hlen_max : H;
		}
		for (int r = 0; r < rg[k].nr; ++r) {
			int R = rg[k].rlen[r];
			const gvk_hap_t *src = &w->haps[h0 + next(s) % (unsigned)rg[k].nh];
			int start = src->len > R ? (int)(next(s) % (unsigned)(src->len - R + 1)) : 0;
			uint8_t *q = (uint8_t *)p + R;
			for (int i = 0; i < R; ++i) {
				int from = start + i < src->len ? src->bases[start + i] : acgt[next(s) & 3];
				p[i] = realistic && unif(s) > 0.02 ? (char)from : acgt[next(s) & 3];
				q[i] = (uint8_t)(unif(s) < 0.05 ? 6 : 18 + next(s) % 24);
				q[R + i] = q[2 * R + i] = (uint8_t)(unif(s) < 0.9 || (flags & PHMM_WL_INDEL45) ? 45 : 10 + next(s) % 35);
				q[3 * R + i] = 10;
			}
			w->reads[w->n_reads++] = (gvk_read_t){R, p, q, q + R, q + 2 * R, q + 3 * R};
			p += 5 * R;
		}
		for (int r = 0; r < rg[k].nr; ++r)
			for (int h = 0; h < rg[k].nh; ++h) {
				gvk_pair_t pr = {(int32_t)(r0 + (size_t)r), (int32_t)(h0 + (size_t)h)};
				w->pairs[w->n_pairs++] = pr;
				w->cells += (double)w->reads[pr.read].len * w->haps[pr.hap].len;
			}
		w->region_reads[k] = rg[k].nr, w->region_haps[k] = rg[k].nh;
	}
	w->n_regions = n;
}

static int build(phmm_workload_t *w, region_t *rg, size_t n, unsigned long long s, int realistic, int flags)
{
	int rc = alloc(w, rg, n);
	if (rc == 0) fill(w, rg, n, &s, realistic, flags);
	free(rg);
	return rc;
}

int phmm_workload_hc(phmm_workload_t *w, size_t min_pairs, unsigned long long seed, int flags)
{
	unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 1;
	size_t cap = min_pairs / 20 + 16, n = 0, pairs = 0;
	region_t *rg = malloc(cap * sizeof *rg);
	if (!rg) return GVK_ERR_NOMEM;
	while (pairs < min_pairs) {
		region_t *r = &rg[n++];
		r->nh = 1 + (int)(next(&s) % 16);
		r->nr = (int)lround(55.0 / r->nh * (0.5 + unif(&s)));
		if (r->nr < 1) r->nr = 1;
		/* Powers of a uniform variable give the skewed length distributions. */
		/* One region length; the haplotypes differ from it by small indels. */
		int L = 30 + (int)(491 * pow(unif(&s), 0.888));
		for (int h = 0; h < r->nh; ++h) {
			int H = L + (int)(next(&s) % 11) - 5;
			r->hlen[h] = H < 30 ? 30 : H > 521 ? 521 : H;
		}
		for (int k = 0; k < r->nr; ++k) r->rlen[k] = 10 + (int)(141 * pow(unif(&s), 2.13));
		pairs += (size_t)(r->nr * r->nh);
		if (n == cap) {
			region_t *nr = realloc(rg, (cap *= 2) * sizeof *rg);
			if (!nr) return free(rg), GVK_ERR_NOMEM;
			rg = nr;
		}
	}
	return build(w, rg, n, s, 1, flags);
}

int phmm_workload_equal(phmm_workload_t *w, size_t min_pairs, int rlen, int hlen, unsigned long long seed, int flags)
{
	size_t n = (min_pairs + 255) / 256;
	region_t *rg = malloc(n * sizeof *rg);
	if (!rg) return GVK_ERR_NOMEM;
	for (size_t k = 0; k < n; ++k) {
		rg[k].nh = 16, rg[k].nr = 16;
		for (int h = 0; h < 16; ++h) rg[k].hlen[h] = hlen, rg[k].rlen[h] = rlen;
	}
	return build(w, rg, n, seed * 0x9E3779B97F4A7C15ULL + 1, 1, flags);
}

/* One group of a parsed chunk: its first pair, reads and haplotypes. */
typedef struct {
	size_t p0, r0, h0;
	int nr, nh;
} group_t;

/* The chunk's groups; -1 when one is not a full read-major read x haplotype product. */
static long chunk_groups(const phmm_chunk_t *c, group_t *g)
{
	long n = 0;
	for (size_t k = 0; k < c->n_pairs;) {
		size_t e = k;
		int nr = 0, nh = 0;
		while (e < c->n_pairs && c->group[e] == c->group[k]) {
			nr = c->rin[e] + 1 > nr ? c->rin[e] + 1 : nr, nh = c->hin[e] + 1 > nh ? c->hin[e] + 1 : nh;
			++e;
		}
		if ((size_t)nr * (size_t)nh != e - k) return -1;
		for (size_t j = k; j < e; ++j)
			if (c->rin[j] != (int32_t)((j - k) / (size_t)nh) || c->hin[j] != (int32_t)((j - k) % (size_t)nh) ||
			    c->pairs[j].read != c->pairs[k].read + c->rin[j] || c->pairs[j].hap != c->pairs[k].hap + c->hin[j])
				return -1;
		g[n++] = (group_t){k, (size_t)c->pairs[k].read, (size_t)c->pairs[k].hap, nr, nh};
		k = e;
	}
	return n;
}

/* Copies the chunk's reads and haplotypes into w->mem, then lists its groups as regions, repeated
 * until min_pairs, every repeat pointing at the same bytes. */
static int workload_from_chunk(phmm_workload_t *w, const phmm_chunk_t *c, const group_t *g, long ng, size_t min_pairs)
{
	size_t bytes = 1, np = 0, nrep;
	for (size_t i = 0; i < c->n_reads; ++i) bytes += 5 * (size_t)c->reads[i].len;
	for (size_t i = 0; i < c->n_haps; ++i) bytes += (size_t)c->haps[i].len;
	nrep = (min_pairs + c->n_pairs - 1) / c->n_pairs;
	if (nrep < 1) nrep = 1;
	memset(w, 0, sizeof *w);
	w->mem = malloc(bytes);
	w->reads = malloc((nrep + 1) * c->n_reads * sizeof *w->reads);
	w->haps = malloc((nrep + 1) * c->n_haps * sizeof *w->haps);
	w->pairs = malloc(nrep * c->n_pairs * sizeof *w->pairs);
	w->region_reads = malloc(nrep * (size_t)ng * sizeof(int));
	w->region_haps = malloc(nrep * (size_t)ng * sizeof(int));
	if (!w->mem || !w->reads || !w->haps || !w->pairs || !w->region_reads || !w->region_haps) return GVK_ERR_NOMEM;
	char *p = w->mem;
	for (size_t i = 0; i < c->n_reads; ++i) {
		const gvk_read_t *r = &c->reads[i];
		const size_t R = (size_t)r->len;
		uint8_t *q = (uint8_t *)p + R;
		memcpy(p, r->bases, R), memcpy(q, r->qual, R), memcpy(q + R, r->ins, R);
		memcpy(q + 2 * R, r->del, R), memcpy(q + 3 * R, r->gcp, R);
		w->reads[i] = (gvk_read_t){r->len, p, q, q + R, q + 2 * R, q + 3 * R};
		p += 5 * R;
	}
	for (size_t i = 0; i < c->n_haps; ++i) {
		memcpy(p, c->haps[i].bases, (size_t)c->haps[i].len);
		w->haps[i] = (gvk_hap_t){c->haps[i].len, p};
		p += c->haps[i].len;
	}
	/* The copies above are the originals; the regions list theirs after them. */
	w->n_reads = c->n_reads, w->n_haps = c->n_haps;
	for (size_t rep = 0; rep < nrep && np < min_pairs; ++rep)
		for (long k = 0; k < ng && (np < min_pairs || rep == 0); ++k) {
			const size_t r0 = w->n_reads, h0 = w->n_haps;
			for (int i = 0; i < g[k].nr; ++i) w->reads[w->n_reads++] = w->reads[g[k].r0 + (size_t)i];
			for (int i = 0; i < g[k].nh; ++i) w->haps[w->n_haps++] = w->haps[g[k].h0 + (size_t)i];
			for (int i = 0; i < g[k].nr; ++i)
				for (int j = 0; j < g[k].nh; ++j) {
					w->pairs[w->n_pairs++] = (gvk_pair_t){(int32_t)(r0 + (size_t)i), (int32_t)(h0 + (size_t)j)};
					w->cells += (double)w->reads[r0 + (size_t)i].len * w->haps[h0 + (size_t)j].len;
				}
			w->region_reads[w->n_regions] = g[k].nr, w->region_haps[w->n_regions++] = g[k].nh;
			np += (size_t)g[k].nr * (size_t)g[k].nh;
		}
	return 0;
}

int phmm_workload_read(phmm_workload_t *w, const char *path, size_t min_pairs, char *msg, size_t msg_len)
{
	gvk_err_t err = {0, ""};
	phmm_chunk_t c;
	memset(&c, 0, sizeof c);
	memset(w, 0, sizeof *w);
	phmm_reader_t *rd = phmm_reader_open(path, PHMM_FMT_AUTO, &err);
	long n = rd ? phmm_reader_next(rd, &c, SIZE_MAX / 2, &err) : -1;
	phmm_reader_close(rd);
	if (n <= 0) {
		snprintf(msg, msg_len, "%s", n == 0 ? "no pairs in the file" : err.msg);
		phmm_chunk_free(&c);
		return n == 0 ? GVK_ERR_ARG : err.code ? err.code : GVK_ERR_IO;
	}
	group_t *g = malloc(c.n_pairs * sizeof *g);
	long ng = g ? chunk_groups(&c, g) : 0;
	int rc = !g ? GVK_ERR_NOMEM : ng < 0 ? GVK_ERR_ARG : workload_from_chunk(w, &c, g, ng, min_pairs);
	if (rc < 0) snprintf(msg, msg_len, "%s", rc == GVK_ERR_NOMEM ? "out of memory" : "a group is not every read x haplotype");
	free(g);
	phmm_chunk_free(&c);
	return rc;
}

int phmm_workload_write(const phmm_workload_t *w, FILE *fp)
{
	size_t r = 0, h = 0, cap = 1 << 16;
	char *line = malloc(cap);
	if (!line) return GVK_ERR_NOMEM;
	for (size_t k = 0; k < w->n_regions; ++k) {
		fprintf(fp, "%d %d\n", w->region_reads[k], w->region_haps[k]);
		for (int i = 0; i < w->region_reads[k]; ++i, ++r) {
			const gvk_read_t *rd = &w->reads[r];
			const uint8_t *q[4] = {rd->qual, rd->ins, rd->del, rd->gcp};
			size_t R = (size_t)rd->len, n = 0;
			if (5 * R + 8 > cap) {
				char *nl = realloc(line, cap = 5 * R + 8);
				if (!nl) return free(line), GVK_ERR_NOMEM;
				line = nl;
			}
			memcpy(line, rd->bases, R), n = R;
			for (int f = 0; f < 4; ++f) {
				line[n++] = ' ';
				for (size_t j = 0; j < R; ++j) line[n++] = (char)(q[f][j] + 33);
			}
			line[n++] = '\n';
			fwrite(line, 1, n, fp);
		}
		for (int i = 0; i < w->region_haps[k]; ++i, ++h) {
			fwrite(w->haps[h].bases, 1, (size_t)w->haps[h].len, fp);
			fputc('\n', fp);
		}
	}
	free(line);
	return ferror(fp) ? GVK_ERR_IO : 0;
}

void phmm_workload_free(phmm_workload_t *w)
{
	free(w->mem), free(w->reads), free(w->haps), free(w->pairs), free(w->region_reads), free(w->region_haps);
	memset(w, 0, sizeof *w);
}
