/* GPU back end of the SNP engines (snp_gpu.h). Both engines use one popcount-GEMM idea: operand
 * words staged in shared memory, AND / XOR / AND-NOT and __popcll summed in 32-bit integers, so
 * the counts are the CPU kernels' integers exactly. LD copies the counts back and runs the CPU's
 * own epilogue functions on them (bit-identical doubles for free); FastID keeps per-thread
 * top-k lists of (score, index) keys on the device and reduces them there, so no score matrix
 * is stored. Every CUDA call is checked. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "snp_gpu.h"
#include "../common/err.h"
#include "../common/cuda_check.h"
#include "../common/threads.h"
}

enum { LD_T = 16, FID_THREADS = 128, FID_QB = 8, SEL_THREADS = 256 };

typedef struct {
	uint32_t q, score;
	int64_t d; /* index within the device block */
} dhit_t;

struct snp_gpu_s {
	int dev, sms, max_threads_sm;
	size_t smem_block, smem_optin, mem_free;
	char name[272]; /* "gpu-" and cudaDeviceProp.name */
	/* LD: SNPs [ld_lo, ld_hi) of the planes at ld_src resident in ld_w */
	const uint64_t *ld_src;
	int64_t ld_lo, ld_hi;
	uint64_t *ld_w;
	size_t ld_w_cap;
	int64_t *ld_jr;        /* jlo then jhi of a stripe, device */
	size_t ld_jr_cap;
	pg_ldcnt_t *ld_cnt, *h_cnt;
	size_t ld_cnt_cap, h_cnt_cap;
	int64_t db_block, q_batch; /* test overrides (GVK_SNP_GPU_DB_BLOCK / _QBATCH); 0 = automatic */
};

/* ---- kernels -------------------------------------------------------------------------------- */

/* One LD_T x LD_T tile of pairs per block: rows of the stripe against columns, the three planes of
 * both sides staged kw words at a time. Counts as popgemm_body.h's general path; for two full
 * SNPs that path gives the same integers as the CPU's shortcut through the plane totals (V all
 * ones over n_bits, all bits beyond n_bits zero). */
__global__ void ld_count_kernel(const uint64_t *__restrict__ w, int64_t base, int nw, int kw, int64_t i0, int nrows,
                                int64_t cbase, int64_t width, const int64_t *__restrict__ jlo,
                                const int64_t *__restrict__ jhi, pg_ldcnt_t *__restrict__ out)
{
	extern __shared__ uint64_t sm[];
	__shared__ int any;
	const int pitch = 3 * kw + 1; /* odd pitch spreads the columns over the banks */
	uint64_t *xs = sm, *ys = sm + LD_T * pitch;
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * LD_T + tx;
	const int64_t r0 = (int64_t)blockIdx.y * LD_T, c0 = cbase + (int64_t)blockIdx.x * LD_T;
	if (tid == 0) {
		int a = 0;
		for (int r = 0; r < LD_T && r0 + r < nrows; ++r)
			if (jlo[r0 + r] < jhi[r0 + r] && jlo[r0 + r] < c0 + LD_T && jhi[r0 + r] > c0) a = 1;
		any = a;
	}
	__syncthreads();
	if (!any) return; /* the whole block agrees, so no thread misses a barrier */
	int32_t aa = 0, ab = 0, ba = 0, bb = 0, n = 0, av = 0, bv = 0, va = 0, vb = 0;
	for (int w0 = 0; w0 < nw; w0 += kw) {
		const int kn = nw - w0 < kw ? nw - w0 : kw;
		for (int e = tid; e < LD_T * 3 * kn; e += LD_T * LD_T) {
			const int s = e / (3 * kn), rem = e % (3 * kn), p = rem / kn, k = rem % kn;
			const int64_t xi = i0 + r0 + s, yj = c0 + s;
			xs[s * pitch + p * kw + k] = r0 + s < nrows ? w[((xi - base) * 3 + p) * nw + w0 + k] : 0;
			ys[s * pitch + p * kw + k] = yj < cbase + width ? w[((yj - base) * 3 + p) * nw + w0 + k] : 0;
		}
		__syncthreads();
		const uint64_t *xa = xs + ty * pitch, *xb = xa + kw, *xv = xb + kw;
		const uint64_t *ya = ys + tx * pitch, *yb = ya + kw, *yv = yb + kw;
		for (int k = 0; k < kn; ++k) {
			const uint64_t a = xa[k], b = xb[k], v = xv[k], c = ya[k], d = yb[k], u = yv[k];
			aa += __popcll(a & c), ab += __popcll(a & d), ba += __popcll(b & c), bb += __popcll(b & d);
			n += __popcll(v & u), av += __popcll(a & u), bv += __popcll(b & u);
			va += __popcll(c & v), vb += __popcll(d & v);
		}
		__syncthreads();
	}
	const int64_t row = r0 + ty, col = c0 + tx;
	if (row < nrows && col >= jlo[row] && col < jhi[row]) {
		pg_ldcnt_t o;
		o.n = n;
		o.sx = av + bv, o.sxx = av + 3 * bv;
		o.sy = va + vb, o.syy = va + 3 * vb;
		o.sxy = aa + ab + ba + bb;
		out[row * width + (col - cbase)] = o;
	}
}

