/* SPDX-License-Identifier: MIT */
/* One Pair-HMM GPU pass on one device: sub-batches packed (pairhmm_gpu_pack.cu) and launched on
 * alternating streams, bins spread over the bin streams, sums collected and scattered to the
 * pairs' own indices; the double pass that reuses the float pass's blobs on the device; the
 * gpu_profile reports. Split from pairhmm_gpu.cu, which keeps the device set-up, the kernel
 * variants and the entry points that call phmm_dev_pass. */
#include "../common/gpu_port.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>

#include "gvk.h"
#include "../common/err.h"
#include "../common/log.h"
#include "../common/buf.h"
#include "../common/cuda_check.h"
#include "../common/cuda_mem.h"
#include "../common/threads.h"
#include "pairhmm_engine.h"
#include "pairhmm_gpu_dev.cuh"

enum { DIRECT_SUMS_MAX = 32 << 10 }; /* bytes of sums written straight to the host (launch_batch) */

/* gpu_profile 2: times one bin's launch on its own (the stream waits for it), for tuning. */
static cudaError_t bin_profile(gpu_dev_t *g, slot_t *sl, cudaStream_t bs, const layout_t *L, int b, int dbl)
{
	const phmm_gpu_pair_t *rec = (const phmm_gpu_pair_t *)sl->host;
	float ms = 0;
	cudaError_t e = cudaEventRecord(sl->bin_done[1], bs);
	if (e == cudaSuccess) e = cudaEventSynchronize(sl->bin_done[1]);
	if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, sl->bin_done[0], sl->bin_done[1]);
	double cells = 0;
	for (size_t k = L->bin_start[b]; k < L->bin_start[b + 1]; ++k) cells += (double)rec[k].R * rec[k].H;
	g->bin_s[dbl][L->bin_var[b]] += 1e-3 * ms, g->bin_cells[dbl][L->bin_var[b]] += cells;
	return e;
}

static void bin_report(const gpu_dev_t *g, int dbl)
{
	const variant_t *var = var_table(dbl);
	for (int b = 0; b < 2 * var_count(dbl); ++b)
		if (g->bin_cells[dbl][b] > 0)
			gvk_logf(&g->log, GVK_LOG_INFO, "GPU bin %2dx%-2d %s%s: %8.3f Gcells %8.3f ms %6.3f TCUPS", var[b >> 1].P, var[b >> 1].K,
			        dbl == PASS_FTZ ? "double, FTZ" : dbl ? "double" : "float", b & 1 ? " shared" : "", 1e-9 * g->bin_cells[dbl][b], 1e3 * g->bin_s[dbl][b],
			        1e-12 * g->bin_cells[dbl][b] / g->bin_s[dbl][b]);
}

