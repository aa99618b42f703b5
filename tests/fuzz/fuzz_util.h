/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the fuzz targets: the input as a temporary file (the parsers take paths, as
 * the CLI gives them), the framing of inputs that stand for several files, and the checks that
 * turn a quiet misbehaviour (an error without a message, a result that depends on the thread
 * count) into a crash that libFuzzer reports and saves. */
#ifndef GVK_FUZZ_UTIL_H
#define GVK_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include "gvk.h"

/* A temporary file; path is empty when there is none. */
typedef struct {
	char path[256];
} fz_file_t;

/* Writes data to a new temporary file whose name ends in suffix ("" for none); aborts when the
 * file cannot be written (that is the harness failing, not the parser). */
void fz_write(fz_file_t *f, const uint8_t *data, size_t size, const char *suffix);
/* Writes data to the file name in a folder of this process's own (made on first use, removed at
 * exit), for inputs that must share a prefix, as a PLINK fileset's three files do. */
void fz_write_named(fz_file_t *f, const char *name, const uint8_t *data, size_t size);
void fz_remove(fz_file_t *f);

/* Splits data at each FZ_SEP into at most max parts (the last part takes the rest, separators
 * included); returns the number of parts. Missing parts are empty. */
#define FZ_SEP "\n~~~~\n"
int fz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, int max);

/* Reports a finding: prints the message and aborts, so that libFuzzer saves the input. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* A parser's result as the CLI would print it: rc < 0 must come with err->code == rc and a message
 * that names the input (path), since that is all a user sees. */
void fz_check_err(int rc, const gvk_err_t *err, const char *path);
/* The same for a parser given several inputs: the message must name one of the n names. */
void fz_check_err_any(int rc, const gvk_err_t *err, const char *const *names, int n);

/* 64-bit FNV-1a over bytes, chained through h: compares two parses of one input. */
uint64_t fz_hash(uint64_t h, const void *p, size_t n);
#define FZ_HASH0 0xcbf29ce484222325ull

#endif
