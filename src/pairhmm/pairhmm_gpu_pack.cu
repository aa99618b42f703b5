/* SPDX-License-Identifier: MIT */
/* A Pair-HMM GPU pass's host-side preparation: the sort of its pairs by kernel variant and
 * haplotype length (order keys, a parallel counting sort, or a comparison sort for small passes),
 * and the packing of a sub-batch into pinned staging memory (dense passes on all threads at
 * offsets known in advance, sparse ones through the read and haplotype maps). Split from
 * pairhmm_gpu.cu, which keeps the device set-up and the entry points; pairhmm_gpu_pass.cu runs
 * what this file packs. */
#include "../common/gpu_port.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvk.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/buf.h"
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/threads.h"
#include "pairhmm_engine.h"
#include "pairhmm_gpu_dev.cuh"

/* The first variant with at least R rows (the tables rise in rows), by bisection: it runs for
 * every pair of a pass. */
static int pick_variant(int R, int dbl)
{
	const variant_t *v = var_table(dbl);
	int lo = 0, hi = var_count(dbl) - 1; /* the last one takes every longer read, in tiles */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (v[mid].P * v[mid].K >= R) hi = mid; else lo = mid + 1;
	}
	return lo;
}

/* A read with one gap quality throughout: every insertion and deletion quality the same byte,
 * and every gap continuation quality the same byte. Then mi[r] == md[r-1], so the kernels may
 * share the product, and every row's gap transitions are the same numbers (phmm_rows,
 * phmm_load_rows: SHARE). */
static int read_shares_gap_open(const gvk_read_t *r)
{
	const size_t n = (size_t)r->len;
	return n > 0 && (memcmp(r->ins, r->del, n) == 0 && memcmp(r->ins, r->ins + 1, n - 1) == 0 &&
	                  memcmp(r->gcp, r->gcp + 1, n - 1) == 0);
}

/* Whether at least half of a pass's pairs (judged on up to 1024 of them, evenly spaced; 16 in a
 * BINS_WARP pass, one or a few GATK regions, whose reads come from one pipeline and qualify all
 * or none, and where judging every read was a visible part of a call's host work) have reads
 * that allow the shared gap-open product. Only then do the sort keys tell them apart: the
 * split moves them behind the others of their variant, and on input where few qualify (such as
 * HaplotypeCaller-shaped pairs, where only a few short reads do) that costs more than it saves,
 * even with no launch of their own. */
int phmm_pass_mostly_shares(const gvk_read_t *reads, const gvk_pair_t *pairs, const size_t *sel, size_t n)
{
	const size_t most = n < WARP_PASS ? 16 : 1024, m = n < most ? n : most;
	size_t yes = 0;
	int32_t last = -1, last_yes = 0;
	for (size_t k = 0; k < m; ++k) {
		size_t x = n * k / m;
		const int32_t r = pairs[sel ? sel[x] : x].read;
		/* GATK's batches list a read's pairs one after another: judge each read once. */
		if (r != last) last = r, last_yes = read_shares_gap_open(&reads[r]);
		yes += (size_t)last_yes;
	}
	return 2 * yes >= m;
}

/* The first variant from v on whose rows are a power of two (or the tiled one): at most one bin
 * per doubling of the read length. */
static int coarse_variant(int v, int dbl)
{
	const variant_t *t = var_table(dbl);
	for (; v < var_count(dbl) - 1; ++v) {
		const int rows = t[v].P * t[v].K;
		if ((rows & (rows - 1)) == 0) break;
	}
	return v;
}

/* The first full-warp variant (P = 32) from v on, or the tiled one. In the smallest passes the
 * GPU is idle but for a few warps and a bin's time is its sweep's latency, H + P - 1 dependent
 * steps of K rows each: full-warp variants have the fewest rows a thread (K) for a read length,
 * and with one or two bins for the whole pass nothing waits for a second wave of launches. */
static int warp_variant(int v, int dbl)
{
	const variant_t *t = var_table(dbl);
	for (; v < var_count(dbl) - 1 && t[v].P < 32; ++v) {}
	return v;
}

/* The variant of a read of R rows in a pass of precision dbl with bins `coarse`. */
static int key_variant(int R, int dbl, int coarse)
{
	const int v = pick_variant(R, dbl);
	return !coarse ? v : coarse == BINS_WARP ? warp_variant(v, dbl) : coarse_variant(v, dbl);
}