template <int OP>
__device__ __forceinline__ uint64_t fid_op(uint64_t q, uint64_t d)
{
	return OP == PG_XOR ? q ^ d : OP == PG_ANDNOT ? d & ~q : d & q;
}

/* Block (part, group): FID_QB queries held in shared memory against database profiles
 * part * per_part + tid, + FID_THREADS, ... Each thread keeps, per query, its k best keys
 * score << 32 | index (ascending = the CPU's order: score, then smaller index) in a sorted list in
 * top, entry r of thread t at [r * FID_THREADS + t]. Scores <= thresh go to hits. */
template <int OP>
__global__ void fid_score_kernel(const uint64_t *__restrict__ q, int nq, const uint64_t *__restrict__ db, int64_t nd,
                                 int stride, int64_t per_part, int nparts, int k, int64_t thresh,
                                 uint64_t *__restrict__ top, dhit_t *__restrict__ hits,
                                 unsigned long long *__restrict__ n_hits, unsigned long long hit_cap)
{
	extern __shared__ uint64_t qs[];
	const int q0 = blockIdx.y * FID_QB, qn = nq - q0 < FID_QB ? nq - q0 : FID_QB;
	for (int e = threadIdx.x; e < qn * stride; e += blockDim.x) qs[e] = q[(size_t)q0 * stride + e];
	__syncthreads();
	const int part = blockIdx.x;
	const int64_t d0 = (int64_t)part * per_part, d1 = d0 + per_part < nd ? d0 + per_part : nd;
	int cnt[FID_QB];
	uint64_t worst[FID_QB];
#pragma unroll
	for (int x = 0; x < FID_QB; ++x) cnt[x] = 0, worst[x] = ~0ull;
	for (int64_t d = d0 + threadIdx.x; d < d1; d += FID_THREADS) {
		const uint64_t *p = db + d * stride;
		uint32_t s[FID_QB];
#pragma unroll
		for (int x = 0; x < FID_QB; ++x) s[x] = 0;
		for (int w = 0; w < stride; ++w) {
			const uint64_t pw = p[w];
#pragma unroll
			for (int x = 0; x < FID_QB; ++x)
				if (x < qn) s[x] += (uint32_t)__popcll(fid_op<OP>(qs[x * stride + w], pw));
		}
#pragma unroll
		for (int x = 0; x < FID_QB; ++x) {
			if (x >= qn) continue;
			if (thresh >= 0 && (int64_t)s[x] <= thresh) {
				unsigned long long h = atomicAdd(n_hits, 1ull);
				if (h < hit_cap) hits[h] = dhit_t{(uint32_t)(q0 + x), s[x], d};
			}
			if (k == 0) continue;
			const uint64_t key = (uint64_t)s[x] << 32 | (uint64_t)d;
			if (cnt[x] == k && key >= worst[x]) continue;
			uint64_t *t = top + ((size_t)(q0 + x) * nparts + part) * (size_t)k * FID_THREADS + threadIdx.x;
			int i = cnt[x] < k ? cnt[x]++ : k - 1;
			while (i > 0 && key < t[(size_t)(i - 1) * FID_THREADS]) {
				t[(size_t)i * FID_THREADS] = t[(size_t)(i - 1) * FID_THREADS];
				--i;
			}
			t[(size_t)i * FID_THREADS] = key;
			if (cnt[x] == k) worst[x] = t[(size_t)(k - 1) * FID_THREADS];
		}
	}
}

