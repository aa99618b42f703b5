/* SPDX-License-Identifier: MIT */
/* The rule for the text fields of a .fidb file (panel fields and sample IDs): at least one byte,
 * and no byte below 0x20 or equal to 0x7F. Tabs and newlines separate the fields in the file and
 * in gvk fastid's tables, so they can never be part of one. */
#ifndef GVK_SNP_FID_FIELD_H
#define GVK_SNP_FID_FIELD_H

#include <stddef.h>

/* Offset of the first byte the rule forbids, len when there is none (an empty field: 0 == len,
 * which callers report as empty). */
static inline size_t fid_field_bad(const char *s, size_t len)
{
	for (size_t i = 0; i < len; ++i)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f) return i;
	return len;
}

/* 1 when s (len bytes) is a valid field. */
static inline int fid_field_ok(const char *s, size_t len)
{
	return len > 0 && fid_field_bad(s, len) == len;
}

#endif
