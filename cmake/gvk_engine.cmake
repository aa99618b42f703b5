# SPDX-License-Identifier: MIT
# What the engine fragments (src/<engine>/<engine>.cmake) use to list their sources.

# The GPU back end (the .cu files after stub) where CUDA or HIP is there, else the stub that
# reports its absence.
macro(gvk_gpu_or_stub stub)
  if(GVK_HAVE_CUDA OR GVK_HAVE_HIP)
    list(APPEND GVK_SOURCES ${ARGN})
  else()
    list(APPEND GVK_SOURCES ${stub})
  endif()
endmacro()

# Sources that use an optional library, lib HTSLIB or LIBDEFLATE: compiled with GVK_HAVE_<lib> and
# its headers where the build found it (cmake/gvk_htslib.cmake, cmake/gvk_libdeflate.cmake).
function(gvk_uses lib)
  if(GVK_HAVE_${lib})
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_DEFINITIONS GVK_HAVE_${lib}
                                INCLUDE_DIRECTORIES "${${lib}_INCLUDE_DIR}")
  endif()
endfunction()
