/* SPDX-License-Identifier: MIT */
/* All-or-nothing commit of a command's outputs (see outset.h). */
#define _DEFAULT_SOURCE /* realpath, readlink, lstat, gethostname */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "outset.h"
#include "outset_repair.h"

/* This host's name, kept to the characters a file name takes safely. */
static void host_name(char *buf, size_t size)
{
	if (gethostname(buf, size - 1) != 0 || !buf[0]) snprintf(buf, size, "localhost");
	buf[size - 1] = 0;
	for (char *p = buf; *p; ++p)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
			*p = '_';
}

void gvk_outset_init(gvk_outset_t *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	gvk_log_default(&s->log);
	host_name(s->host, sizeof s->host);
}

/* path's directory part joined with name ("dir/name", or name alone when path has no '/'). */
static char *beside(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0, nl = strlen(name);
	char *t = malloc(dl + nl + 1);
	if (t) memcpy(t, path, dl), memcpy(t + dl, name, nl + 1);
	return t;
}

/* Where an output named path is written: a symbolic link's target, as a shell's redirection
 * writes through a link (a dangling link's target is created), or path itself. */
static char *target_of(const char *path)
{
	struct stat lb;
	if (lstat(path, &lb) != 0 || !S_ISLNK(lb.st_mode)) return strdup(path);
	char *full = realpath(path, NULL);
	if (full) return full;
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof buf - 1);
	if (n <= 0) return strdup(path);
	buf[n] = 0;
	return buf[0] == '/' ? strdup(buf) : beside(path, buf);
}

/* The file's name with its directory resolved, so that two spellings of one file compare equal;
 * the file need not exist yet. */
static char *canonical(const char *path)
{
	char *full = realpath(path, NULL);
	if (full) return full;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? beside(path, ".") : strdup(".");
	char *rdir = dir ? realpath(dir, NULL) : NULL;
	free(dir);
	if (!rdir) return strdup(path);
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(rdir) + strlen(base) + 2;
	char *k = malloc(n);
	if (k) snprintf(k, n, "%s/%s", rdir, base);
	free(rdir);
	return k;
}

static void out_free(gvk_out_t *o)
{
	if (o->fp && o->fp != stdout) fclose(o->fp);
	if (o->tmp) unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o->key);
	memset(o, 0, sizeof *o);
}

/* A device, a fifo, or a link under /dev or /proc (/dev/stdout, /dev/fd/1: the process's own
 * descriptors) is written in place: renaming over it would replace the node itself. */
static int in_place(const char *path)
{
	struct stat sb, lb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) return 1;
	return lstat(path, &lb) == 0 && S_ISLNK(lb.st_mode) && (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6));
}

/* Opens one output: standard output, a path written in place, or a fresh temporary beside the
 * file that the commit replaces. */
static int out_open(gvk_outset_t *s, gvk_out_t *o, const char *path, gvk_err_t *err)
{
	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	if (in_place(path)) {
		if (!(o->path = strdup(path))) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		if (!(o->fp = fopen(path, "w"))) {
			int e = errno;
			out_free(o);
			return gvk_err_set(err, GVK_ERR_IO, "%s: cannot write: %s", path, strerror(e));
		}
		o->direct = 1;
		return 0;
	}
	o->path = target_of(path);
	size_t n = o->path ? strlen(o->path) + strlen(s->host) + 48 : 0;
	o->tmp = malloc(n);
	if (!o->path || !o->tmp || !(o->key = canonical(o->path))) {
		out_free(o);
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	gvk_outset_reclaim(s, o->path);
	/* A fresh name opened with O_EXCL and mode 0666, so the kernel applies the umask as it does
	 * for any new file (mkstemp would make it 0600, and reading the umask means changing it). */
	int fd = -1;
	for (unsigned k = 0; k < 100 && fd < 0; ++k) {
		snprintf(o->tmp, n, "%s.tmp%ld.%u.%s", o->path, (long)getpid(), k, s->host);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 && errno != EEXIST) break;
	}
	/* A replaced file keeps its permissions, as it would if it were rewritten in place. */
	struct stat st;
	if (fd >= 0 && stat(o->path, &st) == 0 && S_ISREG(st.st_mode)) fchmod(fd, st.st_mode & 07777);
	if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) close(fd);
		else free(o->tmp), o->tmp = NULL; /* nothing was created under that name */
		out_free(o);
		return gvk_err_set(err, GVK_ERR_IO, "%s: cannot write: %s", path, strerror(e));
	}
	return 0;
}

