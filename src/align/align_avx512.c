/* SPDX-License-Identifier: MIT */
/* AVX-512 matrix fills. fill16: 16 pairs at once, one per 32-bit lane, each lane running the
 * scalar recurrences (align_scalar.c) unchanged. The pairs are padded to the largest of the group; cells
 * outside a lane's own matrix are computed and ignored (they never feed its real cells). Moves are
 * stored as four 16-bit lane masks per cell. fill_diag: one pair, 16 cells of an anti-diagonal at
 * once, for small groups and pairs too big for fill16. Compiled with -mavx512f -mavx512vl
 * -mavx512bw. */
#include <immintrin.h>
#include <string.h>

#include "align_kernel.h"

enum { LANES = 16 };

static int fill16(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	int N = 0, M = 0;
	size_t edge_len = 0;
	for (int l = 0; l < nl; ++l) {
		if (jobs[l]->n > N) N = jobs[l]->n;
		if (jobs[l]->m > M) M = jobs[l]->m;
		edge_len += (size_t)jobs[l]->n + (size_t)jobs[l]->m;
	}
	uint8_t *seq = gvk_buf_reserve(&s->seqs, ((size_t)N + M) * LANES);
	int32_t *H = gvk_buf_reserve(&s->rows, 2 * ((size_t)M + 1) * LANES * sizeof(int32_t));
	uint16_t *mv = gvk_buf_reserve(&s->moves, (size_t)N * M * 4 * sizeof(uint16_t));
	int32_t *edge = gvk_buf_reserve(&s->edges, edge_len * sizeof(int32_t));
	if (!seq || !H || !mv || !edge) return GVK_ERR_NOMEM;
	uint8_t *refT = seq, *altT = seq + (size_t)N * LANES;
	int32_t *F = H + ((size_t)M + 1) * LANES;

	/* Sequences transposed so that one 16-byte load gives a row's (or column's) base of every
	 * lane; unused lanes and padding hold 0 and only produce ignored cells. */
	memset(seq, 0, ((size_t)N + M) * LANES);
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
	const __m512i vmatch = _mm512_loadu_si512(pm), vmis = _mm512_loadu_si512(px);
	const __m512i vopen = _mm512_loadu_si512(po), vext = _mm512_loadu_si512(pe);
	const __m512i vbe = _mm512_loadu_si512(pbe);
	const __m512i vlow = _mm512_set1_epi32(AL_LOW), vcut = _mm512_set1_epi32(AL_CUTOFF);
	const __m512i vdlo = _mm512_set1_epi32(clamp_diag ? AL_CUTOFF : INT32_MIN);

	/* Row 0 (4.1); SIMD adds wrap, so padded lanes may wrap harmlessly. */
	__m512i hb = _mm512_loadu_si512(pbo);
	_mm512_store_si512(H, _mm512_setzero_si512());
	for (int j = 1; j <= M; ++j) {
		_mm512_store_si512(H + (size_t)j * LANES, hb);
		_mm512_store_si512(F + (size_t)j * LANES, vlow);
		hb = _mm512_add_epi32(hb, vbe);
	}
	hb = _mm512_loadu_si512(pbo);
	for (int i = 1; i <= N; ++i) {
		const __m128i rv = _mm_loadu_si128((const __m128i *)(refT + (size_t)(i - 1) * LANES));
		__m512i hdiag = _mm512_load_si512(H), E = vlow, hleft = hb;
		_mm512_store_si512(H, hb);
		hb = _mm512_add_epi32(hb, vbe);
		uint16_t *w = mv + (size_t)(i - 1) * M * 4;
		const uint8_t *ap = altT;
		int32_t *hp = H + LANES, *fp = F + LANES;
		for (int j = 1; j <= M; ++j, ap += LANES, hp += LANES, fp += LANES, w += 4) {
			const __mmask16 eq = _mm_cmpeq_epi8_mask(rv, _mm_loadu_si128((const __m128i *)ap));
			const __m512i D = _mm512_add_epi32(hdiag, _mm512_mask_blend_epi32(eq, vmis, vmatch));
			const __m512i hup = _mm512_load_si512(hp);
			const __m512i fo = _mm512_add_epi32(hup, vopen), fe = _mm512_add_epi32(_mm512_load_si512(fp), vext);
			const __mmask16 fx = _mm512_cmple_epi32_mask(fo, fe);
			const __m512i Fn = _mm512_max_epi32(fo, fe);
			const __m512i eo = _mm512_add_epi32(hleft, vopen), ee = _mm512_add_epi32(E, vext);
			const __mmask16 ex = _mm512_cmple_epi32_mask(eo, ee);
			E = _mm512_max_epi32(eo, ee);
			const __m512i dc = _mm512_max_epi32(D, vdlo);
			const __mmask16 ins = _mm512_cmpgt_epi32_mask(E, dc);
			const __m512i de = _mm512_max_epi32(dc, E);
			const __mmask16 del = _mm512_cmpgt_epi32_mask(Fn, de);
			const __m512i h = _mm512_max_epi32(_mm512_max_epi32(de, Fn), vcut);
			_mm512_store_si512(fp, Fn);
			_mm512_store_si512(hp, h);
			hdiag = hup, hleft = h;
			w[0] = ins, w[1] = del, w[2] = ex, w[3] = fx;
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



/* One pair by anti-diagonals: the cells (i, d - i) of diagonal d are independent, 16 at a time.
 * Diagonal buffers are indexed by row i; H of diagonals d-2, d-1, d and E, F of d-1, d rotate.
 * Entry 0 of a diagonal e holds the top boundary H[0][e] (F = LOW), entry e the left boundary
 * H[e][0] (E = LOW). alt is reversed so that alt[d - i - 1] is contiguous in i. Moves are one
 * byte per cell, diagonal after diagonal. */
static int fill_diag(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	(void)nl;
	const al_job_t *jb = jobs[0];
	const int n = jb->n, m = jb->m;
	const size_t W = ((size_t)n + 2 + 2 * LANES + 15) & ~(size_t)15;
	int32_t *buf = gvk_buf_reserve(&s->rows, 7 * W * sizeof(int32_t));
	uint8_t *seq = gvk_buf_reserve(&s->seqs, (size_t)n + m + 4 * LANES);
	uint8_t *tb = gvk_buf_reserve(&s->moves, (size_t)n * m + LANES);
	int32_t *edge = gvk_buf_reserve(&s->edges, ((size_t)n + m) * sizeof(int32_t) + ((size_t)n + m + 2) * sizeof(uint32_t));
	if (!buf || !seq || !tb || !edge) return GVK_ERR_NOMEM;
	memset(buf, 0, 7 * W * sizeof(int32_t));
	uint32_t *doff = (uint32_t *)(edge + n + m);
	uint8_t *refP = seq, *altR = seq + n + 2 * LANES;
	memcpy(refP, jb->ref, (size_t)n);
	memset(refP + n, 0, 2 * LANES);
	for (int k = 0; k < m; ++k) altR[k] = jb->alt[m - 1 - k];
	memset(altR + m, 0, 2 * LANES);
	int32_t *Hm2 = buf, *Hm1 = buf + W, *Hc = buf + 2 * W, *Em1 = buf + 3 * W, *Ec = buf + 4 * W, *Fm1 = buf + 5 * W,
	        *Fc = buf + 6 * W;
	const int gapped = jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL;
	const int32_t bo = gapped ? jb->open : 0, be = gapped ? jb->extend : 0;
	const __m512i vmatch = _mm512_set1_epi32(jb->match), vmis = _mm512_set1_epi32(jb->mismatch);
	const __m512i vopen = _mm512_set1_epi32(jb->open), vext = _mm512_set1_epi32(jb->extend);
	const __m512i vcut = _mm512_set1_epi32(AL_CUTOFF), vdlo = _mm512_set1_epi32(clamp_diag ? AL_CUTOFF : INT32_MIN);
	const __m512i v1 = _mm512_set1_epi32(AL_INS), v2 = _mm512_set1_epi32(AL_DEL), v4 = _mm512_set1_epi32(AL_EEXT),
	              v8 = _mm512_set1_epi32(AL_FEXT);
	int32_t *lastcol = edge, *bottom = edge + n;

	Hm2[0] = 0;              /* diagonal 0 */
	Hm1[0] = Hm1[1] = bo;    /* diagonal 1: H[0][1], H[1][0] */
	Fm1[0] = AL_LOW, Em1[1] = AL_LOW;
	uint32_t off = 0;
	for (int d = 2; d <= n + m; ++d) {
		if (d <= m) Hc[0] = bo + (d - 1) * be, Fc[0] = AL_LOW;
		if (d <= n) Hc[d] = bo + (d - 1) * be, Ec[d] = AL_LOW;
		const int lo = d - m > 1 ? d - m : 1, hi = d - 1 < n ? d - 1 : n;
		doff[d] = off;
		uint8_t *code = tb + off - lo;
		for (int i = lo; i <= hi; i += LANES) {
			const __mmask16 k = hi - i + 1 >= LANES ? (__mmask16)0xFFFF : (__mmask16)((1u << (hi - i + 1)) - 1);
			const __m128i rv = _mm_loadu_si128((const __m128i *)(refP + i - 1));
			const __m128i av = _mm_loadu_si128((const __m128i *)(altR + m - d + i));
			const __mmask16 eq = _mm_cmpeq_epi8_mask(rv, av);
			const __m512i D = _mm512_add_epi32(_mm512_loadu_si512(Hm2 + i - 1), _mm512_mask_blend_epi32(eq, vmis, vmatch));
			const __m512i fo = _mm512_add_epi32(_mm512_loadu_si512(Hm1 + i - 1), vopen);
			const __m512i fe = _mm512_add_epi32(_mm512_loadu_si512(Fm1 + i - 1), vext);
			const __mmask16 fx = _mm512_cmple_epi32_mask(fo, fe);
			const __m512i Fn = _mm512_max_epi32(fo, fe);
			const __m512i eo = _mm512_add_epi32(_mm512_loadu_si512(Hm1 + i), vopen);
			const __m512i ee = _mm512_add_epi32(_mm512_loadu_si512(Em1 + i), vext);
			const __mmask16 ex = _mm512_cmple_epi32_mask(eo, ee);
			const __m512i E = _mm512_max_epi32(eo, ee);
			const __m512i dc = _mm512_max_epi32(D, vdlo);
			const __mmask16 ins = _mm512_cmpgt_epi32_mask(E, dc);
			const __m512i de = _mm512_max_epi32(dc, E);
			const __mmask16 del = _mm512_cmpgt_epi32_mask(Fn, de);
			const __m512i h = _mm512_max_epi32(_mm512_max_epi32(de, Fn), vcut);
			_mm512_mask_storeu_epi32(Hc + i, k, h);
			_mm512_mask_storeu_epi32(Ec + i, k, E);
			_mm512_mask_storeu_epi32(Fc + i, k, Fn);
			__m512i c = _mm512_maskz_mov_epi32(ins, v1);
			c = _mm512_mask_or_epi32(c, del, c, v2);
			c = _mm512_mask_or_epi32(c, ex, c, v4);
			c = _mm512_mask_or_epi32(c, fx, c, v8);
			_mm_mask_storeu_epi8(code + i, k, _mm512_cvtepi32_epi8(c));
		}
		off += (uint32_t)(hi - lo + 1);
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

/* fill32: fill16 with 32 pairs in 16-bit lanes, for pairs that pass al_fits_int16 (the engine
 * checks). Saturating adds keep the -2^30 sentinel at -32768, where it still loses; real values
 * never come near either end, so every comparison and every stored value equals the 32-bit one,
 * and the -10^8 clamp (in either flavour) never acts. */
enum { LANES32 = 32 };

static int fill32(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	(void)clamp_diag;
	int N = 0, M = 0;
	size_t edge_len = 0;
	for (int l = 0; l < nl; ++l) {
		if (jobs[l]->n > N) N = jobs[l]->n;
		if (jobs[l]->m > M) M = jobs[l]->m;
		edge_len += (size_t)jobs[l]->n + (size_t)jobs[l]->m;
	}
	uint8_t *seq = gvk_buf_reserve(&s->seqs, ((size_t)N + M) * LANES32);
	int16_t *H = gvk_buf_reserve(&s->rows, 2 * ((size_t)M + 1) * LANES32 * sizeof(int16_t));
	uint32_t *mv = gvk_buf_reserve(&s->moves, (size_t)N * M * 4 * sizeof(uint32_t));
	int32_t *edge = gvk_buf_reserve(&s->edges, edge_len * sizeof(int32_t));
	if (!seq || !H || !mv || !edge) return GVK_ERR_NOMEM;
	uint8_t *refT = seq, *altT = seq + (size_t)N * LANES32;
	int16_t *F = H + ((size_t)M + 1) * LANES32;
	memset(seq, 0, ((size_t)N + M) * LANES32);
	int16_t pm[LANES32] = {0}, px[LANES32] = {0}, po[LANES32] = {0}, pe[LANES32] = {0}, pbo[LANES32] = {0},
	        pbe[LANES32] = {0};
	int32_t *lastcol[LANES32], *bottom[LANES32];
	size_t e = 0;
	for (int l = 0; l < nl; ++l) {
		const al_job_t *jb = jobs[l];
		for (int i = 0; i < jb->n; ++i) refT[(size_t)i * LANES32 + l] = jb->ref[i];
		for (int j = 0; j < jb->m; ++j) altT[(size_t)j * LANES32 + l] = jb->alt[j];
		pm[l] = (int16_t)jb->match, px[l] = (int16_t)jb->mismatch, po[l] = (int16_t)jb->open, pe[l] = (int16_t)jb->extend;
		if (jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL) pbo[l] = po[l], pbe[l] = pe[l];
		lastcol[l] = edge + e, e += (size_t)jb->n;
		bottom[l] = edge + e, e += (size_t)jb->m;
	}
	const __m512i vmatch = _mm512_loadu_si512(pm), vmis = _mm512_loadu_si512(px);
	const __m512i vopen = _mm512_loadu_si512(po), vext = _mm512_loadu_si512(pe);
	const __m512i vbe = _mm512_loadu_si512(pbe), vlow = _mm512_set1_epi16(INT16_MIN);

	__m512i hb = _mm512_loadu_si512(pbo);
	_mm512_store_si512(H, _mm512_setzero_si512());
	for (int j = 1; j <= M; ++j) {
		_mm512_store_si512(H + (size_t)j * LANES32, hb);
		_mm512_store_si512(F + (size_t)j * LANES32, vlow);
		hb = _mm512_adds_epi16(hb, vbe);
	}
	hb = _mm512_loadu_si512(pbo);
	for (int i = 1; i <= N; ++i) {
		const __m256i rv = _mm256_loadu_si256((const __m256i *)(refT + (size_t)(i - 1) * LANES32));
		__m512i hdiag = _mm512_load_si512(H), E = vlow, hleft = hb;
		_mm512_store_si512(H, hb);
		hb = _mm512_adds_epi16(hb, vbe);
		uint32_t *w = mv + (size_t)(i - 1) * M * 4;
		const uint8_t *ap = altT;
		int16_t *hp = H + LANES32, *fp = F + LANES32;
		for (int j = 1; j <= M; ++j, ap += LANES32, hp += LANES32, fp += LANES32, w += 4) {
			const __mmask32 eq = _mm256_cmpeq_epi8_mask(rv, _mm256_loadu_si256((const __m256i *)ap));
			const __m512i D = _mm512_adds_epi16(hdiag, _mm512_mask_blend_epi16(eq, vmis, vmatch));
			const __m512i hup = _mm512_load_si512(hp);
			const __m512i fo = _mm512_adds_epi16(hup, vopen), fe = _mm512_adds_epi16(_mm512_load_si512(fp), vext);
			const __mmask32 fx = _mm512_cmple_epi16_mask(fo, fe);
			const __m512i Fn = _mm512_max_epi16(fo, fe);
			const __m512i eo = _mm512_adds_epi16(hleft, vopen), ee = _mm512_adds_epi16(E, vext);
			const __mmask32 ex = _mm512_cmple_epi16_mask(eo, ee);
			E = _mm512_max_epi16(eo, ee);
			const __mmask32 ins = _mm512_cmpgt_epi16_mask(E, D);
			const __m512i de = _mm512_max_epi16(D, E);
			const __mmask32 del = _mm512_cmpgt_epi16_mask(Fn, de);
			const __m512i h = _mm512_max_epi16(de, Fn);
			_mm512_store_si512(fp, Fn);
			_mm512_store_si512(hp, h);
			hdiag = hup, hleft = h;
			w[0] = ins, w[1] = del, w[2] = ex, w[3] = fx;
		}
		for (int l = 0; l < nl; ++l) {
			const al_job_t *jb = jobs[l];
			if (i <= jb->n) lastcol[l][i - 1] = H[(size_t)jb->m * LANES32 + l];
			if (i == jb->n)
				for (int j = 1; j <= jb->m; ++j) bottom[l][j - 1] = H[(size_t)j * LANES32 + l];
		}
	}
	for (int l = 0; l < nl; ++l) out[l] = (al_fill_t){{mv, (size_t)M, l, 1, jobs[l]->m, NULL}, lastcol[l], bottom[l]};
	return 0;
}

/* A group of k pairs costs fill16 about as much as 16; fill_diag runs one pair at a bit over half
 * of fill16's full-lane speed, so groups below 9 pairs go one by one. fill32 does 32 pairs for
 * the price of 16, so it pays from 17 pairs on. */
const al_isa_t al_isa_avx512 = {"avx512", LANES, 9, fill16, fill_diag, (size_t)1 << 22, LANES32, 17, fill32};
