/* SPDX-License-Identifier: MIT */
/* AVX2 matrix fills, for CPUs without AVX-512 (GKL's own minimum is AVX2): the same two kernels
 * as align_avx512.c with 8 lanes. fill8: 8 pairs, one per 32-bit lane, moves stored as four lane
 * masks per cell (8 bits used). fill_diag8: one pair by anti-diagonals, 8 cells at a time. AVX2
 * has no mask registers, so comparisons give vector masks turned into bits with movemask, and
 * "less or equal" is the negation of "greater". Compiled with -mavx2. */
#include <immintrin.h>
#include <string.h>

#include "align_kernel.h"

enum { LANES = 8 };

static inline unsigned bits(__m256i m) { return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m)); }

static int fill8(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	int N = 0, M = 0;
	size_t edge_len = 0;
	for (int l = 0; l < nl; ++l) {
		if (jobs[l]->n > N) N = jobs[l]->n;
		if (jobs[l]->m > M) M = jobs[l]->m;
		edge_len += (size_t)jobs[l]->n + (size_t)jobs[l]->m;
	}
	int32_t *seq = gvk_buf_reserve(&s->seqs, ((size_t)N + M) * LANES * sizeof(int32_t));
	int32_t *H = gvk_buf_reserve(&s->rows, 2 * ((size_t)M + 1) * LANES * sizeof(int32_t));
	uint16_t *mv = gvk_buf_reserve(&s->moves, (size_t)N * M * 4 * sizeof(uint16_t));
	int32_t *edge = gvk_buf_reserve(&s->edges, edge_len * sizeof(int32_t));
	if (!seq || !H || !mv || !edge) return GVK_ERR_NOMEM;
	/* Bases widened to 32 bits, transposed: one load gives a row's (column's) base of every lane.
	 * Unused lanes and padding hold 256, which equals no base of a real lane's own cells. */
	int32_t *refT = seq, *altT = seq + (size_t)N * LANES;
	for (size_t k = 0; k < ((size_t)N + M) * LANES; ++k) seq[k] = 256;
	int32_t *F = H + ((size_t)M + 1) * LANES;
	int32_t pm[LANES] = {0}, px[LANES] = {0}, po[LANES] = {0}, pe[LANES] = {0}, pbo[LANES] = {0}, pbe[LANES] = {0};
	int32_t *lastcol[LANES], *bottom[LANES];
	size_t e = 0;
	for (int l = 0; l < nl; ++l) {
		const al_job_t *jb = jobs[l];
		for (int i = 0; i < jb->n; ++i) refT[(size_t)i * LANES + l] = jb->ref[i];
		for (int j = 0; j < jb->m; ++j) altT[(size_t)j * LANES + l] = jb->alt[j];
		pm[l] = jb->match, px[l] = jb->mismatch, po[l] = jb->open, pe[l] = jb->extend;
		if (jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL) pbo[l] = jb->open, pbe[l] = jb->extend;
		lastcol[l] = edge + e, e += (size_t)jb->n;
		bottom[l] = edge + e, e += (size_t)jb->m;
	}
	const __m256i vmatch = _mm256_loadu_si256((const __m256i *)pm), vmis = _mm256_loadu_si256((const __m256i *)px);
	const __m256i vopen = _mm256_loadu_si256((const __m256i *)po), vext = _mm256_loadu_si256((const __m256i *)pe);
	const __m256i vbe = _mm256_loadu_si256((const __m256i *)pbe);
	const __m256i vlow = _mm256_set1_epi32(AL_LOW), vcut = _mm256_set1_epi32(AL_CUTOFF);
	const __m256i vdlo = _mm256_set1_epi32(clamp_diag ? AL_CUTOFF : INT32_MIN);

	__m256i hb = _mm256_loadu_si256((const __m256i *)pbo);
	_mm256_store_si256((__m256i *)H, _mm256_setzero_si256());
	for (int j = 1; j <= M; ++j) {
		_mm256_store_si256((__m256i *)(H + (size_t)j * LANES), hb);
		_mm256_store_si256((__m256i *)(F + (size_t)j * LANES), vlow);
		hb = _mm256_add_epi32(hb, vbe);
	}
	hb = _mm256_loadu_si256((const __m256i *)pbo);
	for (int i = 1; i <= N; ++i) {
		const __m256i rv = _mm256_loadu_si256((const __m256i *)(refT + (size_t)(i - 1) * LANES));
		__m256i hdiag = _mm256_load_si256((const __m256i *)H), E = vlow, hleft = hb;
		_mm256_store_si256((__m256i *)H, hb);
		hb = _mm256_add_epi32(hb, vbe);
		uint16_t *w = mv + (size_t)(i - 1) * M * 4;
		const int32_t *ap = altT;
		int32_t *hp = H + LANES, *fp = F + LANES;
		for (int j = 1; j <= M; ++j, ap += LANES, hp += LANES, fp += LANES, w += 4) {
			const __m256i eq = _mm256_cmpeq_epi32(rv, _mm256_loadu_si256((const __m256i *)ap));
			const __m256i D = _mm256_add_epi32(hdiag, _mm256_blendv_epi8(vmis, vmatch, eq));
			const __m256i hup = _mm256_load_si256((const __m256i *)hp);
			const __m256i fo = _mm256_add_epi32(hup, vopen);
			const __m256i fe = _mm256_add_epi32(_mm256_load_si256((const __m256i *)fp), vext);
			const unsigned fx = ~bits(_mm256_cmpgt_epi32(fo, fe)) & 0xFF;
			const __m256i Fn = _mm256_max_epi32(fo, fe);
			const __m256i eo = _mm256_add_epi32(hleft, vopen), ee = _mm256_add_epi32(E, vext);
			const unsigned ex = ~bits(_mm256_cmpgt_epi32(eo, ee)) & 0xFF;
			E = _mm256_max_epi32(eo, ee);
			const __m256i dc = _mm256_max_epi32(D, vdlo);
			const unsigned ins = bits(_mm256_cmpgt_epi32(E, dc));
			const __m256i de = _mm256_max_epi32(dc, E);
			const unsigned del = bits(_mm256_cmpgt_epi32(Fn, de));
			const __m256i h = _mm256_max_epi32(_mm256_max_epi32(de, Fn), vcut);
			_mm256_store_si256((__m256i *)fp, Fn);
			_mm256_store_si256((__m256i *)hp, h);
			hdiag = hup, hleft = h;
			w[0] = (uint16_t)ins, w[1] = (uint16_t)del, w[2] = (uint16_t)ex, w[3] = (uint16_t)fx;
		}
		for (int l = 0; l < nl; ++l) {
			const al_job_t *jb = jobs[l];
			if (i <= jb->n) lastcol[l][i - 1] = H[(size_t)jb->m * LANES + l];
			if (i == jb->n)
				for (int j = 1; j <= jb->m; ++j) bottom[l][j - 1] = H[(size_t)j * LANES + l];
		}
	}
	for (int l = 0; l < nl; ++l) out[l] = (al_fill_t){{mv, (size_t)M, l, 0, jobs[l]->m, NULL}, lastcol[l], bottom[l]};
	return 0;
}