/* Queues copy-in, kernels and copy-out of a packed sub-batch on stream s. */
static int launch_batch(gpu_dev_t *g, int s, const layout_t *L, int dbl, gvk_err_t *err)
{
	slot_t *sl = &g->slot[s];
	sl->direct = L->direct;
	const int tsz = dbl ? 8 : 4;
	const variant_t *var = var_table(dbl);
	size_t out_off = align16(L->bytes), scr_off = out_off + align16(L->n * (size_t)tsz);
	size_t need = scr_off + L->scratch_elems * (size_t)tsz;
	int rc = phmm_ensure_dev(&sl->dev, &sl->dev_cap, need, err);
	if (rc < 0) return rc;
	if ((rc = phmm_ensure_hout(sl, L->n * (size_t)tsz, err)) < 0) return rc;
	/* A small sub-batch's kernels write their sums straight into the pinned buffer: a copy back
	 * would add a call and a transfer's latency to a latency-bound pass, while a few kilobytes of
	 * scattered writes over the bus cost nothing comparable. */
	unsigned char *out = sl->hout_view && L->n * (size_t)tsz <= DIRECT_SUMS_MAX ? sl->hout_view : sl->dev + out_off;
	CK(cudaMemcpyAsync(sl->dev, sl->host, L->bytes, cudaMemcpyHostToDevice, g->st[s]));
	/* The kernel time counts every kernel of the pass, the haplotype classes' too. */
	CK(cudaEventRecord(sl->k0, g->st[s]));
	if (!L->hb_dev && !L->hb_classes) {
		const size_t n16 = (L->bytes - L->off_hb) / 16; /* the haplotype blob, padding included */
		phmm_launch_hap_classes((uint4 *)(sl->dev + L->off_hb), n16, g->st[s]);
		CK(cudaGetLastError());
	}
	const phmm_gpu_pair_t *pairs = (const phmm_gpu_pair_t *)sl->dev;
	const uint64_t *soff = (const uint64_t *)(sl->dev + L->off_soff);
	const uint8_t *rb = L->rb_dev ? L->rb_dev : sl->dev + L->off_rb, *hb = L->hb_dev ? L->hb_dev : sl->dev + L->off_hb;
	const void *errt = dbl ? (const void *)g->err_d : (const void *)g->err_f;
	const void *mmt = dbl ? (const void *)g->mm_d : (const void *)g->mm_f;
	/* Longest-running bins first, round robin over the bin streams (one stream when profiling bins,
	 * which times each launch on its own). A single bin runs on the slot's stream itself: the
	 * events that hand work to the bin streams and back would only add to its latency. */
	const int nbs = g->profile > 1 ? 1 : PHMM_BIN_STREAMS < L->nbins ? PHMM_BIN_STREAMS : L->nbins;
	const int own = L->nbins == 1 && g->profile < 2;
	if (!own) {
		CK(cudaEventRecord(sl->k_ready, g->st[s]));
		for (int k = 0; k < nbs; ++k) CK(cudaStreamWaitEvent(g->bst[k], sl->k_ready, 0));
	}
	for (int b = L->nbins - 1; b >= 0; --b) {
		const variant_t *v = &var[L->bin_var[b] >> 1];
		cudaStream_t bs = own ? g->st[s] : g->bst[(L->nbins - 1 - b) % nbs];
		size_t start = L->bin_start[b], n = L->bin_start[b + 1] - start;
		int per_block = PHMM_GPU_BLOCK / v->P;
		int blocks = (int)((n + (size_t)per_block - 1) / (size_t)per_block);
		size_t smem = (size_t)per_block * (size_t)v->table * (size_t)tsz;
		if (g->profile > 1) CK(cudaEventRecord(sl->bin_done[0], bs));
		v->fn[L->bin_var[b] & 1][g->fused](blocks, smem, bs, pairs + start, (int)n, rb, hb, errt, mmt,
		                L->scratch_elems ? sl->dev + scr_off : NULL, soff + start, out);
		CK(cudaGetLastError());
		if (g->profile > 1) CK(bin_profile(g, sl, bs, L, b, dbl));
	}
	for (int k = 0; !own && k < nbs; ++k) {
		CK(cudaEventRecord(sl->bin_done[k], g->bst[k]));
		CK(cudaStreamWaitEvent(g->st[s], sl->bin_done[k], 0));
	}
	CK(cudaEventRecord(sl->k1, g->st[s]));
	if (out != sl->hout_view) CK(cudaMemcpyAsync(sl->hout, out, L->n * (size_t)tsz, cudaMemcpyDeviceToHost, g->st[s]));
	CK(cudaEventRecord(sl->done, g->st[s]));
	return 0;
}

typedef struct {
	const pass_ctx_t *c;
	size_t b0, n;
	const unsigned char *hout;
	float *fsum;
	double *dsum;
	int direct, nt;
} scatter_sums_t;

static void scatter_sums_worker(void *arg, int t)
{
	const scatter_sums_t *j = (const scatter_sums_t *)arg;
	const pass_ctx_t *c = j->c;
	const size_t end = gvk_part(j->n, t + 1, j->nt);
	for (size_t k = gvk_part(j->n, t, j->nt); k < end; ++k) {
		size_t i = j->direct ? k : c->ord[j->b0 + k].k;
		size_t idx = c->sel ? c->sel[i] : i;
		if (c->dbl)
			j->dsum[idx] = ((const double *)j->hout)[k];
		else
			j->fsum[idx] = ((const float *)j->hout)[k];
	}
}

/* A shared engine's leader polls its pass's event and yields between polls: with callers beyond
 * the host's cores the others get the core (the CUDA runtime's own spin kept eight leaders on
 * sixteen cores busy while sixty-four callers waited), and with fewer the yield returns at once.
 * The command-line engines sleep on a blocking event. */
static cudaError_t wait_done(gpu_dev_t *g, int s)
{
	if (!g->yield_wait) return cudaEventSynchronize(g->slot[s].done);
	cudaError_t e;
	while ((e = cudaEventQuery(g->slot[s].done)) == cudaErrorNotReady) sched_yield();
	return e;
}

