# SPDX-License-Identifier: MIT
# GKL drop-in JNI libraries (docs/gatk.md), built only when the JNI headers are found. They link the
# static libgvk (position-independent) and export nothing but the Java_* entry points.
find_package(JNI QUIET)
set(GVK_HAVE_JNI OFF)
# A JVM cannot load libraries built with AddressSanitizer unless the runtime is preloaded into
# java itself, so Sanitize builds leave them out (docs/gatk.md says how they were checked).
if(CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  message(STATUS "GKL drop-in JNI libraries: no (not in Sanitize builds)")
elseif(JAVA_INCLUDE_PATH AND JAVA_INCLUDE_PATH2 AND EXISTS ${JAVA_INCLUDE_PATH}/jni.h)
  set(GVK_JNI_DIR ${PROJECT_BINARY_DIR}/jni CACHE INTERNAL "where the GKL drop-in libraries are built")
  function(gvk_jni_library name)
    add_library(${name} SHARED ${ARGN})
    target_include_directories(${name} PRIVATE ${JAVA_INCLUDE_PATH} ${JAVA_INCLUDE_PATH2}
                               ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/jni)
    if(NOT name STREQUAL "gkl_utils")
      target_link_libraries(${name} PRIVATE gvklib)
    endif()
    target_link_options(${name} PRIVATE "LINKER:--exclude-libs,ALL")
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${GVK_JNI_DIR} C_VISIBILITY_PRESET hidden)
    install(TARGETS ${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/gvk-jni)
  endfunction()
  set(GVK_JNI_PAIRHMM ${CMAKE_CURRENT_SOURCE_DIR}/jni/jni_pairhmm.c ${CMAKE_CURRENT_SOURCE_DIR}/jni/jni_pool.c
      ${CMAKE_CURRENT_SOURCE_DIR}/jni/jni_workers.c)
  gvk_jni_library(gkl_pairhmm ${GVK_JNI_PAIRHMM})
  gvk_jni_library(gkl_pairhmm_omp ${GVK_JNI_PAIRHMM})
  target_compile_definitions(gkl_pairhmm_omp PRIVATE GVK_JNI_OMP)
  gvk_jni_library(gkl_smithwaterman ${CMAKE_CURRENT_SOURCE_DIR}/jni/jni_smithwaterman.c
                  ${CMAKE_CURRENT_SOURCE_DIR}/jni/jni_pool.c)
  gvk_jni_library(gkl_utils ${CMAKE_CURRENT_SOURCE_DIR}/jni/jni_utils.c
                  ${CMAKE_CURRENT_SOURCE_DIR}/common/cpu_features.c)
  set(GVK_HAVE_JNI ON)
  message(STATUS "GKL drop-in JNI libraries: yes (${GVK_JNI_DIR})")
else()
  message(STATUS "GKL drop-in JNI libraries: no (JNI headers not found)")
endif()
