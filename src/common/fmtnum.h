/* SPDX-License-Identifier: MIT */
/* Number formatting for large outputs: printf's "%.17g" costs about as much as a Pair-HMM cell
 * row, so the common case is done with integer arithmetic, byte-identical to glibc's output. */
#ifndef GVK_FMTNUM_H
#define GVK_FMTNUM_H

/* Writes x as snprintf(buf, 32, "%.17g", x) would and returns the length (buf holds >= 32 bytes,
 * NUL-terminated). */
int gvk_fmt_g17(char *buf, double x);

#endif
