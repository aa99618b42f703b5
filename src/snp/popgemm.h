/* SPDX-License-Identifier: MIT */
/* The popcount-GEMM kernel family (docs/snp.md, Semantics 7): one loop nest over bit-packed operands in
 * which multiply-add is a bitwise operation plus a population count. LD and FastID call these
 * row kernels; the engines around them do the cache blocking and threading. A GPU back end
 * replaces the engines' tile loops (snp_gpu.h), not these functions. */
#ifndef GVK_SNP_POPGEMM_H
#define GVK_SNP_POPGEMM_H

#include <stddef.h>
#include <stdint.h>

/* Sums for one SNP pair (i, j) on the samples called at both (docs/snp.md, Semantics 5): x counts at i, y at j. */
typedef struct {
	int32_t n, sx, sxx, sy, syy, sxy;
} pg_ldcnt_t;

/* The nine plane intersections behind pg_ldcnt_t, for the two-locus genotype table (ld_em.h): x's
 * planes a, b, v and y's c, d, u; n = |v & u|, av = |a & u|, bv = |b & u|, va = |c & v|,
 * vb = |d & v|, aa = |a & c|, ab = |a & d|, ba = |b & c|, bb = |b & d|. */
typedef struct {
	int32_t n, av, bv, va, vb, aa, ab, ba, bb;
} pg_ldtab_t;

/* FastID element operations (docs/snp.md, Semantics 6). ANDNOT is d & ~q: q the mixture, d the candidate. */
typedef enum { PG_XOR = 0, PG_ANDNOT = 1, PG_AND = 2 } pg_op_t;

typedef struct {
	const char *name;
	/* Counts of row SNP x against the ny column SNPs y, y + stride, ...; each SNP is 3 planes
	 * (A, B, V) of nw words, nw a multiple of 8. full_x / full_y[k]: V all ones (then the
	 * marginals come from the per-SNP totals tot_x / tot_y[k] = {pc(A), pc(B)} and n = n_bits).
	 * Results are exact integers whatever path is taken. */
	void (*ld_row)(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, int64_t n_bits,
	               int full_x, const int32_t *tot_x, const uint8_t *full_y, const int32_t *tot_y, pg_ldcnt_t *out);
	/* The same pairs as ld_row, as the nine intersections (no shortcut for full SNPs). */
	void (*tab_row)(const uint64_t *x, const uint64_t *y, long stride, int ny, int nw, pg_ldtab_t *out);
	/* A .bed row of n samples (ceil(n / 4) bytes, codes 00 = two A1, 10 = one, 11 = none, 01 =
	 * missing) into ceil(n / 64) words of planes a (>= one A1), b (two) and v (called); the bits
	 * past n are 0. */
	void (*bed_row)(const uint8_t *row, int64_t n, uint64_t *a, uint64_t *b, uint64_t *v);
	/* Set bits in p[0, n). */
	int64_t (*popcount)(const uint64_t *p, long n);
	/* out[k] = pc(op(q, d_k)) for the nd profiles d_k = d + k * nw (nw a multiple of 8). */
	void (*fid_row)(pg_op_t op, const uint64_t *q, const uint64_t *d, int nd, int nw, uint32_t *out);
} pg_isa_t;

extern const pg_isa_t pg_isa_scalar;
#if defined(GVK_HAVE_AVX512)
extern const pg_isa_t pg_isa_popcnt;
extern const pg_isa_t pg_isa_avx512;
#endif
#if defined(GVK_HAVE_NEON)
extern const pg_isa_t pg_isa_neon;
#endif
#if defined(GVK_HAVE_SVE)
extern const pg_isa_t pg_isa_sve; /* AUTO's choice with vectors of 256 bits or more; tests call it at any length */
#endif

/* Kernel set for a gvk_isa_t request (AUTO: the fastest this CPU runs); NULL when unavailable. */
const pg_isa_t *pg_isa_select(int isa);
/* The word-at-a-time kernels built for the CPU's popcount instruction (POPCNT), which AUTO takes
 * below AVX-512; NULL where this build or CPU has none. */
const pg_isa_t *pg_isa_word(void);
/* Which kernel k is and, for an AUTO request, why no better one was taken (cpu_kernel_note). */
int pg_isa_note(const pg_isa_t *k, int isa, char *buf, size_t size);

#endif
