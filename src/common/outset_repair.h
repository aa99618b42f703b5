/* SPDX-License-Identifier: MIT */
/* The journal of a commit and the repair of what a killed process left (outset.h describes both). */
#ifndef GVK_COMMON_OUTSET_REPAIR_H
#define GVK_COMMON_OUTSET_REPAIR_H

#include "outset.h"

/* Replays the journals and removes the temporaries and backups that a process of this host,
 * no longer running, left beside path; says what it did through s->log. */
void gvk_outset_reclaim(gvk_outset_t *s, const char *path);
/* The journal copy beside path for this process (path.commitPID.HOST); the caller frees it. */
char *gvk_outset_journal_name(const gvk_outset_t *s, const char *path);
/* Before the first rename of a commit: the journal, beside every output with a temporary (bak[k]:
 * output k's backup name). 0, or an errno with no copy left. */
int gvk_outset_journal_write(const gvk_outset_t *s, char *const *bak);
/* After the commit, or after its roll-back: the journal's copies removed. */
void gvk_outset_journal_remove(const gvk_outset_t *s);

#endif
