/* SPDX-License-Identifier: MIT */
/* A command's output files as one all-or-nothing set: every file is written to its temporary,
 * and only when all of them were written completely are they renamed over their paths; a rename
 * that fails puts the files renamed before it back as they were. A signal watcher may remove the
 * temporaries at any moment (gvk_outset_remove_temps) without racing a commit in progress.
 *
 * A process killed outright (SIGKILL, a node lost) removes nothing, so the names say who made
 * them: PATH.tmpPID.K.HOST for a temporary, PATH.oldPID.K.HOST for the file a commit replaces,
 * and, while the renames of a commit run, PATH.commitPID.HOST beside every output: the set's
 * journal (every output's path, temporary and backup, the files to drop, the journal copies).
 * Opening an output first looks beside it for such names of a process of this host that no
 * longer runs: a journal is replayed (completed when every temporary was renamed, else rolled
 * back to the files as they were), then stray temporaries are removed, and the set says so once
 * per output through its log. Another host's names are left alone: on a shared file system its
 * process may still run. Names without a host (PATH.tmpPID.K) are taken as this host's. */
#ifndef GVK_COMMON_OUTSET_H
#define GVK_COMMON_OUTSET_H

#include <pthread.h>
#include <stdio.h>
#include "err.h"
#include "log.h"

/* One output: a temporary beside path (tmp), or a device, fifo or /dev/stdout-like path written
 * in place (direct), or standard output (path NULL). */
typedef struct {
	FILE *fp;
	char *path, *tmp;
	char *key;  /* the file's canonical name, to refuse one file named for two outputs */
	int direct; /* written in place */
	int drop;   /* not an output: a stale file the commit removes */
} gvk_out_t;

typedef struct gvk_outset_s {
	gvk_out_t *o;
	int n, cap;
	pthread_mutex_t lock; /* held while temporaries are created, renamed or removed */
	gvk_log_t log;        /* where a repaired killed run is reported (GVK_LOG_WARN) */
	char host[72];        /* this host's name as it appears in the set's file names */
	/* Test hook, set by the CLI only (GVK_TEST_KILL_COMMIT, README.md): when n > 0, the
	 * process kills itself with SIGKILL after n - 1 renames of the commit (before its
	 * clean-up when that is every rename). */
	int kill_after;
} gvk_outset_t;

/* An empty set whose log is the library's default (gvk_log_default). */
void gvk_outset_init(gvk_outset_t *s);
/* Before any output is opened: refuses two of the n paths naming one file, or standard output
 * ("-") twice, so that a command stops before its work and before writing anything. NULL entries
 * are outputs not asked for. 0 or an error code. */
int gvk_outset_check(const char *const *paths, int n, gvk_err_t *err);
/* Opens one more output (path NULL or "-": standard output); its stream, or NULL with err set.
 * The stream belongs to the set: the caller writes to it and never closes it. A file already in
 * the set, or standard output twice, is refused. A symbolic link is written through: its target
 * is replaced, the link kept. */
FILE *gvk_outset_open(gvk_outset_t *s, const char *path, gvk_err_t *err);
/* One more output that a library writes by file name (a bgzipped file through htslib, its index
 * built afterwards): the set creates the temporary, empty, and returns its name, which the caller
 * opens, writes and closes itself before the commit; the commit renames it over path with the
 * others and a failure removes it. A device or fifo path is returned as it is (written in place);
 * standard output cannot be named. NULL with err set on failure. The name belongs to the set. */
const char *gvk_outset_path(gvk_outset_t *s, const char *path, gvk_err_t *err);
/* A file the commit removes once every output is in place, if it exists: one that would describe
 * a replaced output wrongly (the other kind of index of a rewritten file). 0 or an error code. */
int gvk_outset_drop(gvk_outset_t *s, const char *path, gvk_err_t *err);
/* Flushes and closes every output, and only if all of that succeeded renames every temporary
 * over its path; otherwise removes them all, so no path named in the set is touched. */
int gvk_outset_commit(gvk_outset_t *s, gvk_err_t *err);
/* Removes every temporary left (after a failure); safe after a commit. Frees the set. */
void gvk_outset_abort(gvk_outset_t *s);
/* For a signal watcher thread: unlinks the temporaries, and leaves the set locked so that no
 * commit can begin afterwards; the process is expected to exit next. */
void gvk_outset_remove_temps(gvk_outset_t *s);
/* Hooks that make a library writer's files (gvk_files_t) members of the set: opened, named and
 * dropped as above, committed with the others. */
gvk_files_t gvk_outset_files(gvk_outset_t *s);

#endif
