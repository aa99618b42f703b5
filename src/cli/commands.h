/* Entry points of the gvk subcommands; each takes its own argv (argv[0] = command name) and
 * returns the process exit status. */
#ifndef GVK_CLI_COMMANDS_H
#define GVK_CLI_COMMANDS_H

int gvk_cmd_pairhmm(int argc, char **argv);
int gvk_cmd_ld(int argc, char **argv);
int gvk_cmd_fastid(int argc, char **argv);

int gvk_cmd_align(int argc, char **argv);

int gvk_cmd_cnv(int argc, char **argv);

#endif
