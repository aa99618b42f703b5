/* SPDX-License-Identifier: MIT */
/* Sample IDs of .fidb profiles. A version 2 file stores one per profile after the profiles, each
 * ended by LF; a version 1 file has none, and its profiles go by their indices ("0", "1", ...).
 * Only the IDs a search reports need to be kept, so a set may hold some profiles' IDs only. */
#ifndef GVK_SNP_FID_IDS_H
#define GVK_SNP_FID_IDS_H

#include <stddef.h>
#include <stdint.h>
#include "gvk.h"

typedef struct {
	size_t n;
	int64_t *idx; /* the profiles named, ascending; NULL when id[i] names profile i */
	char **id;
	char *text;   /* storage of the strings; owned */
} fid_ids_t;

/* The ID of profile i; NULL when s does not hold it. */
const char *fid_ids_get(const fid_ids_t *s, int64_t i);

/* Parses an ID section of len bytes that must name n profiles, keeping the IDs of the profiles in
 * want[0..n_want) (strictly ascending) or, when want is NULL, every ID. text (malloc'ed, len + 1
 * bytes) is taken over, also on failure. Errors name path and the profile's index. */
int fid_ids_parse(fid_ids_t *s, char *text, uint64_t len, int64_t n, const int64_t *want, size_t n_want,
                  const char *path, gvk_err_t *err);

/* Indices as names, for files without IDs: profiles want[..] (or 0..n-1 when want is NULL). */
int fid_ids_indices(fid_ids_t *s, int64_t n, const int64_t *want, size_t n_want, gvk_err_t *err);

/* Copies n IDs for writing; refuses empty IDs, control bytes and repeated IDs, naming the sample. */
int fid_ids_copy(fid_ids_t *s, char *const *id, size_t n, gvk_err_t *err);

/* Bytes of the section storing s (each ID and its LF); s must hold every profile's ID. */
uint64_t fid_ids_len(const fid_ids_t *s);

void fid_ids_free(fid_ids_t *s);

#endif
