/* SPDX-License-Identifier: MIT */
/* Calls and segments in the formats other tools read: per-sample calls as BED (bedtools, IGV),
 * every segment as SEG (IGV, GISTIC). */
#include <stdlib.h>

#include "cnv_write.h"

typedef struct {
	int seq, first, sample;
	size_t idx;
} call_key_t;

static int by_position(const void *a, const void *b)
{
	const call_key_t *x = a, *y = b;
	if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
	if (x->first != y->first) return x->first < y->first ? -1 : 1;
	return x->sample < y->sample ? -1 : x->sample > y->sample;
}

int cnv_write_calls_bed(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	/* The CNVs come by sequence, sample, start; BED tools want them by position. */
	call_key_t *k = malloc((r->n_cnvs ? r->n_cnvs : 1) * sizeof *k);
	if (!k) return GVK_ERR_NOMEM;
	for (size_t i = 0; i < r->n_cnvs; ++i) {
		const gvk_cnv_seg_t *g = &r->segs[r->cnvs[i]];
		k[i] = (call_key_t){g->seq, g->first, g->sample, r->cnvs[i]};
	}
	qsort(k, r->n_cnvs, sizeof *k, by_position);
	fprintf(fp, "#chrom\tstart\tend\tsample\tCN\n");
	for (size_t i = 0; i < r->n_cnvs; ++i) {
		const gvk_cnv_seg_t *g = &r->segs[k[i].idx];
		long long s0 = (long long)c->start[g->first] - 1;
		fprintf(fp, "%s\t%lld\t%lld\t%s\t%d\n", c->seq_names[g->seq], s0 < 0 ? 0 : s0, (long long)c->end[g->last],
		        c->samples[g->sample], g->cn);
	}
	free(k);
	return ferror(fp) ? -1 : 0;
}

int cnv_write_seg(FILE *fp, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r)
{
	/* SEG readers want each sample's segments together: a counting sort by sample keeps the
	 * sequence and start order within a sample. */
	size_t *at = calloc((size_t)c->N + 1, sizeof *at), *order = malloc((r->n_segs ? r->n_segs : 1) * sizeof *order);
	if (!at || !order) {
		free(at), free(order);
		return GVK_ERR_NOMEM;
	}
	for (size_t i = 0; i < r->n_segs; ++i) ++at[r->segs[i].sample + 1];
	for (int s = 0; s < c->N; ++s) at[s + 1] += at[s];
	for (size_t i = 0; i < r->n_segs; ++i) order[at[r->segs[i].sample]++] = i;
	fprintf(fp, "ID\tchrom\tloc.start\tloc.end\tnum.mark\tseg.mean\n");
	for (size_t i = 0; i < r->n_segs; ++i) {
		const gvk_cnv_seg_t *g = &r->segs[order[i]];
		fprintf(fp, "%s\t%s\t%lld\t%lld\t%d\t%.6g\n", c->samples[g->sample], c->seq_names[g->seq],
		        (long long)c->start[g->first], (long long)c->end[g->last], g->last - g->first + 1, g->mean);
	}
	free(at), free(order);
	return ferror(fp) ? -1 : 0;
}
