/* SPDX-License-Identifier: MIT */
/* Numeric environment variables that the commands document (tuning and test switches), read
 * into the options the library takes: the library itself reads no environment. */
#ifndef GVK_CLI_ENV_H
#define GVK_CLI_ENV_H

/* Variable name into *v when it is set and not empty (otherwise *v is left as it is). A value that
 * is not a whole number in [lo, hi] is an error: -1 with "gvk CMD: NAME must be ..." on stderr,
 * as for a bad option, so that a typo never turns quietly into 0. */
int cli_env_long(const char *cmd, const char *name, long lo, long hi, long *v);

/* The default of -t: every processor; under MPI this rank's share of its node's processors (the
 * node's ranks split its cores), also in the child a rank starts on its share of an input
 * (GVK_MPI_CHILD carries the share). */
int gvk_cli_default_threads(void);

#endif
