/* SPDX-License-Identifier: MIT */
/* The random source of the SNP tests: xorshift64 on a global state the test seeds. */
#ifndef GVK_TEST_SNP_RNG_H
#define GVK_TEST_SNP_RNG_H
#include <stdint.h>

static uint64_t rng;
static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}
static double unif(void) { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }

#endif
