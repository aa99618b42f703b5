/* SPDX-License-Identifier: MIT */
/* --indep-pairwise's and --indep-pairphase's pair counts on the device (snp_gpu_prune_counts): one
 * thread per pair of a band of rows, over planes uploaded for the call. The genotype counts are
 * the CPU pruning kernels' (ld_prune_kern_body.h; centred calls: z the nonzero ones, neg the -1 ones, v the called ones) and the
 * phased table is --clump's (two_locus_table), so the host forms r^2 from the CPU's integers. */
#ifndef GVK_LD_GPU_PRUNE_CUH
#define GVK_LD_GPU_PRUNE_CUH

/* The genotype r^2 counts of the SNPs whose planes start at ia and ja: nz, diff, nm, sxx, nx, syy,
 * ny as the CPU pruning kernels' kern_r2 sums them. */
__device__ __forceinline__ void genotype_counts(const uint64_t *__restrict__ ia, const uint64_t *__restrict__ ja, int nw,
                                                uint32_t *__restrict__ o)
{
	const uint64_t *ib = ia + nw, *iv = ib + nw, *jb = ja + nw, *jv = jb + nw;
	uint32_t nz = 0, diff = 0, nm = 0, sxx = 0, nx = 0, syy = 0, ny = 0;
	for (int k = 0; k < nw; ++k) {
		const uint64_t gx = iv[k] & ~ia[k], gy = jv[k] & ~ja[k], zx = ib[k] | gx, zy = jb[k] | gy, zz = zx & zy;
		nz += (uint32_t)__popcll(zz), diff += (uint32_t)__popcll(zz & (gx ^ gy));
		nm += (uint32_t)__popcll(iv[k] & jv[k]);
		sxx += (uint32_t)__popcll(zx & jv[k]), nx += (uint32_t)__popcll(gx & jv[k]);
		syy += (uint32_t)__popcll(zy & iv[k]), ny += (uint32_t)__popcll(gy & iv[k]);
	}
	o[0] = nz, o[1] = diff, o[2] = nm, o[3] = sxx, o[4] = nx, o[5] = syy, o[6] = ny;
}

/* Pair p of the band: row r, the last with off[r] <= p (rows without pairs share their offset
 * with the next), against SNP r + 1 + (p - off[r]); its counts at out[per p ..], per 7 (genotype)
 * or 18 (phased, over the male columns too when male is not NULL). */
__global__ void prune_count_kernel(const uint64_t *__restrict__ w, int nw, const int64_t *__restrict__ off,
                                   int64_t n_rows, int64_t n_pairs, int phased, const uint64_t *__restrict__ male,
                                   uint32_t *__restrict__ out)
{
	const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= n_pairs) return;
	int64_t lo = 0, hi = n_rows;
	while (hi - lo > 1) {
		const int64_t mid = lo + (hi - lo) / 2;
		if (off[mid] <= p) lo = mid;
		else hi = mid;
	}
	const uint64_t *ia = w + (size_t)lo * 3 * (size_t)nw, *ja = w + (size_t)(lo + 1 + p - off[lo]) * 3 * (size_t)nw;
	if (phased) two_locus_table(ia, ja, nw, male != NULL, male, out + 18 * p);
	else genotype_counts(ia, ja, nw, out + 7 * p);
}

#endif
