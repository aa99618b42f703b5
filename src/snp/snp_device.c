/* SPDX-License-Identifier: MIT */
/* The device choice the public LD and FastID engines share (snp_gpu.h). */
#include <stdio.h>
#include <stdlib.h>

#include "../common/err.h"

#include "snp_gpu.h"

int snp_choose_device(const snp_gpu_opt_t *g, int device, const char *cpu, char *name, size_t size, gvk_err_t *err)
{
	if (!cpu) return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "the requested CPU kernel is not available on this CPU or build");
	snprintf(name, size, "%s", cpu);
	if (device == GVK_DEVICE_CPU) return GVK_DEVICE_CPU;
	gvk_err_t probe = {0, ""};
	if (snp_gpu_probe(g, name, size, &probe) == 0) return device;
	if (device == GVK_DEVICE_GPU) {
		if (err) *err = probe;
		return probe.code < 0 ? probe.code : GVK_ERR_GPU;
	}
	snprintf(name, size, "%s", cpu); /* auto: the CPU, silently */
	return GVK_DEVICE_CPU;
}

void *snp_engine_alloc(size_t bytes, const snp_gpu_opt_t *g, int device, const char *cpu, int *chosen, char *name,
                       size_t size, gvk_err_t *err)
{
	*chosen = snp_choose_device(g, device, cpu, name, size, err);
	if (*chosen < 0) return NULL;
	void *e = calloc(1, bytes);
	if (!e) gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	return e;
}