void phmm_index_variants(gpu_dev_t *g)
{
	for (int dbl = 0; dbl < 3; ++dbl)
		for (int coarse = 0; coarse < 3; ++coarse)
			for (int R = 0; R <= VAR_LEN_MAX; ++R) g->var_of_len[dbl][coarse][R] = (uint8_t)key_variant(R, dbl, coarse);
}

/* A pass's bin is 2 * variant + share; within a bin, longer haplotypes first, in buckets of 4
 * columns up to 512 and of 16 after that (up to 2,544), since every sub-warp of a warp runs as
 * many steps as the warp's longest haplotype. A BINS_WARP pass runs a pair a warp, in about one
 * wave of blocks, where the order within a bin changes nothing: its key is the bin alone. */
static uint32_t order_key(const scan_job_t *j, int R, int H, int share)
{
	uint32_t hb = j->coarse == BINS_WARP ? 0 : H < 512 ? (uint32_t)H / 4 : 128u + (uint32_t)(H - 512) / 16;
	const int v = R <= VAR_LEN_MAX ? j->var_of_len[R] : key_variant(R, j->dbl, j->coarse);
	return (uint32_t)(2 * v + share) << 8 | (255u - (hb < 255u ? hb : 255u));
}

static void scan_worker(void *arg, int t)
{
	scan_job_t *j = (scan_job_t *)arg;
	size_t b = gvk_part(j->n, t, j->nt), e = gvk_part(j->n, t + 1, j->nt), bytes = 0;
	int32_t mr = 0, mh = 0;
	uint32_t *h = j->hist ? j->hist[t] : NULL;
	int32_t last = -1;
	int last_share = 0;
	if (h) memset(h, 0, sizeof j->hist[t]);
	for (size_t k = b; k < e; ++k) {
		const gvk_pair_t *p = &j->pairs[j->sel ? j->sel[k] : k];
		const gvk_read_t *r = &j->reads[p->read];
		int R = r->len, H = j->haps[p->hap].len;
		if (j->share && p->read != last) last = p->read, last_share = read_shares_gap_open(r);
		uint32_t key = order_key(j, R, H, j->share && last_share);
		j->ord[k].key = key;
		if (h) h[key]++;
		mr = p->read > mr ? p->read : mr, mh = p->hap > mh ? p->hap : mh;
		bytes += pair_bytes(R, H, j->dbl);
	}
	j->maxr[t] = mr, j->maxh[t] = mh, j->bytes[t] = bytes;
}

typedef struct {
	scan_job_t *s;
	order_t *out;
} scatter_job_t;

static void order_scatter_worker(void *arg, int t)
{
	scatter_job_t *j = (scatter_job_t *)arg;
	const scan_job_t *s = j->s;
	size_t b = gvk_part(s->n, t, s->nt), e = gvk_part(s->n, t + 1, s->nt);
	uint32_t *pos = s->hist[t];
	for (size_t k = b; k < e; ++k) j->out[pos[s->ord[k].key]++] = (order_t){s->ord[k].key, (uint32_t)k};
}

/* One stable counting pass of src into dst on the key's byte at shift. */
static void radix_pass(const order_t *src, order_t *dst, size_t n, int shift)
{
	uint32_t pos[256] = {0}, sum = 0;
	for (size_t k = 0; k < n; ++k) pos[(src[k].key >> shift) & 255]++;
	for (int b = 0; b < 256; ++b) {
		const uint32_t c = pos[b];
		pos[b] = sum, sum += c;
	}
	for (size_t k = 0; k < n; ++k) dst[pos[(src[k].key >> shift) & 255]++] = src[k];
}

/* A pass's order on one thread: keys, then two byte-wide counting passes (the keys have 16 bits),
 * which give the parallel counting sort's stable order without its passes over every possible key
 * and at a fraction of a comparison sort's cost: this runs once per GATK region. A BINS_WARP
 * pass's keys differ only in the bin byte (order_key), and a pass all in one bin (most GATK
 * regions: every read up to 288 bases takes the 32 x 9 bin) keeps its order. */
