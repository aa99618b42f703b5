# SPDX-License-Identifier: MIT
# libdeflate (htslib's own dependency, so usually there with it), found once for the whole build:
# gvk ld's gzip output compresses with it where it is found, with zlib otherwise.
# -DGVK_LIBDEFLATE=OFF leaves it out. Sets GVK_HAVE_LIBDEFLATE, LIBDEFLATE_INCLUDE_DIR and
# LIBDEFLATE_LIBRARY.
option(GVK_LIBDEFLATE "Compress gzip output with libdeflate when found (else zlib)" ON)
set(GVK_HAVE_LIBDEFLATE OFF)
if(GVK_LIBDEFLATE)
  find_path(LIBDEFLATE_INCLUDE_DIR libdeflate.h)
  find_library(LIBDEFLATE_LIBRARY deflate)
  if(LIBDEFLATE_INCLUDE_DIR AND LIBDEFLATE_LIBRARY)
    set(GVK_HAVE_LIBDEFLATE ON)
  endif()
endif()
message(STATUS "gvk: libdeflate ${GVK_HAVE_LIBDEFLATE}")
