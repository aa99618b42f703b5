/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_paths.h"
#include "../common/buf.h"

/* The directory part of path ("." when it has none, "/" for a name in the root); NULL when out
 * of memory. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash) return strdup(".");
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	return strndup(path, n);
}

/* Why a file cannot be made in directory dir, or NULL when it can. */
static const char *dir_problem(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) != 0) return errno == ENOENT ? "no such directory" : strerror(errno);
	if (!S_ISDIR(st.st_mode)) return "not a directory";
	if (access(dir, W_OK | X_OK) != 0) return "directory not writable";
	return NULL;
}

int cli_path_creatable(const char *cmd, const char *opt, const char *path)
{
	struct stat st;
	if (!path || !strcmp(path, "-")) return 0;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) return fprintf(stderr, "gvk %s: %s %s: is a directory\n", cmd, opt, path), -1;
		/* devices and fifos are written in place, whatever their directory allows */
		if (!S_ISREG(st.st_mode)) return 0;
	}
	char *dir = dir_of(path);
	if (!dir) return fprintf(stderr, "gvk %s: out of memory\n", cmd), -1;
	const char *why = dir_problem(dir);
	if (why) fprintf(stderr, "gvk %s: %s %s: cannot be written (%s: %s)\n", cmd, opt, path, dir, why);
	free(dir);
	return why ? -1 : 0;
}

int cli_prefix_creatable(const char *cmd, const char *opt, const char *prefix)
{
	char *dir = prefix ? dir_of(prefix) : NULL;
	if (!prefix) return 0;
	if (!dir) return fprintf(stderr, "gvk %s: out of memory\n", cmd), -1;
	/* the nearest directory that exists is where the missing ones would be made */
	struct stat st;
	while (stat(dir, &st) != 0 && (errno == ENOENT || errno == ENOTDIR) && strcmp(dir, ".") && strcmp(dir, "/")) {
		char *up = dir_of(dir);
		free(dir);
		if (!(dir = up)) return fprintf(stderr, "gvk %s: out of memory\n", cmd), -1;
	}
	const char *why = dir_problem(dir);
	if (why) fprintf(stderr, "gvk %s: %s %s: cannot be written (%s: %s)\n", cmd, opt, prefix, dir, why);
	free(dir);
	return why ? -1 : 0;
}

int cli_mkdir_parents(const char *prefix, gvk_err_t *err)
{
	char *dir = dir_of(prefix);
	if (!dir) return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	int rc = 0;
	/* each '/' in turn ends a directory to make, then the whole */
	for (char *p = dir + 1; rc == 0; ++p) {
		if (*p && *p != '/') continue;
		char c = *p;
		*p = 0;
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			rc = gvk_err_set(err, GVK_ERR_IO, "%s: cannot make directory %s: %s", prefix, dir, strerror(errno));
		*p = c;
		if (!c) break;
	}
	free(dir);
	return rc;
}

char *cli_with_ext(const char *prefix, const char *ext) { return gvk_concat(prefix, ext); }
