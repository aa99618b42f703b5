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

int snp_opts_check(int threads, int device, int isa, int gpu, int gpu_path, gvk_err_t *err)
{
	if (threads < 0) return gvk_err_set(err, GVK_ERR_ARG, "threads must be >= 0 (0: all processors), not %d", threads);
	if (device < GVK_DEVICE_AUTO || device > GVK_DEVICE_GPU)
		return gvk_err_set(err, GVK_ERR_ARG, "device %d is not GVK_DEVICE_AUTO, _CPU or _GPU", device);
	if (isa != GVK_ISA_AUTO && isa != GVK_ISA_SCALAR && isa != GVK_ISA_AVX512 && isa != GVK_ISA_NEON)
		return gvk_err_set(err, GVK_ERR_ARG, "isa %d is not GVK_ISA_AUTO, _SCALAR, _AVX512 or _NEON", isa);
	if (gpu < -1) return gvk_err_set(err, GVK_ERR_ARG, "gpu must be -1 (the first GPU) or a device index, not %d", gpu);
	if (gpu_path < GVK_SNP_PATH_AUTO || gpu_path > GVK_SNP_PATH_MMA)
		return gvk_err_set(err, GVK_ERR_ARG, "gpu_path %d is not GVK_SNP_PATH_AUTO, _POPC or _MMA", gpu_path);
	return 0;
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
