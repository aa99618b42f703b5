/* SPDX-License-Identifier: MIT */
/* The rules of GVK_DEVICE_AUTO (device_policy.h), one per engine. The minimum of each rule is where
 * the GPU starts to pay for what taking it costs: creating the CUDA context on first use, copies
 * both ways and kernel launches, against a CPU engine that starts at once. */
#include <math.h>
#include <stddef.h>

#include "device_policy.h"

static const gvk_policy_t rules[GVK_ENGINE_COUNT] = {
	/* Pair-HMM: GATK's HaplotypeCaller sends many small batches (one active region each); the GPU
	 * is opened by the first pass this large and then kept, so that a run of small regions never
	 * pays for a GPU it hardly uses while a large pass does. */
	[GVK_ENGINE_PAIRHMM] = {"pairhmm", "cells of a pass (read length x haplotype length, summed over the pairs)", 2e9},
	/* Align: per batch, in the cells of the pairs the GPU kernel can take; under this the launch
	 * and the copies of the batch outweigh its work, so the batch stays on the CPU. */
	[GVK_ENGINE_ALIGN] = {"align", "cells of a batch (ref length x alt length, summed over the pairs)", 2e7},
	/* LD: one call computes a whole matrix, and the inputs worth a library call are large; a
	 * usable GPU is taken whatever the size. */
	[GVK_ENGINE_LD] = {"ld", "SNP pairs", 0},
	/* FastID: likewise one product over all queries and all profiles per call. */
	[GVK_ENGINE_FASTID] = {"fastid", "query x profile comparisons", 0},
	/* CNV: only the per-region EM runs on the GPU; for a matrix under this size the CPU EM is
	 * done before the CUDA context would be ready, and its results are the package's bit for bit
	 * (the GPU's differ in the last bits, docs/cnv.md). */
	[GVK_ENGINE_CNV] = {"cnv", "counts (regions x samples)", 1e6},
};

const gvk_policy_t *gvk_policy_rule(int engine)
{
	return engine >= 0 && engine < GVK_ENGINE_COUNT ? &rules[engine] : NULL;
}

double gvk_policy_min_work(int engine, double override)
{
	const gvk_policy_t *r = gvk_policy_rule(engine);
	if (!r) return INFINITY;
	return override > 0 ? override : r->min_work;
}

int gvk_policy_auto_gpu(int engine, double work, double override)
{
	return work >= gvk_policy_min_work(engine, override);
}
