/* SPDX-License-Identifier: MIT */
/* What a killed process leaves of an output set, and its repair by the next run (see outset.h).
 * A journal is a run of NUL-terminated strings: "gvk-commit-1", then per output "o", its path,
 * temporary, backup and "1" or "0" (whether a file stood there), per file to drop "d" and its
 * path, per journal copy "j" and its path, and "end"; every path is absolute. Only a journal that
 * ends with "end" is replayed: one cut short was being written, before any rename. */
#define _DEFAULT_SOURCE /* lstat, kill */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outset_repair.h"

static int exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

/* p made absolute against the working directory, so that a later run anywhere finds it. */
static char *absolute(const char *p)
{
	if (p[0] == '/') return strdup(p);
	char *cwd = getcwd(NULL, 0);
	size_t n = cwd ? strlen(cwd) + strlen(p) + 2 : 0;
	char *a = cwd ? malloc(n) : NULL;
	if (a) snprintf(a, n, "%s/%s", cwd, p);
	free(cwd);
	return a;
}

char *gvk_outset_journal_name(const gvk_outset_t *s, const char *path)
{
	size_t n = strlen(path) + strlen(s->host) + 40;
	char *j = malloc(n);
	if (j) snprintf(j, n, "%s.commit%ld.%s", path, (long)getpid(), s->host);
	return j;
}

static int put_abs(FILE *fp, const char *p)
{
	char *a = absolute(p);
	int ok = a && fwrite(a, 1, strlen(a) + 1, fp) == strlen(a) + 1;
	free(a);
	return ok;
}

static int put_str(FILE *fp, const char *p) { return fwrite(p, 1, strlen(p) + 1, fp) == strlen(p) + 1; }

/* The journal's bytes for the set (bak[k]: output k's backup name). */
static char *journal_text(const gvk_outset_t *s, char *const *bak, size_t *len)
{
	char *text = NULL;
	FILE *fp = open_memstream(&text, len);
	if (!fp) return NULL;
	int ok = put_str(fp, "gvk-commit-1");
	for (int k = 0; k < s->n && ok; ++k) {
		const gvk_out_t *o = &s->o[k];
		if (o->tmp) {
			ok = put_str(fp, "o") && put_abs(fp, o->path) && put_abs(fp, o->tmp) && put_abs(fp, bak[k]) &&
			     put_str(fp, exists(o->path) ? "1" : "0");
			char *j = ok ? gvk_outset_journal_name(s, o->path) : NULL;
			ok = j && put_str(fp, "j") && put_abs(fp, j);
			free(j);
		} else if (o->drop) {
			ok = put_str(fp, "d") && put_abs(fp, o->path);
		}
	}
	ok = ok && put_str(fp, "end");
	if (fclose(fp) != 0) ok = 0;
	if (!ok) free(text), text = NULL;
	return text;
}

void gvk_outset_journal_remove(const gvk_outset_t *s)
{
	for (int k = 0; k < s->n; ++k) {
		char *j = s->o[k].tmp ? gvk_outset_journal_name(s, s->o[k].path) : NULL;
		if (j) unlink(j);
		free(j);
	}
}

int gvk_outset_journal_write(const gvk_outset_t *s, char *const *bak)
{
	size_t len = 0;
	char *text = journal_text(s, bak, &len);
	int e = text ? 0 : ENOMEM;
	for (int k = 0; k < s->n && !e; ++k) {
		if (!s->o[k].tmp) continue;
		char *j = gvk_outset_journal_name(s, s->o[k].path);
		FILE *fp = j ? fopen(j, "wb") : NULL;
		if (!fp) e = j ? errno : ENOMEM;
		else if ((fwrite(text, 1, len, fp) != len) | (fclose(fp) != 0)) e = errno ? errno : EIO;
		free(j);
	}
	if (e) gvk_outset_journal_remove(s);
	free(text);
	return e;
}

/* The file's bytes (a journal: small), or NULL. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return NULL;
	size_t cap = 1 << 20;
	char *buf = malloc(cap + 1);
	*len = buf ? fread(buf, 1, cap, fp) : 0;
	fclose(fp);
	if (buf) buf[*len] = 0;
	return buf;
}

typedef struct {
	const char *path, *tmp, *bak;
	int had; /* a file stood at path before the commit */
} jout_t;

/* Puts the set back as it was before the commit: every renamed output's old file restored (or
 * the new one removed where none stood), backups of the others dropped; the journals go before
 * the temporaries, so that a repair cut short is rolled back again, never taken as completed. */
static void roll_back_set(const jout_t *o, int n, char **jn, int nj)
{
	for (int k = 0; k < n; ++k) {
		if (!exists(o[k].tmp)) {
			if (exists(o[k].bak)) rename(o[k].bak, o[k].path);
			else if (!o[k].had) unlink(o[k].path);
		} else if (exists(o[k].bak)) {
			if (exists(o[k].path)) unlink(o[k].bak); /* a second link to the file in place */
			else rename(o[k].bak, o[k].path);
		}
	}
	for (int k = 0; k < nj; ++k) unlink(jn[k]);
	for (int k = 0; k < n; ++k) unlink(o[k].tmp);
}

/* Every output was renamed in: what the commit had left to do (backups, files to drop). */
static void complete_set(const jout_t *o, int n, char **dn, int nd, char **jn, int nj)
{
	for (int k = 0; k < n; ++k) unlink(o[k].bak);
	for (int k = 0; k < nd; ++k) unlink(dn[k]);
	for (int k = 0; k < nj; ++k) unlink(jn[k]);
}

