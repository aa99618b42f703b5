/* SPDX-License-Identifier: MIT */
/* Error reporting helpers shared by every engine. */
#ifndef GVK_COMMON_ERR_H
#define GVK_COMMON_ERR_H

#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GVK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GVK_PRINTF(a, b)
#endif

/* Records code and message in err (which may be NULL) and returns code, so that callers can write
 * `return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: ...", ...)`. */
int gvk_err_set(gvk_err_t *err, int code, const char *fmt, ...) GVK_PRINTF(3, 4);
/* GVK_ERR_ARG with the message gvk.h promises for a NULL pointer argument: "FN: ARG is NULL". */
int gvk_err_null(gvk_err_t *err, const char *fn, const char *arg);
/* The code err holds, or dflt where err is NULL or holds none (a caller's hook failed). */
int gvk_err_code(const gvk_err_t *err, int dflt);

#ifdef __cplusplus
}
#endif

#endif
