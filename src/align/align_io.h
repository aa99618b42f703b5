/* SPDX-License-Identifier: MIT */
/* Reader of the `gvk align` pair table: lines `ref alt [match mismatch gap_open gap_extend
 * strategy]`, tab-separated, an optional header line whose first field is `ref`. */
#ifndef GVK_ALIGN_IO_H
#define GVK_ALIGN_IO_H

#include <stddef.h>
#include "gvk.h"

typedef struct al_reader_s al_reader_t;

/* Values used for lines of two fields, and (when the flag is set) instead of a line's own. */
typedef gvk_align_defaults_t al_defaults_t;

/* A chunk of pairs; the sequences live in the chunk and stay valid until the next read. */
typedef struct {
	gvk_align_pair_t *pairs;
	size_t n, cap;
	char *text;
	size_t text_len, text_cap;
	uint64_t cells;
} al_chunk_t;

al_reader_t *al_reader_open(const char *path, const al_defaults_t *def, gvk_err_t *err);
void al_reader_close(al_reader_t *rd);

/* Reads up to max_pairs pairs into c; returns their number, 0 at end of input, or a negative code
 * with a message naming file and line. */
long al_reader_next(al_reader_t *rd, al_chunk_t *c, size_t max_pairs, gvk_err_t *err);
void al_chunk_free(al_chunk_t *c);

#endif