static int order_small(gpu_dev_t *g, scan_job_t *s, order_t **ordp)
{
	static_assert(ORDER_KEYS <= 1 << 16, "order keys fit in two bytes");
	order_t *ord = (order_t *)scratch(g, SCR_ORD, s->n * sizeof *ord), *tmp = (order_t *)scratch(g, SCR_TMP, s->n * sizeof *tmp);
	if (!ord || !tmp) return GVK_ERR_NOMEM;
	s->ord = ord, s->hist = NULL, s->nt = 1;
	scan_worker(s, 0);
	int one_key = 1;
	for (size_t k = 0; k < s->n; ++k) ord[k].k = (uint32_t)k, one_key &= ord[k].key == ord[0].key;
	if (s->coarse == BINS_WARP && !one_key) {
		radix_pass(ord, tmp, s->n, 8);
		memcpy(ord, tmp, s->n * sizeof *ord);
	} else if (!one_key) {
		radix_pass(ord, tmp, s->n, 0);
		radix_pass(tmp, ord, s->n, 8);
	}
	s->ord = NULL;
	*ordp = ord;
	return 0;
}

/* Sorts the pass's pairs into *ordp (the device's scratch) and returns the scan's totals in s. */
int phmm_order_pairs(gpu_dev_t *g, scan_job_t *s, order_t **ordp)
{
	if (s->nt == 1) return order_small(g, s, ordp); /* every coarse pass too: they are small */
	order_t *tmp = (order_t *)scratch(g, SCR_TMP, s->n * sizeof *tmp), *ord = (order_t *)scratch(g, SCR_ORD, s->n * sizeof *ord);
	s->hist = (uint32_t(*)[ORDER_KEYS])scratch(g, SCR_HIST, ((size_t)s->nt + 1) * sizeof *s->hist);
	if (!tmp || !ord || !s->hist) return s->hist = NULL, GVK_ERR_NOMEM;
	s->ord = tmp;
	gvk_parallel(s->nt, scan_worker, s);
	/* Each thread's start within each key, keys in order and threads in order within a key (a
	 * stable sort), in passes along the histograms' rows: walking key by key strides through
	 * all of them. The extra row holds the keys' running counts, then their bases. */
	uint32_t *run = s->hist[s->nt], sum = 0;
	memset(run, 0, sizeof s->hist[0]);
	for (int t = 0; t < s->nt; ++t)
		for (int key = 0; key < ORDER_KEYS; ++key) {
			uint32_t c = s->hist[t][key];
			s->hist[t][key] = run[key], run[key] += c;
		}
	for (int key = 0; key < ORDER_KEYS; ++key) {
		uint32_t c = run[key];
		run[key] = sum, sum += c;
	}
	for (int t = 0; t < s->nt; ++t)
		for (int key = 0; key < ORDER_KEYS; ++key) s->hist[t][key] += run[key];
	scatter_job_t sj = {s, ord};
	gvk_parallel(s->nt, order_scatter_worker, &sj);
	s->hist = NULL, s->ord = NULL;
	*ordp = ord;
	return 0;
}

/* Pinning host memory is slow (src/common/cuda_mem.cu), so the staging buffers grow in powers of
 * two from min bytes and are kept until the engine closes; device buffers likewise. */
int phmm_ensure_host(unsigned char **p, size_t *cap, size_t need, size_t min, const char *what, gvk_err_t *err)
{
	return gvk_cuda_reserve((void **)p, cap, need, GVK_MEM_PINNED, GVK_GROW_POW2, min, what, err);
}

int phmm_ensure_dev(unsigned char **p, size_t *cap, size_t need, gvk_err_t *err)
{
	return gvk_cuda_reserve((void **)p, cap, need, GVK_MEM_DEVICE, GVK_GROW_POW2, (size_t)64 << 20, "a sub-batch", err);
}

/* The slot's pinned sums for need bytes, and their device address for kernels that write them
 * straight to the host: a new capacity is a new buffer (or none, after a failure). */
int phmm_ensure_hout(slot_t *sl, size_t need, gvk_err_t *err)
{
	const size_t cap0 = sl->hout_cap;
	const int rc = phmm_ensure_host(&sl->hout, &sl->hout_cap, need, (size_t)1 << 20, "a sub-batch's sums", err);
	if (sl->hout_cap != cap0) sl->hout_view = (unsigned char *)gvk_cuda_device_view(sl->hout);
	return rc;
}

/* The haplotype blob's bases as classes (A C T G N as 0..4, anything else 0), as
 * phmm_gpu_hap_classes computes them, for blobs small enough that the host's pass over them costs
 * less than a launch of that kernel on the pass's critical path. Written branch-free so that it
 * vectorizes. */
