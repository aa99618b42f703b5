/* SPDX-License-Identifier: MIT */
/* The GPUs the runtime sees and, when it sees none, why, in the words every engine and test uses:
 * "no GPU (...)" where the machine has none (no driver at all, or a driver that finds no device),
 * the runtime's own error where there is a driver but the GPU cannot be used. A CUDA build on a
 * machine without the NVIDIA driver gets "CUDA driver version is insufficient" from
 * cudaGetDeviceCount, which reads as if a GPU were there; cudaDriverGetVersion tells the two
 * apart (0: no driver installed). For the GPU back ends' .cu files (CUDA or HIP, gpu_port.h). */
#ifndef GVK_COMMON_GPU_PROBE_H
#define GVK_COMMON_GPU_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "gpu_port.h"

#ifdef GVK_GPU_HIP
#define GVK_GPU_VENDOR "AMD"
#else
#define GVK_GPU_VENDOR "NVIDIA"
#endif

/* The number of visible GPUs (> 0); or 0 with why set and *absent 1 (no GPU: why starts with
 * "no GPU (") or 0 (a driver is there and the runtime failed: why is its error and versions). */
static inline int gvk_gpu_probe(char *why, size_t size, int *absent)
{
	int n = 0, drv = 0, rt = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaSuccess && n > 0) return n;
	*absent = 1;
	if (e == cudaSuccess || e == cudaErrorNoDevice)
		snprintf(why, size, "no GPU (the " GVK_GPU_VENDOR " driver finds none)");
	else if (cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0)
		snprintf(why, size, "no GPU (no " GVK_GPU_VENDOR " driver)");
	else {
		*absent = 0;
		cudaRuntimeGetVersion(&rt);
		snprintf(why, size, "%s (driver %d.%d, runtime %d.%d)", cudaGetErrorString(e), drv / 1000, drv % 1000 / 10,
		         rt / 1000, rt % 1000 / 10);
	}
	return 0;
}

/* gvk_gpu_probe for a back end's opening: the count, or a negative code with err set: absent_code
 * (the engine's choice; auto mode stays silent on GVK_ERR_UNSUPPORTED) and "no GPU (...)" when
 * the machine has none, else GVK_ERR_GPU and "no usable CUDA GPU<for_what>: ERROR". */
static inline int gvk_gpu_probe_err(gvk_err_t *err, int absent_code, const char *for_what)
{
	char why[200];
	int absent = 0, n = gvk_gpu_probe(why, sizeof why, &absent);
	if (n > 0) return n;
	if (absent) return gvk_err_set(err, absent_code, "%s", why);
	return gvk_err_set(err, GVK_ERR_GPU, "no usable " GVK_GPU_API " GPU%s: %s", for_what, why);
}

#endif
