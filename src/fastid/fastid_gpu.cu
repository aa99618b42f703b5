/* SPDX-License-Identifier: MIT */
/* FastID's GPU back end (fastid_gpu.h) on the SNP engines' GPU context: per-thread top-k lists of
 * (score, index) keys kept and reduced on the device, so no score matrix is stored; the CUDA-core
 * or the tensor-core kernel, picked by a timing on the first batch or forced. Every CUDA call is
 * checked. */
#include "../snp/snp_gpu_impl.cuh"
extern "C" {
#include "fastid_gpu.h"
}

#if GPU_HAVE_BMMA
#include "../snp/snp_gpu_bmma.cuh"
#endif
#include "fastid_gpu_kernels.cuh"
#if GPU_HAVE_BMMA
#include "fastid_gpu_mma.cuh"
#endif

enum { FID_TRIAL = 1 << 18 }; /* profiles scored by both FastID kernels to pick one */

/* Adds the time between the two events of timing slot i (both recorded and passed). */
static int add_elapsed(snp_gpu_t *g, int i, gvk_err_t *err)
{
	float ms = 0;
	CK(cudaEventSynchronize(g->ev[i][1]));
	CK(cudaEventElapsedTime(&ms, g->ev[i][0], g->ev[i][1]));
	g->kern_s += ms * 1e-3;
	return 0;
}

typedef struct {
	uint64_t *q, *db, *top, *sel;
	uint64_t *dbuf[2]; /* database blocks: db is one, the next block is copied into the other */
	size_t dbuf_cap[2];
	const uint64_t *pf_src; /* next block to copy once the current one's first kernel runs */
	uint64_t *pf_dst;
	size_t pf_bytes;
	dhit_t *hits;
	unsigned long long *n_hits;
	size_t top_cap, sel_cap, hits_cap_b;
	unsigned long long hit_cap;
	uint64_t *h_sel;
	dhit_t *h_hits;
	size_t h_sel_cap, h_hits_cap;
	int path;               /* PATH_POPC or PATH_MMA, PATH_AUTO until the first batch has timed both */
	int qgroup;             /* queries per block of the CUDA-core kernel (FID_QB or FID_QB_LONG) */
	size_t smem_popc, smem_mma; /* dynamic shared memory of each kernel */
} fid_bufs_t;

static void fid_bufs_free(fid_bufs_t *b)
{
	cudaFree(b->q), cudaFree(b->dbuf[0]), cudaFree(b->dbuf[1]), cudaFree(b->top), cudaFree(b->sel), cudaFree(b->hits), cudaFree(b->n_hits);
	free(b->h_sel);
	free(b->h_hits);
}

static int host_reserve(void **p, size_t *cap, size_t need, gvk_err_t *err)
{
	if (need <= *cap) return 0;
	void *n = realloc(*p, need);
	if (!n) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory (%zu bytes)", need);
	*p = n, *cap = need;
	return 0;
}

template <int QB>
static int fid_launch_qb(int op, dim3 grid, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq, int64_t nd,
                         int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
	if (op == PG_XOR)
		fid_score_kernel<PG_XOR, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                          b->top, b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_score_kernel<PG_ANDNOT, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                             b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_score_kernel<PG_AND, QB><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                          b->top, b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
}

static int fid_launch_mma(int op, dim3 grid, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq, int64_t nd,
                          int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
#if GPU_HAVE_BMMA
	if (op == PG_XOR)
		fid_mma_kernel<PG_XOR><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                     b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_mma_kernel<PG_ANDNOT><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                        b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_mma_kernel<PG_AND><<<grid, FMMA_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                     b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
#else
	return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "no tensor-core FastID kernel on %s GPUs", GVK_GPU_API);
#endif
}

static int fid_launch(int op, int path, int qb, int blocks_x, int blocks_y, size_t smem, const fid_bufs_t *b,
                      const uint64_t *q, int nq, int64_t nd, int stride, int64_t per_part, int nparts, int k,
                      int64_t thresh, gvk_err_t *err)
{
	dim3 grid((unsigned)blocks_x, (unsigned)blocks_y);
	if (path == PATH_MMA) return fid_launch_mma(op, dim3((unsigned)blocks_y, (unsigned)blocks_x), smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err);
	return qb == FID_QB ? fid_launch_qb<FID_QB>(op, grid, smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err)
	                    : fid_launch_qb<FID_QB_LONG>(op, grid, smem, b, q, nq, nd, stride, per_part, nparts, k, thresh, err);
}

/* Allows smem bytes of dynamic shared memory to the kernels of QB queries. */
template <int QB>
static int fid_allow_smem(size_t smem, gvk_err_t *err)
{
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_XOR, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_ANDNOT, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_score_kernel<PG_AND, QB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	return 0;
}

