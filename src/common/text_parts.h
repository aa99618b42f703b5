/* SPDX-License-Identifier: MIT */
/* Text of many items formatted on the threads and written in order: each thread formats a
 * contiguous part of the items into streams in memory, one per output file, and the parts are then
 * written one after another, so the files are those of a single thread. */
#ifndef GVK_COMMON_TEXT_PARTS_H
#define GVK_COMMON_TEXT_PARTS_H

#include <stdint.h>
#include <stdio.h>

/* Formats item k of arg into fp[0 .. n_out) (stdio calls). */
typedef void (*gvk_text_item_fn)(void *arg, int64_t k, FILE **fp);

/* Items [0, n) on up to nt threads (a thread no fewer than min_part items), written to
 * out[0 .. n_out), n_out at most 2. 0, GVK_ERR_NOMEM, or GVK_ERR_IO when an output refused a write. */
int gvk_text_parts(FILE **out, int n_out, int64_t n, int nt, int64_t min_part, gvk_text_item_fn fn, void *arg);

#endif