/* Waits for slot s and scatters its sums to the pairs' own indices. */
static int collect(gpu_dev_t *g, int s, const pass_ctx_t *c, size_t b0, size_t n, float *fsum, double *dsum,
                   gvk_err_t *err)
{
	double t0 = gvk_seconds();
	CK(wait_done(g, s));
	double t1 = gvk_seconds();
	g->t_wait += t1 - t0;
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, g->slot[s].k0, g->slot[s].k1));
	g->kernel_s += 1e-3 * ms;
	scatter_sums_t j = {c, b0, n, g->slot[s].hout, fsum, dsum, g->slot[s].direct, n < 65536 ? 1 : g->threads};
	gvk_parallel(j.nt, scatter_sums_worker, &j);
	g->t_scatter += gvk_seconds() - t1;
	return 0;
}

/* Pairs per sub-batch so that its staging bytes stay under the limit (at least one pair). */
static size_t batch_end(const pass_ctx_t *c, size_t b0, size_t n, size_t limit)
{
	size_t bytes = 0, k = b0;
	for (; k < n; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		bytes += pair_bytes(c->reads[p->read].len, c->haps[p->hap].len, c->dbl);
		if (bytes > limit && k > b0) break;
	}
	return k;
}

static int run_pass(gpu_dev_t *g, pass_ctx_t *c, size_t n, float *fsum, double *dsum, gvk_err_t *err)
{
	size_t b0 = 0, pend_b0[NSTREAM] = {0}, pend_n[NSTREAM] = {0};
	int s = 0, rc = 0;
	/* One sub-batch per pass when it fits: every read and haplotype is then packed (and its
	 * classes converted) once, which costs the host far more than the copy that a split would
	 * overlap with kernels. Passes over 1 GiB, or after an out-of-memory, are split. */
	size_t limit = c->total_bytes + 4096;
	if (limit > g->max_batch_bytes) limit = g->max_batch_bytes;
	while (b0 < n) {
		if (pend_n[s] && (rc = collect(g, s, c, pend_b0[s], pend_n[s], fsum, dsum, err)) < 0) return rc;
		pend_n[s] = 0;
		double t0 = gvk_seconds();
		size_t b1 = b0 == 0 && c->total_bytes <= limit ? n : batch_end(c, b0, n, limit);
		layout_t L;
		rc = phmm_pack(g, &g->slot[s], c, b0, b1, &L, err);
		g->t_pack += gvk_seconds() - t0;
		if (rc < 0) return rc;
		rc = launch_batch(g, s, &L, c->dbl, err);
		if (rc == GVK_ERR_NOMEM && limit > (1u << 20)) {
			/* Out of device memory: free this slot's buffers, halve the sub-batch, try again. */
			cudaGetLastError();
			for (int k = 0; k < NSTREAM; ++k)
				if (pend_n[k] && (rc = collect(g, k, c, pend_b0[k], pend_n[k], fsum, dsum, err)) < 0) return rc;
			memset(pend_n, 0, sizeof pend_n);
			cudaFree(g->slot[s].dev);
			g->slot[s].dev = NULL, g->slot[s].dev_cap = 0;
			limit /= 2;
			g->max_batch_bytes = limit;
			gvk_logf(&g->log, GVK_LOG_WARN, "GPU out of memory; retrying with sub-batches of %zu MiB", limit >> 20);
			continue;
		}
		if (rc < 0) return rc;
		if (s == 0 && L.direct && c->all && !c->dbl && !c->sel)
			g->kept = {1, c->reads, c->haps, c->maxr, c->maxh, c->roff_all, c->hoff_all, L.off_rb, L.off_hb};
		pend_b0[s] = b0, pend_n[s] = b1 - b0;
		b0 = b1;
		s = (s + 1) % NSTREAM;
	}
	for (int k = 0; k < NSTREAM; ++k)
		if (pend_n[k] && (rc = collect(g, k, c, pend_b0[k], pend_n[k], fsum, dsum, err)) < 0) return g->kept.valid = 0, rc;
	return 0;
}

/* The double pass over pairs of the float pass that g->kept describes: records only, on slot 1
 * (slot 0 holds the blobs), one sub-batch. The sparse packing it replaces copied every such
 * pair's read again, which was most of the double passes' host time. */
