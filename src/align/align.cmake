# SPDX-License-Identifier: MIT
# Alignment engine (GATK's Smith-Waterman). Included by src/CMakeLists.txt.
list(APPEND GVK_SOURCES
  align/align_params.c align/align_scalar.c align/align_trace.c align/align_dispatch.c
  align/align_engine.c align/align_assist.c align/align_io.c align/align_gpu_plan.c align/align_gpu_pipe.c align/align_gpu_emu.c)
gvk_gpu_or_stub(align/align_nogpu.c align/align_gpu.cu)
list(APPEND GVK_CLI_SOURCES cli/cmd_align.c)

# One body (align_fill_body.h) compiled once per instruction set (cmake/gvk_isa.cmake);
# align_dispatch.c picks at run time.
if(GVK_X86)
  gvk_isa_kernel(avx512 align/align_avx512.c)
  gvk_isa_kernel(avx2 align/align_avx2.c)
elseif(GVK_ARM64)
  gvk_isa_kernel(neon align/align_neon.c)
endif()
