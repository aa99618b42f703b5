/* SPDX-License-Identifier: MIT */
/* gvk serve: the per-host GPU service (src/server/serve_server.h), in the foreground. Also the
 * CLI's side of finding it: the per-user directory, GVK_SERVER and device auto's GPU lock. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gvk.h"
#include "commands.h"
#include "../common/parse_num.h"
#include "../common/threads.h"

int gvk_cli_user_dir(char *dir, unsigned long size, char *msg)
{
	gvk_err_t err = {0, ""};
	if (gvk_serve_user_dir(getenv("XDG_RUNTIME_DIR"), (unsigned)getuid(), dir, size, &err) == 0) return 0;
	if (msg) snprintf(msg, 256, "%.200s", err.msg);
	return -1;
}

int gvk_cli_serve_opts(const char *cmd, const char *server_arg, int device, gvk_cli_serve_t *p, const char **server,
                       const char **gpu_lock)
{
	const char *v = server_arg ? server_arg : getenv("GVK_SERVER");
	*server = *gpu_lock = NULL;
	if (v && *v) {
		if (strlen(v) >= 108) {
			fprintf(stderr, "gvk %s: %s: the server's socket path is too long (at most 107 bytes)\n", cmd,
			        server_arg ? "--server" : "GVK_SERVER");
			return -1;
		}
		snprintf(p->server, sizeof p->server, "%s", v);
		*server = p->server;
	}
	char dir[4000];
	if (device == GVK_DEVICE_AUTO && gvk_cli_user_dir(dir, sizeof dir, NULL) == 0) {
		snprintf(p->gpu_lock, sizeof p->gpu_lock, "%s/gpu.lock", dir);
		*gpu_lock = p->gpu_lock;
	}
	return 0;
}

typedef struct {
	gvk_serve_opts_t o;
	char path[108];
	int verbose, group_dir;
} args_t;

static void usage(FILE *fp)
{
	fprintf(fp,
	        "Usage: gvk serve [options]\n\n"
	        "One GPU service per host: runs the shared Pair-HMM and Smith-Waterman engines and merges the\n"
	        "calls of every client process (gvk pairhmm/align --server, the GATK drop-in libraries with\n"
	        "GVK_SERVER, engines whose options name the socket) into large launches. Runs in the\n"
	        "foreground until SIGTERM or SIGINT: calls in flight finish, the socket is removed and a\n"
	        "summary is printed.\n\n"
	        "Options:\n"
	        "      --socket PATH  the socket (default $XDG_RUNTIME_DIR/gvk/serve.sock, or\n"
	        "                     /tmp/gvk-UID/serve.sock; the directory is made with mode 0700)\n"
	        "      --device D     gpu, cpu or auto (default auto: the GPU when one is usable)\n"
	        "  -t, --threads N    CPU threads of each engine (default: all processors)\n"
	        "      --gpu LIST     the GPUs to use, as CUDA_VISIBLE_DEVICES lists them (default: all)\n"
	        "      --group NAME   members of this group may connect too (socket 0660, directory 0750);\n"
	        "                     by default only this user (socket 0600)\n"
	        "      --merge-contexts N  Pair-HMM merged batches in flight at once, 1 to 16 (default 8)\n"
	        "      --merge-wait-us N   how long a merged batch waits for more calls, 0 to 1000000\n"
	        "                     microseconds (default 0: it takes the calls queued meanwhile)\n"
	        "      --gpu-wait W   how a thread waits for the GPU: spin, yield (spin, giving the core to\n"
	        "                     other threads that want it) or block (sleep); default auto, the CUDA\n"
	        "                     runtime's choice (spin when it has a core of its own)\n"
	        "      --poll-clients N  up to N clients, the server and its clients poll for each\n"
	        "                     other's next message instead of sleeping, 0 never (default: a\n"
	        "                     quarter of the processors)\n"
	        "  -v, --verbose      a line per client connecting and disconnecting; twice: also the\n"
	        "                     engines' timing lines of every merged launch\n"
	        "  -h, --help         this text\n");
}

static int parse_group(const char *name, long *gid)
{
	struct group *g = getgrnam(name);
	if (g) return *gid = (long)g->gr_gid, 0;
	return gvk_parse_long(name, 0, 0x7fffffffL, gid);
}

static int parse_gpus(const char *s)
{
	if (!*s) return -1;
	for (const char *p = s; *p; ++p)
		if (!((*p >= '0' && *p <= '9') || *p == ',')) return -1;
	return 0;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option lo[] = {
		{"socket", required_argument, NULL, 1}, {"device", required_argument, NULL, 2},
		{"threads", required_argument, NULL, 't'}, {"gpu", required_argument, NULL, 3},
		{"group", required_argument, NULL, 4}, {"verbose", no_argument, NULL, 'v'},
		{"merge-contexts", required_argument, NULL, 5}, {"merge-wait-us", required_argument, NULL, 6},
		{"gpu-wait", required_argument, NULL, 7}, {"poll-clients", required_argument, NULL, 8},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	gvk_serve_opts_init(&a->o);
	a->o.threads = gvk_ncpu();
	int c;
	while ((c = getopt_long(argc, argv, "t:vh", lo, NULL)) != -1) {
		switch (c) {
		case 1:
			if (strlen(optarg) >= sizeof a->path) return fprintf(stderr, "gvk serve: --socket: path too long (at most 107 bytes)\n"), -1;
			snprintf(a->path, sizeof a->path, "%s", optarg);
			break;
		case 2:
			if ((a->o.device = gvk_cli_device(optarg)) < 0) return fprintf(stderr, "gvk serve: --device must be cpu, gpu or auto\n"), -1;
			break;
		case 't':
			if ((a->o.threads = gvk_cli_threads(optarg)) < 0) return fprintf(stderr, "gvk serve: -t needs a positive number\n"), -1;
			break;
		case 3:
			/* The CUDA runtime reads it when the first engine opens the GPU, after this. */
			if (parse_gpus(optarg) < 0) return fprintf(stderr, "gvk serve: --gpu needs GPU numbers separated by commas, not '%s'\n", optarg), -1;
			setenv("CUDA_VISIBLE_DEVICES", optarg, 1);
			break;
		case 4:
			if (parse_group(optarg, &a->o.group) < 0) return fprintf(stderr, "gvk serve: --group: no group '%s'\n", optarg), -1;
			break;
		case 5:
		case 6: {
			long v;
			if (gvk_parse_long(optarg, c == 5 ? 1 : 0, c == 5 ? 16 : 1000000, &v) < 0)
				return fprintf(stderr, "gvk serve: --%s must be a whole number from %d to %d\n", c == 5 ? "merge-contexts" : "merge-wait-us",
				               c == 5 ? 1 : 0, c == 5 ? 16 : 1000000), -1;
			if (c == 5) a->o.merge_contexts = (int)v;
			else a->o.merge_wait_us = (int)v;
			break;
		}
		case 7: {
			static const char *const names[] = {"auto", "spin", "yield", "block"};
			a->o.gpu_wait = -1;
			for (int k = 0; k < 4; ++k)
				if (!strcmp(optarg, names[k])) a->o.gpu_wait = k;
			if (a->o.gpu_wait < 0) return fprintf(stderr, "gvk serve: --gpu-wait must be auto, spin, yield or block\n"), -1;
			break;
		}
		case 8: {
			long v;
			if (gvk_parse_long(optarg, 0, 1 << 20, &v) < 0)
				return fprintf(stderr, "gvk serve: --poll-clients must be a whole number from 0 to %d\n", 1 << 20), -1;
			a->o.poll_clients = v == 0 ? -1 : (int)v;
			break;
		}
		case 'v': a->verbose++; break;
		case 'h': usage(stdout); gvk_cli_help_exit();
		default: usage(stderr); return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The default socket in the per-user directory, opened to --group when given. */
