/* SPDX-License-Identifier: MIT */
/* Internal interface between the alignment engine, its matrix-fill kernels (one per instruction
 * set) and the traceback. Section numbers below are those of docs/align.md, Semantics. */
#ifndef GVK_ALIGN_KERNEL_H
#define GVK_ALIGN_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "gvk.h"
#include "../common/buf.h"

#define AL_LOW (-(1 << 30))       /* E[i][0] and F[0][j] (4.1) */
#define AL_CUTOFF (-100000000)    /* stored H is never below this (4.2) */

/* One pair as the kernels see it. */
typedef struct {
	const uint8_t *ref, *alt;
	int n, m; /* ref (rows) and alt (columns) lengths, >= 1 */
	int32_t match, mismatch, open, extend;
	int ovh; /* gvk_overhang_t */
} al_job_t;

/* Move bits of a cell (4.3): bit 0 E beat the clamped diagonal, bit 1 F beat both (DEL wins when
 * set), bit 2 E came from extension, bit 3 F came from extension. */
enum { AL_INS = 1, AL_DEL = 2, AL_EEXT = 4, AL_FEXT = 8 };

#if defined(__CUDACC__) || defined(__HIP__) /* nvcc or hipcc */
#define AL_CELL_FN static inline __host__ __device__
#else
#define AL_CELL_FN static inline
#endif

/* One cell of 4.2, the scalar reference's and the GPU kernel's: from H[i-1][j-1] (hdiag),
 * H[i-1][j] (hup), H[i][j-1] (hleft), E[i][j-1] and F[i-1][j] (*E, *F, replaced by E[i][j],
 * F[i][j]) and the substitution score s; returns H[i][j] and its move bits in *code. */
AL_CELL_FN int32_t al_cell(int32_t hdiag, int32_t hup, int32_t hleft, int32_t s, int32_t open, int32_t extend,
                           int32_t dlo, int32_t *E, int32_t *F, int *code)
{
	int c = 0;
	const int32_t D = hdiag + s;
	const int32_t fo = hup + open, fe = *F + extend;
	if (fo > fe)
		*F = fo;
	else
		*F = fe, c |= AL_FEXT;
	const int32_t eo = hleft + open, ee = *E + extend;
	if (eo > ee)
		*E = eo;
	else
		*E = ee, c |= AL_EEXT;
	/* Tie order diagonal, insertion, deletion. */
	int32_t best = D > dlo ? D : dlo;
	if (*E > best) best = *E, c |= AL_INS;
	if (*F > best) best = *F, c |= AL_DEL;
	if (best < AL_CUTOFF) best = AL_CUTOFF;
	*code = c;
	return best;
}

/* Where a kernel left a pair's moves. Cell (i, j), 1 <= i <= n, 1 <= j <= m:
 *  lane == -1: one byte per cell at (i - 1) * ld + (j - 1);
 *  lane == -2: one byte per cell by anti-diagonal d = i + j, at doff[d] + i - max(1, d - m);
 *  lane >= 0: four lane masks per cell (ins, del, eext, fext; bit `lane` belongs to this pair)
 *             at 4 * ((i - 1) * ld + (j - 1)), as the lane kernels store them: 16-bit masks, or
 *             32-bit ones when wide is set. */
typedef struct {
	const void *p;
	size_t ld;
	int lane, wide;
	int m;
	const uint32_t *doff;
} al_moves_t;

static inline int al_move(const al_moves_t *mv, int i, int j)
{
	if (mv->lane == -2) {
		const int d = i + j, lo = d - mv->m > 1 ? d - mv->m : 1;
		return ((const uint8_t *)mv->p)[mv->doff[d] + (uint32_t)(i - lo)];
	}
	size_t k = (size_t)(i - 1) * mv->ld + (size_t)(j - 1);
	if (mv->lane < 0) return ((const uint8_t *)mv->p)[k];
	uint32_t w[4];
	for (int q = 0; q < 4; ++q)
		w[q] = mv->wide ? ((const uint32_t *)mv->p)[4 * k + (size_t)q] : ((const uint16_t *)mv->p)[4 * k + (size_t)q];
	return (int)((w[0] >> mv->lane & 1) | (w[1] >> mv->lane & 1) << 1 | (w[2] >> mv->lane & 1) << 2 |
	             (w[3] >> mv->lane & 1) << 3);
}

