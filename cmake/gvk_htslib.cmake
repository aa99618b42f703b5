# SPDX-License-Identifier: MIT
# htslib, found once for every engine (cnv: BAM/CRAM counting and VCF output; ld, fastid: VCF/BCF
# input) and the CLI. -DGVK_HTSLIB=OFF leaves it out everywhere. Sets GVK_HAVE_HTSLIB,
# HTSLIB_INCLUDE_DIR and HTSLIB_LIBRARY (added to GVK_EXTRA_LIBS when found).
option(GVK_HTSLIB "Use htslib when found (cnv: BAM/CRAM counting; ld, fastid: VCF/BCF input)" ON)
set(GVK_HAVE_HTSLIB OFF)
if(GVK_HTSLIB)
  find_path(HTSLIB_INCLUDE_DIR htslib/vcf.h)
  find_library(HTSLIB_LIBRARY hts)
  if(HTSLIB_INCLUDE_DIR AND HTSLIB_LIBRARY)
    set(GVK_HAVE_HTSLIB ON)
    list(APPEND GVK_EXTRA_LIBS ${HTSLIB_LIBRARY})
  endif()
endif()
message(STATUS "gvk: htslib ${GVK_HAVE_HTSLIB}")
