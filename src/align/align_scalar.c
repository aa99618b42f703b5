/* SPDX-License-Identifier: MIT */
/* Scalar matrix fill: the reference implementation, one pair at a time (one cell = al_cell of
 * align_kernel.h, shared with the GPU kernel), written to follow the
 * recurrences of docs/align.md (Semantics 4.1, 4.2) line by line. The vector kernels must reproduce it bit for bit. */
#include <string.h>

#include "align_kernel.h"

static int fill_one(const al_job_t *jb, int clamp_diag, al_scratch_t *s, al_fill_t *f)
{
	const int n = jb->n, m = jb->m;
	int32_t *H = gvk_buf_reserve(&s->rows, 2 * ((size_t)m + 1) * sizeof(int32_t));
	int32_t *edge = gvk_buf_reserve(&s->edges, ((size_t)n + m) * sizeof(int32_t));
	uint8_t *tb = gvk_buf_reserve(&s->moves, (size_t)n * m);
	if (!H || !edge || !tb) return GVK_ERR_NOMEM;
	int32_t *F = H + m + 1;
	const int gapped = jb->ovh == GVK_OVERHANG_INDEL || jb->ovh == GVK_OVERHANG_LEADING_INDEL;
	const int32_t bo = gapped ? jb->open : 0, be = gapped ? jb->extend : 0;
	const int32_t dlo = clamp_diag ? AL_CUTOFF : INT32_MIN;

	H[0] = 0;
	for (int j = 1; j <= m; ++j) H[j] = bo + (j - 1) * be, F[j] = AL_LOW;
	for (int i = 1; i <= n; ++i) {
		const uint8_t r = jb->ref[i - 1];
		int32_t hdiag = H[0], E = AL_LOW;
		H[0] = bo + (i - 1) * be;
		int32_t hleft = H[0];
		uint8_t *row = tb + (size_t)(i - 1) * m;
		for (int j = 1; j <= m; ++j) {
			int code;
			const int32_t best = al_cell(hdiag, H[j], hleft, r == jb->alt[j - 1] ? jb->match : jb->mismatch, jb->open,
			                             jb->extend, dlo, &E, &F[j], &code);
			hdiag = H[j];
			H[j] = hleft = best;
			row[j - 1] = (uint8_t)code;
		}
		edge[i - 1] = H[m];
	}
	memcpy(edge + n, H + 1, (size_t)m * sizeof(int32_t));
	f->mv = (al_moves_t){tb, (size_t)m, -1, 0, m, NULL};
	f->lastcol = edge;
	f->bottom = edge + n;
	return 0;
}

static int fill_scalar(const al_job_t *const *jobs, int nl, int clamp_diag, al_scratch_t *s, al_fill_t *out)
{
	(void)nl;
	return fill_one(jobs[0], clamp_diag, s, out);
}

const al_isa_t al_isa_scalar = {"scalar", 1, 1, fill_scalar, fill_scalar, (size_t)GVK_ALIGN_MAX_LEN * GVK_ALIGN_MAX_LEN, 0, 0, NULL};
