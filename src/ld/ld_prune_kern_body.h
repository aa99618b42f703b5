/* SPDX-License-Identifier: MIT */
/* The pruning kernels' body, included once by each instruction set's file (ld_prune_kern_*.c) and
 * compiled with that set's flags; PRUNE_KERN_OWN_PAIRS leaves out the pair kernels for a file
 * that has its own. */
#ifndef GVK_LD_PRUNE_KERN_BODY_H
#define GVK_LD_PRUNE_KERN_BODY_H

#include <string.h>

#include "ld_prune_kern.h"

static inline int64_t pop(uint64_t x) { return __builtin_popcountll(x); }

static void kern_sums(const uint64_t *a, const uint64_t *b, const uint64_t *v, int nw, uint64_t *z, uint64_t *neg,
                      int64_t cnt[3])
{
	int64_t np = 0, nn = 0, nv = 0;
	for (int w = 0; w < nw; ++w) {
		neg[w] = v[w] & ~a[w], z[w] = b[w] | neg[w];
		np += pop(b[w]), nn += pop(neg[w]), nv += pop(v[w]);
	}
	cnt[0] = np, cnt[1] = nn, cnt[2] = nv;
}

/* The planes the genotype r^2 takes from a row's low and high code bits l, h (nw words, bits from
 * the sample count on clear): called (~l | h), the homozygotes (l == h) and those of the file's A2
 * (l & h, which centres as -1); and the counts of the homozygotes of each allele and the calls.
 * Which allele is counted -1 changes the sign of the covariance only, so r^2 is the same bits as
 * from the decoded planes. */
static void kern_direct(const uint64_t *l, const uint64_t *h, int nw, int64_t n, uint64_t *v, uint64_t *z, uint64_t *neg,
                        int64_t cnt[3])
{
	int64_t np = 0, nn = 0, nv = 0, full = n / 64;
	uint64_t tail = n % 64 ? ((uint64_t)1 << (n % 64)) - 1 : 0;
	for (int w = 0; w < nw; ++w) {
		uint64_t valid = w < full ? ~(uint64_t)0 : w == full ? tail : 0;
		v[w] = (~l[w] | h[w]) & valid, z[w] = ~(l[w] ^ h[w]) & valid, neg[w] = l[w] & h[w];
		np += pop(z[w] & ~neg[w]), nn += pop(neg[w]), nv += pop(v[w]);
	}
	cnt[0] = np, cnt[1] = nn, cnt[2] = nv;
}

/* Genotype classes of a word of SNP x: two copies of A1, one, none. On X a male's call holds one
 * copy (planes as snp_geno.c decodes them) but counts as a homozygote in the table. */
static inline void classes(const prune_snp_t *x, int w, uint64_t mx, uint64_t k[3])
{
	k[0] = x->pos[w] | (x->a[w] & mx);
	k[1] = x->a[w] & ~x->pos[w] & ~mx;
	k[2] = x->v[w] & ~x->a[w];
}

static void kern_classes(const prune_snp_t *x, int nw, const uint64_t *xmale, int64_t n[3])
{
	n[0] = n[1] = n[2] = 0;
	for (int w = 0; w < nw; ++w) {
		uint64_t k[3];
		classes(x, w, xmale ? xmale[w] : 0, k);
		for (int a = 0; a < 3; ++a) n[a] += pop(k[a]);
	}
}

/* The two-locus table of SNPs x and y (ld_em_counts' layout). Off X, four cells and the class
 * totals over the samples called at the other SNP give the rest (without a missing call, the
 * SNP's own totals). */
