/* SPDX-License-Identifier: MIT */
/* A .bed row as its two bit planes: bit k of lo and hi are the low and high bit of sample k's
 * 2-bit code (00 two copies of the file's A1, 01 missing, 10 heterozygous, 11 two copies of A2).
 * With AVX-512 and GFNI a byte's four codes are regrouped by one affine bit transform and the
 * halves packed, 256 samples at a time; otherwise a byte at a time through a table. */
#ifndef GVK_SNP_BED_BITS_H
#define GVK_SNP_BED_BITS_H

#include <stdint.h>

/* The row of n samples ((n + 3) / 4 bytes) into lo and hi, nw words each (nw a multiple of 8,
 * nw * 64 >= n, as snp_data_t's planes), bits from n on cleared. */
typedef void (*snp_bed_bits_fn)(const uint8_t *row, int64_t n, int nw, uint64_t *lo, uint64_t *hi);

/* The fastest of the builds this CPU runs. */
snp_bed_bits_fn snp_bed_bits_pick(void);

/* The portable build, for tests. */
void snp_bed_bits_portable(const uint8_t *row, int64_t n, int nw, uint64_t *lo, uint64_t *hi);

#endif
