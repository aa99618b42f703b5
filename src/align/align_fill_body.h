/* SPDX-License-Identifier: MIT */
/* Body of the vector matrix fills, included by align_avx512.c, align_avx2.c and align_neon.c with
 * the vector operations of their instruction set defined (the macros below). Two kernels:
 *
 * LANE_FN: LANES pairs at once, one per lane, each lane running the scalar recurrences
 * (align_scalar.c) unchanged. The pairs are padded to the largest of the group; cells outside a
 * lane's own matrix are computed and ignored (they never feed its real cells). Moves are stored as
 * four lane masks per cell (MW wide). With NARROW the lanes are 16 bits with saturating adds, for
 * pairs that pass al_fits_int16 (the engine checks): the -2^30 sentinel saturates to -32768, where
 * it still loses, real values never come near either end, so every comparison and stored value
 * equals the 32-bit one and the -10^8 clamp (in either flavour) never acts.
 *
 * DIAG_FN (32-bit only): one pair by anti-diagonals; the cells (i, d - i) of diagonal d are
 * independent, LANES at a time. Diagonal buffers are indexed by row i; H of diagonals d-2, d-1, d
 * and E, F of d-1, d rotate. Entry 0 of a diagonal e holds the top boundary H[0][e] (F = LOW),
 * entry e the left boundary H[e][0] (E = LOW). alt is reversed so that alt[d - i - 1] is
 * contiguous in i. Moves are one byte per cell, diagonal after diagonal. Stores are not masked: a
 * vector may write up to LANES - 1 entries past the diagonal's last cell, which nothing reads, and
 * the boundary entries (0 and d) are therefore written after the diagonal's cells.
 *
 * Macros: LANES; EL (lane element), MW (move mask word), VEC; LOADA, STOREA (aligned), LOADU,
 * STOREU, SET1, ZERO, ADD, MAX; GT(a, b) and LE(a, b) give masks whose bits GT_BITS and LE_BITS
 * return (LE may be kept as its negation where that is cheaper, as long as LE_BITS and CODE read it
 * so); BT, the base element of the transposed sequences, BV and BLOAD for LANES of them, SCORE(rv,
 * av, mis, match) the substitution score; CODE(ins, del, exle, fxle) the move byte of each lane as
 * a vector, STORE_CODES(p, c) writing its LANES low bytes. */

#ifdef NARROW
#define LOWV SET1(INT16_MIN)
#else
#define LOWV SET1(AL_LOW)
#endif

