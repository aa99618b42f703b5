/* SPDX-License-Identifier: MIT */
/* One kernel source for NVIDIA and AMD GPUs: every engine's .cu/.cuh includes this header instead
 * of cuda_runtime.h and builds either as CUDA with nvcc or as HIP with hipcc (CMake's GVK_GPU,
 * docs/hip.md).
 *
 * Runtime calls, streams, events and pinned memory keep their CUDA spellings: under HIP they are
 * mapped to the HIP names here, so the NVIDIA build compiles exactly the code it always did.
 *
 * Warp-level code goes through the gpu_* primitives below, each with its width stated: AMD runs
 * wavefronts of 64 lanes (gfx9) or 32 (gfx10+ in wave32 mode), NVIDIA warps of 32. GPU_WARP is
 * the width of the hardware warp the device code is compiled for; lane masks are gpu_lanemask_t,
 * wide enough for it. Under CUDA every primitive is a macro for the *_sync intrinsic with the full
 * mask, the same instruction as before; under HIP (5.2 has no *_sync intrinsics) the unmasked HIP
 * intrinsic, which is what a converged wavefront needs. Kernels keep their warps converged at
 * every primitive (they are written so for NVIDIA already).
 *
 * GVK_GPU_EMU: tests/hip/warp_emu.h has defined all of this for a simulated warp on the CPU
 * before including the kernels; nothing here is used then.
 *
 * Exactness: the flags that make GKL's arithmetic (flush to zero where GKL has it, no contraction,
 * IEEE division and square root) are stated per compiler in CMake: -ftz -fmad -prec-div
 * -prec-sqrt for nvcc (src/CMakeLists.txt, src/cnv/cnv.cmake), -fgpu-flush-denormals-to-zero
 * -ffp-contract=off -fhip-fp32-correctly-rounded-divide-sqrt for hipcc (cmake/gvk_hip.cmake).
 * The kernels also spell every rounded operation as __fmul_rn / __fmaf_rn etc., which both
 * compilers honour. */
#ifndef GVK_COMMON_GPU_PORT_H
#define GVK_COMMON_GPU_PORT_H

#include <stdint.h>

#if defined(GVK_GPU_EMU)
/* Everything comes from the emulation header. */

#elif defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
/* Host code's isnan: clang's HIP headers declare device overloads that hide the C library's
 * for unqualified calls (cuda_runtime.h brings the host ones in). */
#include <cmath>
using std::isnan;

#define GVK_GPU_HIP 1
#define GVK_GPU_API "HIP"

/* The runtime under its CUDA names. */
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaErrorNotReady hipErrorNotReady
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaErrorNoDevice hipErrorNoDevice
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaDeviceProp hipDeviceProp_t
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaMemGetInfo hipMemGetInfo
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMallocHost hipHostMalloc
#define cudaHostAlloc hipHostMalloc
#define cudaHostAllocDefault hipHostMallocDefault
#define cudaFreeHost hipHostFree
#define cudaHostRegister hipHostRegister
#define cudaHostUnregister hipHostUnregister
#define cudaHostRegisterDefault hipHostRegisterDefault
#define cudaHostRegisterPortable hipHostRegisterPortable
#define cudaHostRegisterMapped hipHostRegisterMapped
#define cudaHostGetDevicePointer hipHostGetDevicePointer
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpy2DAsync hipMemcpy2DAsync
#define cudaMemset hipMemset
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaStream_t hipStream_t
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamWaitEvent hipStreamWaitEvent
#define cudaEvent_t hipEvent_t
#define cudaEventCreate hipEventCreate
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaEventBlockingSync hipEventBlockingSync
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventQuery hipEventQuery
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaSetDeviceFlags hipSetDeviceFlags
#define cudaDeviceScheduleAuto hipDeviceScheduleAuto
#define cudaDeviceScheduleSpin hipDeviceScheduleSpin
#define cudaDeviceScheduleYield hipDeviceScheduleYield
#define cudaDeviceScheduleBlockingSync hipDeviceScheduleBlockingSync
#define cudaFuncAttributes hipFuncAttributes
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor

/* HIP takes kernels as untyped pointers where CUDA has templates. */
template <typename F> static inline hipError_t cudaFuncGetAttributes(hipFuncAttributes *a, F *f)
{
	return hipFuncGetAttributes(a, reinterpret_cast<const void *>(f));
}
template <typename F> static inline hipError_t cudaFuncSetAttribute(F *f, hipFuncAttribute attr, int v)
{
	return hipFuncSetAttribute(reinterpret_cast<const void *>(f), attr, v);
}

