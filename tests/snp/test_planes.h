/* SPDX-License-Identifier: MIT */
/* The SNP tests' way to build planes call by call. */
#ifndef GVK_TEST_SNP_PLANES_H
#define GVK_TEST_SNP_PLANES_H
#include "snp/snp_data.h"

/* A call of x copies (0, 1, 2) of A1 for column s of SNP i: V, and A and B as x asks. */
static inline void test_put_call(snp_data_t *d, int64_t i, int64_t s, int x)
{
	uint64_t bit = (uint64_t)1 << (s & 63);
	snp_plane(d, i, SNP_PV)[s >> 6] |= bit;
	if (x >= 1) snp_plane(d, i, SNP_PA)[s >> 6] |= bit;
	if (x == 2) snp_plane(d, i, SNP_PB)[s >> 6] |= bit;
}

#endif