static int fid_allow_smem_mma(size_t smem, gvk_err_t *err)
{
#if GPU_HAVE_BMMA
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_XOR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_ANDNOT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CK(cudaFuncSetAttribute(fid_mma_kernel<PG_AND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
#endif
	return 0;
}

/* One batch of nqb queries (from q0) against the resident database block of nd profiles with the
 * kernel of path: fills blk->top rows q0.. (blk->k per query) and appends to blk->hits. */
static int fid_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int path, int64_t q0, int nqb, int64_t nd,
                     int64_t dbase, fid_result_t *blk, gvk_err_t *err)
{
	const int stride = job->db->stride, k = blk->k;
	const int qgroup = path == PATH_MMA ? (int)FMMA_QB : b->qgroup, lists = path == PATH_MMA ? (int)FMMA_LISTS : (int)FID_THREADS;
	const int groups = (nqb + qgroup - 1) / qgroup;
	/* Enough (part, group) blocks to fill every SM, each part at least one profile per thread. */
	int64_t want = ((int64_t)g->sms * g->max_threads_sm + (int64_t)groups * FID_THREADS - 1) / ((int64_t)groups * FID_THREADS);
	int64_t most = (nd + FID_THREADS - 1) / FID_THREADS;
	int64_t nparts = want < 1 ? 1 : want > most ? most : want;
	if (k > 0) {
		/* Per-thread lists cost nqb * nparts * FID_THREADS * k keys; keep them to a quarter of memory. */
		size_t per_part = (size_t)nqb * (size_t)lists * (size_t)k * sizeof(uint64_t);
		int64_t fit = (int64_t)(g->mem_free / 4 / per_part);
		if (nparts > fit) nparts = fit < 1 ? 1 : fit;
	}
	if (k > 0) { /* the selection scans every list entry once per rank: keep the lists short */
		int64_t cap = 65536 / ((int64_t)lists * k);
		if (nparts > cap) nparts = cap < 1 ? 1 : cap;
	}
	if (nparts > (path == PATH_MMA ? 65535 : 65535 * 1024)) nparts = path == PATH_MMA ? 65535 : 65535 * 1024;
	const int64_t per_part = (nd + nparts - 1) / nparts;
	const size_t len = (size_t)nparts * (size_t)lists * (size_t)k; /* keys per query */
	int rc;
	if (k > 0) {
		if ((rc = dev_reserve((void **)&b->top, &b->top_cap, (size_t)nqb * len * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = dev_reserve((void **)&b->sel, &b->sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = host_reserve((void **)&b->h_sel, &b->h_sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), err)) < 0)
			return rc;
	}
	const size_t smem = path == PATH_MMA ? b->smem_mma : b->smem_popc;
	const uint64_t *q = b->q + (size_t)q0 * (size_t)stride;
	for (int attempt = 0;; ++attempt) {
		if (k > 0) CK(cudaMemset(b->top, 0xff, (size_t)nqb * len * sizeof(uint64_t)));
		CK(cudaMemset(b->n_hits, 0, sizeof *b->n_hits));
		CK(cudaEventRecord(g->ev[0][0], 0));
		if ((rc = fid_launch(job->op, path, qgroup, (int)nparts, groups, smem, b, q, nqb, nd, stride, per_part, (int)nparts, k,
		                     job->thresh, err)) < 0)
			return rc;
		CK(cudaEventRecord(g->ev[0][1], 0));
		if (b->pf_src) { /* the next database block travels while this kernel runs */
			CK(cudaMemcpyAsync(b->pf_dst, b->pf_src, b->pf_bytes, cudaMemcpyHostToDevice, g->st[1]));
			b->pf_src = NULL;
		}
		unsigned long long nh = 0;
		CK(cudaMemcpy(&nh, b->n_hits, sizeof nh, cudaMemcpyDeviceToHost));
		if ((rc = add_elapsed(g, 0, err)) < 0) return rc;
		if (nh <= b->hit_cap) {
			if (nh > 0) {
				if ((rc = host_reserve((void **)&b->h_hits, &b->h_hits_cap, nh * sizeof(dhit_t), err)) < 0) return rc;
				CK(cudaMemcpy(b->h_hits, b->hits, nh * sizeof(dhit_t), cudaMemcpyDeviceToHost));
				fid_hit_t *nhits = (fid_hit_t *)realloc(blk->hits, (blk->n_hits + nh) * sizeof(fid_hit_t));
				if (!nhits) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %llu threshold hits", nh);
				blk->hits = nhits;
				for (unsigned long long h = 0; h < nh; ++h) {
					const dhit_t *x = &b->h_hits[h];
					fid_hit_t *y = &blk->hits[blk->n_hits++];
					y->db = job->db_offset + dbase + x->d, y->q = (uint32_t)q0 + x->q, y->score = x->score;
				}
			}
			break;
		}
		if (attempt > 0) return gvk_err_set(err, GVK_ERR_GPU, "GPU threshold hit count changed between runs");
		/* More hits than room: grow the buffer to the exact count and score the batch again. */
		cudaFree(b->hits);
		b->hits = NULL, b->hits_cap_b = 0, b->hit_cap = 0;
		if ((rc = dev_reserve((void **)&b->hits, &b->hits_cap_b, nh * sizeof(dhit_t), "threshold hits", err)) < 0) return rc;
		b->hit_cap = nh;
	}
	if (k > 0) {
		CK(cudaEventRecord(g->ev[1][0], 0));
		fid_select_kernel<<<(unsigned)nqb, SEL_THREADS>>>(b->top, len, k, b->sel);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->ev[1][1], 0));
		CK(cudaMemcpy(b->h_sel, b->sel, (size_t)nqb * (size_t)k * sizeof(uint64_t), cudaMemcpyDeviceToHost));
		if ((rc = add_elapsed(g, 1, err)) < 0) return rc;
		for (int x = 0; x < nqb; ++x)
			for (int r = 0; r < k; ++r) {
				uint64_t key = b->h_sel[(size_t)x * k + r];
				fid_hit_t *y = &blk->top[(size_t)(q0 + x) * k + r];
				y->db = job->db_offset + dbase + (int64_t)(key & 0xffffffffu);
				y->q = (uint32_t)(q0 + x), y->score = (uint32_t)(key >> 32);
			}
	}
	return 0;
}

