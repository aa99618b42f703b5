/* SPDX-License-Identifier: MIT */
/* Entry points of the gvk subcommands; each takes its own argv (argv[0] = command name) and
 * returns the process exit status. */
#ifndef GVK_CLI_COMMANDS_H
#define GVK_CLI_COMMANDS_H

/* --device argument: GVK_DEVICE_CPU, _GPU or _AUTO for "cpu", "gpu", "auto"; -1 otherwise. */
int gvk_cli_device(const char *arg);
/* --isa argument: a gvk_isa_t for "auto", "avx512", "scalar" (and "avx2" when allowed); -1 otherwise. */
int gvk_cli_isa(const char *arg, int allow_avx2);
/* -t argument: a whole number of threads, 1 to 65536; -1 otherwise (atoi would read "1x" as 1). */
int gvk_cli_threads(const char *arg);
/* Ends a command after its -h text: status 0, or 1 when standard output could not take it. */
_Noreturn void gvk_cli_help_exit(void);

/* Takes the signals that end a process on a watcher thread (call first, before any thread starts;
 * cli_signal.c lists them): the watched output set's temporaries are removed and the process exits
 * with 128 + signal. */
int gvk_cli_signals_start(void);
/* The library's messages go to stderr up to this level (gvk_set_log); call before creating engines. */
void gvk_cli_log_level(int level);
/* --device gpu without a usable GPU, "why" being the engine's message: prints one line, "gvk CMD:
 * --device gpu: no usable GPU (REASON)" ("gvk CMD: --device gpu: no GPU (REASON)" on a machine
 * without one), and returns the exit status 1. Every command checks the
 * GPU before reading its input, so that a run asked to be on the GPU never starts without it. */
int gvk_cli_no_gpu(const char *why);
struct gvk_outset_s;
void gvk_cli_signals_watch(struct gvk_outset_s *s);
/* The first signal calls fn(arg) instead of ending the process (gvk serve stops cleanly); a
 * second one ends it. fn NULL: back to ending at the first. */
void gvk_cli_signals_on_stop(void (*fn)(void *), void *arg);
/* The per-user gvk directory (XDG_RUNTIME_DIR/gvk, else /tmp/gvk-UID) into dir, made (mode 0700)
 * when missing; 0, or -1 when it cannot be used (msg says why when not NULL, size 256). */
int gvk_cli_user_dir(char *dir, unsigned long size, char *msg);
/* Where gvk pairhmm and align find gvk serve and device auto's GPU lock. */
typedef struct {
	char server[4096], gpu_lock[4096];
} gvk_cli_serve_t;
/* server_arg (--server, NULL when not given) or else GVK_SERVER, and for device auto the GPU lock
 * in the per-user directory: *server and *gpu_lock point into *p (NULL: none). 0, or -1 with
 * "gvk CMD: ..." on stderr. */
int gvk_cli_serve_opts(const char *cmd, const char *server_arg, int device, gvk_cli_serve_t *p, const char **server,
                       const char **gpu_lock);

int gvk_cmd_pairhmm(int argc, char **argv);
int gvk_cmd_ld(int argc, char **argv);
int gvk_cmd_fastid(int argc, char **argv);

int gvk_cmd_align(int argc, char **argv);

int gvk_cmd_cnv(int argc, char **argv);

int gvk_cmd_serve(int argc, char **argv);

#endif