/* One pair by anti-diagonals, as fill_diag in align_avx512.c. Stores are not masked: a vector
 * may write up to 7 entries past the diagonal's last cell, which nothing reads, and the boundary
 * entries (0 and d) are therefore written after the diagonal's cells. */
static int fill_diag8(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	(void)nl;
	const al_job_t *jb = jobs[0];
	const int n = jb->n, m = jb->m;
	const size_t W = ((size_t)n + 2 + 2 * LANES + 7) & ~(size_t)7;
	int32_t *buf = gvk_buf_reserve(&s->rows, 7 * W * sizeof(int32_t));
	int32_t *seq = gvk_buf_reserve(&s->seqs, ((size_t)n + m + 4 * LANES) * sizeof(int32_t));
	uint8_t *tb = gvk_buf_reserve(&s->moves, (size_t)n * m + 2 * LANES);
	int32_t *edge = gvk_buf_reserve(&s->edges, ((size_t)n + m) * sizeof(int32_t) + ((size_t)n + m + 2) * sizeof(uint32_t));
	if (!buf || !seq || !tb || !edge) return GVK_ERR_NOMEM;
	memset(buf, 0, 7 * W * sizeof(int32_t));
	uint32_t *doff = (uint32_t *)(edge + n + m);
	int32_t *refP = seq, *altR = seq + n + 2 * LANES;
	for (int k = 0; k < n + 2 * LANES; ++k) refP[k] = k < n ? jb->ref[k] : 256;
	for (int k = 0; k < m + 2 * LANES; ++k) altR[k] = k < m ? jb->alt[m - 1 - k] : 257;
	int32_t *Hm2 = buf, *Hm1 = buf + W, *Hc = buf + 2 * W, *Em1 = buf + 3 * W, *Ec = buf + 4 * W, *Fm1 = buf + 5 * W,
	        *Fc = buf + 6 * W;
	const int gapped = jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL;
	const int32_t bo = gapped ? jb->open : 0, be = gapped ? jb->extend : 0;
	const __m256i vmatch = _mm256_set1_epi32(jb->match), vmis = _mm256_set1_epi32(jb->mismatch);
	const __m256i vopen = _mm256_set1_epi32(jb->open), vext = _mm256_set1_epi32(jb->extend);
	const __m256i vcut = _mm256_set1_epi32(AL_CUTOFF), vdlo = _mm256_set1_epi32(clamp_diag ? AL_CUTOFF : INT32_MIN);
	const __m256i v1 = _mm256_set1_epi32(AL_INS), v2 = _mm256_set1_epi32(AL_DEL), v4 = _mm256_set1_epi32(AL_EEXT),
	              v8 = _mm256_set1_epi32(AL_FEXT);
	/* Gathers byte 0 of each 32-bit lane into the low 8 bytes. */
	const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
	                                      -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	int32_t *lastcol = edge, *bottom = edge + n;

	Hm2[0] = 0;
	Hm1[0] = Hm1[1] = bo;
	Fm1[0] = AL_LOW, Em1[1] = AL_LOW;
	uint32_t off = 0;
	for (int d = 2; d <= n + m; ++d) {
		const int lo = d - m > 1 ? d - m : 1, hi = d - 1 < n ? d - 1 : n;
		doff[d] = off;
		uint8_t *code = tb + off - lo;
		for (int i = lo; i <= hi; i += LANES) {
			const __m256i rv = _mm256_loadu_si256((const __m256i *)(refP + i - 1));
			const __m256i av = _mm256_loadu_si256((const __m256i *)(altR + m - d + i));
			const __m256i eq = _mm256_cmpeq_epi32(rv, av);
			const __m256i D = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(Hm2 + i - 1)),
			                                   _mm256_blendv_epi8(vmis, vmatch, eq));
			const __m256i fo = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(Hm1 + i - 1)), vopen);
			const __m256i fe = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(Fm1 + i - 1)), vext);
			const __m256i fgt = _mm256_cmpgt_epi32(fo, fe);
			const __m256i Fn = _mm256_max_epi32(fo, fe);
			const __m256i eo = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(Hm1 + i)), vopen);
			const __m256i ee = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(Em1 + i)), vext);
			const __m256i egt = _mm256_cmpgt_epi32(eo, ee);
			const __m256i E = _mm256_max_epi32(eo, ee);
			const __m256i dc = _mm256_max_epi32(D, vdlo);
			const __m256i ins = _mm256_cmpgt_epi32(E, dc);
			const __m256i de = _mm256_max_epi32(dc, E);
			const __m256i del = _mm256_cmpgt_epi32(Fn, de);
			const __m256i h = _mm256_max_epi32(_mm256_max_epi32(de, Fn), vcut);
			_mm256_storeu_si256((__m256i *)(Hc + i), h);
			_mm256_storeu_si256((__m256i *)(Ec + i), E);
			_mm256_storeu_si256((__m256i *)(Fc + i), Fn);
			__m256i c = _mm256_or_si256(_mm256_and_si256(ins, v1), _mm256_and_si256(del, v2));
			c = _mm256_or_si256(c, _mm256_andnot_si256(egt, v4));
			c = _mm256_or_si256(c, _mm256_andnot_si256(fgt, v8));
			c = _mm256_shuffle_epi8(c, pick);
			const uint32_t lo4 = (uint32_t)_mm256_extract_epi32(c, 0), hi4 = (uint32_t)_mm256_extract_epi32(c, 4);
			const uint64_t b8 = (uint64_t)lo4 | (uint64_t)hi4 << 32;
			memcpy(code + i, &b8, 8);
		}
		off += (uint32_t)(hi - lo + 1);
		if (d <= m) Hc[0] = bo + (d - 1) * be, Fc[0] = AL_LOW;
		if (d <= n) Hc[d] = bo + (d - 1) * be, Ec[d] = AL_LOW;
		if (d - m >= 1 && d - m <= n) lastcol[d - m - 1] = Hc[d - m];
		if (d - n >= 1 && d - n <= m) bottom[d - n - 1] = Hc[n];
		int32_t *t = Hm2;
		Hm2 = Hm1, Hm1 = Hc, Hc = t;
		t = Em1, Em1 = Ec, Ec = t;
		t = Fm1, Fm1 = Fc, Fc = t;
	}
	out[0] = (al_fill_t){{tb, 0, -2, 0, m, doff}, lastcol, bottom};
	return 0;
}

/* fill_diag8 (one pair, a diagonal at a time) is a little slower than fill8 with all lanes full, so
 * fill8 pays from 6 of its 8 lanes on; smaller groups go one by one. */
const al_isa_t al_isa_avx2 = {"avx2", LANES, 6, fill8, fill_diag8, (size_t)1 << 22, 0, 0, NULL};
