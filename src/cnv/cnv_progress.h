/* SPDX-License-Identifier: MIT */
/* A progress line on stderr for long stages run by several threads (BAM counting): the workers
 * report what they finished, and whichever reports draws the line, at most a few times a second. */
#ifndef GVK_CNV_PROGRESS_H
#define GVK_CNV_PROGRESS_H

#include <pthread.h>
#include <stdint.h>

typedef struct {
	pthread_mutex_t lock;
	int on, files, files_done;
	double total, done; /* units of work (bases of the layout, over all files) */
	int64_t reads;
	double t_last;
	const char *what;
} cnv_progress_t;

/* on = 0 makes every call a no-op (no terminal, or -q). */
void cnv_progress_init(cnv_progress_t *p, int on, const char *what, double total, int files);
/* done: more units finished; reads: more records read; file_done: 1 when a file is finished. */
void cnv_progress_add(cnv_progress_t *p, double done, int64_t reads, int file_done);
/* Draws the final state and ends the line, if a line was drawn; later calls do nothing. */
void cnv_progress_end(cnv_progress_t *p);
void cnv_progress_free(cnv_progress_t *p);

#endif
