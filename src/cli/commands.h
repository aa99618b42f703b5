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

int gvk_cmd_pairhmm(int argc, char **argv);
int gvk_cmd_ld(int argc, char **argv);
int gvk_cmd_fastid(int argc, char **argv);

int gvk_cmd_align(int argc, char **argv);

int gvk_cmd_cnv(int argc, char **argv);

#endif
