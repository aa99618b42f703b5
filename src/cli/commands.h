/* Entry points of the gvk subcommands; each takes its own argv (argv[0] = command name) and
 * returns the process exit status. */
#ifndef GVK_CLI_COMMANDS_H
#define GVK_CLI_COMMANDS_H

/* --device argument: GVK_DEVICE_CPU, _GPU or _AUTO for "cpu", "gpu", "auto"; -1 otherwise. */
int gvk_cli_device(const char *arg);

int gvk_cmd_pairhmm(int argc, char **argv);
int gvk_cmd_ld(int argc, char **argv);
int gvk_cmd_fastid(int argc, char **argv);

int gvk_cmd_align(int argc, char **argv);

int gvk_cmd_cnv(int argc, char **argv);

#endif
