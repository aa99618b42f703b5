# Alignment engine (GATK's Smith-Waterman). Included by src/CMakeLists.txt.
list(APPEND GVK_SOURCES
  align/align_params.c align/align_scalar.c align/align_trace.c align/align_dispatch.c
  align/align_engine.c align/align_io.c align/align_nogpu.c)
list(APPEND GVK_CLI_SOURCES cli/cmd_align.c)
