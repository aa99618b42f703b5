/* SPDX-License-Identifier: MIT */
/* The shared options of gvk pairhmm and gvk align (cli_batch.h). */
#include <stdlib.h>

#include "cli_batch.h"

int cli_batch_opt(cli_batch_t *b, int c, const char *arg, int *threads, int *device)
{
	long v;
	switch (c) {
	case 'o': b->out = arg; return 1;
	case 't':
		if ((*threads = gvk_cli_threads(arg)) < 0) return fprintf(stderr, "gvk %s: -t needs a positive number\n", b->cmd), -1;
		return 1;
	case CLI_BATCH_DEVICE:
		if ((*device = gvk_cli_device(arg)) < 0) return fprintf(stderr, "gvk %s: --device must be cpu, gpu or auto\n", b->cmd), -1;
		return 1;
	case CLI_BATCH_CHUNK:
		if ((v = atol(arg)) < 1) return fprintf(stderr, "gvk %s: --chunk needs a positive number\n", b->cmd), -1;
		b->chunk = (size_t)v;
		return 1;
	case 'q': b->quiet = 1; return 1;
	case CLI_BATCH_SERVER: b->server = arg; return 1;
	case 'h': b->usage(stdout); gvk_cli_help_exit();
	default: return 0;
	}
}

int cli_batch_finish(cli_batch_t *b, int argc, char **argv, int device, const char **server, const char **gpu_lock)
{
	if (optind != argc - 1) return b->usage(stderr), -1;
	b->in = argv[optind];
	return gvk_cli_serve_opts(b->cmd, b->server, device, &b->serve, server, gpu_lock);
}
