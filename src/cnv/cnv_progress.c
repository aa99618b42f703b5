/* SPDX-License-Identifier: MIT */
/* Progress of multi-threaded stages, sent as text (see cnv_progress.h). */
#include <stdio.h> /* snprintf */

#include "../common/threads.h"
#include "cnv_progress.h"

void cnv_progress_init(cnv_progress_t *p, const gvk_cnv_bam_opts_t *to, const char *what, double total, int files)
{
	pthread_mutex_init(&p->lock, NULL);
	p->to = to && to->progress_fn ? to : NULL, p->what = what, p->total = total > 0 ? total : 1, p->files = files;
	p->files_done = 0, p->done = 0, p->reads = 0, p->t_last = 0;
}

static void draw(const cnv_progress_t *p, int kind)
{
	double pct = 100.0 * p->done / p->total;
	char text[256];
	snprintf(text, sizeof text, "%s: %5.1f%% (%d/%d files, %.1f M reads)", p->what, pct > 100 ? 100 : pct,
	         p->files_done, p->files, (double)p->reads / 1e6);
	p->to->progress_fn(p->to->progress_arg, kind, text);
}

void cnv_progress_add(cnv_progress_t *p, double done, int64_t reads, int file_done)
{
	if (!p->to) return;
	pthread_mutex_lock(&p->lock);
	p->done += done, p->reads += reads, p->files_done += file_done;
	double now = gvk_seconds();
	/* a few redraws a second are enough to see it move; more would cost the workers the lock */
	if (now - p->t_last >= 0.25) {
		p->t_last = now;
		draw(p, GVK_PROGRESS_UPDATE);
	}
	pthread_mutex_unlock(&p->lock);
}

void cnv_progress_end(cnv_progress_t *p)
{
	if (p->to && p->t_last > 0) draw(p, GVK_PROGRESS_END);
	p->to = NULL;
}

void cnv_progress_free(cnv_progress_t *p)
{
	pthread_mutex_destroy(&p->lock);
}
