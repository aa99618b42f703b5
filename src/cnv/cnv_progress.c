/* SPDX-License-Identifier: MIT */
/* Progress line on stderr (see cnv_progress.h). */
#include <stdio.h>

#include "../common/threads.h"
#include "cnv_progress.h"

void cnv_progress_init(cnv_progress_t *p, int on, const char *what, double total, int files)
{
	pthread_mutex_init(&p->lock, NULL);
	p->on = on, p->what = what, p->total = total > 0 ? total : 1, p->files = files;
	p->files_done = 0, p->done = 0, p->reads = 0, p->t_last = 0;
}

/* The line is redrawn in place: '\r', then padded so that a shorter line hides a longer one. */
static void draw(const cnv_progress_t *p)
{
	double pct = 100.0 * p->done / p->total;
	fprintf(stderr, "\rgvk cnv: %s: %5.1f%% (%d/%d files, %.1f M reads)   ", p->what, pct > 100 ? 100 : pct,
	        p->files_done, p->files, (double)p->reads / 1e6);
	fflush(stderr);
}

void cnv_progress_add(cnv_progress_t *p, double done, int64_t reads, int file_done)
{
	if (!p->on) return;
	pthread_mutex_lock(&p->lock);
	p->done += done, p->reads += reads, p->files_done += file_done;
	double now = gvk_seconds();
	/* a few redraws a second are enough to see it move; more would cost the workers the lock */
	if (now - p->t_last >= 0.25) {
		p->t_last = now;
		draw(p);
	}
	pthread_mutex_unlock(&p->lock);
}

void cnv_progress_end(cnv_progress_t *p)
{
	if (p->on && p->t_last > 0) {
		draw(p);
		fputc('\n', stderr);
	}
	p->on = 0;
}

void cnv_progress_free(cnv_progress_t *p)
{
	pthread_mutex_destroy(&p->lock);
}
