/* SPDX-License-Identifier: MIT */
/* Output paths checked before a command's work, so that a long run never ends in a file it
 * cannot write (outputs are all or nothing: one that cannot be made would drop the others). */
#ifndef GVK_CLI_PATHS_H
#define GVK_CLI_PATHS_H

#include "../common/err.h"

/* 0 when a file can be made at path (NULL or "-": standard output; a device or fifo is written in
 * place): its directory exists and is writable. Else -1 with "gvk CMD: OPT PATH: ..." on stderr. */
int cli_path_creatable(const char *cmd, const char *opt, const char *path);
/* The same for files named PREFIX<suffix> whose missing directories cli_mkdir_parents makes: the
 * nearest directory of prefix that exists must be a writable directory. */
int cli_prefix_creatable(const char *cmd, const char *opt, const char *prefix);
/* PREFIX + ext in new memory (the caller frees it), or NULL when out of memory. */
char *cli_with_ext(const char *prefix, const char *ext);
/* Makes the missing directories of prefix's directory part, as mkdir -p: 0 or an error code. */
int cli_mkdir_parents(const char *prefix, gvk_err_t *err);

#endif