/* HIP 5.2 reports no opt-in shared memory above the per-block size. */
#define GPU_PROP_SMEM_OPTIN(p) ((p).sharedMemPerBlock)
/* No tensor-core binary MMA on AMD: the SNP engine's popcount kernels serve every request. */
#define GPU_HAVE_BMMA 0

/* Tables of host function pointers (kernel launchers): clang emits const globals on the device
 * side as well, where host functions do not exist and the device code would not link. */
#define GPU_HOST_TABLE

/* clang's HIP headers make __fsqrt_rn the hardware's approximate square root (1 ulp); sqrtf under
 * -fhip-fp32-correctly-rounded-divide-sqrt (cmake/gvk_hip.cmake) is the correctly rounded one that
 * CUDA's __fsqrt_rn is. Division (__fdiv_rn is a / b there) is correctly rounded under that flag. */
#define __fsqrt_rn(x) sqrtf(x)

#define __grid_constant__
#define __trap() __builtin_trap()

/* Occupancy hints: HIP's second launch-bound argument counts waves per execution unit, not
 * blocks per multiprocessor, so only the block size is passed on. */
#define GPU_LAUNCH_BOUNDS(threads, ...) __launch_bounds__(threads)

#ifdef __AMDGCN_WAVEFRONT_SIZE
#define GPU_WARP __AMDGCN_WAVEFRONT_SIZE
#else
#define GPU_WARP 64 /* host pass: device widths never reach host code */
#endif
typedef uint64_t gpu_lanemask_t;

#define gpu_shfl(v, src, w) __shfl((v), (src), (w))
#define gpu_shfl_up(v, d, w) __shfl_up((v), (d), (w))
#define gpu_shfl_xor(v, m, w) __shfl_xor((v), (m), (w))
#define gpu_ballot(p) ((gpu_lanemask_t)__ballot(p))

/* Maximum over the whole wavefront. */
__device__ __forceinline__ int gpu_reduce_max(int v)
{
#pragma unroll
	for (int m = GPU_WARP / 2; m > 0; m /= 2) v = max(v, __shfl_xor(v, m, GPU_WARP));
	return v;
}

/* The lanes of a wavefront run in lock step; the fence orders their memory accesses as
 * __syncwarp does on NVIDIA. */
#define gpu_syncwarp() (__builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "wavefront"), __builtin_amdgcn_wave_barrier())

/* 32-bit shared-memory (LDS) addresses and 16-byte loads through them. */
typedef float gpu_lds_f4_t __attribute__((ext_vector_type(4)));
typedef double gpu_lds_d2_t __attribute__((ext_vector_type(2)));
__device__ __forceinline__ uint32_t gpu_smem_addr(const void *p)
{
	return (uint32_t)(uintptr_t)(__attribute__((address_space(3))) const void *)p;
}
__device__ __forceinline__ void gpu_lds(uint32_t a, float4 &v)
{
	const gpu_lds_f4_t x = *(__attribute__((address_space(3))) const gpu_lds_f4_t *)(uintptr_t)a;
	v.x = x.x, v.y = x.y, v.z = x.z, v.w = x.w;
}
__device__ __forceinline__ void gpu_lds(uint32_t a, double2 &v)
{
	const gpu_lds_d2_t x = *(__attribute__((address_space(3))) const gpu_lds_d2_t *)(uintptr_t)a;
	v.x = x.x, v.y = x.y;
}

#else /* CUDA */
#include <cuda_runtime.h>

#define GVK_GPU_API "CUDA"
#define GPU_HOST_TABLE const
#define GPU_PROP_SMEM_OPTIN(p) ((p).sharedMemPerBlockOptin)
#define GPU_HAVE_BMMA 1
#define GPU_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)

#define GPU_WARP 32
typedef uint32_t gpu_lanemask_t;

#define gpu_shfl(v, src, w) __shfl_sync(0xffffffffu, v, src, w)
#define gpu_shfl_up(v, d, w) __shfl_up_sync(0xffffffffu, v, d, w)
#define gpu_shfl_xor(v, m, w) __shfl_xor_sync(0xffffffffu, v, m, w)
#define gpu_ballot(p) __ballot_sync(0xffffffffu, p)
#define gpu_reduce_max(v) __reduce_max_sync(0xffffffffu, v)
#define gpu_syncwarp() __syncwarp()

#define gpu_smem_addr(p) ((uint32_t)__cvta_generic_to_shared(p))
/* Only nvcc sees PTX: the tests' CPU stand-ins for cuda_runtime.h compile the host code alone. */
#ifdef __CUDACC__
__device__ __forceinline__ void gpu_lds(uint32_t a, float4 &v)
{
	asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a));
}
__device__ __forceinline__ void gpu_lds(uint32_t a, double2 &v)
{
	asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "r"(a));
}
#endif
#endif

#endif
