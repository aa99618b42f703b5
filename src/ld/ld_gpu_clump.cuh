/* SPDX-License-Identifier: MIT */
/* --clump's two-locus tables on the device (snp_gpu_clump_counts): one thread per (index, other)
 * pair over the resident planes, the same class masks and popcounts as ld_clump_r2_row (and as
 * the CPU pruning kernels' --indep-pairphase table), so the integer tables are the CPU's. Threads without
 * warp intrinsics, so the code is the same under HIP. */
#ifndef GVK_LD_GPU_CLUMP_CUH
#define GVK_LD_GPU_CLUMP_CUH

/* o[0 .. 18): the two-locus table of the SNPs whose planes (a, b, called) start at ia and ja, in
 * ld_em_counts' layout (ia's SNP first); with on_x, c[9], c[11], c[15], c[17] over the male
 * columns, the cells the X estimate reads. Shared by --clump and --indep-pairphase. */
__device__ __forceinline__ void two_locus_table(const uint64_t *__restrict__ ia, const uint64_t *__restrict__ ja, int nw,
                                                int on_x, const uint64_t *__restrict__ male, uint32_t *__restrict__ o)
{
	const uint64_t *ib = ia + nw, *iv = ib + nw, *jb = ja + nw, *jv = jb + nw;
	uint32_t c[13] = {0};
	for (int k = 0; k < nw; ++k) {
		const uint64_t mx = on_x ? male[k] : 0;
		const uint64_t ki[3] = {ib[k] | (ia[k] & mx), ia[k] & ~ib[k] & ~mx, iv[k] & ~ia[k]};
		const uint64_t kj[3] = {jb[k] | (ja[k] & mx), ja[k] & ~jb[k] & ~mx, jv[k] & ~ja[k]};
		for (int a = 0; a < 3; ++a)
			for (int b = 0; b < 3; ++b) c[3 * a + b] += (uint32_t)__popcll(ki[a] & kj[b]);
		if (mx) {
			c[9] += (uint32_t)__popcll(ki[0] & mx & kj[0]), c[10] += (uint32_t)__popcll(ki[0] & mx & kj[2]);
			c[11] += (uint32_t)__popcll(ki[2] & mx & kj[0]), c[12] += (uint32_t)__popcll(ki[2] & mx & kj[2]);
		}
	}
	for (int k = 0; k < 9; ++k) o[k] = c[k];
	for (int k = 9; k < 18; ++k) o[k] = 0;
	o[9] = c[9], o[11] = c[10], o[15] = c[11], o[17] = c[12];
}

/* out[18 p ..]: the table of pair p (index first), over the male columns too where x[p]. */
__global__ void clump_count_kernel(const uint64_t *__restrict__ w, int nw, const int64_t *__restrict__ pairs,
                                   const uint8_t *__restrict__ x, const uint64_t *__restrict__ male, int64_t n,
                                   uint32_t *__restrict__ out)
{
	const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= n) return;
	two_locus_table(w + (size_t)pairs[2 * p] * 3 * (size_t)nw, w + (size_t)pairs[2 * p + 1] * 3 * (size_t)nw, nw, x[p],
	                male, out + 18 * p);
}

#endif