static int LANE_FN(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	int N = 0, M = 0;
	size_t edge_len = 0;
	for (int l = 0; l < nl; ++l) {
		if (jobs[l]->n > N) N = jobs[l]->n;
		if (jobs[l]->m > M) M = jobs[l]->m;
		edge_len += (size_t)jobs[l]->n + (size_t)jobs[l]->m;
	}
	BT *seq = gvk_buf_reserve(&s->seqs, ((size_t)N + M) * LANES * sizeof(BT));
	EL *H = gvk_buf_reserve(&s->rows, 2 * ((size_t)M + 1) * LANES * sizeof(EL));
	MW *mv = gvk_buf_reserve(&s->moves, (size_t)N * M * 4 * sizeof(MW));
	int32_t *edge = gvk_buf_reserve(&s->edges, edge_len * sizeof(int32_t));
	if (!seq || !H || !mv || !edge) return GVK_ERR_NOMEM;
	/* Sequences transposed so that one load gives a row's (or column's) base of every lane;
	 * unused lanes and padding hold 0 and only produce ignored cells. */
	BT *refT = seq, *altT = seq + (size_t)N * LANES;
	memset(seq, 0, ((size_t)N + M) * LANES * sizeof(BT));
	EL *F = H + ((size_t)M + 1) * LANES;
	EL pm[LANES] = {0}, px[LANES] = {0}, po[LANES] = {0}, pe[LANES] = {0}, pbo[LANES] = {0}, pbe[LANES] = {0};
	int32_t *lastcol[LANES], *bottom[LANES];
	size_t e = 0;
	for (int l = 0; l < nl; ++l) {
		const al_job_t *jb = jobs[l];
		for (int i = 0; i < jb->n; ++i) refT[(size_t)i * LANES + l] = jb->ref[i];
		for (int j = 0; j < jb->m; ++j) altT[(size_t)j * LANES + l] = jb->alt[j];
		pm[l] = (EL)jb->match, px[l] = (EL)jb->mismatch, po[l] = (EL)jb->open, pe[l] = (EL)jb->extend;
		if (jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL) pbo[l] = po[l], pbe[l] = pe[l];
		lastcol[l] = edge + e, e += (size_t)jb->n;
		bottom[l] = edge + e, e += (size_t)jb->m;
	}
	const VEC vmatch = LOADU(pm), vmis = LOADU(px), vopen = LOADU(po), vext = LOADU(pe), vbe = LOADU(pbe);
	const VEC vlow = LOWV;
#ifndef NARROW
	const VEC vcut = SET1(AL_CUTOFF), vdlo = SET1(clamp_diag ? AL_CUTOFF : INT32_MIN);
#else
	(void)clamp_diag;
#endif

	/* Row 0 (4.1); adds wrap (or saturate), so padded lanes may overflow harmlessly. */
	VEC hb = LOADU(pbo);
	STOREA(H, ZERO());
	for (int j = 1; j <= M; ++j) {
		STOREA(H + (size_t)j * LANES, hb);
		STOREA(F + (size_t)j * LANES, vlow);
		hb = ADD(hb, vbe);
	}
	hb = LOADU(pbo);
	for (int i = 1; i <= N; ++i) {
		const BV rv = BLOAD(refT + (size_t)(i - 1) * LANES);
		VEC hdiag = LOADA(H), E = vlow, hleft = hb;
		STOREA(H, hb);
		hb = ADD(hb, vbe);
		MW *w = mv + (size_t)(i - 1) * M * 4;
		const BT *ap = altT;
		EL *hp = H + LANES, *fp = F + LANES;
		for (int j = 1; j <= M; ++j, ap += LANES, hp += LANES, fp += LANES, w += 4) {
			const VEC D = ADD(hdiag, SCORE(rv, BLOAD(ap), vmis, vmatch));
			const VEC hup = LOADA(hp);
			const VEC fo = ADD(hup, vopen), fe = ADD(LOADA(fp), vext);
			const unsigned fx = LE_BITS(LE(fo, fe));
			const VEC Fn = MAX(fo, fe);
			const VEC eo = ADD(hleft, vopen), ee = ADD(E, vext);
			const unsigned ex = LE_BITS(LE(eo, ee));
			E = MAX(eo, ee);
#ifdef NARROW
			const unsigned ins = GT_BITS(GT(E, D));
			const VEC de = MAX(D, E);
			const unsigned del = GT_BITS(GT(Fn, de));
			const VEC h = MAX(de, Fn);
#else
			const VEC dc = MAX(D, vdlo);
			const unsigned ins = GT_BITS(GT(E, dc));
			const VEC de = MAX(dc, E);
			const unsigned del = GT_BITS(GT(Fn, de));
			const VEC h = MAX(MAX(de, Fn), vcut);
#endif
			STOREA(fp, Fn);
			STOREA(hp, h);
			hdiag = hup, hleft = h;
			w[0] = (MW)ins, w[1] = (MW)del, w[2] = (MW)ex, w[3] = (MW)fx;
		}
		for (int l = 0; l < nl; ++l) {
			const al_job_t *jb = jobs[l];
			if (i <= jb->n) lastcol[l][i - 1] = H[(size_t)jb->m * LANES + l];
			if (i == jb->n)
				for (int j = 1; j <= jb->m; ++j) bottom[l][j - 1] = H[(size_t)j * LANES + l];
		}
	}
	for (int l = 0; l < nl; ++l)
		out[l] = (al_fill_t){{mv, (size_t)M, l, sizeof(MW) == 4, jobs[l]->m, NULL}, lastcol[l], bottom[l]};
	return 0;
}
#undef LOWV