static int run_kept_pass(gpu_dev_t *g, pass_ctx_t *c, size_t n, double *dsum, gvk_err_t *err)
{
	slot_t *sl = &g->slot[1];
	layout_t L;
	memset(&L, 0, sizeof L);
	L.n = n, L.direct = 1;
	L.off_soff = align16(n * sizeof(phmm_gpu_pair_t));
	L.off_rb = L.off_hb = L.bytes = L.off_soff + align16(n * sizeof(uint64_t));
	L.rb_dev = g->slot[0].dev + g->kept.off_rb, L.hb_dev = g->slot[0].dev + g->kept.off_hb;
	double t0 = gvk_seconds();
	int rc = phmm_ensure_host(&sl->host, &sl->host_cap, L.bytes, (size_t)1 << 20, "a sub-batch's staging", err);
	if (rc < 0) return rc;
	phmm_gpu_pair_t *rec = (phmm_gpu_pair_t *)sl->host;
	for (size_t k = 0; k < n; ++k) {
		const gvk_pair_t *p = pair_at(c, c->ord[k].k);
		rec[k] = pair_rec(c, p, g->kept.roff[p->read], g->kept.hoff[p->hap], c->ord[k].k);
	}
	phmm_pack_bins(c, 0, n, (uint64_t *)(sl->host + L.off_soff), &L);
	g->t_pack += gvk_seconds() - t0;
	if ((rc = launch_batch(g, 1, &L, c->dbl, err)) < 0) return rc;
	return collect(g, 1, c, 0, n, NULL, dsum, err);
}

/* Marks the reads and haplotypes that the pass's pairs use (rmap / hmap entries set to 1, from
 * all threads: the stores are relaxed atomics of the same value). */
typedef struct {
	pass_ctx_t *c;
	size_t n;
	int nt;
} mark_job_t;

static void mark_worker(void *arg, int t)
{
	const mark_job_t *j = (const mark_job_t *)arg;
	const size_t end = gvk_part(j->n, t + 1, j->nt);
	for (size_t k = gvk_part(j->n, t, j->nt); k < end; ++k) {
		const gvk_pair_t *p = pair_at(j->c, k);
		__atomic_store_n(&j->c->rmap[p->read], 1u, __ATOMIC_RELAXED);
		__atomic_store_n(&j->c->hmap[p->hap], 1u, __ATOMIC_RELAXED);
	}
}

/* gpu_profile: a pass's share of the totals (tz: the totals before it), and when it ran. */
static void pass_report(const gpu_dev_t *g, const pass_ctx_t *c, const double tz[6], double pass_t0)
{
	if (!g->profile) return;
	gvk_logf(&g->log, GVK_LOG_INFO, "GPU pass of %zu pairs (%s%s), %.6f to %.6f s: sort %.3f ms, prepare %.3f, pack %.3f, wait %.3f, scatter %.3f, kernels %.3f",
	        c->n, c->dbl == PASS_FTZ ? "double with FTZ" : c->dbl ? "double" : "float", c->kept ? ", blobs kept" : "", pass_t0, gvk_seconds(),
	        1e3 * (g->t_sort - tz[0]), 1e3 * (g->t_prep - tz[1]), 1e3 * (g->t_pack - tz[2]), 1e3 * (g->t_wait - tz[3]),
	        1e3 * (g->t_scatter - tz[4]), 1e3 * (g->kernel_s - tz[5]));
	if (g->profile > 1) bin_report(g, c->dbl);
}