/* One block per query: the kout smallest keys among its len list entries (unused entries hold
 * ~0), found one rank at a time as the smallest key above the previous one (keys are unique). */
__global__ void fid_select_kernel(const uint64_t *__restrict__ top, size_t len, int kout, uint64_t *__restrict__ sel)
{
	__shared__ uint64_t red[SEL_THREADS];
	const uint64_t *t = top + (size_t)blockIdx.x * len;
	uint64_t last = 0;
	for (int r = 0; r < kout; ++r) {
		uint64_t m = ~0ull;
		for (size_t e = threadIdx.x; e < len; e += SEL_THREADS) {
			const uint64_t v = t[e];
			if ((r == 0 || v > last) && v < m) m = v;
		}
		red[threadIdx.x] = m;
		__syncthreads();
		for (int h = SEL_THREADS / 2; h > 0; h >>= 1) {
			if ((int)threadIdx.x < h && red[threadIdx.x + h] < red[threadIdx.x]) red[threadIdx.x] = red[threadIdx.x + h];
			__syncthreads();
		}
		last = red[0];
		if (threadIdx.x == 0) sel[(size_t)blockIdx.x * kout + r] = last;
		__syncthreads();
	}
}

/* ---- device set-up -------------------------------------------------------------------------- */

static int gpu_init(snp_gpu_t *g, gvk_err_t *err)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0)
		return gvk_err_set(err, GVK_ERR_GPU, "no usable CUDA GPU for the SNP engines: %s",
		                   e != cudaSuccess ? cudaGetErrorString(e) : "none found");
	g->dev = 0;
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, g->dev));
	if (prop.major < 8)
		return gvk_err_set(err, GVK_ERR_GPU, "GPU %s has compute capability %d.%d; gvk needs 8.0 or newer", prop.name,
		                   prop.major, prop.minor);
	CK(cudaSetDevice(g->dev));
	snprintf(g->name, sizeof g->name, "gpu-%s", prop.name);
	g->sms = prop.multiProcessorCount;
	g->max_threads_sm = prop.maxThreadsPerMultiProcessor;
	g->smem_block = prop.sharedMemPerBlock;
	g->smem_optin = prop.sharedMemPerBlockOptin > prop.sharedMemPerBlock ? prop.sharedMemPerBlockOptin
	                                                                     : prop.sharedMemPerBlock;
	size_t total = 0;
	CK(cudaMemGetInfo(&g->mem_free, &total));
	const char *s = getenv("GVK_SNP_GPU_DB_BLOCK");
	g->db_block = s ? atoll(s) : 0;
	s = getenv("GVK_SNP_GPU_QBATCH");
	g->q_batch = s ? atoll(s) : 0;
	return 0;
}

