/* SPDX-License-Identifier: MIT */
/* Checking of CUDA calls in the GPU back ends: on failure, records the call, CUDA's message and
 * the source line in the function's `gvk_err_t *err` and returns the code (out of memory as
 * GVK_ERR_NOMEM, so that callers can split the work). */
#ifndef GVK_COMMON_CUDA_CHECK_H
#define GVK_COMMON_CUDA_CHECK_H

#include <cuda_runtime.h>
#include "err.h"

#define CK(call)                                                                                     \
	do {                                                                                         \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess)                                                               \
			return gvk_err_set(err, e_ == cudaErrorMemoryAllocation ? GVK_ERR_NOMEM : GVK_ERR_GPU, \
			                   "CUDA: %s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
	} while (0)

#endif
