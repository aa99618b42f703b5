/* SPDX-License-Identifier: MIT */
/* Checking of GPU runtime calls (CUDA, or HIP through gpu_port.h) in the GPU back ends: on failure,
 * records the call, the runtime's message and the source line in the function's `gvk_err_t *err`
 * and returns the code (out of memory as GVK_ERR_NOMEM, so that callers can split the work). */
#ifndef GVK_COMMON_CUDA_CHECK_H
#define GVK_COMMON_CUDA_CHECK_H

#include "err.h"
#include "gpu_port.h"

#define CK(call)                                                                                     \
	do {                                                                                         \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess)                                                               \
			return gvk_err_set(err, e_ == cudaErrorMemoryAllocation ? GVK_ERR_NOMEM : GVK_ERR_GPU, \
			                   GVK_GPU_API ": %s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__,   \
			                   __LINE__);                                                        \
	} while (0)

#endif
