/* SPDX-License-Identifier: MIT */
/* Cutting n items of work into one contiguous range per part, for the processes of a job (MPI
 * ranks, the LD job's split). */
#ifndef GVK_WORK_SPLIT_H
#define GVK_WORK_SPLIT_H

#include <stdint.h>

/* Part r of size: items [*lo, *hi) of n. cum(i, arg): the work of items [0, i), nondecreasing in
 * i, so that the parts get about equal work; NULL: equal counts. */
void gvk_work_split(int64_t n, int size, int r, double (*cum)(int64_t i, const void *arg), const void *arg,
                    int64_t *lo, int64_t *hi);

#endif
