# SPDX-License-Identifier: MIT
# CNV engine (cn.MOPS). htslib is optional: without it BAM/CRAM counting reports an error.
list(APPEND GVK_SOURCES cnv/cnv_rstat.c cnv/cnv_xf80.c cnv/cnv_lgamma.c cnv/cnv_counts.c cnv/cnv_arrays.c cnv/cnv_bed.c cnv/cnv_norm.c cnv/cnv_density.c cnv/cnv_fft.c cnv/cnv_em_cpu.c
     cnv/cnv_segment.c cnv/cnv_ttail_dd.c cnv/cnv_call.c cnv/cnv_pipeline.c cnv/cnv_bam.c cnv/cnv_write.c
     cnv/cnv_bamhdr.c cnv/cnv_progress.c cnv/cnv_vcf.c cnv/cnv_bedseg.c cnv/cnv_plot.c cnv/cnv_canvas_svg.c
     cnv/cnv_canvas_cairo.c cnv/cnv_fai.c cnv/cnv_write_api.c)
# The EM on the GPU when CUDA is there: no contracted multiply-adds (the CPU side is built with
# -ffp-contract=off), IEEE division and square root, no flush to zero.
gvk_gpu_or_stub(cnv/cnv_em_nogpu.c cnv/cnv_em_gpu.cu)
if(GVK_HAVE_CUDA)
  set_source_files_properties(cnv/cnv_em_gpu.cu PROPERTIES COMPILE_OPTIONS "-fmad=false;-prec-div=true;-prec-sqrt=true;-ftz=false")
endif()
list(APPEND GVK_CLI_SOURCES cli/cmd_cnv.c)

# BAM/CRAM counting and the bgzipped VCF through htslib, only where it is found.
gvk_uses(HTSLIB cnv/cnv_bam.c cnv/cnv_bamhdr.c cnv/cnv_vcf.c)

# cairo for the plots: PNG (and SVG from the same drawing) when found through pkg-config; without
# it PNG plots are an error that says so and SVG is written directly.
option(GVK_CAIRO "Use cairo for PNG plots when found" ON)
set(GVK_HAVE_CAIRO OFF)
if(GVK_CAIRO)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(CAIRO QUIET cairo)
  endif()
  if(CAIRO_FOUND)
    set(GVK_HAVE_CAIRO ON)
    list(APPEND GVK_EXTRA_LIBS ${CAIRO_LINK_LIBRARIES})
    set_source_files_properties(cnv/cnv_canvas_cairo.c PROPERTIES COMPILE_DEFINITIONS GVK_HAVE_CAIRO
                                INCLUDE_DIRECTORIES "${CAIRO_INCLUDE_DIRS}")
  endif()
endif()
message(STATUS "gvk: cairo (cnv PNG plots) ${GVK_HAVE_CAIRO}")
