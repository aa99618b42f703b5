/* SPDX-License-Identifier: MIT */
/* End-cell choice, traceback and CIGAR assembly, shared by every fill kernel (docs/align.md,
 * Semantics 5 and 6). */
#include <stdlib.h>
#include <string.h>

#include "align_kernel.h"

void al_scratch_free(al_scratch_t *s)
{
	gvk_buf_free(&s->moves);
	gvk_buf_free(&s->rows);
	gvk_buf_free(&s->seqs);
	gvk_buf_free(&s->edges);
}

static int diag_dist(int i, int j) { return i > j ? i - j : j - i; }

/* GATK's two scans (5.1): the last column top-down keeping ties (the lowest row wins), then the
 * bottom row left to right, taking a tie only when strictly closer to the main diagonal. */
int32_t al_end_cell(const al_job_t *jb, const al_fill_t *f, int *p1, int *p2)
{
	const int n = jb->n, m = jb->m;
	if (jb->ovh == GVK_OVERHANG_INDEL) {
		*p1 = n, *p2 = m;
		return f->lastcol[n - 1];
	}
	int32_t best = INT32_MIN;
	int bi = 0, bj = m;
	for (int i = 1; i <= n; ++i)
		if (f->lastcol[i - 1] >= best) best = f->lastcol[i - 1], bi = i;
	if (jb->ovh != GVK_OVERHANG_LEADING_INDEL) {
		for (int j = 1; j <= m; ++j) {
			const int32_t h = f->bottom[j - 1];
			if (h > best || (h == best && diag_dist(n, j) < diag_dist(bi, bj))) best = h, bi = n, bj = j;
		}
	}
	*p1 = bi, *p2 = bj;
	return best;
}

/* Prepends an element while walking right to left, merging runs of one operator. */
static void push(al_elem_t *el, int *ne, char op, int32_t len)
{
	if (*ne > 0 && el[*ne - 1].op == op)
		el[*ne - 1].len += len;
	else
		el[(*ne)++] = (al_elem_t){len, op};
}

static void reverse(al_elem_t *el, int ne)
{
	for (int a = 0, b = ne - 1; a < b; ++a, --b) {
		al_elem_t t = el[a];
		el[a] = el[b], el[b] = t;
	}
}

int al_traceback(const al_job_t *jb, const al_moves_t *mv, int p1, int p2, int java, al_elem_t *el,
                 int32_t *offset)
{
	const int m = jb->m, end2 = p2;
	int ne = 0;
	/* Elements collected right to left; a gap is followed along its "came from extension" flags. */
	do {
		const int c = al_move(mv, p1, p2);
		if (c & AL_DEL) {
			int ext;
			do {
				ext = al_move(mv, p1, p2) & AL_FEXT;
				push(el, &ne, 'D', 1);
				--p1;
			} while (ext && p1 > 0);
		} else if (c & AL_INS) {
			int ext;
			do {
				ext = al_move(mv, p1, p2) & AL_EEXT;
				push(el, &ne, 'I', 1);
				--p2;
			} while (ext && p2 > 0);
		} else {
			push(el, &ne, 'M', 1);
			--p1, --p2;
		}
	} while (p1 > 0 && p2 > 0);
	const int q1 = p1, q2 = p2;

	switch (jb->ovh) {
	case GVK_OVERHANG_SOFTCLIP:
		if (q2 > 0) el[ne++] = (al_elem_t){q2, 'S'};
		reverse(el, ne);
		if (end2 < m) el[ne++] = (al_elem_t){m - end2, 'S'};
		*offset = q1;
		break;
	case GVK_OVERHANG_INDEL:
	case GVK_OVERHANG_LEADING_INDEL:
		if (q1 > 0)
			el[ne++] = (al_elem_t){q1, 'D'};
		else if (q2 > 0)
			el[ne++] = (al_elem_t){q2, 'I'};
		reverse(el, ne);
		*offset = 0;
		break;
	default: /* IGNORE */
		reverse(el, ne);
		el[0].len += q2;
		if (end2 < m) {
			if (!java)
				el[ne++] = (al_elem_t){m - end2, 'S'};
			else if (el[ne - 1].op == 'M')
				el[ne - 1].len += m - end2;
			else
				el[ne++] = (al_elem_t){m - end2, 'M'};
		}
		*offset = q1 - q2;
		break;
	}
	return ne;
}

static int utoa(char *p, uint32_t v)
{
	char t[12];
	int k = 0;
	do t[k++] = (char)('0' + v % 10), v /= 10;
	while (v);
	for (int a = 0; a < k; ++a) p[a] = t[k - 1 - a];
	return k;
}

int al_cigar_text(const al_elem_t *el, int ne, int gkl_cap, char *buf, size_t cap)
{
	size_t len = 0;
	for (int k = 0; k < ne; ++k) {
		char t[16];
		int w = utoa(t, (uint32_t)el[k].len);
		t[w++] = el[k].op;
		if (gkl_cap >= 0 && len + (size_t)w > (size_t)gkl_cap) continue;
		if (len + (size_t)w > cap) break;
		memcpy(buf + len, t, (size_t)w);
		len += (size_t)w;
	}
	buf[len] = 0;
	return (int)len;
}

int al_last_occurrence(const al_job_t *jb)
{
	const int n = jb->n, m = jb->m;
	if (m > n) return -1;
	const uint8_t first = jb->alt[0];
	for (int s = n - m; s >= 0; --s)
		if (jb->ref[s] == first && memcmp(jb->ref + s, jb->alt, (size_t)m) == 0) return s;
	return -1;
}
