/* SPDX-License-Identifier: MIT */
/* Shared by the benchmark programs: the host's CPU name and the heading of a results section. */
#ifndef GVK_BENCH_RESULTS_H
#define GVK_BENCH_RESULTS_H

#include <stddef.h>
#include <stdio.h>

/* The CPU's model name from /proc/cpuinfo ("unknown CPU" elsewhere). */
void bench_host_cpu(char *cpu, size_t n);

/* Opens path for appending and writes the heading "## BENCH, date, commit C" (commit from
 * $GVK_COMMIT); NULL, with a message on stderr, if it cannot. The caller writes the rest and
 * closes the file. */
FILE *bench_results_open(const char *path, const char *bench);

#endif