/* What a fill hands to the traceback for one pair. */
typedef struct {
	al_moves_t mv;
	const int32_t *lastcol; /* H[i][m] at [i - 1], i = 1..n */
	const int32_t *bottom;  /* H[n][j] at [j - 1], j = 1..m */
} al_fill_t;


typedef struct {
	gvk_buf_t moves, rows, seqs, edges;
} al_scratch_t;

void al_scratch_free(al_scratch_t *s);

/* A fill computes H/E/F (4.1, 4.2) of nl pairs (nl <= lanes) and records moves and the last
 * column and bottom row of each. clamp_diag: GKL's comparison with max(CUTOFF, D), else Java's.
 * The results point into s and stay valid until its next use. Returns 0 or GVK_ERR_NOMEM. */
typedef int (*al_fill_fn)(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out);

/* A kernel set: `fill` takes up to `lanes` pairs of similar shape whose padded matrix has at most
 * max_cells cells; `fill_single` takes one pair of any size. Groups of fewer than min_group pairs
 * are cheaper one by one. `fill_narrow`, where present, takes up to lanes_narrow pairs that all
 * pass al_fits_int16, in 16-bit lanes (same max_cells), for groups of at least min_group_narrow. */
typedef struct {
	const char *name;
	int lanes, min_group;
	al_fill_fn fill, fill_single;
	size_t max_cells;
	int lanes_narrow, min_group_narrow;
	al_fill_fn fill_narrow;
} al_isa_t;

/* Whether every H, E, F and diagonal value of the pair provably lies in -32000..32000, so that
 * 16-bit lanes with saturating arithmetic give exactly the 32-bit results (the -2^30 sentinel
 * saturates to -32768 and still loses every comparison; the -10^8 clamp never acts). H is at most
 * match * min(n, m) and at least the lowest boundary value plus min(n, m) mismatches (the
 * diagonal path back to the boundary); E, F and D add at most one gap_open, gap_extend and
 * mismatch to that. */
static inline int al_fits_int16(const al_job_t *j)
{
	const int64_t s = j->n < j->m ? j->n : j->m, L = j->n > j->m ? j->n : j->m;
	const int gapped = j->ovh == GVK_OVERHANG_INDEL || j->ovh == GVK_OVERHANG_LEADING_INDEL;
	const int64_t bmin = gapped ? (int64_t)j->open + (L - 1) * j->extend : 0;
	const int64_t low = bmin + s * j->mismatch + j->open + j->extend + j->mismatch;
	return (int64_t)j->match * s <= 32000 && low >= -32000;
}

extern const al_isa_t al_isa_scalar;
#ifdef GVK_HAVE_AVX512
extern const al_isa_t al_isa_avx512, al_isa_avx2;
#endif
#ifdef GVK_HAVE_NEON
extern const al_isa_t al_isa_neon;
#endif

/* The kernel set for a gvk_isa_t request; NULL if this build or CPU cannot run it. */
const al_isa_t *al_isa_select(int isa);
/* Which kernel k is and, for an AUTO request, why no better one was taken (cpu_kernel_note). */
int al_isa_note(const al_isa_t *k, int isa, char *buf, size_t size);

/* End cell (5.1) from a fill; returns its H. */
int32_t al_end_cell(const al_job_t *j, const al_fill_t *f, int *p1, int *p2);

/* A CIGAR as (length, op) elements, left to right. */
typedef struct {
	int32_t len;
	char op;
} al_elem_t;

/* Traceback (5.2) and CIGAR assembly (6) from end cell (p1, p2): writes at most n + m + 2 elements
 * into el (caller-sized), returns their number and the offset in *offset. java selects GATK Java's
 * IGNORE trailing overhang (6.3). */
int al_traceback(const al_job_t *j, const al_moves_t *mv, int p1, int p2, int java, al_elem_t *el,
                 int32_t *offset);

/* CIGAR text of el[0..ne) into buf (room for cap characters plus a NUL). With gkl_cap >= 0 an
 * element whose text would pass gkl_cap characters is skipped, as GKL's fixed buffer does (8).
 * Returns the text length. */
int al_cigar_text(const al_elem_t *el, int ne, int gkl_cap, char *buf, size_t cap);

/* GATK's exact-substring shortcut (7.2): position of the last occurrence of alt in ref, or -1. */
int al_last_occurrence(const al_job_t *j);

#endif
