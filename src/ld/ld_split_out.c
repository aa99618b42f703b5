/* SPDX-License-Identifier: MIT */
/* A split job's output through process 0 (gzip, standard output, devices): the processes' parts
 * reach its file in rank order, piece by piece, compressed there as one stream with gzip. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "ld_job_split.h"
#include "ld_gz.h"
#include "../common/err.h"

enum { PIECE = 4 << 20 };

typedef struct {
	FILE *out;
	void *z; /* the one-process writer's compressor, so that the bytes are the same */
} put_t;

static int put(void *arg, const void *p, size_t n)
{
	put_t *u = arg;
	if (!u->out) return -1;
	if (u->z) return ld_gz_add(u->z, u->out, p, n, NULL, NULL);
	return n && fwrite(p, 1, n, u->out) != n ? -1 : 0;
}

int ld_split_funnel(const gvk_ld_split_t *sp, FILE *part, FILE *out, int gz, gvk_err_t *err)
{
	char *buf = malloc(PIECE);
	put_t u = {out, NULL};
	int rc = buf ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	if (rc == 0 && gz && sp->rank == 0) {
		if (!(u.z = ld_gz_new(1))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "cannot start gzip compression (or built without zlib)");
		else if (out && ld_gz_start(u.z, out, err) < 0) rc = GVK_ERR_IO;
	}
	rc = sp->agree(sp->ctx, rc, err);
	if (rc == 0) rc = sp->ordered(sp->ctx, part, buf, PIECE, put, &u, err);
	if (rc == 0 && sp->rank == 0 && u.z && ld_gz_finish(u.z, out, NULL, NULL) < 0)
		rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	if (rc == 0 && sp->rank == 0 && (fflush(out) != 0 || ferror(out))) rc = gvk_err_set(err, GVK_ERR_IO, "write error");
	ld_gz_free(u.z);
	free(buf);
	return sp->agree(sp->ctx, rc, err);
}
