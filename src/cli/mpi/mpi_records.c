/* SPDX-License-Identifier: MIT */
/* gvk pairhmm and gvk align over MPI ranks. Both write one line per pair in input order, so the
 * input is cut into one byte range per rank at record boundaries (a line; in pairhmm's group
 * format a group's "R H" line), each range is copied to a local file and run by the unchanged
 * command in a child process, and the children's outputs are joined in rank order. A gzip input
 * or standard input cannot be cut by bytes: rank 0 then runs it whole. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpi_drivers.h"
#include "../commands.h"
#include "../../common/err.h"
#include "../../common/outset.h"
#include "../../common/threads.h"

extern char **environ;

/* The command line as the child needs it: which argument is the input and which the output. */
typedef struct {
	int in, out;      /* argv index of the input, of -o's value (-1: none) */
	int out_joined;   /* -oFILE or --output=FILE: the value shares the argument */
	int quiet;
	int tsv;          /* pairhmm --tsv: the first column numbers the records from the input's start */
} cmdline_t;

/* Options that take a value, as the commands' getopt tables list them. */
static int takes_value(const char *name, const char *arg)
{
	static const char *const align_long[] = {"threads", "device", "preset", "scores", "overhang", "isa", "chunk", NULL};
	static const char *const phmm_long[] = {"threads", "device", "flavour", "flavor", "format", "isa", "chunk", NULL};
	int align = !strcmp(name, "align");
	if (arg[1] != '-') return arg[2] == 0 && strchr(align ? "otp" : "ot", arg[1]) != NULL;
	if (strchr(arg, '=')) return 0;
	for (const char *const *l = align ? align_long : phmm_long; *l; ++l)
		if (!strcmp(arg + 2, *l)) return 1;
	return 0;
}

static void scan_cmdline(const char *name, int argc, char **argv, cmdline_t *c)
{
	*c = (cmdline_t){-1, -1, 0, 0, 0};
	for (int k = 1; k < argc; ++k) {
		const char *a = argv[k];
		if (!strcmp(a, "--")) {
			if (k + 1 < argc) c->in = k + 1;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			c->in = k;
			continue;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) c->quiet = 1;
		if (!strcmp(name, "pairhmm") && !strcmp(a, "--tsv")) c->tsv = 1;
		if (!strncmp(a, "-o", 2) && a[2]) c->out = k, c->out_joined = 1;
		if (takes_value(name, a) && k + 1 < argc) {
			if (!strcmp(a, "-o")) c->out = k + 1;
			++k;
		}
	}
}

/* 1 when the file's first record is a group header "R H" (pairhmm's group format). */
static int is_header(const char *s, size_t n)
{
	int fields = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
		if (i == n) break;
		if (!isdigit((unsigned char)s[i])) return 0;
		while (i < n && isdigit((unsigned char)s[i])) ++i;
		if (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
		++fields;
	}
	return fields == 2;
}

/* The start of the first record at or after off (size at the end). */
static off_t record_start(FILE *fp, off_t off, off_t size, int group)
{
	if (off <= 0) return 0;
	if (off >= size) return size;
	char line[4096];
	if (fseeko(fp, off - 1, SEEK_SET) != 0) return -1;
	int c;
	while ((c = fgetc(fp)) != EOF && c != '\n') {}
	for (;;) {
		off_t at = ftello(fp);
		if (at >= size || !group) return at;
		if (!fgets(line, sizeof line, fp)) return size;
		size_t n = strlen(line);
		int whole = n && line[n - 1] == '\n';
		if (whole && is_header(line, n - 1)) return at;
		while (!whole && (c = fgetc(fp)) != EOF && c != '\n') {}
	}
}

/* 1 for the group format: its first line that is not a comment is "R H". */
static int group_format(FILE *fp)
{
	char line[4096];
	rewind(fp);
	while (fgets(line, sizeof line, fp)) {
		if (line[0] == '#' || line[0] == '\n') continue;
		size_t n = strcspn(line, "\n");
		return is_header(line, n);
	}
	return 0;
}

static int group_share(const char *path)
{
	FILE *fp = fopen(path, "rb");
	int g = fp ? group_format(fp) : 0;
	if (fp) fclose(fp);
	return g;
}