static int default_socket(args_t *a)
{
	char dir[4000], msg[256];
	if (gvk_cli_user_dir(dir, sizeof dir, msg) < 0) return fprintf(stderr, "gvk serve: %s\n", msg), -1;
	if (chmod(dir, a->o.group >= 0 ? 0750 : 0700) < 0 || (a->o.group >= 0 && chown(dir, (uid_t)-1, (gid_t)a->o.group) < 0))
		return fprintf(stderr, "gvk serve: %s: %s\n", dir, strerror(errno)), -1;
	if ((size_t)snprintf(a->path, sizeof a->path, "%s/serve.sock", dir) >= sizeof a->path)
		return fprintf(stderr, "gvk serve: %s/serve.sock: path too long (at most 107 bytes)\n", dir), -1;
	return 0;
}

static void stop_server(void *arg) { gvk_serve_stop(arg); }

static void print_merge(const char *what, const gvk_serve_merge_t *m)
{
	if (!m->batches) return;
	fprintf(stderr, "gvk serve: %s merged launches: %llu, on average %.1f calls and %.0f pairs, largest %llu pairs; calls per launch:",
	        what, (unsigned long long)m->batches, (double)m->calls / (double)m->batches, (double)m->pairs / (double)m->batches,
	        (unsigned long long)m->max_pairs);
	for (int b = 0; b < GVK_SERVE_MERGE_BUCKETS; ++b) {
		if (!m->by_calls[b]) continue;
		unsigned lo = 1u << b, hi = (2u << b) - 1;
		if (b == GVK_SERVE_MERGE_BUCKETS - 1) fprintf(stderr, " %u+: %llu", lo, (unsigned long long)m->by_calls[b]);
		else if (lo == hi) fprintf(stderr, " %u: %llu", lo, (unsigned long long)m->by_calls[b]);
		else fprintf(stderr, " %u-%u: %llu", lo, hi, (unsigned long long)m->by_calls[b]);
	}
	fputc('\n', stderr);
}

