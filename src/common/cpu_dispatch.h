/* SPDX-License-Identifier: MIT */
/* The one dispatch pattern of the engines: each *_dispatch.c holds a table of its kernel sets,
 * best first, and picks from it with these, so every engine chooses and explains alike. */
#ifndef GVK_CPU_DISPATCH_H
#define GVK_CPU_DISPATCH_H

#include <stddef.h>

#include "cpu_features.h"

/* One kernel set of an engine, for its dispatch table: the gvk_isa_t that asks for it (-1: only
 * AUTO reaches it), the features it needs, the set itself and its name. */
typedef struct {
	int isa;
	unsigned need;
	const void *set;
	const char *name;
} cpu_kernel_t;

/* From a table ordered best first, ending with the portable set (need 0): the set for a gvk_isa_t
 * request (AUTO: the first this CPU runs); NULL when the table has none or the CPU lacks it. */
const void *cpu_kernel_pick(const cpu_kernel_t *t, int n, int isa);

/* What the dispatch chose, for the engines' log (GVK_LOG_INFO, only when a better kernel was
 * passed over; the engines' device names carry the kernel always): "NAME", or for an AUTO request that passed one over "NAME (BETTER
 * needs F..., which this CPU lacks)" naming the next better set and its missing features. On a CPU
 * with SVE, for an engine without an SVE set, it adds that NEON serves. Returns 1 when a better set
 * was passed over. */
int cpu_kernel_note(const cpu_kernel_t *t, int n, int isa, const void *chosen, char *buf, size_t size);

/* An engine's two dispatch calls over its table (an array of cpu_kernel_t), sets of type T:
 * const T *P_select(int isa) and int P_note(const T *k, int isa, char *buf, size_t size). */
#define CPU_DISPATCH_CALLS(P, T, table)                                                                        \
	const T *P##_select(int isa) { return cpu_kernel_pick(table, (int)(sizeof table / sizeof *table), isa); } \
	int P##_note(const T *k, int isa, char *buf, size_t size)                                                 \
	{                                                                                                        \
		return cpu_kernel_note(table, (int)(sizeof table / sizeof *table), isa, k, buf, size);             \
	}

#endif