/* Path auto: both kernels score the first batch against the first FID_TRIAL profiles
 * (at most) into a scratch result, each timed with its selection, and the faster is kept for the
 * whole search (they give the same results); then the batch is scored for real. */
static int fid_pick_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int64_t q0, int nqb, int64_t nd,
                          int64_t dbase, fid_result_t *blk, gvk_err_t *err)
{
	const int64_t tn = nd < (int64_t)FID_TRIAL ? nd : (int64_t)FID_TRIAL;
	double t[2] = {0, 0};
	int rc = 0;
	for (int p = 0; p < 2 && rc == 0; ++p) {
		fid_result_t tmp;
		memset(&tmp, 0, sizeof tmp);
		tmp.k = blk->k < tn ? blk->k : (int)tn;
		if (tmp.k > 0 && !(tmp.top = (fid_hit_t *)malloc((size_t)(q0 + nqb) * (size_t)tmp.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", tmp.k);
		const double t0 = g->kern_s;
		rc = fid_batch(g, job, b, p ? PATH_MMA : PATH_POPC, q0, nqb, tn, dbase, &tmp, err);
		t[p] = g->kern_s - t0;
		fid_result_free(&tmp);
	}
	if (rc < 0) return rc;
	b->path = t[1] < t[0] ? PATH_MMA : PATH_POPC;
	return fid_batch(g, job, b, b->path, q0, nqb, nd, dbase, blk, err);
}

static int fid_run(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, fid_result_t *res, gvk_err_t *err)
{
	const int64_t nq = job->q->n, n = job->db->n;
	const int stride = job->db->stride;
	const size_t pbytes = (size_t)stride * sizeof(uint64_t);
	const int qgroup = (size_t)FID_QB * pbytes <= g->smem_optin ? FID_QB : FID_QB_LONG;
	const size_t smem = (size_t)qgroup * pbytes;
	if (smem > g->smem_optin)
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "profiles of %u SNPs are too long for this GPU's shared memory",
		                   job->db->n_snp);
	int rc = 0;
	if (smem > g->smem_block &&
	    (rc = qgroup == FID_QB ? fid_allow_smem<FID_QB>(smem, err) : fid_allow_smem<FID_QB_LONG>(smem, err)) < 0)
		return rc;
	/* The tensor-core kernel holds FMMA_QB queries in fragment order, 256-bit chunks: the CUDA-core
	 * kernel runs alone when they do not fit in shared memory. */
	b->qgroup = qgroup, b->smem_popc = smem;
	b->smem_mma = (size_t)((stride + 3) / 4) * FMMA_NF * 32 * sizeof(uint64_t);
	b->path = b->smem_mma > g->smem_optin ? PATH_POPC : g->path;
	if (g->path == PATH_MMA && b->path == PATH_POPC)
		gvk_logf(&g->log, GVK_LOG_INFO, "profiles of %u SNPs are too long for the tensor-core FastID kernel; using the CUDA cores",
		         job->db->n_snp);
	if (b->path != PATH_POPC && b->smem_mma > g->smem_block && (rc = fid_allow_smem_mma(b->smem_mma, err)) < 0)
		return rc;
	if (nq == 0 || n == 0) return 0;
	if (nq > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "too many queries for the GPU engine");
	size_t qcap = 0;
	rc = dev_reserve((void **)&b->q, &qcap, (size_t)nq * pbytes, "the queries", err);
	if (rc < 0) return rc;
	CK(cudaMemcpy(b->q, job->q->w, (size_t)nq * pbytes, cudaMemcpyHostToDevice));
	size_t one = 0;
	if ((rc = dev_reserve((void **)&b->n_hits, &one, sizeof *b->n_hits, "a counter", err)) < 0) return rc;
	if (job->thresh >= 0) {
		b->hit_cap = 1u << 20;
		if ((rc = dev_reserve((void **)&b->hits, &b->hits_cap_b, b->hit_cap * sizeof(dhit_t), "threshold hits", err)) < 0)
			return rc;
	}
	/* Database blocks of a quarter of free memory (indices within a block fit the keys' 32 bits). */
	int64_t blk_n = (int64_t)(g->mem_free / 4 / pbytes);
	if (blk_n < n) blk_n /= 2; /* two block buffers (copy and search overlap) in the same memory */
	if (blk_n > INT32_MAX) blk_n = INT32_MAX;
	if (g->db_block > 0 && g->db_block < blk_n) blk_n = g->db_block;
	if (blk_n < 1) blk_n = 1;
	const int topk = job->topk > 0 ? job->topk : 0;
	int64_t qb = g->q_batch > 0 ? g->q_batch : 65535 * (int64_t)qgroup;
	if (topk > 0) { /* one part per query group at least: a batch's lists within a quarter of memory */
		int64_t fit = (int64_t)(g->mem_free / 4 / ((size_t)FID_THREADS * (size_t)topk * sizeof(uint64_t)));
		if (qb > fit) qb = fit < 1 ? 1 : fit;
	}
	const size_t buf_bytes = (size_t)(n < blk_n ? n : blk_n) * pbytes;
	for (int i = 0; i < (blk_n < n ? 2 : 1); ++i)
		if ((rc = dev_reserve((void **)&b->dbuf[i], &b->dbuf_cap[i], buf_bytes, "a database block", err)) < 0) return rc;
	CK(cudaMemcpyAsync(b->dbuf[0], job->db->w, (size_t)(n < blk_n ? n : blk_n) * pbytes, cudaMemcpyHostToDevice, g->st[1]));
	for (int64_t d0 = 0, bi = 0; d0 < n; d0 += blk_n, ++bi) {
		const int64_t nd = n - d0 < blk_n ? n - d0 : blk_n, d1 = d0 + nd;
		CK(cudaStreamSynchronize(g->st[1])); /* block bi is on the device */
		b->db = b->dbuf[bi & 1];
		if (d1 < n) { /* copy block bi + 1 during block bi's first kernel (fid_batch) */
			b->pf_src = job->db->w + (size_t)d1 * stride, b->pf_dst = b->dbuf[(bi + 1) & 1];
			b->pf_bytes = (size_t)(n - d1 < blk_n ? n - d1 : blk_n) * pbytes;
		}
		fid_result_t blk;
		memset(&blk, 0, sizeof blk);
		blk.k = (int)(topk < nd ? topk : nd);
		if (blk.k > 0 && !(blk.top = (fid_hit_t *)malloc((size_t)nq * (size_t)blk.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", blk.k);
		for (int64_t q0 = 0; q0 < nq && rc == 0; q0 += qb) {
			const int nqb = (int)(nq - q0 < qb ? nq - q0 : qb);
			rc = b->path == PATH_AUTO ? fid_pick_batch(g, job, b, q0, nqb, nd, d0, &blk, err)
			                          : fid_batch(g, job, b, b->path, q0, nqb, nd, d0, &blk, err);
		}
		blk.pairs = (uint64_t)nq * (uint64_t)nd;
		if (rc == 0 && b->pf_src) { /* not sent by a kernel launch (none ran) */
			CK(cudaMemcpyAsync(b->pf_dst, b->pf_src, b->pf_bytes, cudaMemcpyHostToDevice, g->st[1]));
			b->pf_src = NULL;
		}
		if (rc == 0) rc = fid_result_merge(res, &blk, nq, topk, err);
		fid_result_free(&blk);
		if (rc < 0) return rc;
	}
	fid_result_sort_hits(res);
	return 0;
}

extern "C" int snp_gpu_fastid(snp_gpu_t *g, const fid_job_t *job, fid_result_t *res, gvk_err_t *err)
{
	memset(res, 0, sizeof *res);
	fid_bufs_t b;
	memset(&b, 0, sizeof b);
	int rc = fid_run(g, job, &b, res, err);
	snprintf(g->kernel, sizeof g->kernel, "%s %s", g->name, b.path == PATH_MMA ? "bmma" : "popc");
	fid_bufs_free(&b);
	if (rc < 0) fid_result_free(res);
	return rc;
}
