/* SPDX-License-Identifier: MIT */
/* Progress of long stages run by several threads (BAM counting): the workers report what they
 * finished, and whichever reports sends the text to the caller's message function, at most a few
 * times a second. */
#ifndef GVK_CNV_PROGRESS_H
#define GVK_CNV_PROGRESS_H

#include <pthread.h>
#include <stdint.h>
#include "gvk.h"

typedef struct {
	pthread_mutex_t lock;
	const gvk_cnv_bam_opts_t *to; /* its progress_fn receives the text; NULL: off */
	int files, files_done;
	double total, done; /* units of work (bases of the layout, over all files) */
	int64_t reads;
	double t_last;
	const char *what;
} cnv_progress_t;

/* to NULL (or without progress_fn) makes every call a no-op. */
void cnv_progress_init(cnv_progress_t *p, const gvk_cnv_bam_opts_t *to, const char *what, double total, int files);
/* done: more units finished; reads: more records read; file_done: 1 when a file is finished. */
void cnv_progress_add(cnv_progress_t *p, double done, int64_t reads, int file_done);
/* Sends the final state, if any state was sent; later calls do nothing. */
void cnv_progress_end(cnv_progress_t *p);
void cnv_progress_free(cnv_progress_t *p);

#endif
