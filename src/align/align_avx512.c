/* AVX-512 matrix fill: 16 pairs at once, one per 32-bit lane, each lane running the scalar
 * recurrences (align_scalar.c) unchanged. The pairs are padded to the largest of the group; cells
 * outside a lane's own matrix are computed and ignored (they never feed its real cells). Moves are
 * stored as four 16-bit lane masks per cell. Compiled with -mavx512f -mavx512vl -mavx512bw. */
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
	uint8_t *seq = al_buf_reserve(&s->seqs, ((size_t)N + M) * LANES);
	int32_t *H = al_buf_reserve(&s->rows, 2 * ((size_t)M + 1) * LANES * sizeof(int32_t));
	uint16_t *mv = al_buf_reserve(&s->moves, (size_t)N * M * 4 * sizeof(uint16_t));
	int32_t *edge = al_buf_reserve(&s->edges, edge_len * sizeof(int32_t));
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
	for (int l = 0; l < nl; ++l) out[l] = (al_fill_t){{mv, (size_t)M, l}, lastcol[l], bottom[l]};
	return 0;
}

const al_isa_t al_isa_avx512 = {"avx512", LANES, fill16, (size_t)1 << 22};
