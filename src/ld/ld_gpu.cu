/* SPDX-License-Identifier: MIT */
/* LD's GPU back end (ld_gpu.h) on the SNP engines' GPU context: stripes of pair counts with r / r^2
 * formed on the device by the CUDA-core or the tensor-core kernel (picked by a timing on the first
 * chunk or forced), copied back while the next chunk runs, --clump's two-locus tables and the
 * pruning options' pair counts. The
 * counts are the CPU kernels' integers exactly. Every CUDA call is checked. */
#include "../snp/snp_gpu_impl.cuh"
extern "C" {
#include "ld_gpu.h"
}

/* The tensor-core kernels are NVIDIA's alone (binary MMA in PTX, 32-lane fragments): under HIP
 * they are not compiled, and the context sends every request to the popcount kernels. */
#if GPU_HAVE_BMMA
#include "../snp/snp_gpu_bmma.cuh"
#endif
#include "ld_gpu_kernels.cuh"
#include "ld_gpu_clump.cuh"
#include "ld_gpu_prune.cuh"
#if GPU_HAVE_BMMA
#include "ld_gpu_mma.cuh"
#endif

/* Resident blocks per SM of the large-tile CUDA-core kernel (general, FULL), once per context. */
static int ld_occupancy(snp_gpu_t *g, gvk_err_t *err)
{
	if (g->ld_bps[0] > 0) return 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->ld_bps[0], ld_count_kernel<0, 4, 2>, LD_T * LD_T, 0));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&g->ld_bps[1], ld_count_kernel<1, 4, 4>, LD_T * LD_T, 0));
	return 0;
}

typedef struct {
	const ld_opt_t *o;
	ld_stripe_t *s;
	const pg_ldcnt_t *cnt;
	int nt;
} ld_epi_t;

/* The CPU engine's haplotype epilogue (ld_engine.c) on the counts, rows interleaved over the threads. */
static void ld_epilogue(void *arg, int tid)
{
	const ld_epi_t *e = (const ld_epi_t *)arg;
	ld_stripe_t *s = e->s;
	for (int64_t i = s->i0 + tid; i < s->i1; i += e->nt) {
		size_t off = (size_t)(i - s->i0) * (size_t)s->width;
		for (int64_t j = s->jlo[i - s->i0]; j < s->jhi[i - s->i0]; ++j) {
			size_t c = off + (size_t)(j - s->cbase);
			ld_haplotype(&e->cnt[c], &s->r[c], &s->d[c], &s->dp[c]);
			if (e->o->r2) s->r[c] *= fabs(s->r[c]);
		}
	}
}

/* Makes every SNP resident with its plane totals (once per data set) when all of them fit in half
 * the free memory; returns 1 then, 0 when the stripes must stream their planes instead. */
static int ld_resident(snp_gpu_t *g, const snp_data_t *d, gvk_err_t *err)
{
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	if ((size_t)d->n_snp * per > g->mem_free / 2) return 0;
	if (g->ld_src == d->w) return 1;
	const size_t bytes = (size_t)d->n_snp * per;
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, bytes, "the SNP bit planes", err);
	if (rc == 0) rc = dev_reserve((void **)&g->ld_tot, &g->ld_tot_cap, 2 * (size_t)d->n_snp * sizeof(int32_t), "plane totals", err);
	if (rc < 0) return rc;
	CK(cudaMemcpyAsync(g->ld_w, d->w, bytes, cudaMemcpyHostToDevice, g->st[0]));
	ld_totals_kernel<<<(unsigned)((d->n_snp + 255) / 256), 256, 0, g->st[0]>>>(g->ld_w, d->n_snp, d->nw, g->ld_tot);
	CK(cudaGetLastError());
	g->ld_src = d->w;
	return 1;
}

/* ---- --clump -------------------------------------------------------------------------------- */

extern "C" void snp_gpu_planes_changed(snp_gpu_t *g)
{
	if (g) g->ld_src = NULL;
}

