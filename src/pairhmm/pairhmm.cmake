# SPDX-License-Identifier: MIT
# Pair-HMM engine (GATK HaplotypeCaller likelihoods, Intel GKL's values). Included by
# src/CMakeLists.txt.
list(APPEND GVK_SOURCES
  pairhmm/pairhmm_tables.c pairhmm/pairhmm_scalar.c pairhmm/pairhmm_dispatch.c
  pairhmm/pairhmm_engine.c pairhmm/pairhmm_merge.c pairhmm/pairhmm_io.c pairhmm/pairhmm_file.c pairhmm/pairhmm_reader_api.c)
list(APPEND GVK_CLI_SOURCES cli/cmd_pairhmm.c)

# One file per instruction set (cmake/gvk_isa.cmake); pairhmm_dispatch.c picks at run time.
if(GVK_X86)
  gvk_isa_kernel(avx512 pairhmm/pairhmm_avx512.c)
elseif(GVK_ARM64)
  gvk_isa_kernel(neon pairhmm/pairhmm_neon.c)
  if(GVK_HAVE_SVE)
    gvk_isa_kernel(sve256 pairhmm/pairhmm_sve256.c)
    gvk_isa_kernel(sve512 pairhmm/pairhmm_sve512.c)
  endif()
endif()

# The GPU back end when CUDA or HIP is there, else the stub that reports its absence. Exact GKL
# arithmetic: flush-to-zero as GKL sets it, no automatic contraction, IEEE division (nvcc's options;
# cmake/gvk_hip.cmake gives hipcc its own).
set(GVK_PHMM_CU pairhmm/pairhmm_gpu.cu pairhmm/pairhmm_gpu_pack.cu pairhmm/pairhmm_gpu_pass.cu)
gvk_gpu_or_stub(pairhmm/pairhmm_nogpu.c ${GVK_PHMM_CU})
if(GVK_HAVE_CUDA)
  set_source_files_properties(${GVK_PHMM_CU} PROPERTIES COMPILE_OPTIONS "-ftz=true;-fmad=false;-prec-div=true;-prec-sqrt=true")
endif()