/* Copies bytes [lo, hi) of in to a new temporary file; its name, or NULL. */
static char *copy_range(FILE *in, off_t lo, off_t hi, gvk_err_t *err)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	size_t len = strlen(dir) + 32;
	char *name = malloc(len), buf[1 << 16];
	if (!name) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory"), NULL;
	snprintf(name, len, "%s/gvk-mpi-in-XXXXXX", dir);
	int fd = mkstemp(name);
	FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
	int ok = out && fseeko(in, lo, SEEK_SET) == 0;
	for (off_t left = hi - lo; ok && left > 0;) {
		size_t n = fread(buf, 1, left < (off_t)sizeof buf ? (size_t)left : sizeof buf, in);
		ok = n > 0 && fwrite(buf, 1, n, out) == n;
		left -= (off_t)n;
	}
	if (out && fclose(out) != 0) ok = 0;
	else if (!out && fd >= 0) close(fd);
	if (!ok) {
		gvk_err_set(err, GVK_ERR_IO, "cannot copy this rank's share of the input to %s", name);
		unlink(name), free(name);
		return NULL;
	}
	return name;
}

/* This rank's share: a local copy of its byte range (*own = 1), the whole input (rank 0 of an
 * input that cannot be cut), or nothing (NULL, no error). */
static char *my_share(const gvk_mpi_world_t *w, const char *path, int *own, gvk_err_t *err)
{
	*own = 0;
	struct stat st;
	FILE *fp = strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
	int gz = 0;
	if (fp) {
		int c0 = fgetc(fp), c1 = fgetc(fp);
		gz = c0 == 0x1f && c1 == 0x8b;
	}
	if (!fp || gz) {
		if (fp) fclose(fp);
		/* the command itself reports a missing or unreadable input */
		return w->rank == 0 ? strdup(path) : NULL;
	}
	int group = group_format(fp);
	off_t size = st.st_size;
	off_t lo = record_start(fp, size * w->rank / w->size, size, group);
	off_t hi = record_start(fp, size * (w->rank + 1) / w->size, size, group);
	char *name = NULL;
	if (lo < 0 || hi < 0) gvk_err_set(err, GVK_ERR_IO, "%s: read error", path);
	else if (hi > lo && (name = copy_range(fp, lo, hi, err))) *own = 1;
	fclose(fp);
	return name;
}

/* Records in a share: group headers in the group format, else lines that are not comments. */
static long long count_records(const char *path, int group)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) return -1;
	char line[4096];
	long long n = 0;
	int start = 1;
	while (fgets(line, sizeof line, fp)) {
		size_t len = strlen(line);
		int whole = len && line[len - 1] == '\n';
		if (start && (group ? whole && is_header(line, len - 1) : line[0] != '#' && line[0] != '\n')) ++n;
		start = whole;
	}
	fclose(fp);
	return n;
}

/* pairhmm --tsv: the share's record numbers (first column) made the input's, adding first. */
static int renumber(const char *part, long long first)
{
	size_t len = strlen(part) + 8;
	char *tmp = malloc(len), line[4096];
	if (!tmp) return -1;
	snprintf(tmp, len, "%s.renum", part);
	FILE *in = fopen(part, "rb"), *out = fopen(tmp, "wb");
	int ok = in && out, start = 1;
	while (ok && fgets(line, sizeof line, in)) {
		char *end = line;
		long long v = start ? strtoll(line, &end, 10) : 0;
		if (start && end != line) ok = fprintf(out, "%lld%s", v + first, end) > 0;
		else ok = fputs(line, out) >= 0;
		size_t n = strlen(line);
		start = n && line[n - 1] == '\n';
	}
	if (in) fclose(in);
	if (out && fclose(out) != 0) ok = 0;
	ok = ok && rename(tmp, part) == 0;
	if (!ok) unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

/* Runs "gvk NAME ARGS" on the share, output to part (share NULL: as given); the child's exit
 * status. */
static int run_child(const char *name, int argc, char **argv, const cmdline_t *c, const char *share, const char *part)
{
	char **av = calloc((size_t)argc + 6, sizeof *av);
	if (!av) return 1;
	int n = 0;
	av[n++] = "gvk";
	av[n++] = (char *)name;
	for (int k = 1; k < argc; ++k) {
		if (!share) av[n++] = argv[k];
		else if (k == c->in) av[n++] = (char *)share;
		else if (k == c->out && c->out_joined) av[n++] = "-o", av[n++] = (char *)part;
		else if (k == c->out) av[n++] = (char *)part;
		else av[n++] = argv[k];
	}
	if (share && c->out < 0) av[n++] = "-o", av[n++] = (char *)part;
	if (share) av[n++] = "-q";
	/* the child is one process again, with this rank's share of the node's processors */
	char threads[32];
	snprintf(threads, sizeof threads, "%d", gvk_mpi_node_threads(gvk_ncpu()));
	setenv("GVK_MPI_CHILD", threads, 1);
	pid_t pid;
	int st = 1;
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, av, environ) == 0) {
		while (waitpid(pid, &st, 0) < 0) {}
		st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	} else {
		fprintf(stderr, "gvk %s: cannot start the command on this rank's share\n", name);
	}
	free(av);
	return st;
}

