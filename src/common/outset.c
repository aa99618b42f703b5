/* SPDX-License-Identifier: MIT */
/* All-or-nothing commit of a command's outputs (see outset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "outset.h"

void gvk_outset_init(gvk_outset_t *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
}

/* Opens the next output of the set (the lock held); it, or NULL with err set. */
static gvk_out_t *add_locked(gvk_outset_t *s, const char *path, gvk_err_t *err)
{
	if (s->n == s->cap) {
		int nc = s->cap ? s->cap * 2 : 4;
		gvk_out_t *no = realloc(s->o, (size_t)nc * sizeof *no);
		if (!no) {
			gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
			return NULL;
		}
		s->o = no, s->cap = nc;
	}
	return gvk_out_open(&s->o[s->n], path, err) == 0 ? &s->o[s->n++] : NULL;
}

FILE *gvk_outset_open(gvk_outset_t *s, const char *path, gvk_err_t *err)
{
	pthread_mutex_lock(&s->lock);
	gvk_out_t *o = add_locked(s, path, err);
	pthread_mutex_unlock(&s->lock);
	return o ? o->fp : NULL;
}

const char *gvk_outset_path(gvk_outset_t *s, const char *path, gvk_err_t *err)
{
	if (!path || !strcmp(path, "-")) {
		gvk_err_set(err, GVK_ERR_ARG, "this output cannot go to standard output; name a file");
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	gvk_out_t *o = add_locked(s, path, err);
	const char *name = NULL;
	if (o) {
		/* The library opens the name itself (truncating it); only the temporary's creation,
		 * exclusive and with the umask applied, is wanted from gvk_out_open. A closed stream is
		 * what close_one skips at the commit. */
		fclose(o->fp);
		o->fp = NULL;
		name = o->tmp ? o->tmp : o->path ? o->path : path;
	}
	pthread_mutex_unlock(&s->lock);
	return name;
}

/* Closes one output's stream, keeping its temporary; 0, or the errno of what was lost (a full
 * disk shows here, when buffered data is flushed). */
static int close_one(gvk_out_t *o)
{
	if (!o->fp) return 0;
	errno = 0;
	int bad = ferror(o->fp) != 0;
	if (o->fp == stdout) bad |= fflush(stdout) != 0;
	else bad |= fclose(o->fp) != 0;
	o->fp = NULL;
	return bad ? (errno ? errno : EIO) : 0;
}

int gvk_outset_commit(gvk_outset_t *s, gvk_err_t *err)
{
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	for (int k = 0; k < s->n && rc == 0; ++k) {
		gvk_out_t *o = &s->o[k];
		int e = close_one(o);
		if (e) {
			const char *name = o->path ? o->path : o->direct ? "output" : "standard output";
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot write: %s", name, strerror(e));
		}
	}
	for (int k = 0; k < s->n && rc == 0; ++k) {
		gvk_out_t *o = &s->o[k];
		if (o->tmp && rename(o->tmp, o->path) != 0)
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
		else if (o->tmp) {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void gvk_outset_abort(gvk_outset_t *s)
{
	pthread_mutex_lock(&s->lock);
	for (int k = 0; k < s->n; ++k) {
		gvk_out_t *o = &s->o[k];
		if (o->fp == stdout) o->fp = NULL;
		gvk_out_abort(o);
	}
	free(s->o);
	s->o = NULL, s->n = s->cap = 0;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_destroy(&s->lock);
}

void gvk_outset_remove_temps(gvk_outset_t *s)
{
	pthread_mutex_lock(&s->lock);
	for (int k = 0; k < s->n; ++k)
		if (s->o[k].tmp) unlink(s->o[k].tmp);
}
