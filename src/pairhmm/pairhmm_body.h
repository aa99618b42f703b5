/* SPDX-License-Identifier: MIT */
/* Body of the vector Pair-HMM kernels, included by pairhmm_avx512.c and pairhmm_neon.c once per
 * precision with the vector macros (T, W, V, MASK, HB, V_* and HB_*) defined; it undefines them.
 * V_FMA(a, b, c) is a * b + c rounded once; V_PRIOR(rb, p, pm, px) picks pm in the lanes where
 * the read base bits rb share a bit with the haplotype's at p, px elsewhere; MASK is a bit per
 * lane, HB_GE(v, j) the lanes of v at least j, V_MASK_ADD(a, k, a, b) a + b in the lanes of k.
 * Lanes hold different pairs; each lane's cells outside its own read/haplotype are computed but never feed a cell inside, and each lane's
 * last row is summed left to right under a mask, so every lane gets the scalar kernel's bits. */

static inline __attribute__((always_inline)) void
ROW_FN(T *restrict rm, T *restrict ri, T *restrict rd, const int32_t *restrict hb, int maxH,
       const T *par, V dstart, const int fused)
{
	const V mm = V_LOAD(par + 0 * W), g = V_LOAD(par + 1 * W), mi = V_LOAD(par + 2 * W);
	const V ii = V_LOAD(par + 3 * W), md = V_LOAD(par + 4 * W), dd = V_LOAD(par + 5 * W);
	const V pm = V_LOAD(par + 6 * W), px = V_LOAD(par + 7 * W);
	const HB rb = HB_LOAD((const int32_t *)(par + 8 * W));
	V Md = V_ZERO(), Id = V_ZERO(), Dd = dstart, Ml = V_ZERO(), Dl = V_ZERO();
	for (int j = 1; j <= maxH; ++j) {
		const V Mu = V_LOAD(rm + j * W), Iu = V_LOAD(ri + j * W), Du = V_LOAD(rd + j * W);
		const V prior = V_PRIOR(rb, hb + (j - 1) * W, pm, px);
		V M, I, D;
		if (fused) {
			M = V_MUL(V_FMA(Dd, g, V_FMA(Id, g, V_MUL(Md, mm))), prior);
			I = V_FMA(Iu, ii, V_MUL(Mu, mi));
			D = V_FMA(Dl, dd, V_MUL(Ml, md));
		} else {
			M = V_MUL(V_ADD(V_ADD(V_MUL(Md, mm), V_MUL(Id, g)), V_MUL(Dd, g)), prior);
			I = V_ADD(V_MUL(Mu, mi), V_MUL(Iu, ii));
			D = V_ADD(V_MUL(Ml, md), V_MUL(Dl, dd));
		}
		Md = Mu, Id = Iu, Dd = Du;
		V_STORE(rm + j * W, M), V_STORE(ri + j * W, I), V_STORE(rd + j * W, D);
		Ml = M, Dl = D;
	}
}

/* Row parameters of every lane for read row i (1-based): 8 vectors of T then the base bits. */
static void PAR_FN(T *par, const phmm_job_t *const *J, int i)
{
	int32_t *rb = (int32_t *)(par + 8 * W);
	for (int l = 0; l < W; ++l) {
		const gvk_read_t *r = J[l]->r;
		if (i > r->len) {
			for (int k = 0; k < 8; ++k) par[k * W + l] = 0;
			rb[l] = 0;
			continue;
		}
		int qi = r->ins[i - 1] & 127, qd = r->del[i - 1] & 127, qc = r->gcp[i - 1] & 127;
		T e = ERR[r->qual[i - 1] & 127].f;
		par[0 * W + l] = MM[phmm_mm_index(qi, qd)].f;
		par[1 * W + l] = (T)1 - ERR[qc].f;
		par[2 * W + l] = ERR[qi].f;
		par[3 * W + l] = ERR[qc].f;
		par[4 * W + l] = ERR[qd].f;
		par[5 * W + l] = ERR[qc].f;
		par[6 * W + l] = (T)1 - e;
		par[7 * W + l] = e / (T)3;
		rb[l] = phmm_base_bits((unsigned char)r->bases[i - 1]);
	}
}

static int KERN_FN(const phmm_job_t *jobs, int n, int fused, T *out, gvk_buf_t *buf)
{
	const phmm_job_t *J[W];
	int32_t Hl[W];
	int maxR = 0, maxH = 0;
	for (int l = 0; l < W; ++l) {
		J[l] = &jobs[l < n ? l : 0];
		Hl[l] = J[l]->h->len;
		if (J[l]->r->len > maxR) maxR = J[l]->r->len;
		if (Hl[l] > maxH) maxH = Hl[l];
	}
	size_t rowsz = (size_t)(maxH + 1) * W;
	T *rm = gvk_buf_reserve(buf, (3 * rowsz + 9 * W) * sizeof(T) + (size_t)maxH * W * sizeof(int32_t));
	if (!rm) return GVK_ERR_NOMEM;
	T *ri = rm + rowsz, *rd = ri + rowsz, *par = rd + rowsz;
	int32_t *hb = (int32_t *)(par + 9 * W);

	_Alignas(64) T initv[W];
	for (int l = 0; l < W; ++l) initv[l] = INIT / (T)Hl[l];
	for (int j = 0; j < maxH; ++j)
		for (int l = 0; l < W; ++l)
			hb[j * W + l] = j < Hl[l] ? phmm_base_bits((unsigned char)J[l]->h->bases[j]) : 0;
	const V vinit = V_LOAD(initv);
	for (int j = 0; j <= maxH; ++j) {
		V_STORE(rm + j * W, V_ZERO()), V_STORE(ri + j * W, V_ZERO()), V_STORE(rd + j * W, vinit);
	}

	const HB vH = HB_LOAD(Hl);
	V sm = V_ZERO(), si = V_ZERO();
	for (int i = 1; i <= maxR; ++i) {
		PAR_FN(par, J, i);
		const V dstart = i == 1 ? vinit : V_ZERO();
		if (fused)
			ROW_FN(rm, ri, rd, hb, maxH, par, dstart, 1);
		else
			ROW_FN(rm, ri, rd, hb, maxH, par, dstart, 0);
		MASK fin = 0;
		for (int l = 0; l < W; ++l)
			if (J[l]->r->len == i) fin |= (MASK)(1u << l);
		if (!fin) continue;
		for (int j = 1; j <= maxH; ++j) {
			MASK k = fin & HB_GE(vH, j);
			sm = V_MASK_ADD(sm, k, sm, V_LOAD(rm + j * W));
			si = V_MASK_ADD(si, k, si, V_LOAD(ri + j * W));
		}
	}
	_Alignas(64) T s_m[W];
	_Alignas(64) T s_i[W];
	V_STORE(s_m, sm), V_STORE(s_i, si);
	for (int l = 0; l < n && l < W; ++l) out[l] = s_m[l] + s_i[l];
	return 0;
}

#undef T
#undef W
#undef V
#undef MASK
#undef HB
#undef INIT
#undef ERR
#undef MM
#undef V_ZERO
#undef V_LOAD
#undef V_STORE
#undef V_ADD
#undef V_MUL
#undef V_FMA
#undef V_PRIOR
#undef V_MASK_ADD
#undef HB_LOAD
#undef HB_GE
#undef ROW_FN
#undef PAR_FN
#undef KERN_FN