extern "C" int snp_gpu_clump_counts(snp_gpu_t *g, const snp_data_t *d, const int64_t *pairs, const uint8_t *x,
                                    int64_t n, uint32_t *c, gvk_err_t *err)
{
	if (n <= 0) return 0;
	CK(cudaSetDevice(g->dev));
	int rc = ld_resident(g, d, err);
	if (rc == 0)
		rc = gvk_err_set(err, GVK_ERR_NOMEM, "--clump: the bit planes of %lld SNPs do not fit in half the GPU's free memory",
		                 (long long)d->n_snp);
	if (rc < 0) return rc;
	const size_t male_bytes = (size_t)d->nw * sizeof(uint64_t);
	rc = dev_reserve((void **)&g->cl_pairs, &g->cl_pairs_cap, 2 * (size_t)n * sizeof(int64_t), "clump pairs", err);
	if (rc == 0) rc = dev_reserve((void **)&g->cl_x, &g->cl_x_cap, (size_t)n, "clump X flags", err);
	if (rc == 0) rc = dev_reserve((void **)&g->cl_male, &g->cl_male_cap, male_bytes, "male columns", err);
	if (rc == 0) rc = dev_reserve((void **)&g->cl_cnt, &g->cl_cnt_cap, 18 * (size_t)n * sizeof(uint32_t), "clump tables", err);
	if (rc < 0) return rc;
	CK(cudaMemcpyAsync(g->cl_pairs, pairs, 2 * (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	CK(cudaMemcpyAsync(g->cl_x, x, (size_t)n, cudaMemcpyHostToDevice, g->st[0]));
	/* without male columns no pair has x set, and the kernel reads none */
	if (d->male) CK(cudaMemcpyAsync(g->cl_male, d->male, male_bytes, cudaMemcpyHostToDevice, g->st[0]));
	clump_count_kernel<<<(unsigned)((n + 127) / 128), 128, 0, g->st[0]>>>(g->ld_w, d->nw, g->cl_pairs, g->cl_x, g->cl_male,
	                                                                     n, g->cl_cnt);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(c, g->cl_cnt, 18 * (size_t)n * sizeof(uint32_t), cudaMemcpyDeviceToHost, g->st[0]));
	CK(cudaStreamSynchronize(g->st[0]));
	return 0;
}

/* ---- --indep-pairwise / --indep-pairphase ------------------------------------------------------ */

extern "C" int snp_gpu_prune_planes(snp_gpu_t *g, int nw, const uint64_t *seg0, int64_t n0, const uint64_t *seg1,
                                    int64_t n1, gvk_err_t *err)
{
	const size_t per = (size_t)SNP_PLANES * (size_t)nw * sizeof(uint64_t);
	CK(cudaSetDevice(g->dev));
	int rc = dev_reserve((void **)&g->pr_w, &g->pr_w_cap, (size_t)(n0 + n1) * per, "the planes of a pruning band", err);
	if (rc < 0) return rc;
	if (n0) CK(cudaMemcpyAsync(g->pr_w, seg0, (size_t)n0 * per, cudaMemcpyHostToDevice, g->st[0]));
	if (n1) CK(cudaMemcpyAsync((char *)g->pr_w + (size_t)n0 * per, seg1, (size_t)n1 * per, cudaMemcpyHostToDevice, g->st[0]));
	return 0;
}

extern "C" int snp_gpu_prune_counts(snp_gpu_t *g, int nw, const int64_t *off, int64_t n_rows, int phased,
                                    const uint64_t *male, uint32_t *c, gvk_err_t *err)
{
	const int64_t n = n_rows > 0 ? off[n_rows] : 0;
	if (n <= 0) return 0;
	const size_t per = phased ? 18 : 7, male_bytes = (size_t)nw * sizeof(uint64_t);
	CK(cudaSetDevice(g->dev));
	int rc = dev_reserve((void **)&g->pr_off, &g->pr_off_cap, (size_t)(n_rows + 1) * sizeof(int64_t), "a band's rows", err);
	if (rc == 0) rc = dev_reserve((void **)&g->pr_cnt, &g->pr_cnt_cap, (size_t)n * per * sizeof(uint32_t), "a band's counts", err);
	if (rc == 0 && male) rc = dev_reserve((void **)&g->cl_male, &g->cl_male_cap, male_bytes, "male columns", err);
	if (rc < 0) return rc;
	CK(cudaMemcpyAsync(g->pr_off, off, (size_t)(n_rows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	if (male) CK(cudaMemcpyAsync(g->cl_male, male, male_bytes, cudaMemcpyHostToDevice, g->st[0]));
	prune_count_kernel<<<(unsigned)((n + 127) / 128), 128, 0, g->st[0]>>>(g->pr_w, nw, g->pr_off, n_rows, n, phased,
	                                                                     male ? g->cl_male : NULL, g->pr_cnt);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(c, g->pr_cnt, (size_t)n * per * sizeof(uint32_t), cudaMemcpyDeviceToHost, g->st[0]));
	CK(cudaStreamSynchronize(g->st[0]));
	return 0;
}

/* One count launch: rows [i0, i0 + nrows) against columns [cbase, cbase + width), results at
 * row * width + (column - cbase) of out (counts) or val (values). */
typedef struct {
	ld_src_t src;
	int64_t i0, cbase, width;
	int nrows;
	const int64_t *jlo, *jhi;
	pg_ldcnt_t *out;
	double *val;
} ld_launch_t;

/* FULL when every SNP of the launch has all samples called. */
static int ld_count_launch(snp_gpu_t *g, cudaStream_t st, int path, int full, const snp_data_t *d, const ld_launch_t *L,
                           const ld_opt_t *o, gvk_err_t *err)
{
	const int32_t nbits = (int32_t)d->n_bits;
#if GPU_HAVE_BMMA
	if (path == PATH_MMA) {
		const int r = MMA_S * (full ? 2 : 3);
		const size_t stage = 2 * (size_t)r * (MMA_KW + 2) * sizeof(uint64_t), ctile = (size_t)r * r * sizeof(int32_t);
		const size_t smem = stage > ctile ? stage : ctile;
		dim3 grid((unsigned)((L->width + MMA_S - 1) / MMA_S), (unsigned)((L->nrows + MMA_S - 1) / MMA_S));
		if (full)
			ld_mma_kernel<2><<<grid, MMA_THREADS, smem, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                  L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else
			ld_mma_kernel<3><<<grid, MMA_THREADS, smem, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                  L->jhi, nbits, L->out, L->val, o->r2, o->single);
	} else
#endif
	{
		/* Register tiles: 4 x 4 pairs per thread with 2 planes, 4 x 2 with 3 (7 sums per pair); 2 x 2
		 * when the large tiles would not fill every SM's resident blocks (narrow windows, small
		 * stripes), trading operand reuse for parallelism. */
		const int64_t big = ((L->width + LD_T * (full ? 4 : 2) - 1) / (LD_T * (full ? 4 : 2))) * ((L->nrows + 4 * LD_T - 1) / (4 * LD_T));
		const int small = big < (int64_t)g->sms * g->ld_bps[full];
		const int tm = LD_T * (small ? 2 : 4), tn = LD_T * (small ? 2 : full ? 4 : 2);
		dim3 grid((unsigned)((L->width + tn - 1) / tn), (unsigned)((L->nrows + tm - 1) / tm)), block(LD_T, LD_T);
		if (full && small)
			ld_count_kernel<1, 2, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else if (full)
			ld_count_kernel<1, 4, 4><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else if (small)
			ld_count_kernel<0, 2, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
		else
			ld_count_kernel<0, 4, 2><<<grid, block, 0, st>>>(L->src, d->nw, L->i0, L->nrows, L->cbase, L->width, L->jlo,
			                                                 L->jhi, nbits, L->out, L->val, o->r2, o->single);
	}
	CK(cudaGetLastError());
	return 0;
}

/* Path auto: both count kernels on the first chunk, the faster one kept (they write
 * the same integers). */
static int ld_pick_path(snp_gpu_t *g, int full, const snp_data_t *d, const ld_launch_t *L, const ld_opt_t *o,
                        gvk_err_t *err)
{
	float ms[2] = {0, 0};
	for (int p = 0; p < 2; ++p) {
		cudaEvent_t *e = g->ev[LD_EVENTS - 1 - p];
		CK(cudaEventRecord(e[0], g->st[0]));
		int rc = ld_count_launch(g, g->st[0], p ? PATH_MMA : PATH_POPC, full, d, L, o, err);
		if (rc < 0) return rc;
		CK(cudaEventRecord(e[1], g->st[0]));
		CK(cudaEventSynchronize(e[1]));
		CK(cudaEventElapsedTime(&ms[p], e[0], e[1]));
	}
	g->ld_path = ms[1] < ms[0] ? PATH_MMA : PATH_POPC;
	return 0;
}

/* Whether every SNP the stripe touches has all samples called (then 4 products per word). */
static int ld_stripe_full(const snp_data_t *d, const ld_stripe_t *s)
{
	for (int64_t i = s->i0; i < s->i1; ++i)
		if (!d->full[i]) return 0;
	for (int64_t j = s->cbase; j < s->cbase + s->width; ++j)
		if (!d->full[j]) return 0;
	return 1;
}

/* Kernel time of a stripe's chunks: the union of their [start, end] intervals (measured from t0),
 * since chunks on the two kernel streams overlap. */
static int ld_add_busy(snp_gpu_t *g, cudaEvent_t t0, int nch, gvk_err_t *err)
{
	float iv[LD_EVENTS][2];
	for (int c = 0; c < nch; ++c) {
		CK(cudaEventElapsedTime(&iv[c][0], t0, g->ev[c][0]));
		CK(cudaEventElapsedTime(&iv[c][1], t0, g->ev[c][1]));
		for (int k = c; k > 0 && iv[k][0] < iv[k - 1][0]; --k) { /* by start */
			const float a = iv[k][0], b = iv[k][1];
			iv[k][0] = iv[k - 1][0], iv[k][1] = iv[k - 1][1], iv[k - 1][0] = a, iv[k - 1][1] = b;
		}
	}
	float end = -1e30f, busy = 0;
	for (int c = 0; c < nch; ++c) {
		const float lo = iv[c][0] > end ? iv[c][0] : end;
		if (iv[c][1] > lo) busy += iv[c][1] - lo;
		if (iv[c][1] > end) end = iv[c][1];
	}
	g->kern_s += busy * 1e-3;
	return 0;
}

/* Chunk c's results (rows r0.. of nr, columns c0.. of nc, packed in buffer b) to the stripe's
 * host rows, on the copy stream once the chunk's kernel is done. */
static int ld_copy_back(snp_gpu_t *g, const ld_stripe_t *s, int hap, int b, int64_t r0, int nr, int64_t c0, int64_t nc,
                        gvk_err_t *err)
{
	const size_t elt = hap ? sizeof(pg_ldcnt_t) : sizeof(double);
	char *dst = hap ? (char *)g->h_cnt : (char *)s->r;
	dst += ((size_t)r0 * (size_t)s->width + (size_t)(c0 - s->cbase)) * elt;
	const void *src = hap ? (const void *)g->ld_cnt[b] : (const void *)g->ld_val[b];
	CK(cudaStreamWaitEvent(g->st[1], g->done[b], 0));
	CK(cudaMemcpy2DAsync(dst, (size_t)s->width * elt, src, (size_t)nc * elt, (size_t)nc * elt, (size_t)nr,
	                     cudaMemcpyDeviceToHost, g->st[1]));
	CK(cudaEventRecord(g->copied[b], g->st[1]));
	return 0;
}

/* nb device output buffers of cells pairs each (counts when phased, else values). */
static int ld_out_reserve(snp_gpu_t *g, int hap, int nb, size_t cells, gvk_err_t *err)
{
	int rc = 0;
	for (int b = 0; b < nb && rc == 0; ++b)
		rc = hap ? dev_reserve((void **)&g->ld_cnt[b], &g->ld_cnt_cap[b], cells * sizeof(pg_ldcnt_t), "a stripe's counts", err)
		         : dev_reserve((void **)&g->ld_val[b], &g->ld_val_cap[b], cells * sizeof(double), "a stripe's values", err);
	return rc;
}

/* Every SNP resident: chunks of whole tiles of rows of both kernels (4 LD_T, a multiple of MMA_S),
 * alternating between two kernel streams so that one chunk's last blocks share the SMs with the
 * next chunk's first ones, and copied back while the next ones run. A result buffer per chunk
 * (LD_NBUF), so that the kernels, faster than the copies, never wait for one. */
static int ld_stripe_resident(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                              gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	int64_t ch = (nrows + LD_CHUNKS - 1) / LD_CHUNKS;
	ch = (ch + 4 * LD_T - 1) / (4 * LD_T) * (4 * LD_T);
	int rc = ld_out_reserve(g, hap, LD_NBUF, (size_t)ch * (size_t)width, err);
	if (rc < 0) return rc;
	cudaEvent_t t0 = g->ev[LD_EVENTS - 3][0];
	CK(cudaEventRecord(t0, g->st[0]));
	CK(cudaStreamWaitEvent(g->st[2], t0, 0));
	int nch = 0;
	for (int64_t r = 0; r < nrows; r += ch, ++nch) {
		const int b = nch % LD_NBUF, nr = (int)(nrows - r < ch ? nrows - r : ch);
		cudaStream_t ks = g->st[nch & 1 ? 2 : 0];
		const ld_launch_t L = {{g->ld_w, g->ld_w, 0, 0, g->ld_tot, g->ld_tot}, s->i0 + r, s->cbase, width, nr,
		                       g->ld_jr + r, g->ld_jr + nrows + r, hap ? g->ld_cnt[b] : NULL, hap ? NULL : g->ld_val[b]};
		if (nch >= LD_NBUF) CK(cudaStreamWaitEvent(ks, g->copied[b], 0)); /* buffer b copied out */
		if (g->ld_path == PATH_AUTO && (rc = ld_pick_path(g, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][0], ks));
		if ((rc = ld_count_launch(g, ks, g->ld_path, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][1], ks));
		CK(cudaEventRecord(g->done[b], ks));
		if ((rc = ld_copy_back(g, s, hap, b, r, nr, s->cbase, width, err)) < 0) return rc;
	}
	for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
	return ld_add_busy(g, t0, nch, err);
}

/* Planes beyond GPU memory, rows [r0, r0 + nr) of the stripe (cw columns per slice): the rows are
 * uploaded, then the stripe's columns stream through a ring of two device slices, each staged on
 * the host in pinned memory and copied on stream 2 while the kernels (stream 0) work on the
 * previous slice and the results of the one before go back (stream 1). */
static int ld_stream_rows(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                          int64_t r0, int nr, int64_t cw, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	int rc;
	CK(cudaMemcpyAsync(g->ld_w, snp_plane(d, s->i0 + r0, 0), (size_t)nr * per, cudaMemcpyHostToDevice, g->st[0]));
	ld_totals_kernel<<<(unsigned)((nr + 255) / 256), 256, 0, g->st[0]>>>(g->ld_w, nr, d->nw, g->ld_tot);
	CK(cudaGetLastError());
	cudaEvent_t t0 = g->ev[LD_EVENTS - 3][0];
	CK(cudaEventRecord(t0, g->st[0]));
	int nch = 0;
	for (int64_t c0 = s->cbase; c0 < s->cbase + width; c0 += cw, ++nch) {
		const int b = nch & 1;
		const int64_t nc = s->cbase + width - c0 < cw ? s->cbase + width - c0 : cw;
		if (nch >= 2) CK(cudaEventSynchronize(g->staged[b])); /* stage b's last upload is done */
		memcpy(g->h_stage[b], snp_plane(d, c0, 0), (size_t)nc * per);
		if (nch >= 2) CK(cudaStreamWaitEvent(g->st[2], g->done[b], 0)); /* slice b's last kernel is done */
		CK(cudaMemcpyAsync(g->ld_yw[b], g->h_stage[b], (size_t)nc * per, cudaMemcpyHostToDevice, g->st[2]));
		ld_totals_kernel<<<(unsigned)((nc + 255) / 256), 256, 0, g->st[2]>>>(g->ld_yw[b], nc, d->nw, g->ld_ytot[b]);
		CK(cudaGetLastError());
		CK(cudaEventRecord(g->staged[b], g->st[2]));
		CK(cudaStreamWaitEvent(g->st[0], g->staged[b], 0));
		if (nch >= 2) CK(cudaStreamWaitEvent(g->st[0], g->copied[b], 0)); /* result buffer b copied out */
		const int64_t xb = s->i0 + r0;
		const ld_launch_t L = {{g->ld_w, g->ld_yw[b], xb, c0, g->ld_tot, g->ld_ytot[b]}, xb, c0, nc, nr,
		                       g->ld_jr + r0, g->ld_jr + nrows + r0, hap ? g->ld_cnt[b] : NULL, hap ? NULL : g->ld_val[b]};
		if (g->ld_path == PATH_AUTO && (rc = ld_pick_path(g, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][0], g->st[0]));
		if ((rc = ld_count_launch(g, g->st[0], g->ld_path, full, d, &L, o, err)) < 0) return rc;
		CK(cudaEventRecord(g->ev[nch][1], g->st[0]));
		CK(cudaEventRecord(g->done[b], g->st[0]));
		if ((rc = ld_copy_back(g, s, hap, b, r0, nr, c0, nc, err)) < 0) return rc;
		if (nch == LD_EVENTS - 4) { /* timing slots used up: account for them and start again */
			for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
			if ((rc = ld_add_busy(g, t0, nch + 1, err)) < 0) return rc;
			nch = -1;
		}
	}
	for (int i = 0; i < 3; ++i) CK(cudaStreamSynchronize(g->st[i]));
	return ld_add_busy(g, t0, nch, err);
}

/* Planes beyond GPU memory: within half the free memory, the stripe's rows (in groups, when they
 * do not all fit), two column slices and two result buffers; at least LD_CHUNKS slices per stripe,
 * so that uploads, kernels and copies back overlap. */
static int ld_stripe_streamed(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, const ld_stripe_t *s, int full,
                              gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	const int hap = o->haplotype;
	const size_t per = (size_t)SNP_PLANES * (size_t)d->nw * sizeof(uint64_t);
	const size_t elt = hap ? sizeof(pg_ldcnt_t) : sizeof(double), budget = g->mem_free / 2;
	int64_t rg = nrows; /* rows per group: one column per slice at least must fit beside them */
	while (rg > 1 && (size_t)rg * per + 2 * (per + 2 * sizeof(int32_t) + (size_t)rg * elt) > budget) rg = (rg + 1) / 2;
	const size_t rows = (size_t)rg * per;
	const int64_t fit = rows < budget ? (int64_t)((budget - rows) / (2 * (per + 2 * sizeof(int32_t) + (size_t)rg * elt))) : 0;
	int64_t cw = (width + LD_CHUNKS - 1) / LD_CHUNKS;
	cw = (cw + 4 * LD_T - 1) / (4 * LD_T) * (4 * LD_T);
	if (cw > fit) cw = fit;
	if (cw < 1)
		return gvk_err_set(err, GVK_ERR_NOMEM, "GPU memory too small for one SNP of %lld samples beside another",
		                   (long long)d->n_bits);
	int rc = dev_reserve((void **)&g->ld_w, &g->ld_w_cap, rows, "a stripe's SNP planes", err);
	if (rc == 0) rc = dev_reserve((void **)&g->ld_tot, &g->ld_tot_cap, 2 * (size_t)rg * sizeof(int32_t), "plane totals", err);
	if (rc == 0) rc = ld_out_reserve(g, hap, 2, (size_t)cw * (size_t)rg, err);
	for (int b = 0; b < 2 && rc == 0; ++b) {
		rc = dev_reserve((void **)&g->ld_yw[b], &g->ld_yw_cap[b], (size_t)cw * per, "a column slice", err);
		if (rc == 0) rc = dev_reserve((void **)&g->ld_ytot[b], &g->ld_ytot_cap[b], 2 * (size_t)cw * sizeof(int32_t), "slice totals", err);
		if (rc == 0) rc = pinned_reserve((void **)&g->h_stage[b], &g->h_stage_cap[b], (size_t)cw * per, "a column slice", err);
	}
	if (rc < 0) return rc;
	g->ld_src = NULL; /* ld_w now holds stripe rows only */
	for (int64_t r0 = 0; r0 < nrows && rc == 0; r0 += rg)
		rc = ld_stream_rows(g, d, o, s, full, r0, (int)(nrows - r0 < rg ? nrows - r0 : rg), cw, err);
	return rc;
}

extern "C" int snp_gpu_ld_stripe(snp_gpu_t *g, const snp_data_t *d, const ld_opt_t *o, ld_stripe_t *s, gvk_err_t *err)
{
	const int64_t nrows = s->i1 - s->i0, width = s->width;
	if (nrows <= 0 || width <= 0) return 0;
	int rc = ld_occupancy(g, err);
	if (rc == 0) rc = ld_resident(g, d, err);
	if (rc < 0) return rc;
	const int resident = rc, full = ld_stripe_full(d, s), hap = o->haplotype;
	if ((rc = dev_reserve((void **)&g->ld_jr, &g->ld_jr_cap, 2 * (size_t)nrows * sizeof(int64_t), "a stripe", err)) < 0)
		return rc;
	/* phased: the counts come back to pinned memory for the host's haplotype epilogue */
	if (hap && (rc = pinned_reserve((void **)&g->h_cnt, &g->h_cnt_cap, (size_t)nrows * (size_t)width * sizeof(pg_ldcnt_t),
	                                "a stripe's counts", err)) < 0)
		return rc;
	CK(cudaMemcpyAsync(g->ld_jr, s->jlo, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	CK(cudaMemcpyAsync(g->ld_jr + nrows, s->jhi, (size_t)nrows * sizeof(int64_t), cudaMemcpyHostToDevice, g->st[0]));
	rc = resident ? ld_stripe_resident(g, d, o, s, full, err) : ld_stripe_streamed(g, d, o, s, full, err);
	if (rc < 0) return rc;
	snprintf(g->kernel, sizeof g->kernel, "%s %s", g->name, g->ld_path == PATH_MMA ? "bmma" : "popc");
	if (hap) {
		int nt = o->threads > 0 ? o->threads : 1;
		if (nt > nrows) nt = (int)nrows;
		ld_epi_t e = {o, s, g->h_cnt, nt};
		gvk_parallel(nt, ld_epilogue, &e);
	}
	return 0;
}