static void summary(gvk_serve_t *s)
{
	gvk_serve_summary_t m;
	gvk_serve_summary(s, &m);
	fprintf(stderr, "gvk serve: %llu clients (%llu refused); Pair-HMM %llu calls, %llu pairs; align %llu calls, %llu pairs; %llu calls failed\n",
	        (unsigned long long)m.clients, (unsigned long long)m.refused, (unsigned long long)m.calls[0],
	        (unsigned long long)m.pairs[0], (unsigned long long)m.calls[1], (unsigned long long)m.pairs[1],
	        (unsigned long long)m.errors);
	print_merge("Pair-HMM", &m.merge[0]);
	print_merge("align", &m.merge[1]);
}

int gvk_cmd_serve(int argc, char **argv)
{
	args_t a;
	memset(&a, 0, sizeof a);
	if (parse_args(argc, argv, &a) < 0) return 1;
	if (!a.path[0] && default_socket(&a) < 0) return 1;
	a.o.socket = a.path;
	gvk_cli_log_level(a.verbose > 1 ? GVK_LOG_DEBUG : a.verbose ? GVK_LOG_INFO : GVK_LOG_WARN);
	gvk_log_default(&a.o.log);
	gvk_err_t err = {0, ""};
	gvk_serve_t *s = gvk_serve_create(&a.o, &err);
	if (!s) {
		if (a.o.device == GVK_DEVICE_GPU && (err.code == GVK_ERR_GPU || err.code == GVK_ERR_UNSUPPORTED)) return gvk_cli_no_gpu(err.msg);
		fprintf(stderr, "gvk serve: %s\n", err.msg[0] ? err.msg : gvk_strerror(err.code));
		return 1;
	}
	gvk_serve_summary_t m;
	gvk_serve_summary(s, &m);
	fprintf(stderr, "gvk serve: listening on %s, computing on %s\n", a.path, m.device);
	gvk_cli_signals_on_stop(stop_server, s);
	int rc = gvk_serve_run(s, &err);
	gvk_cli_signals_on_stop(NULL, NULL);
	if (rc < 0) fprintf(stderr, "gvk serve: %s\n", err.msg);
	summary(s);
	gvk_serve_destroy(s);
	return rc < 0 ? 1 : 0;
}
