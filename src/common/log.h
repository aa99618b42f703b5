/* SPDX-License-Identifier: MIT */
/* The library's messages: formatted here, handed to the engine's log callback (gvk.h). */
#ifndef GVK_COMMON_LOG_H
#define GVK_COMMON_LOG_H

#include "err.h"
#include "gvk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Formats and passes on a message when log has a callback and its level admits `level`. */
void gvk_logf(const gvk_log_t *log, int level, const char *fmt, ...) GVK_PRINTF(3, 4);

/* Whether a message of this level would be passed on (to skip costly formatting). */
int gvk_log_on(const gvk_log_t *log, int level);

#ifdef __cplusplus
}
#endif

#endif
