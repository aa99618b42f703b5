/* SPDX-License-Identifier: MIT */
/* Growable device and pinned host buffers (see cuda_mem.h). */
#include <stdint.h>
#include <sys/mman.h>

#include "gvk.h"
#include "cuda_mem.h"
#include "gpu_port.h"

enum { HUGE_PAGE = 2 << 20 };

/* Pinned host memory is anonymous memory on transparent huge pages (where the kernel grants
 * them), registered with CUDA: fewer, larger pages make pinning and unpinning cheaper than
 * cudaMallocHost's 4 KiB pages (measurements: docs/pairhmm-gpu.md). *sz is rounded up to whole
 * huge pages. */
static cudaError_t pinned_alloc(void **p, size_t *sz)
{
	size_t len = (*sz + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	char *m = (char *)mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) return cudaErrorMemoryAllocation;
	char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > m) munmap(m, (size_t)(a - m));
	if (a + len < m + len + HUGE_PAGE) munmap(a + len, (size_t)(m + len + HUGE_PAGE - (a + len)));
	madvise(a, len, MADV_HUGEPAGE); /* a hint: with huge pages off, 4 KiB pages serve as well */
	/* Mapped too, so that kernels may write small results straight into it (gvk_cuda_device_view);
	 * where the driver refuses that, plain pinned memory still serves for copies. */
	cudaError_t e = cudaHostRegister(a, len, cudaHostRegisterPortable | cudaHostRegisterMapped);
	if (e != cudaSuccess) {
		cudaGetLastError();
		e = cudaHostRegister(a, len, cudaHostRegisterPortable);
	}
	if (e != cudaSuccess) {
		munmap(a, len);
		return e;
	}
	*p = a, *sz = len;
	return cudaSuccess;
}

extern "C" void gvk_cuda_free(void **p, size_t *cap, gvk_mem_t kind)
{
	if (*p && kind == GVK_MEM_PINNED) cudaHostUnregister(*p), munmap(*p, *cap);
	if (*p && kind == GVK_MEM_DEVICE) cudaFree(*p);
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
	cudaError_t e = kind == GVK_MEM_PINNED ? pinned_alloc(p, &sz) : cudaMalloc(p, sz);
	if (e != cudaSuccess) {
		*p = NULL;
		return gvk_err_set(err, e == cudaErrorMemoryAllocation ? GVK_ERR_NOMEM : GVK_ERR_GPU,
		                   GVK_GPU_API ": cannot allocate %zu bytes of %s memory for %s: %s", sz,
		                   kind == GVK_MEM_PINNED ? "pinned host" : "GPU", what, cudaGetErrorString(e));
	}
	*cap = sz;
	return 0;
}

extern "C" void *gvk_cuda_device_view(void *host)
{
	void *d = NULL;
	if (!host || cudaHostGetDevicePointer(&d, host, 0) != cudaSuccess) {
		cudaGetLastError(); /* not sticky: the caller copies instead */
		return NULL;
	}
	return d;
}

extern "C" int gvk_cuda_set_wait(gvk_gpu_wait_t mode, gvk_err_t *err)
{
	static const unsigned flag[] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
	                                cudaDeviceScheduleBlockingSync};
	int n = 0;
	if ((int)mode < 0 || (int)mode > GVK_GPU_WAIT_BLOCK) return gvk_err_set(err, GVK_ERR_ARG, "GPU wait mode %d", (int)mode);
	if (cudaGetDeviceCount(&n) != cudaSuccess) return 0; /* no GPU: nothing to set */
	for (int d = 0; d < n; ++d) {
		cudaError_t e = cudaSetDevice(d);
		if (e == cudaSuccess) e = cudaSetDeviceFlags(flag[mode]);
		if (e != cudaSuccess)
			return gvk_err_set(err, GVK_ERR_GPU, GVK_GPU_API ": setting how GPU %d is waited for: %s", d, cudaGetErrorString(e));
	}
	return cudaSetDevice(0) == cudaSuccess ? 0 : gvk_err_set(err, GVK_ERR_GPU, GVK_GPU_API ": cannot select GPU 0");
}
