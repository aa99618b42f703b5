/* SPDX-License-Identifier: MIT */
/* Line-oriented input (plain or gzip, detected from the bytes) and all-or-nothing output files. */
#ifndef GVK_COMMON_LINEIO_H
#define GVK_COMMON_LINEIO_H

#include <stdio.h>
#include "gvk.h"

typedef struct gvk_lr_s gvk_lr_t;

/* The longest line a reader takes, every byte before its '\n' counted: one longer is refused as
 * soon as that many bytes are read, and a NUL byte as soon as it is read, so that no input (a
 * file of zeros, one endless line, a gzip bomb) makes a reader hold more than a line of this
 * size. Pair-HMM and alignment lines hold reads and haplotypes; tables (count matrices, BED,
 * PLINK text) hold short fields. */
#define GVK_LINE_MAX_SEQ ((size_t)64 << 20)
#define GVK_LINE_MAX_TABLE ((size_t)4 << 20)

/* Opens path ("-" = standard input) for reading lines; NULL on failure (err names the file). */
gvk_lr_t *gvk_lr_open(const char *path, gvk_err_t *err);
void gvk_lr_close(gvk_lr_t *lr);
/* The longest line this reader takes (GVK_LINE_MAX_TABLE when not set). */
void gvk_lr_set_max_line(gvk_lr_t *lr, size_t max);

/* Next line without its '\n' (and '\r'); *len receives its length. Returns 1, 0 at end of file,
 * GVK_ERR_IO, or GVK_ERR_FORMAT for a NUL byte or a line over the limit ("FILE:LINE: ..."). The
 * line stays valid until the next call. */
int gvk_lr_next(gvk_lr_t *lr, char **line, size_t *len, gvk_err_t *err);
/* The same without the copy: the line as it stands in the reader's buffer (or the caller's or
 * mapped text), not terminated, not to be written to; valid until the next call. */
int gvk_lr_view(gvk_lr_t *lr, const char **line, size_t *len, gvk_err_t *err);
long gvk_lr_lineno(const gvk_lr_t *lr);

/* A reader over a caller's text (not copied; it must outlive the reader); lineno is the number
 * of the line before the text, for messages. */
gvk_lr_t *gvk_lr_open_mem(const char *text, size_t len, const char *path, long lineno, gvk_err_t *err);

/* The next block of whole lines, about `want` bytes (more if a line is longer), as raw bytes
 * without copying; valid until the next call. Returns 1, 0 at end of file, or <0. The block's
 * first line is checked as gvk_lr_next checks a line, and a counted block's lines for their
 * length; the rest is the caller's to check for NUL bytes (on all its threads). */
int gvk_lr_block(gvk_lr_t *lr, size_t want, char **blk, size_t *len, gvk_err_t *err);
/* The same without counting the block's lines (a serial pass over it): the caller counts them,
 * on all threads, and reports them with gvk_lr_add_lines. */
int gvk_lr_block_uncounted(gvk_lr_t *lr, size_t want, char **blk, size_t *len, gvk_err_t *err);
void gvk_lr_add_lines(gvk_lr_t *lr, long lines);
/* 0, or the error gvk_lr_next gives for line `lineno` of an uncounted block (len bytes before
 * its '\n', a '\r' included): a NUL byte or a line over the limit. Reads only the reader's
 * settings, so the caller's threads may check their lines at once. */
int gvk_lr_check_line(const gvk_lr_t *lr, const char *line, size_t len, long lineno, gvk_err_t *err);

/* A mapped file's bytes read so far (0 when the input is not mapped), and the giving back of
 * the whole pages before offset `to`: a caller done with everything there (no block or line
 * points there any more) keeps the process from ending with the whole file mapped. The
 * reader's own reading does not touch what gvk_lr_release keeps, so one other thread may call
 * it while the reader goes on (gvk_lr_close after that thread is joined). */
size_t gvk_lr_consumed(const gvk_lr_t *lr);
void gvk_lr_release(gvk_lr_t *lr, size_t to);

/* Gives back the last `bytes` of what the last call returned (`lines` lines of it), or the last
 * line gvk_lr_next returned, to be read again. */
void gvk_lr_unread(gvk_lr_t *lr, size_t bytes, long lines);
void gvk_lr_unread_line(gvk_lr_t *lr);
const char *gvk_lr_path(const gvk_lr_t *lr);

#endif