enum { HOST_CLASSES_MAX = 64 << 10 };

static void hap_classes_host(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; ++i) {
		const uint8_t c = p[i];
		p[i] = (uint8_t)((c == 'C') | (c == 'T') << 1 | (c == 'G') * 3 | (c == 'N') << 2);
	}
}

/* Threads for copying `bytes` into staging: one below a MiB, where starting the engine's threads
 * (gvk_parallel starts them per call) costs more than the copy; GATK's regions, a few hundred
 * kilobytes at most, are packed on the caller's thread. */
static int pack_threads(const gpu_dev_t *g, size_t bytes)
{
	return bytes < ((size_t)1 << 20) ? 1 : g->threads;
}

typedef struct {
	const pass_ctx_t *c;
	uint8_t *rb, *hb;
	phmm_gpu_pair_t *rec;
	size_t b0, b1;
	int direct, nt;
} dense_job_t;

/* A read's five arrays to dst, one after the other (5 R bytes): the kernels' layout. */
static void copy_read(uint8_t *dst, const gvk_read_t *r)
{
	size_t R = (size_t)r->len;
	memcpy(dst, r->bases, R), memcpy(dst + R, r->qual, R), memcpy(dst + 2 * R, r->ins, R);
	memcpy(dst + 3 * R, r->del, R), memcpy(dst + 4 * R, r->gcp, R);
}

/* A read whose five arrays follow each other in memory, as one block of 5 R bytes. */
static int read_is_flat(const gvk_read_t *r)
{
	const uint8_t *b = (const uint8_t *)r->bases;
	const size_t R = (size_t)r->len;
	return r->qual == b + R && r->ins == b + 2 * R && r->del == b + 3 * R && r->gcp == b + 4 * R;
}

static void dense_worker(void *arg, int t)
{
	dense_job_t *j = (dense_job_t *)arg;
	const pass_ctx_t *c = j->c;
	size_t nr = (size_t)c->maxr + 1, nh = (size_t)c->maxh + 1, np = j->b1 - j->b0;
	const size_t r1 = gvk_part(nr, t + 1, j->nt);
	for (size_t i = gvk_part(nr, t, j->nt); i < r1;) {
		const gvk_read_t *r = &c->reads[i];
		size_t R = (size_t)r->len, o = c->roff_all[i];
		if (!read_is_flat(r)) {
			copy_read(j->rb + o, r);
			++i;
			continue;
		}
		/* Reads stored back to back in the caller's memory (the CLI's parser does) go in one copy. */
		size_t len = 5 * R;
		for (++i; i < r1 && read_is_flat(&c->reads[i]) && c->reads[i].bases == r->bases + len; ++i) len += 5 * (size_t)c->reads[i].len;
		memcpy(j->rb + o, r->bases, len);
	}
	/* Haplotypes as they are (the GPU turns them into classes), stored back to back in one copy. */
	const size_t h1 = gvk_part(nh, t + 1, j->nt);
	for (size_t i = gvk_part(nh, t, j->nt); i < h1;) {
		const gvk_hap_t *h = &c->haps[i];
		size_t o = c->hoff_all[i], len = (size_t)h->len;
		for (++i; i < h1 && c->haps[i].bases == h->bases + len; ++i) len += (size_t)c->haps[i].len;
		memcpy(j->hb + o, h->bases, len);
	}
	const size_t p1 = gvk_part(np, t + 1, j->nt);
	for (size_t k = gvk_part(np, t, j->nt); k < p1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[j->b0 + k].k);
		j->rec[k] = pair_rec(c, p, c->roff_all[p->read], c->hoff_all[p->hap], j->direct ? c->ord[j->b0 + k].k : (uint32_t)k);
	}
}

/* The first k in [lo, hi) with ord[k].key >> shift > v (keys are sorted). */
static size_t key_run_end(const order_t *ord, size_t lo, size_t hi, int shift, uint32_t v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ord[mid].key >> shift <= v) lo = mid + 1; else hi = mid;
	}
	return lo;
}

/* Bins and scratch offsets of ord[b0, b1), shared by both packings. The keys are sorted, so a
 * bin is a run; only the largest (tiled) variant needs scratch. A variant's pairs that may share
 * the gap-open product follow the others (bin 2v + 1 after 2v) and get a launch of their own only
 * when they are at least half of the variant's; otherwise they run with the others. A small extra
 * launch per variant, with its own tail, costs more than the sharing saves (on
 * HaplotypeCaller-shaped pairs, where a few short reads qualify; see phmm_pass_mostly_shares). */
