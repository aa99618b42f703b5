/* SPDX-License-Identifier: MIT */
/* Numbers from text as the commands and the GKL drop-in read their settings: the whole string must
 * be the number and lie in range, so that a typo is caught instead of read as 0 (atoi). */
#ifndef GVK_COMMON_PARSE_NUM_H
#define GVK_COMMON_PARSE_NUM_H

/* A whole number in [lo, hi] into *v: 0, or -1 with *v untouched. */
int gvk_parse_long(const char *s, long lo, long hi, long *v);
/* A finite real of at least lo into *v: 0, or -1 with *v untouched. */
int gvk_parse_real(const char *s, double lo, double *v);

#endif
