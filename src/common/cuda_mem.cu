/* Growable device and pinned host buffers (see cuda_mem.h). */
#include <cuda_runtime.h>

#include "gvk.h"
#include "cuda_mem.h"

extern "C" void gvk_cuda_free(void **p, size_t *cap, gvk_mem_t kind)
{
	if (*p) kind == GVK_MEM_PINNED ? cudaFreeHost(*p) : cudaFree(*p);
	*p = NULL, *cap = 0;
}

extern "C" int gvk_cuda_reserve(void **p, size_t *cap, size_t need, gvk_mem_t kind, gvk_grow_t grow, size_t min,
                                const char *what, gvk_err_t *err)
{
	if (need <= *cap) return 0;
	gvk_cuda_free(p, cap, kind);
	size_t sz = need;
	if (grow == GVK_GROW_QUARTER) sz = need + need / 4;
	if (grow == GVK_GROW_POW2)
		for (sz = min > 0 ? min : 1; sz < need; sz *= 2) {}
	if (sz < min) sz = min;
	cudaError_t e = kind == GVK_MEM_PINNED ? cudaMallocHost(p, sz) : cudaMalloc(p, sz);
	if (e != cudaSuccess) {
		*p = NULL;
		return gvk_err_set(err, e == cudaErrorMemoryAllocation ? GVK_ERR_NOMEM : GVK_ERR_GPU,
		                   "CUDA: cannot allocate %zu bytes of %s memory for %s: %s", sz,
		                   kind == GVK_MEM_PINNED ? "pinned host" : "GPU", what, cudaGetErrorString(e));
	}
	*cap = sz;
	return 0;
}