void phmm_pack_bins(const pass_ctx_t *c, size_t b0, size_t b1, uint64_t *soff, layout_t *L)
{
	const uint32_t largest = (uint32_t)var_count(c->dbl) - 1;
	memset(soff, 0, (b1 - b0) * sizeof *soff);
	for (size_t k = b0; k < b1;) {
		const uint32_t v = c->ord[k].key >> 9;
		const size_t end = key_run_end(c->ord, k, b1, 9, v), mid = key_run_end(c->ord, k, end, 8, 2 * v);
		const int split = mid > k && end > mid && 2 * (end - mid) >= end - k;
		L->bin_var[L->nbins] = (int)(2 * v + (mid == k)); /* mid == k: every pair may share */
		L->bin_start[L->nbins++] = k - b0;
		if (split) L->bin_var[L->nbins] = (int)(2 * v + 1), L->bin_start[L->nbins++] = mid - b0;
		if (v == largest)
			for (size_t x = k; x < end; ++x) {
				soff[x - b0] = L->scratch_elems;
				L->scratch_elems += 3 * ((size_t)c->haps[pair_at(c, c->ord[x].k)->hap].len + 1);
			}
		k = end;
	}
	L->bin_start[L->nbins] = L->n;
}

static int pack_dense(gpu_dev_t *g, slot_t *sl, const pass_ctx_t *c, size_t b0, size_t b1, layout_t *L, gvk_err_t *err)
{
	const size_t hpad = 64;
	memset(L, 0, sizeof *L);
	L->n = b1 - b0, L->direct = b0 == 0 && b1 == c->n;
	L->off_soff = align16(L->n * sizeof(phmm_gpu_pair_t));
	L->off_rb = L->off_soff + align16(L->n * sizeof(uint64_t));
	L->off_hb = L->off_rb + align16(c->rbytes_all);
	size_t hbytes = c->hbytes_all + (size_t)c->hmax_all + hpad;
	L->bytes = L->off_hb + align16(hbytes);
	if (L->off_hb + hbytes > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "GPU sub-batch over 4 GiB");
	int rc = phmm_ensure_host(&sl->host, &sl->host_cap, L->bytes, (size_t)64 << 20, "a sub-batch's staging", err);
	if (rc < 0) return rc;
	uint8_t *hb = sl->host + L->off_hb;
	memset(hb, 0, hpad);
	memset(hb + c->hbytes_all, 0, (size_t)c->hmax_all + hpad);
	dense_job_t j = {c, sl->host + L->off_rb, hb, (phmm_gpu_pair_t *)sl->host, b0, b1, L->direct, pack_threads(g, L->bytes)};
	gvk_parallel(j.nt, dense_worker, &j);
	phmm_pack_bins(c, b0, b1, (uint64_t *)(sl->host + L->off_soff), L);
	return 0;
}

/* The copies of a sparse pass: reads rl[0, nr) and haplotypes hl[0, nh) to the places the maps
 * hold (offset + 2). */
typedef struct {
	const pass_ctx_t *c;
	uint8_t *rb, *hb;
	const int32_t *rl, *hl;
	size_t nr, nh;
	int nt;
} sparse_job_t;

static void sparse_worker(void *arg, int t)
{
	const sparse_job_t *j = (const sparse_job_t *)arg;
	const pass_ctx_t *c = j->c;
	const size_t r1 = gvk_part(j->nr, t + 1, j->nt), h1 = gvk_part(j->nh, t + 1, j->nt);
	for (size_t i = gvk_part(j->nr, t, j->nt); i < r1; ++i)
		copy_read(j->rb + c->rmap[j->rl[i]] - 2, &c->reads[j->rl[i]]);
	for (size_t i = gvk_part(j->nh, t, j->nt); i < h1; ++i)
		memcpy(j->hb + c->hmap[j->hl[i]] - 2, c->haps[j->hl[i]].bases, (size_t)c->haps[j->hl[i]].len);
}

/* A pass that names only some reads and haplotypes (a double pass, the CLI's chunks of a file):
 * each copied once, to the place the maps give it. */
