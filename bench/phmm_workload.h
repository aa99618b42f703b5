/* SPDX-License-Identifier: MIT */
/* Deterministic generator of HaplotypeCaller-shaped Pair-HMM work, shared by the benchmarks:
 * regions of 1-16 haplotypes (30-521 bp, mean ~290) and reads (10-151 bp, mean ~55) sampled from
 * them with errors, ~55 pairs per region; or equal-length batches for peak-speed sweeps. */
#ifndef GVK_BENCH_PHMM_WORKLOAD_H
#define GVK_BENCH_PHMM_WORKLOAD_H

#include <stdio.h>
#include "gvk.h"

typedef struct {
	gvk_read_t *reads;
	gvk_hap_t *haps;
	gvk_pair_t *pairs;
	int *region_reads, *region_haps; /* per region: number of reads and haplotypes */
	size_t n_reads, n_haps, n_pairs, n_regions;
	double cells;
	char *mem;
} phmm_workload_t;

/* Insertion and deletion qualities: by default 45 at 90 % of bases and 10-44 elsewhere (the
 * same value for both), as in reads recalibrated for indels (GATK3's BQSR, BI/BD tags);
 * PHMM_WL_INDEL45: 45 at every base, GATK4's default for reads without those tags. */
enum { PHMM_WL_INDEL45 = 1 };

/* At least min_pairs pairs of HaplotypeCaller shape. */
int phmm_workload_hc(phmm_workload_t *w, size_t min_pairs, unsigned long long seed, int flags);
/* Groups of 16 reads x 16 haplotypes, every read of length rlen and haplotype of length hlen. */
int phmm_workload_equal(phmm_workload_t *w, size_t min_pairs, int rlen, int hlen, unsigned long long seed, int flags);
/* At least min_pairs pairs from a Pair-HMM input file (any format gvk pairhmm reads), its groups
 * as the regions, repeated in file order; each group must hold every read x haplotype pair,
 * read-major, as GATK's batches do. On failure msg says why. */
int phmm_workload_read(phmm_workload_t *w, const char *path, size_t min_pairs, char *msg, size_t msg_len);
/* Writes the work in the group format ("R H", reads, haplotypes; qualities Phred+33). */
int phmm_workload_write(const phmm_workload_t *w, FILE *fp);
void phmm_workload_free(phmm_workload_t *w);

#endif
