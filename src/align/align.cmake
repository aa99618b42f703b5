# SPDX-License-Identifier: MIT
# Alignment engine (GATK's Smith-Waterman). Included by src/CMakeLists.txt.
list(APPEND GVK_SOURCES
  align/align_params.c align/align_scalar.c align/align_trace.c align/align_dispatch.c
  align/align_engine.c align/align_assist.c align/align_io.c align/align_gpu_plan.c align/align_gpu_pipe.c align/align_gpu_emu.c)
# The GPU back end when CUDA or HIP is there, else the stub that reports its absence.
if(GVK_HAVE_CUDA OR GVK_HAVE_HIP)
  list(APPEND GVK_SOURCES align/align_gpu.cu)
else()
  list(APPEND GVK_SOURCES align/align_nogpu.c)
endif()
list(APPEND GVK_CLI_SOURCES cli/cmd_align.c)

# One file per instruction set, compiled for it alone; align_dispatch.c picks at run time.
if(GVK_X86)
  list(APPEND GVK_SOURCES align/align_avx512.c align/align_avx2.c)
  set_source_files_properties(align/align_avx512.c PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx512vl;-mavx512bw")
  set_source_files_properties(align/align_avx2.c PROPERTIES COMPILE_OPTIONS "-mavx2")
  set_source_files_properties(align/align_dispatch.c PROPERTIES COMPILE_DEFINITIONS GVK_ALIGN_X86)
endif()
