/* SPDX-License-Identifier: MIT */
/* The GPU back ends' growable buffers (src/common/cuda_mem.cu): growth policies, huge-page pinned
 * memory that copies to and from the GPU, and clean failures. Exit 77 (skip) without a GPU. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gvk.h"
#include "common/cuda_mem.h"

static int fails;
#define CHECK(c) ((c) ? (void)0 : (void)(fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #c), ++fails))

enum { MIB = 1 << 20 };

int main(void)
{
	int n = 0, drv = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		/* The library's words (src/common/gpu_probe.h): a machine without the driver has no GPU. */
		if (e == cudaSuccess || e == cudaErrorNoDevice) printf("SKIP: no GPU (the NVIDIA driver finds none)\n");
		else if (cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0) printf("SKIP: no GPU (no NVIDIA driver)\n");
		else printf("SKIP: no usable CUDA GPU: %s\n", cudaGetErrorString(e));
		return 77;
	}
	gvk_err_t err = {0, ""};
	void *h = NULL, *h2 = NULL, *d = NULL;
	size_t hc = 0, h2c = 0, dc = 0;

	/* Pinned: whole 2 MiB pages, 2 MiB aligned; a smaller need keeps the buffer. */
	CHECK(gvk_cuda_reserve(&h, &hc, 1000, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, "a test", &err) == 0);
	CHECK(h && hc == 2 * MIB && (uintptr_t)h % (2 * MIB) == 0);
	void *before = h;
	CHECK(gvk_cuda_reserve(&h, &hc, 2 * MIB, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, "a test", &err) == 0 && h == before);
	/* Powers of two from the minimum, then whole huge pages: 3 MiB from 1 MiB is 4 MiB. */
	CHECK(gvk_cuda_reserve(&h, &hc, 3 * MIB, GVK_MEM_PINNED, GVK_GROW_POW2, MIB, "a test", &err) == 0 && hc == 4 * MIB);
	/* Device: exact, and a quarter more. */
	CHECK(gvk_cuda_reserve(&d, &dc, 1000, GVK_MEM_DEVICE, GVK_GROW_EXACT, 0, "a test", &err) == 0 && dc == 1000);
	CHECK(gvk_cuda_reserve(&d, &dc, 4 * MIB, GVK_MEM_DEVICE, GVK_GROW_QUARTER, 0, "a test", &err) == 0 && dc == 5 * MIB);
	CHECK(gvk_cuda_reserve(&h2, &h2c, 4 * MIB, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, "a test", &err) == 0);

	/* The registered memory copies both ways, asynchronously too. */
	if (h && d && h2) {
		unsigned char *a = h, *b = h2;
		for (size_t k = 0; k < 4 * MIB; ++k) a[k] = (unsigned char)(k * 131u + 7u);
		memset(b, 0, 4 * MIB);
		cudaStream_t st;
		CHECK(cudaStreamCreate(&st) == cudaSuccess);
		CHECK(cudaMemcpyAsync(d, a, 4 * MIB, cudaMemcpyHostToDevice, st) == cudaSuccess);
		CHECK(cudaMemcpyAsync(b, d, 4 * MIB, cudaMemcpyDeviceToHost, st) == cudaSuccess);
		CHECK(cudaStreamSynchronize(st) == cudaSuccess);
		CHECK(memcmp(a, b, 4 * MIB) == 0);
		cudaStreamDestroy(st);
	}

	/* Failures: out of memory, named, with nothing left behind. */
	void *x = NULL;
	size_t xc = 0;
	int rc = gvk_cuda_reserve(&x, &xc, (size_t)1 << 60, GVK_MEM_PINNED, GVK_GROW_EXACT, 0, "a huge test", &err);
	CHECK(rc == GVK_ERR_NOMEM && !x && xc == 0 && strstr(err.msg, "pinned host") && strstr(err.msg, "a huge test"));
	rc = gvk_cuda_reserve(&x, &xc, (size_t)1 << 60, GVK_MEM_DEVICE, GVK_GROW_EXACT, 0, "a huge test", &err);
	CHECK(rc == GVK_ERR_NOMEM && !x && xc == 0 && strstr(err.msg, "GPU memory"));
	cudaGetLastError();

	gvk_cuda_free(&h, &hc, GVK_MEM_PINNED), gvk_cuda_free(&h2, &h2c, GVK_MEM_PINNED), gvk_cuda_free(&d, &dc, GVK_MEM_DEVICE);
	CHECK(!h && !hc && !d && !dc);
	gvk_cuda_free(&x, &xc, GVK_MEM_PINNED); /* freeing nothing is allowed */
	printf("cuda_mem: %s\n", fails ? "FAILED" : "all checks passed");
	return fails != 0;
}
