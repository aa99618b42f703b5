/* SPDX-License-Identifier: MIT */
/* The pair-HMM targets' common body: one input parsed as the CLI parses it. */
#ifndef GVK_FUZZ_PAIRHMM_CHECK_H
#define GVK_FUZZ_PAIRHMM_CHECK_H

#include "pairhmm/pairhmm_io.h"

/* Parses the file twice, sequentially in small chunks (gvk pairhmm -t 1) and on threads in one
 * large chunk (the default), and fails when the two disagree on the pairs or on the error. */
void fz_pairhmm(const char *path, phmm_format_t fmt);

#endif