int phmm_dev_pass(gpu_dev_t *g, const gvk_read_t *reads, const gvk_hap_t *haps, const gvk_pair_t *pairs,
                    const size_t *sel, size_t n, int dbl, float *fsum, double *dsum, gvk_err_t *err)
{
	/* Only the double pass right after the float pass of the same call may use its blobs. */
	const int kept = dbl && sel && g->kept.valid && g->kept.reads == reads && g->kept.haps == haps;
	g->kept.valid = 0;
	if (n == 0) return 0;
	if (n > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "a GPU pass takes at most 2^32 - 1 pairs (%zu given)", n);
	pass_ctx_t c = {reads, haps, pairs, sel, NULL, dbl, NULL, NULL, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, n, 0};
	/* gpu_profile: this pass's share of the totals, and when it ran (the CLI's clock). */
	const double tz[6] = {g->t_sort, g->t_prep, g->t_pack, g->t_wait, g->t_scatter, g->kernel_s};
	double t0 = gvk_seconds(), pass_t0 = t0;
	scan_job_t sj;
	memset(&sj, 0, sizeof sj);
	sj.reads = reads, sj.haps = haps, sj.pairs = pairs, sj.sel = sel, sj.n = n, sj.dbl = dbl;
	sj.share = g->share && phmm_pass_mostly_shares(reads, pairs, sel, n);
	sj.nt = n < 65536 ? 1 : g->threads < MAX_SCAN_THREADS ? g->threads : MAX_SCAN_THREADS;
	sj.coarse = n < WARP_PASS ? BINS_WARP : n < SMALL_PASS ? BINS_COARSE : BINS_FINE;
	sj.var_of_len = g->var_of_len[dbl][sj.coarse];
	order_t *ord = NULL;
	int rc = phmm_order_pairs(g, &sj, &ord);
	g->t_sort += gvk_seconds() - t0;
	t0 = gvk_seconds();
	int32_t maxr = 0, maxh = 0;
	for (int t = 0; t < sj.nt; ++t) {
		maxr = sj.maxr[t] > maxr ? sj.maxr[t] : maxr, maxh = sj.maxh[t] > maxh ? sj.maxh[t] : maxh;
		c.total_bytes += sj.bytes[t];
	}
	if (rc == 0 && kept && maxr <= g->kept.maxr && maxh <= g->kept.maxh) {
		c.ord = ord, c.kept = 1;
		if (cudaSetDevice(g->dev) != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, "cannot select GPU %d", g->dev);
		rc = run_kept_pass(g, &c, n, dsum, err);
		if (rc != GVK_ERR_NOMEM) {
			pass_report(g, &c, tz, pass_t0);
			return rc;
		}
		/* No room for the records beside the kept blobs: the pass packs its own sub-batches. */
		cudaGetLastError();
		rc = 0, c.ord = NULL, c.kept = 0;
		t0 = gvk_seconds();
	}
	c.rmap = (uint32_t *)scratch(g, SCR_RMAP, ((size_t)maxr + 1) * sizeof *c.rmap);
	c.hmap = (uint32_t *)scratch(g, SCR_HMAP, ((size_t)maxh + 1) * sizeof *c.hmap);
	if (c.rmap) memset(c.rmap, 0, ((size_t)maxr + 1) * sizeof *c.rmap);
	if (c.hmap) memset(c.hmap, 0, ((size_t)maxh + 1) * sizeof *c.hmap);
	c.maxr = maxr, c.maxh = maxh;
	/* Dense when every read and haplotype up to the largest index is used (the CLI's chunks):
	 * entries no pair names may not even be valid. */
	if (rc == 0 && c.rmap && c.hmap) {
		mark_job_t mj = {&c, n, sj.nt};
		gvk_parallel(mj.nt, mark_worker, &mj);
		size_t ur = 0, uh = 0;
		for (int32_t i = 0; i <= maxr; ++i) ur += c.rmap[i];
		for (int32_t i = 0; i <= maxh; ++i) uh += c.hmap[i];
		c.all = ur == (size_t)maxr + 1 && uh == (size_t)maxh + 1;
		memset(c.rmap, 0, ((size_t)maxr + 1) * sizeof *c.rmap);
		memset(c.hmap, 0, ((size_t)maxh + 1) * sizeof *c.hmap);
	}
	if (c.all) {
		c.roff_all = (size_t *)scratch(g, SCR_ROFF, ((size_t)maxr + 1) * sizeof(size_t));
		c.hoff_all = (size_t *)scratch(g, SCR_HOFF, ((size_t)maxh + 1) * sizeof(size_t));
		if (c.roff_all && c.hoff_all) {
			size_t o = 0;
			for (int32_t i = 0; i <= maxr; ++i) c.roff_all[i] = o, o += 5 * (size_t)reads[i].len;
			c.rbytes_all = o, o = 64;
			for (int32_t i = 0; i <= maxh; ++i) {
				c.hoff_all[i] = o, o += (size_t)haps[i].len;
				if (haps[i].len > c.hmax_all) c.hmax_all = haps[i].len;
			}
			c.hbytes_all = o;
		}
	}
	g->t_prep += gvk_seconds() - t0;
	if (rc < 0 || !c.rmap || !c.hmap || (c.all && (!c.roff_all || !c.hoff_all)))
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	c.ord = ord;
	if (cudaSetDevice(g->dev) != cudaSuccess) return gvk_err_set(err, GVK_ERR_GPU, "cannot select GPU %d", g->dev);
	rc = run_pass(g, &c, n, fsum, dsum, err);
	pass_report(g, &c, tz, pass_t0);
	return rc;
}
