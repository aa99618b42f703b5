/* SPDX-License-Identifier: MIT */
/* The row kernels of a popcount-GEMM set built on two pair functions, included by popgemm_neon.c
 * and popgemm_sve.c after they define
 *   pg_ldtab_t nine(xa, xb, xv, ya, yb, yv, nw)   the nine plane intersections of one pair, and
 *   int32_t dosage_product(xa, xb, ya, yb, nw)    pc(a & c) + pc(a & d) + pc(b & c) + pc(b & d);
 * the .bed decoding is the portable set's. */

static void ld_row(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, int64_t n_bits, int full_x,
                   const int32_t *tot_x, const uint8_t *full_y, const int32_t *tot_y, pg_ldcnt_t *out)
{
	const uint64_t *xa = x, *xb = x + nw, *xv = x + 2 * nw;
	for (int k = 0; k < ny; ++k) {
		const uint64_t *ya = y + (long)k * stride, *yb = ya + nw, *yv = yb + nw;
		pg_ldcnt_t *o = &out[k];
		if (full_x && full_y[k]) {
			o->n = (int32_t)n_bits;
			o->sx = tot_x[0] + tot_x[1], o->sxx = tot_x[0] + 3 * tot_x[1];
			o->sy = tot_y[2 * k] + tot_y[2 * k + 1], o->syy = tot_y[2 * k] + 3 * tot_y[2 * k + 1];
			o->sxy = dosage_product(xa, xb, ya, yb, nw);
		} else {
			const pg_ldtab_t t = nine(xa, xb, xv, ya, yb, yv, nw);
			o->n = t.n;
			o->sx = t.av + t.bv, o->sxx = t.av + 3 * t.bv;
			o->sy = t.va + t.vb, o->syy = t.va + 3 * t.vb;
			o->sxy = t.aa + t.ab + t.ba + t.bb;
		}
	}
}

static void tab_row(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, pg_ldtab_t *out)
{
	for (int k = 0; k < ny; ++k) {
		const uint64_t *ya = y + (long)k * stride;
		out[k] = nine(x, x + nw, x + 2 * nw, ya, ya + nw, ya + 2 * nw, nw);
	}
}

static void bed_row(const uint8_t *row, int64_t n, uint64_t *a, uint64_t *b, uint64_t *v)
{
	pg_isa_scalar.bed_row(row, n, a, b, v);
}