/* Refuses o when one of the n outputs before it is standard output as o is, or the same file. */
static int check_unique(const gvk_out_t *prev, int n, const gvk_out_t *o, const char *path, gvk_err_t *err)
{
	for (int k = 0; k < n; ++k) {
		const gvk_out_t *p = &prev[k];
		if (p->drop) continue;
		if (!o->path && !p->path && !p->direct)
			return gvk_err_set(err, GVK_ERR_ARG, "standard output is named for two outputs");
		if (o->key && p->key && !strcmp(o->key, p->key))
			return gvk_err_set(err, GVK_ERR_ARG, "%s: named for two outputs", path);
	}
	return 0;
}

int gvk_outset_check(const char *const *paths, int n, gvk_err_t *err)
{
	/* The outputs as out_open would see them, without creating anything: path NULL for standard
	 * output, direct for one written in place, else the file's key. */
	gvk_out_t *e = calloc((size_t)n + 1, sizeof *e);
	int rc = e ? 0 : gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), m = 0;
	for (int k = 0; k < n && rc == 0; ++k) {
		const char *p = paths[k];
		if (!p) continue;
		gvk_out_t *o = &e[m];
		if (strcmp(p, "-") && !(o->direct = in_place(p))) {
			char *t = target_of(p);
			o->key = t ? canonical(t) : NULL;
			free(t);
			if (!o->key) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		}
		o->path = strcmp(p, "-") ? (char *)p : NULL; /* not owned: only tested for NULL */
		if (rc == 0) rc = check_unique(e, m, o, p, err);
		++m;
	}
	for (int k = 0; e && k < m; ++k) free(e[k].key);
	free(e);
	return rc;
}

/* Room for one more entry (the lock held); 0 or an error code. */
static int reserve_locked(gvk_outset_t *s, gvk_err_t *err)
{
	if (s->n < s->cap) return 0;
	int nc = s->cap ? s->cap * 2 : 4;
	gvk_out_t *no = realloc(s->o, (size_t)nc * sizeof *no);
	if (!no) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	s->o = no, s->cap = nc;
	return 0;
}

/* Opens the next output of the set (the lock held); it, or NULL with err set. */
static gvk_out_t *add_locked(gvk_outset_t *s, const char *path, gvk_err_t *err)
{
	if (reserve_locked(s, err) < 0) return NULL;
	gvk_out_t *o = &s->o[s->n];
	if (out_open(s, o, path, err) < 0) return NULL;
	if (check_unique(s->o, s->n, o, path, err) < 0) {
		if (o->fp == stdout) o->fp = NULL;
		out_free(o);
		return NULL;
	}
	++s->n;
	return o;
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
		 * exclusive and with the umask applied, is wanted from out_open. A closed stream is
		 * what close_one skips at the commit. */
		fclose(o->fp);
		o->fp = NULL;
		name = o->tmp ? o->tmp : o->path;
	}
	pthread_mutex_unlock(&s->lock);
	return name;
}