extern "C" snp_gpu_t *snp_gpu_open(gvk_err_t *err)
{
	snp_gpu_t *g = (snp_gpu_t *)calloc(1, sizeof *g);
	if (!g) {
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (gpu_init(g, err) < 0) {
		snp_gpu_close(g);
		return NULL;
	}
	return g;
}

extern "C" void snp_gpu_close(snp_gpu_t *g)
{
	if (!g) return;
	cudaFree(g->ld_w);
	cudaFree(g->ld_jr);
	cudaFree(g->ld_cnt);
	free(g->h_cnt);
	free(g);
}

extern "C" const char *snp_gpu_name(const snp_gpu_t *g) { return g->name; }

/* Device buffer of at least need bytes (contents not kept). */
static int dev_reserve(void **p, size_t *cap, size_t need, const char *what, gvk_err_t *err)
{
	if (need <= *cap) return 0;
	cudaFree(*p);
	*p = NULL, *cap = 0;
	cudaError_t e = cudaMalloc(p, need);
	if (e != cudaSuccess) {
		*p = NULL;
		return gvk_err_set(err, e == cudaErrorMemoryAllocation ? GVK_ERR_NOMEM : GVK_ERR_GPU,
		                   "CUDA: cannot allocate %zu bytes of GPU memory for %s: %s", need, what, cudaGetErrorString(e));
	}
	*cap = need;
	return 0;
}

/* ---- LD ------------------------------------------------------------------------------------- */

typedef struct {
	const ld_opt_t *o;
	ld_stripe_t *s;
	const pg_ldcnt_t *cnt;
	int nt;
} ld_epi_t;

/* The CPU engine's epilogue (ld_engine.c) on the counts, rows interleaved over the threads. */
static void ld_epilogue(void *arg, int tid)
{
	const ld_epi_t *e = (const ld_epi_t *)arg;
	ld_stripe_t *s = e->s;
	for (int64_t i = s->i0 + tid; i < s->i1; i += e->nt) {
		size_t off = (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t c = off + (size_t)(j - s->cbase);
			if (e->o->haplotype) {
				ld_haplotype(&e->cnt[c], &s->r[c], &s->d[c], &s->dp[c]);
				if (e->o->r2) s->r[c] *= fabs(s->r[c]);
			} else {
				s->r[c] = ld_value_genotype(&e->cnt[c], e->o->r2, e->o->single);
			}
		}
	}
}

/* Makes SNPs [lo, hi) resident: all of them on first use when they fit, else the stripe's span. */
static int ld_upload(snp_gpu_t *g, const snp_data_t *d, int64_t lo, int64_t hi, gvk_err_t *err)
{
	if (g->ld_src == d->w && lo >= g->ld_lo && hi <= g->ld_hi) return 0;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	if ((size_t)d->n_snp * per <= g->mem_free / 2) lo = 0, hi = d->n_snp;
	size_t bytes = (size_t)(hi - lo) * per;
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, bytes, "the SNP bit planes", err);
	if (rc < 0) return rc;
	CK(cudaMemcpy(g->ld_w, snp_plane(d, lo, 0), bytes, cudaMemcpyHostToDevice));
	g->ld_src = d->w, g->ld_lo = lo, g->ld_hi = hi;
	return 0;
}