static void kern_table(const prune_snp_t *x, const prune_snp_t *y, int nw, const uint64_t *xmale, uint32_t t[18])
{
	memset(t, 0, sizeof *t * 18);
	if (!xmale) {
		int64_t c00 = 0, c01 = 0, c10 = 0, c11 = 0, r0, r1, r2, k0, k1;
		if (!x->miss && !y->miss) {
			for (int w = 0; w < nw; ++w) {
				uint64_t x1 = x->a[w] & ~x->pos[w], y1 = y->a[w] & ~y->pos[w];
				c00 += pop(x->pos[w] & y->pos[w]), c01 += pop(x->pos[w] & y1);
				c10 += pop(x1 & y->pos[w]), c11 += pop(x1 & y1);
			}
			r0 = x->cls[0], r1 = x->cls[1], r2 = x->cls[2], k0 = y->cls[0], k1 = y->cls[1];
		} else {
			r0 = r1 = r2 = k0 = k1 = 0;
			for (int w = 0; w < nw; ++w) {
				uint64_t x1 = x->a[w] & ~x->pos[w], y1 = y->a[w] & ~y->pos[w], vx = x->v[w], vy = y->v[w];
				c00 += pop(x->pos[w] & y->pos[w]), c01 += pop(x->pos[w] & y1);
				c10 += pop(x1 & y->pos[w]), c11 += pop(x1 & y1);
				r0 += pop(x->pos[w] & vy), r1 += pop(x1 & vy), r2 += pop(x->neg[w] & vy);
				k0 += pop(y->pos[w] & vx), k1 += pop(y1 & vx);
			}
		}
		t[0] = (uint32_t)c00, t[1] = (uint32_t)c01, t[3] = (uint32_t)c10, t[4] = (uint32_t)c11;
		t[2] = (uint32_t)(r0 - c00 - c01), t[5] = (uint32_t)(r1 - c10 - c11);
		t[6] = (uint32_t)(k0 - c00 - c10), t[7] = (uint32_t)(k1 - c01 - c11);
		t[8] = (uint32_t)r2 - t[6] - t[7];
		return;
	}
	for (int w = 0; w < nw; ++w) {
		uint64_t mx = xmale[w], kx[3], ky[3];
		classes(x, w, mx, kx);
		classes(y, w, mx, ky);
		for (int a = 0; a < 3; ++a)
			for (int b = 0; b < 3; ++b) {
				t[3 * a + b] += (uint32_t)pop(kx[a] & ky[b]);
				if (mx) t[9 + 3 * a + b] += (uint32_t)pop(kx[a] & mx & ky[b]);
			}
	}
}

#ifndef PRUNE_KERN_OWN_PAIRS
/* r^2 of SNPs x and y with PLINK's two formulas (no missing call at either, or some; r2_full and
 * r2_called, ld_prune_pair.h); compiled for each instruction set that has no pair kernels of its own.
 * Every count is exact: the product of two centred calls is nonzero where both z bits are set,
 * and -1 where their signs differ. */
static double kern_r2(const prune_snp_t *x, const prune_snp_t *y, int nw, int64_t n_bits, int sign)
{
	int64_t nz = 0, diff = 0;
	if (!x->miss && !y->miss) {
		for (int w = 0; w < nw; ++w) {
			uint64_t zz = x->z[w] & y->z[w];
			nz += pop(zz), diff += pop(zz & (x->neg[w] ^ y->neg[w]));
		}
		return r2_full(x, y, nz, diff, n_bits, sign);
	}
	int64_t nm = 0, sxx = 0, syy = 0, nx = 0, ny = 0;
	for (int w = 0; w < nw; ++w) {
		uint64_t vx = x->v[w], vy = y->v[w], zz = x->z[w] & y->z[w];
		nz += pop(zz), diff += pop(zz & (x->neg[w] ^ y->neg[w]));
		nm += pop(vx & vy);
		sxx += pop(x->z[w] & vy), nx += pop(x->neg[w] & vy);
		syy += pop(y->z[w] & vx), ny += pop(y->neg[w] & vx);
	}
	return r2_called(nz, diff, nm, sxx, nx, syy, ny, sign);
}

static void kern_r2s(const prune_snp_t *x, const prune_snp_t *const *ys, int n, int nw, int64_t n_bits, double *r2)
{
	for (int q = 0; q < n; ++q) r2[q] = kern_r2(x, ys[q], nw, n_bits, 0);
}
#endif

#endif