/* Replays the journal at jpath: 1 rolled back, 2 completed, 0 not a whole journal (removed). */
static int replay(const char *jpath)
{
	size_t len = 0;
	char *buf = slurp(jpath, &len);
	int ns = 0, rc = 0;
	for (size_t i = 0; buf && i < len; ++i) ns += buf[i] == 0;
	char **str = buf ? calloc((size_t)ns + 1, sizeof *str) : NULL;
	jout_t *o = str ? calloc((size_t)ns + 1, sizeof *o) : NULL;
	char **dn = o ? calloc((size_t)ns + 1, sizeof *dn) : NULL, **jn = dn ? calloc((size_t)ns + 1, sizeof *jn) : NULL;
	int no = 0, nd = 0, nj = 0, ok = jn && ns >= 2 && !strcmp(buf, "gvk-commit-1");
	for (size_t i = 0, k = 0; ok && i < len; i += strlen(buf + i) + 1) str[k++] = buf + i;
	for (int k = 1; ok && k < ns - 1;) {
		if (!strcmp(str[k], "o") && k + 4 < ns)
			o[no++] = (jout_t){str[k + 1], str[k + 2], str[k + 3], str[k + 4][0] == '1'}, k += 5;
		else if (!strcmp(str[k], "d") && k + 1 < ns) dn[nd++] = str[k + 1], k += 2;
		else if (!strcmp(str[k], "j") && k + 1 < ns) jn[nj++] = str[k + 1], k += 2;
		else ok = 0;
	}
	ok = ok && !strcmp(str[ns - 1], "end") && len && buf[len - 1] == 0;
	if (ok) {
		int all_in = 1;
		for (int k = 0; k < no; ++k) all_in &= !exists(o[k].tmp);
		if (all_in) complete_set(o, no, dn, nd, jn, nj), rc = 2;
		else roll_back_set(o, no, jn, nj), rc = 1;
	}
	unlink(jpath); /* a copy no longer listed, or one cut short */
	free(jn), free(dn), free(o), free(str), free(buf);
	return rc;
}

/* Whether name is base's temporary ('t'), backup ('o') or journal ('j', in *kind) left by a
 * process of this host that no longer runs; *pid its process. */
static int stale(const char *name, const char *base, const char *host, int *kind, long *pid)
{
	static const struct {
		const char *tag;
		int kind;
	} tags[] = {{".tmp", 't'}, {".old", 'o'}, {".commit", 'j'}};
	size_t bl = strlen(base);
	if (strncmp(name, base, bl)) return 0;
	const char *p = name + bl;
	*kind = 0;
	for (size_t k = 0; k < sizeof tags / sizeof tags[0] && !*kind; ++k)
		if (!strncmp(p, tags[k].tag, strlen(tags[k].tag))) *kind = tags[k].kind, p += strlen(tags[k].tag);
	if (!*kind || *p < '0' || *p > '9') return 0;
	char *end;
	*pid = strtol(p, &end, 10);
	p = end;
	if (*kind != 'j') {
		if (*p != '.' || p[1] < '0' || p[1] > '9') return 0;
		strtoul(p + 1, &end, 10);
		p = end;
	}
	/* Without a host: the names of versions before the host was added, or of this host. */
	if (*p == '.' ? strcmp(p + 1, host) != 0 : *p != 0 || *kind == 'j') return 0;
	return *pid > 0 && *pid != (long)getpid() && kill((pid_t)*pid, 0) != 0 && errno == ESRCH;
}

/* A backup without a journal (left by a version without one): dropped where it is a second link
 * to the file in place, put back where that file is missing, else left for the user. */
static int lone_backup(const char *bak, const char *path)
{
	struct stat b, p;
	if (lstat(bak, &b) != 0) return 0;
	if (lstat(path, &p) != 0) return rename(bak, path) == 0;
	return b.st_dev == p.st_dev && b.st_ino == p.st_ino && unlink(bak) == 0;
}

/* One pass over dir for base's names of dead processes: journals replayed (pass 0), or
 * temporaries and backups removed (pass 1). */
static void sweep(gvk_outset_t *s, const char *dir, const char *base, const char *path, int pass)
{
	DIR *d = opendir(dir);
	if (!d) return;
	size_t dl = strlen(dir);
	int n_tmp = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		int kind;
		long pid;
		if (!stale(de->d_name, base, s->host, &kind, &pid) || (kind == 'j') != (pass == 0)) continue;
		size_t n = dl + strlen(de->d_name) + 2;
		char *full = malloc(n);
		if (!full) break;
		snprintf(full, n, "%s/%s", dir, de->d_name);
		int r = kind == 'j' ? replay(full) : kind == 't' ? unlink(full) == 0 : lone_backup(full, path);
		if (kind == 't' || kind == 'o') n_tmp += r;
		else if (r)
			gvk_logf(&s->log, GVK_LOG_WARN, "%s: process %ld was killed while it replaced its outputs; %s", path, pid,
			         r == 1 ? "they are put back as they were before it" : "its replacement of them is completed");
		free(full);
	}
	closedir(d);
	if (n_tmp)
		gvk_logf(&s->log, GVK_LOG_WARN, "%s: removed %d temporar%s left by a killed run", path, n_tmp, n_tmp == 1 ? "y" : "ies");
}

void gvk_outset_reclaim(gvk_outset_t *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	if (!dir) return;
	const char *base = slash ? slash + 1 : path;
	sweep(s, dir, base, path, 0);
	sweep(s, dir, base, path, 1);
	free(dir);
}