#ifdef DIAG_FN
static int DIAG_FN(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	(void)nl;
	const al_job_t *jb = jobs[0];
	const int n = jb->n, m = jb->m;
	const size_t W = ((size_t)n + 2 + 2 * LANES + LANES - 1) & ~(size_t)(LANES - 1);
	int32_t *buf = gvk_buf_reserve(&s->rows, 7 * W * sizeof(int32_t));
	BT *seq = gvk_buf_reserve(&s->seqs, ((size_t)n + m + 4 * LANES) * sizeof(BT));
	uint8_t *tb = gvk_buf_reserve(&s->moves, (size_t)n * m + 2 * LANES);
	int32_t *edge = gvk_buf_reserve(&s->edges, ((size_t)n + m) * sizeof(int32_t) + ((size_t)n + m + 2) * sizeof(uint32_t));
	if (!buf || !seq || !tb || !edge) return GVK_ERR_NOMEM;
	memset(buf, 0, 7 * W * sizeof(int32_t));
	uint32_t *doff = (uint32_t *)(edge + n + m);
	BT *refP = seq, *altR = seq + n + 2 * LANES;
	for (int k = 0; k < n + 2 * LANES; ++k) refP[k] = k < n ? jb->ref[k] : 0;
	for (int k = 0; k < m + 2 * LANES; ++k) altR[k] = k < m ? jb->alt[m - 1 - k] : 0;
	int32_t *Hm2 = buf, *Hm1 = buf + W, *Hc = buf + 2 * W, *Em1 = buf + 3 * W, *Ec = buf + 4 * W, *Fm1 = buf + 5 * W,
	        *Fc = buf + 6 * W;
	const int gapped = jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL;
	const int32_t bo = gapped ? jb->open : 0, be = gapped ? jb->extend : 0;
	const VEC vmatch = SET1(jb->match), vmis = SET1(jb->mismatch), vopen = SET1(jb->open), vext = SET1(jb->extend);
	const VEC vcut = SET1(AL_CUTOFF), vdlo = SET1(clamp_diag ? AL_CUTOFF : INT32_MIN);
	int32_t *lastcol = edge, *bottom = edge + n;

	Hm2[0] = 0;           /* diagonal 0 */
	Hm1[0] = Hm1[1] = bo; /* diagonal 1: H[0][1], H[1][0] */
	Fm1[0] = AL_LOW, Em1[1] = AL_LOW;
	uint32_t off = 0;
	for (int d = 2; d <= n + m; ++d) {
		const int lo = d - m > 1 ? d - m : 1, hi = d - 1 < n ? d - 1 : n;
		doff[d] = off;
		uint8_t *code = tb + off - lo;
		for (int i = lo; i <= hi; i += LANES) {
			const VEC D = ADD(LOADU(Hm2 + i - 1), SCORE(BLOAD(refP + i - 1), BLOAD(altR + m - d + i), vmis, vmatch));
			const VEC fo = ADD(LOADU(Hm1 + i - 1), vopen), fe = ADD(LOADU(Fm1 + i - 1), vext);
			const LEM fx = LE(fo, fe);
			const VEC Fn = MAX(fo, fe);
			const VEC eo = ADD(LOADU(Hm1 + i), vopen), ee = ADD(LOADU(Em1 + i), vext);
			const LEM ex = LE(eo, ee);
			const VEC E = MAX(eo, ee);
			const VEC dc = MAX(D, vdlo);
			const GTM ins = GT(E, dc);
			const VEC de = MAX(dc, E);
			const GTM del = GT(Fn, de);
			const VEC h = MAX(MAX(de, Fn), vcut);
			STOREU(Hc + i, h);
			STOREU(Ec + i, E);
			STOREU(Fc + i, Fn);
			STORE_CODES(code + i, CODE(ins, del, ex, fx));
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
#endif

#undef LANES
#undef EL
#undef MW
#undef VEC
#undef LOADA
#undef STOREA
#undef LOADU
#undef STOREU
#undef SET1
#undef ZERO
#undef ADD
#undef MAX
#undef GTM
#undef LEM
#undef GT
#undef LE
#undef GT_BITS
#undef LE_BITS
#undef BT
#undef BV
#undef BLOAD
#undef SCORE
#undef CODE
#undef STORE_CODES
#undef LANE_FN
#undef DIAG_FN
#undef NARROW
