/* SPDX-License-Identifier: MIT */
#include "bench_results.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void bench_host_cpu(char *cpu, size_t n)
{
	snprintf(cpu, n, "unknown CPU");
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[256];
	while (fp && fgets(line, sizeof line, fp))
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) snprintf(cpu, n, "%s", c + 2);
			cpu[strcspn(cpu, "\n")] = 0;
			break;
		}
	if (fp) fclose(fp);
}

FILE *bench_results_open(const char *path, const char *bench)
{
	FILE *fp = fopen(path, "a");
	if (!fp) {
		fprintf(stderr, "%s: cannot append to %s\n", bench, path);
		return NULL;
	}
	char date[32];
	time_t now = time(NULL);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
	const char *commit = getenv("GVK_COMMIT");
	fprintf(fp, "\n## %s, %s, commit %s\n\n", bench, date, commit ? commit : "unknown");
	return fp;
}
