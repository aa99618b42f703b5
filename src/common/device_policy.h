/* SPDX-License-Identifier: MIT */
/* When GVK_DEVICE_AUTO takes the GPU: one rule per engine, kept in one table (device_policy.c) so
 * that the engines agree on how the choice is made and docs/library.md can list the rules. A rule
 * is a minimum amount of work, in a unit of the engine's own; below it the engine stays on the
 * CPU without looking for a GPU (opening one is not free). Each engine's options may override
 * the minimum (a field such as gvk_cnv_opts_t.gpu_min_work, 0 = the rule's). Whether a GPU is
 * usable is the engine's business: the policy only says whether to try one. */
#ifndef GVK_COMMON_DEVICE_POLICY_H
#define GVK_COMMON_DEVICE_POLICY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	GVK_ENGINE_PAIRHMM = 0,
	GVK_ENGINE_ALIGN,
	GVK_ENGINE_LD,
	GVK_ENGINE_FASTID,
	GVK_ENGINE_CNV,
	GVK_ENGINE_COUNT
} gvk_engine_id_t;

typedef struct {
	const char *engine; /* the engine's name, as in gvk_<engine>_* */
	const char *unit;   /* what the work counts */
	double min_work;    /* AUTO tries the GPU when work >= this (0: whatever the size) */
} gvk_policy_t;

/* The rule of an engine; NULL for an id out of range. */
const gvk_policy_t *gvk_policy_rule(int engine);

/* The minimum in force: override when it is > 0, else the rule's (an id out of range: never). */
double gvk_policy_min_work(int engine, double override);

/* 1 when AUTO should try the GPU for this much work (in the rule's unit), else 0. Pure: depends on
 * its arguments only. */
int gvk_policy_auto_gpu(int engine, double work, double override);

#ifdef __cplusplus
}
#endif

#endif
