/* SPDX-License-Identifier: MIT */
/* SplitMix64, the small deterministic generator of the synthetic inputs of tests and benchmarks
 * (the same seed gives the same data on every machine). */
#ifndef GVK_SPLITMIX_H
#define GVK_SPLITMIX_H
#include <stdint.h>

static inline uint64_t gvk_splitmix64(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	uint64_t z = *s;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1): the top 53 bits, centred in their interval. */
static inline double gvk_splitmix_unif(uint64_t *s)
{
	return ((double)(gvk_splitmix64(s) >> 11) + 0.5) / 9007199254740992.0;
}
#endif
