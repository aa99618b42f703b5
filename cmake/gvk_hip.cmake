# SPDX-License-Identifier: MIT
# The HIP (AMD) build of the GPU engines: which sources, which flags, and how they are compiled.
# One set of lists for the library build (GVK_GPU=hip) and for the compile test
# (tests/hip/hip_compile.sh), which CI runs without a GPU.
#
# Debian's hipcc (5.2, clang 15, packages hipcc and libamdhip64-dev) compiles device code for
# gfx90a and gfx1030 as it is: no --rocm-path or -nogpulib needed, the device libraries come from
# rocm-device-libs. It calls rocm_agent_enumerator (which fails without /sys/class/kfd) only when
# no --offload-arch is given. CMake's own HIP language is not used: it wants a ROCm tree with
# lib/cmake/hip-lang and an AMDDeviceLibs package, which Debian's multiarch layout does not have.
set(GVK_HIP_ARCHS gfx90a gfx1030 CACHE STRING "AMD GPU targets of the HIP build")

# Sources of every engine's GPU back end (as src/CMakeLists.txt and src/*/*.cmake list them), and
# those with GKL's flush-to-zero (nvcc -ftz=true there): the Pair-HMM ones.
set(GVK_HIP_SOURCES common/cuda_mem.cu pairhmm/pairhmm_gpu.cu pairhmm/pairhmm_gpu_pack.cu pairhmm/pairhmm_gpu_pass.cu
    align/align_gpu.cu cnv/cnv_em_gpu.cu snp/snp_gpu.cu ld/ld_gpu.cu fastid/fastid_gpu.cu)
set(GVK_HIP_FTZ_SOURCES pairhmm/pairhmm_gpu.cu pairhmm/pairhmm_gpu_pack.cu pairhmm/pairhmm_gpu_pass.cu)
set(GVK_HIP_FTZ -fgpu-flush-denormals-to-zero)

# Exact arithmetic, stated rather than left to hipcc's defaults (which contract a * b + c into FMAs
# and keep float denormals): no contraction (nvcc's -fmad=false; the kernels spell out every FMA
# GKL makes), correctly rounded float division and square root (nvcc's -prec-div/-prec-sqrt),
# float denormals kept except in GVK_HIP_FTZ_SOURCES. Wave size: gfx90a runs 64 lanes, gfx1030 its
# default 32; kernels take it from __AMDGCN_WAVEFRONT_SIZE (gpu_port.h). A Pair-HMM block is 64
# threads, a whole number of wavefronts on both.
#
# -fno-slp-vectorize: on gfx90a (packed FP32) clang's SLP vectorizer takes over 14 CPU minutes on
# the unrolled Pair-HMM kernels instead of under half a minute without it. It cannot change
# results (packed operations round each lane as the scalar ones do, and nothing is contracted);
# whether the packed code would be faster is not known without an MI200 to measure on. It must come
# after the -O level: hipcc lets a later -O3 turn the vectorizer back on.
set(GVK_HIP_FLAGS -std=c++17 -fPIC -fvisibility=hidden -ffp-contract=off -fno-gpu-flush-denormals-to-zero
    -fhip-fp32-correctly-rounded-divide-sqrt -fno-slp-vectorize -DPHMM_GPU_BLOCK=64)
# Warnings as for the C code. Not taken: HIP marks hipError_t [[nodiscard]] where CUDA does not
# (clean-up paths drop errors on purpose); clang flags `#pragma unroll (expr)`, which nvcc
# documents, as a CUDA-compatibility matter; and an unroll request the AMD back end cannot
# honour is a speed matter, not a fault.
set(GVK_HIP_WARN -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-unused-result -Wno-cuda-compat -Wno-pass-failed)

# hipcc and the HIP runtime library, for GVK_GPU=hip.
macro(gvk_hip_find)
  find_program(GVK_HIPCC hipcc)
  find_library(GVK_AMDHIP64 amdhip64)
  if(NOT GVK_HIPCC OR NOT GVK_AMDHIP64)
    message(FATAL_ERROR "GVK_GPU=hip needs hipcc and libamdhip64 (Debian: apt-get install hipcc libamdhip64-dev)")
  endif()
endmacro()

# Compiles the .cu sources (relative to the current source directory) with hipcc for
# GVK_HIP_ARCHS into objects; their paths go to out_var. defs: compile definitions (NAME or
# NAME=VALUE), incs: include directories.
function(gvk_hip_objects out_var defs incs)
  set(objs "")
  set(opt -O3)
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    set(opt -O0 -g)
  endif()
  set(args "")
  foreach(a ${GVK_HIP_ARCHS})
    list(APPEND args --offload-arch=${a})
  endforeach()
  foreach(d ${defs})
    list(APPEND args -D${d})
  endforeach()
  foreach(i ${incs})
    list(APPEND args -I${i})
  endforeach()
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/hip)
  foreach(src ${ARGN})
    string(REPLACE "/" "_" name ${src})
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/hip/${name}.o)
    set(ftz "")
    if(src IN_LIST GVK_HIP_FTZ_SOURCES)
      set(ftz ${GVK_HIP_FTZ})
    endif()
    add_custom_command(OUTPUT ${obj}
      COMMAND ${GVK_HIPCC} -x hip ${args} ${opt} ${GVK_HIP_FLAGS} ${ftz} ${GVK_HIP_WARN} -MD -MF ${obj}.d
              -c ${CMAKE_CURRENT_SOURCE_DIR}/${src} -o ${obj}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${src} DEPFILE ${obj}.d
      COMMENT "hipcc ${src} (${GVK_HIP_ARCHS})" VERBATIM)
    list(APPEND objs ${obj})
  endforeach()
  set_source_files_properties(${objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(${out_var} ${objs} PARENT_SCOPE)
endfunction()
