/* SPDX-License-Identifier: MIT */
/* Numbers in PLINK's text files (.bim positions, association p-values) read as strtod and
 * strtoll read them, the same values, from a token that need not end in a NUL; plain decimals
 * take a path without the C library's general conversion, which dominated reading such files. */
#ifndef GVK_SNP_NUM_H
#define GVK_SNP_NUM_H

#include <stdint.h>

/* The double strtod reads at the start of the token [s, e) (no leading blanks), and in *end where
 * it stopped reading (s when the token does not start with a number). */
double snp_num_double(const char *s, const char *e, const char **end);

/* The whole token [s, e) as strtoll reads it in base 10: 0, or -1 when it is not all an integer
 * or is out of range. */
int snp_num_i64(const char *s, const char *e, int64_t *v);

#endif