extern "C" int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0;
	if (nrows <= 0 || s->width <= 0) return 0;
	int64_t lo = s->i0 < s->cbase ? s->i0 : s->cbase;
	int64_t hi = s->i1 > s->cbase + s->width ? s->i1 : s->cbase + s->width;
	int rc = ld_upload(g, d, lo, hi, err);
	if (rc < 0) return rc;
	const size_t cells = (size_t)nrows * (size_t)s->width;
	if ((rc = dev_reserve((void **)&g->ld_jr, &g->ld_jr_cap, 2 * (size_t)nrows * sizeof(int64_t), "a stripe", err)) < 0 ||
	    (rc = dev_reserve((void **)&g->ld_cnt, &g->ld_cnt_cap, cells * sizeof(pg_ldcnt_t), "a stripe's counts", err)) < 0)
		return rc;
	if (cells > g->h_cnt_cap) {
		free(g->h_cnt);
		g->h_cnt_cap = 0;
		if (!(g->h_cnt = (pg_ldcnt_t *)malloc(cells * sizeof(pg_ldcnt_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for a stripe of %zu pairs", cells);
		g->h_cnt_cap = cells;
	}
	CK(cudaMemcpy(g->ld_jr, s->jlo, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g->ld_jr + nrows, s->jhi, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice));
	/* Words per staged tile: as many as two LD_T-SNP tiles of three planes (plus the pitch word
	 * and the kernel's static flag) fit in a block's default shared memory. */
	int kw = (int)((g->smem_block / (2 * LD_T * sizeof(uint64_t)) - 2) / 3);
	if (kw > d->nw) kw = d->nw;
	if (kw < 1) kw = 1;
	const size_t smem = 2 * LD_T * (size_t)(3 * kw + 1) * sizeof(uint64_t);
	dim3 grid((unsigned)((s->width + LD_T - 1) / LD_T), (unsigned)((nrows + LD_T - 1) / LD_T)), block(LD_T, LD_T);
	ld_count_kernel<<<grid, block, smem>>>(g->ld_w, g->ld_lo, d->nw, kw, s->i0, (int)nrows, s->cbase, s->width,
	                                       g->ld_jr, g->ld_jr + nrows, g->ld_cnt);
	CK(cudaGetLastError());
	CK(cudaMemcpy(g->h_cnt, g->ld_cnt, cells * sizeof(pg_ldcnt_t), cudaMemcpyDeviceToHost));
	int nt = o->threads > 0 ? o->threads : 1;
	if (nt > nrows) nt = (int)nrows;
	ld_epi_t e = {o, s, g->h_cnt, nt};
	gvk_parallel(nt, ld_epilogue, &e);
	return 0;
}

/* ---- FastID --------------------------------------------------------------------------------- */

typedef struct {
	uint64_t *q, *db, *top, *sel;
	dhit_t *hits;
	unsigned long long *n_hits;
	size_t db_cap, top_cap, sel_cap, hits_cap_b;
	unsigned long long hit_cap;
	uint64_t *h_sel;
	dhit_t *h_hits;
	size_t h_sel_cap, h_hits_cap;
} fid_bufs_t;

static void fid_bufs_free(fid_bufs_t *b)
{
	cudaFree(b->q), cudaFree(b->db), cudaFree(b->top), cudaFree(b->sel), cudaFree(b->hits), cudaFree(b->n_hits);
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

static int fid_launch(int op, int blocks_x, int blocks_y, size_t smem, const fid_bufs_t *b, const uint64_t *q, int nq,
                      int64_t nd, int stride, int64_t per_part, int nparts, int k, int64_t thresh, gvk_err_t *err)
{
	dim3 grid((unsigned)blocks_x, (unsigned)blocks_y);
	if (op == PG_XOR)
		fid_score_kernel<PG_XOR><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                      b->hits, b->n_hits, b->hit_cap);
	else if (op == PG_ANDNOT)
		fid_score_kernel<PG_ANDNOT><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh,
		                                                         b->top, b->hits, b->n_hits, b->hit_cap);
	else
		fid_score_kernel<PG_AND><<<grid, FID_THREADS, smem>>>(q, nq, b->db, nd, stride, per_part, nparts, k, thresh, b->top,
		                                                      b->hits, b->n_hits, b->hit_cap);
	CK(cudaGetLastError());
	return 0;
}

/* One batch of nqb queries (from q0) against the resident database block of nd profiles: fills
 * blk->top rows q0.. (blk->k per query) and appends to blk->hits. */
static int fid_batch(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, int64_t q0, int nqb, int64_t nd, int64_t dbase,
                     fid_result_t *blk, gvk_err_t *err)
{
	const int stride = job->db->stride, k = blk->k;
	const int groups = (nqb + FID_QB - 1) / FID_QB;
	/* Enough (part, group) blocks to fill every SM, each part at least one profile per thread. */
	int64_t want = ((int64_t)g->sms * g->max_threads_sm + (int64_t)groups * FID_THREADS - 1) / ((int64_t)groups * FID_THREADS);
	int64_t most = (nd + FID_THREADS - 1) / FID_THREADS;
	int64_t nparts = want < 1 ? 1 : want > most ? most : want;
	if (k > 0) {
		/* Per-thread lists cost nqb * nparts * FID_THREADS * k keys; keep them to a quarter of memory. */
		size_t per_part = (size_t)nqb * FID_THREADS * (size_t)k * sizeof(uint64_t);
		int64_t fit = (int64_t)(g->mem_free / 4 / per_part);
		if (nparts > fit) nparts = fit < 1 ? 1 : fit;
	}
	if (k > 0) { /* the selection scans every list entry once per rank: keep the lists short */
		int64_t cap = 65536 / ((int64_t)FID_THREADS * k);
		if (nparts > cap) nparts = cap < 1 ? 1 : cap;
	}
	if (nparts > 65535 * 1024) nparts = 65535 * 1024;
	const int64_t per_part = (nd + nparts - 1) / nparts;
	const size_t len = (size_t)nparts * FID_THREADS * (size_t)k; /* keys per query */
	int rc;
	if (k > 0) {
		if ((rc = dev_reserve((void **)&b->top, &b->top_cap, (size_t)nqb * len * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = dev_reserve((void **)&b->sel, &b->sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), "top-k lists", err)) < 0 ||
		    (rc = host_reserve((void **)&b->h_sel, &b->h_sel_cap, (size_t)nqb * (size_t)k * sizeof(uint64_t), err)) < 0)
			return rc;
	}
	const size_t smem = (size_t)FID_QB * (size_t)stride * sizeof(uint64_t);
	const uint64_t *q = b->q + (size_t)q0 * (size_t)stride;
	for (int attempt = 0;; ++attempt) {
		if (k > 0) CK(cudaMemset(b->top, 0xff, (size_t)nqb * len * sizeof(uint64_t)));
		CK(cudaMemset(b->n_hits, 0, sizeof *b->n_hits));
		if ((rc = fid_launch(job->op, (int)nparts, groups, smem, b, q, nqb, nd, stride, per_part, (int)nparts, k,
		                     job->thresh, err)) < 0)
			return rc;
		unsigned long long nh = 0;
		CK(cudaMemcpy(&nh, b->n_hits, sizeof nh, cudaMemcpyDeviceToHost));
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
		fid_select_kernel<<<(unsigned)nqb, SEL_THREADS>>>(b->top, len, k, b->sel);
		CK(cudaGetLastError());
		CK(cudaMemcpy(b->h_sel, b->sel, (size_t)nqb * (size_t)k * sizeof(uint64_t), cudaMemcpyDeviceToHost));
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

static int fid_run(snp_gpu_t *g, const fid_job_t *job, fid_bufs_t *b, fid_result_t *res, gvk_err_t *err)
{
	const int64_t nq = job->q->n, n = job->db->n;
	const int stride = job->db->stride;
	const size_t pbytes = (size_t)stride * sizeof(uint64_t);
	const size_t smem = (size_t)FID_QB * pbytes;
	if (smem > g->smem_optin)
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "profiles of %u SNPs are too long for this GPU's shared memory",
		                   job->db->n_snp);
	if (smem > g->smem_block) {
		CK(cudaFuncSetAttribute(fid_score_kernel<PG_XOR>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
		CK(cudaFuncSetAttribute(fid_score_kernel<PG_ANDNOT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
		CK(cudaFuncSetAttribute(fid_score_kernel<PG_AND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	}
	if (nq == 0 || n == 0) return 0;
	if (nq > UINT32_MAX) return gvk_err_set(err, GVK_ERR_ARG, "too many queries for the GPU engine");
	size_t qcap = 0;
	int rc = dev_reserve((void **)&b->q, &qcap, (size_t)nq * pbytes, "the queries", err);
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
	if (blk_n > INT32_MAX) blk_n = INT32_MAX;
	if (g->db_block > 0 && g->db_block < blk_n) blk_n = g->db_block;
	if (blk_n < 1) blk_n = 1;
	const int topk = job->topk > 0 ? job->topk : 0;
	int64_t qb = g->q_batch > 0 ? g->q_batch : 65535 * FID_QB;
	if (topk > 0) { /* one part per query group at least: a batch's lists within a quarter of memory */
		int64_t fit = (int64_t)(g->mem_free / 4 / ((size_t)FID_THREADS * (size_t)topk * sizeof(uint64_t)));
		if (qb > fit) qb = fit < 1 ? 1 : fit;
	}
	for (int64_t d0 = 0; d0 < n; d0 += blk_n) {
		const int64_t nd = n - d0 < blk_n ? n - d0 : blk_n;
		if ((rc = dev_reserve((void **)&b->db, &b->db_cap, (size_t)nd * pbytes, "a database block", err)) < 0) return rc;
		CK(cudaMemcpy(b->db, job->db->w + (size_t)d0 * stride, (size_t)nd * pbytes, cudaMemcpyHostToDevice));
		fid_result_t blk;
		memset(&blk, 0, sizeof blk);
		blk.k = (int)(topk < nd ? topk : nd);
		if (blk.k > 0 && !(blk.top = (fid_hit_t *)malloc((size_t)nq * (size_t)blk.k * sizeof(fid_hit_t))))
			return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for top-%d lists", blk.k);
		for (int64_t q0 = 0; q0 < nq && rc == 0; q0 += qb)
			rc = fid_batch(g, job, b, q0, (int)(nq - q0 < qb ? nq - q0 : qb), nd, d0, &blk, err);
		blk.pairs = (uint64_t)nq * (uint64_t)nd;
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
	fid_bufs_free(&b);
	if (rc < 0) fid_result_free(res);
	return rc;
}