/* Lines of a share's copy; 0 when it cannot be read. */
static long long count_lines(const char *path)
{
	FILE *fp = path ? fopen(path, "rb") : NULL;
	long long n = 0;
	for (int ch; fp && (ch = getc(fp)) != EOF;) n += ch == '\n';
	if (fp) fclose(fp);
	return n;
}

/* After a child failed on its copy of a share (every rank calls this): where the copy's line
 * numbers are in the input, said by the rank whose child failed. */
static void place_failure(const gvk_mpi_world_t *w, const char *name, const char *input, const char *share, int own,
                          int child_failed)
{
	long long mine = own ? count_lines(share) : 0, before = 0;
	MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
	if (w->rank == 0) before = 0;
	if (child_failed && own)
		fprintf(stderr, "gvk %s: rank %d of %d failed on its share of %s (the lines after line %lld; line N of its copy "
		                "is line %lld + N of %s)\n",
		        name, w->rank, w->size, input, before, before, input);
	else if (child_failed)
		fprintf(stderr, "gvk %s: rank %d of %d failed on %s\n", name, w->rank, w->size, input);
}

static char *temp_name(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	size_t len = strlen(dir) + 32;
	char *name = malloc(len);
	if (!name) return NULL;
	snprintf(name, len, "%s/gvk-mpi-out-XXXXXX", dir);
	int fd = mkstemp(name);
	if (fd < 0) return free(name), NULL;
	close(fd);
	return name;
}

int gvk_mpi_records(const gvk_mpi_world_t *w, const char *name, int argc, char **argv)
{
	cmdline_t c;
	scan_cmdline(name, argc, argv, &c);
	/* Arguments the command rejects, and help, are the command's own business: one process. */
	if (c.in < 0) return w->rank == 0 ? run_child(name, argc, argv, &c, NULL, NULL) : 0;
	double t0 = gvk_seconds();
	gvk_err_t err = {0, ""};
	int own = 0, rc = 0;
	char *share = my_share(w, argv[c.in], &own, &err);
	char *part = temp_name();
	if (!part) rc = gvk_err_set(&err, GVK_ERR_IO, "cannot make a temporary file for this rank's part");
	if (rc == 0 && err.code < 0) rc = err.code;
	if (rc == 0 && share && run_child(name, argc, argv, &c, share, part) != 0) rc = GVK_ERR_ARG; /* the child said why */
	long long recs = 0, first = 0;
	if (rc == 0 && c.tsv && own && (recs = count_records(share, group_share(share))) < 0)
		rc = gvk_err_set(&err, GVK_ERR_IO, "cannot count the records of this rank's share");
	int child_failed = rc == GVK_ERR_ARG;
	rc = gvk_mpi_agree(w, rc, &err);
	if (rc < 0) place_failure(w, name, argv[c.in], share, own, child_failed);
	if (own) unlink(share);
	if (c.tsv && rc == 0) {
		MPI_Exscan(&recs, &first, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
		if (w->rank > 0 && first > 0 && renumber(part, first) < 0)
			rc = gvk_err_set(&err, GVK_ERR_IO, "cannot renumber this rank's part");
		rc = gvk_mpi_agree(w, rc, &err);
	}
	gvk_outset_t os;
	gvk_outset_init(&os);
	gvk_cli_signals_watch(&os);
	FILE *pf = part && rc == 0 ? fopen(part, "rb") : NULL, *out = NULL;
	if (rc == 0 && !pf) rc = gvk_err_set(&err, GVK_ERR_IO, "cannot read back this rank's part");
	if (rc == 0 && w->rank == 0 && !(out = gvk_outset_open(&os, c.out < 0 ? NULL : argv[c.out] + (c.out_joined ? 2 : 0), &err)))
		rc = GVK_ERR_IO;
	rc = gvk_mpi_agree(w, rc, &err);
	if (rc == 0) rc = gvk_mpi_gather_ordered(w, pf, out, &err);
	if (rc == 0 && w->rank == 0) rc = gvk_outset_commit(&os, &err);
	gvk_cli_signals_watch(NULL);
	gvk_outset_abort(&os);
	if (pf) fclose(pf);
	if (part) unlink(part);
	free(part);
	free(share);
	/* A child's failure was told by the child; another rank's only by the rank that had it. */
	if (rc < 0 && rc != GVK_ERR_ARG && err.msg[0] && strncmp(err.msg, "stopped:", 8))
		fprintf(stderr, "gvk %s: %s\n", name, err.msg);
	else if (rc == 0 && w->rank == 0 && !c.quiet)
		fprintf(stderr, "gvk %s: %d ranks, %.3f s\n", name, w->size, gvk_seconds() - t0);
	return rc < 0 ? 1 : 0;
}
