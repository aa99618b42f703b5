/* SPDX-License-Identifier: MIT */
/* The options gvk pairhmm and gvk align share: -o, -t, --device, --chunk, --server, -q, -h and one
 * input, parsed once here so that both commands say the same things in the same words. */
#ifndef GVK_CLI_BATCH_H
#define GVK_CLI_BATCH_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "commands.h"

/* getopt_long codes of the shared long options (above any short option's). */
enum { CLI_BATCH_DEVICE = 256, CLI_BATCH_CHUNK, CLI_BATCH_SERVER };

/* The shared entries of a command's long-option table, and its short-option string's part. */
#define CLI_BATCH_LONGOPTS                                                                                             \
	{"threads", required_argument, NULL, 't'}, {"device", required_argument, NULL, CLI_BATCH_DEVICE},              \
	    {"chunk", required_argument, NULL, CLI_BATCH_CHUNK}, {"quiet", no_argument, NULL, 'q'},                    \
	    {"server", required_argument, NULL, CLI_BATCH_SERVER}, {"help", no_argument, NULL, 'h'}
#define CLI_BATCH_SHORTOPTS "o:t:qh"

typedef struct {
	const char *cmd;            /* "pairhmm", "align": the messages' prefix */
	void (*usage)(FILE *fp);    /* the command's -h text */
	const char *out, *in;       /* -o (NULL: standard output), the input */
	const char *server;         /* --server (NULL: not given) */
	int quiet;
	size_t chunk;               /* pairs per batch */
	gvk_cli_serve_t serve;      /* where gvk serve and the GPU lock are, after cli_batch_finish */
} cli_batch_t;

/* Option c of getopt_long with its argument: 1 when it is a shared one (taken into b, *threads or
 * *device), 0 when the command must handle it, -1 after a message on a bad value. -h prints the
 * usage and ends the process. */
int cli_batch_opt(cli_batch_t *b, int c, const char *arg, int *threads, int *device);

/* After the options: exactly one input (else the usage on stderr) and gvk serve's socket and
 * GPU lock for device (*server and *gpu_lock point into b->serve). 0, or -1 after a message. */
int cli_batch_finish(cli_batch_t *b, int argc, char **argv, int device, const char **server, const char **gpu_lock);

#endif
