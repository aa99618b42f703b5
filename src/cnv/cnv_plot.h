/* SPDX-License-Identifier: MIT */
/* Report plots of gvk cnv: per sample a genome-wide panel and per-contig panels (log2 ratio per
 * region, segments, calls coloured by copy number), and a cohort heatmap of the calls. */
#ifndef GVK_CNV_PLOT_H
#define GVK_CNV_PLOT_H

#include "gvk.h"
#include "../common/outset.h"

enum { CNV_PLOT_CONTIGS_CALLS, CNV_PLOT_CONTIGS_ALL, CNV_PLOT_CONTIGS_NONE };

typedef struct {
	const char *prefix;
	int png, svg;  /* which formats to write */
	int contigs;   /* CNV_PLOT_CONTIGS_*: per-contig panels of the contigs with a call, all, none */
	int plain_svg; /* SVG written directly even in a build with cairo */
} cnv_plot_opt_t;

/* PREFIX.SAMPLE.genome.EXT, PREFIX.SAMPLE.CONTIG.EXT and PREFIX.cohort.EXT through the output set
 * (names with characters other than letters, digits, '.', '_' and '-' replaced by '_'). */
int cnv_plot_write(gvk_outset_t *os, const cnv_plot_opt_t *po, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                   const gvk_cnv_opts_t *o, gvk_err_t *err);

#endif