int gvk_outset_drop(gvk_outset_t *s, const char *path, gvk_err_t *err)
{
	pthread_mutex_lock(&s->lock);
	int rc = reserve_locked(s, err);
	if (rc == 0) {
		gvk_out_t *o = &s->o[s->n];
		memset(o, 0, sizeof *o);
		o->drop = 1;
		if ((o->path = strdup(path)))
			++s->n;
		else
			rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
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

/* Moves output k's temporary over its path, keeping the file it replaces under bak (a second
 * link to it, or the file itself moved where links are not to be had); *kept tells whether bak
 * holds one. 0, or the errno of the step that failed, with nothing of output k changed. */
static int move_in(gvk_out_t *o, const char *bak, int *kept)
{
	struct stat lb;
	*kept = 0;
	if (lstat(o->path, &lb) == 0) {
		if (S_ISDIR(lb.st_mode)) return EISDIR;
		if (link(o->path, bak) != 0 && rename(o->path, bak) != 0) return errno;
		*kept = 1;
	}
	if (rename(o->tmp, o->path) == 0) return 0;
	int e = errno;
	if (*kept && lstat(o->path, &lb) != 0) rename(bak, o->path); /* moved, not linked: put it back */
	else if (*kept) unlink(bak);
	*kept = 0;
	return e;
}

/* Puts outputs [0, k) back as they were before the commit: the kept file over each path, or the
 * path removed where there was none. */
static void roll_back(gvk_outset_t *s, char **bak, const int *kept, int k)
{
	for (int j = k - 1; j >= 0; --j) {
		gvk_out_t *o = &s->o[j];
		if (!o->tmp) continue;
		if (kept[j]) rename(bak[j], o->path);
		else unlink(o->path);
	}
}

/* Renames every temporary over its path, or none (the lock held). */
static int rename_all(gvk_outset_t *s, gvk_err_t *err)
{
	char **bak = calloc((size_t)s->n + 1, sizeof *bak);
	int *kept = calloc((size_t)s->n + 1, sizeof *kept);
	if (!bak || !kept) return free(bak), free(kept), gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = 0, k, e = 0, journal = 0;
	const char *first = NULL;
	for (k = 0; k < s->n && rc == 0; ++k) {
		gvk_out_t *o = &s->o[k];
		if (!o->tmp) continue; /* standard output, written in place, or a file to drop */
		size_t n = strlen(o->path) + strlen(s->host) + 48;
		if (!(bak[k] = malloc(n))) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		else snprintf(bak[k], n, "%s.old%ld.%d.%s", o->path, (long)getpid(), k, s->host);
		if (!first) first = o->path;
	}
	/* The journal lets the next run finish or undo what a kill between two renames leaves. */
	if (rc == 0 && first && (e = gvk_outset_journal_write(s, bak)))
		rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot write the commit's journal beside it: %s", first, strerror(e));
	journal = rc == 0 && first;
	for (k = 0; rc == 0 && k < s->n; ++k) {
		gvk_out_t *o = &s->o[k];
		if (!o->tmp) continue;
		if (s->kill_after > 0 && --s->kill_after == 0) raise(SIGKILL);
		if ((e = move_in(o, bak[k], &kept[k]))) {
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot write: %s", o->path, strerror(e));
			break;
		}
	}
	if (rc == 0 && s->kill_after > 0 && --s->kill_after == 0) raise(SIGKILL); /* every output in */
	if (rc < 0) roll_back(s, bak, kept, k);
	for (int j = 0; j < s->n; ++j) {
		gvk_out_t *o = &s->o[j];
		if (rc == 0 && kept[j]) unlink(bak[j]);
		if (rc == 0 && o->drop) unlink(o->path);
	}
	if (journal) gvk_outset_journal_remove(s);
	for (int j = 0; j < s->n; ++j) {
		if (rc == 0) free(s->o[j].tmp), s->o[j].tmp = NULL;
		free(bak[j]);
	}
	free(bak);
	free(kept);
	return rc;
}

int gvk_outset_commit(gvk_outset_t *s, gvk_err_t *err)
{
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	for (int k = 0; k < s->n && rc == 0; ++k) {
		gvk_out_t *o = &s->o[k];
		int e = close_one(o);
		if (e) rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot write: %s", o->path ? o->path : "standard output", strerror(e));
	}
	if (rc == 0) rc = rename_all(s, err);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void gvk_outset_abort(gvk_outset_t *s)
{
	pthread_mutex_lock(&s->lock);
	for (int k = 0; k < s->n; ++k) {
		gvk_out_t *o = &s->o[k];
		if (o->fp == stdout) o->fp = NULL;
		out_free(o);
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

static FILE *files_open(void *s, const char *path, gvk_err_t *err) { return gvk_outset_open(s, path, err); }
static const char *files_name(void *s, const char *path, gvk_err_t *err) { return gvk_outset_path(s, path, err); }
static int files_drop(void *s, const char *path, gvk_err_t *err) { return gvk_outset_drop(s, path, err); }

gvk_files_t gvk_outset_files(gvk_outset_t *s) { return (gvk_files_t){s, files_open, files_name, files_drop}; }