static int pack_sparse(gpu_dev_t *g, slot_t *sl, const pass_ctx_t *c, size_t b0, size_t b1, layout_t *L, gvk_err_t *err)
{
	size_t rbytes = 0, hbytes = 0;
	memset(L, 0, sizeof *L);
	L->n = b1 - b0, L->direct = b0 == 0 && b1 == c->n;
	for (size_t k = b0; k < b1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		if (!c->rmap[p->read]) c->rmap[p->read] = 1, rbytes += 5 * (size_t)c->reads[p->read].len;
		if (!c->hmap[p->hap]) c->hmap[p->hap] = 1, hbytes += (size_t)c->haps[p->hap].len;
	}
	L->off_soff = align16(L->n * sizeof(phmm_gpu_pair_t));
	L->off_rb = L->off_soff + align16(L->n * sizeof(uint64_t));
	/* Zero padding in front of and behind the haplotypes lets kernels read classes a warp's width
	 * before a haplotype and up to the longest haplotype past its end without bounds checks. */
	int hmax_batch = 0;
	for (size_t k = b0; k < b1; ++k) {
		int H = c->haps[pair_at(c, c->ord[k].k)->hap].len;
		if (H > hmax_batch) hmax_batch = H;
	}
	const size_t hpad = 64;
	hbytes += hpad + (size_t)hmax_batch + hpad;
	L->off_hb = L->off_rb + align16(rbytes);
	L->bytes = L->off_hb + align16(hbytes);
	if (L->off_hb + hbytes > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "GPU sub-batch over 4 GiB");
	int rc = phmm_ensure_host(&sl->host, &sl->host_cap, L->bytes, (size_t)64 << 20, "a sub-batch's staging", err);
	if (rc < 0) return rc;
	phmm_gpu_pair_t *rec = (phmm_gpu_pair_t *)sl->host;
	uint64_t *soff = (uint64_t *)(sl->host + L->off_soff);
	uint8_t *rb = sl->host + L->off_rb, *hb = sl->host + L->off_hb;
	/* Places first, in pair order (the maps tell a read's or haplotype's first pair), then the
	 * copies on all threads: the double passes of a chunk (a pair in fifty, their reads spread
	 * over the chunk) come this way, and copying them on one thread was a visible share of a
	 * chunk's host work. */
	int32_t *rl = (int32_t *)scratch(g, SCR_RLIST, (b1 - b0) * sizeof *rl), *hl = (int32_t *)scratch(g, SCR_HLIST, (b1 - b0) * sizeof *hl);
	if (!rl || !hl) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	size_t ro = 0, ho = hpad, nr = 0, nh = 0;
	memset(hb, 0, hpad);
	for (size_t k = b0; k < b1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		if (c->rmap[p->read] == 1) c->rmap[p->read] = (uint32_t)ro + 2, ro += 5 * (size_t)c->reads[p->read].len, rl[nr++] = p->read;
		if (c->hmap[p->hap] == 1) c->hmap[p->hap] = (uint32_t)ho + 2, ho += (size_t)c->haps[p->hap].len, hl[nh++] = p->hap;
		rec[k - b0] = pair_rec(c, p, c->rmap[p->read] - 2, c->hmap[p->hap] - 2, L->direct ? c->ord[k].k : (uint32_t)(k - b0));
	}
	sparse_job_t sj = {c, rb, hb, rl, hl, nr, nh, pack_threads(g, ro)};
	gvk_parallel(sj.nt, sparse_worker, &sj);
	phmm_pack_bins(c, b0, b1, soff, L);
	memset(hb + ho, 0, (size_t)hmax_batch + hpad);
	/* The maps are per sub-batch: clear the entries this one set. */
	for (size_t k = b0; k < b1; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		c->rmap[p->read] = 0, c->hmap[p->hap] = 0;
	}
	return 0;
}

/* Packs ord[b0, b1) into slot s's staging buffer and returns its layout; small haplotype blobs
 * are turned into classes here (HOST_CLASSES_MAX). */
int phmm_pack(gpu_dev_t *g, slot_t *sl, const pass_ctx_t *c, size_t b0, size_t b1, layout_t *L, gvk_err_t *err)
{
	const int rc = c->all ? pack_dense(g, sl, c, b0, b1, L, err) : pack_sparse(g, sl, c, b0, b1, L, err);
	if (rc == 0 && (L->hb_classes = L->bytes - L->off_hb <= HOST_CLASSES_MAX))
		hap_classes_host(sl->host + L->off_hb, L->bytes - L->off_hb);
	return rc;
}
