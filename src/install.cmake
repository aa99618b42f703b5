# SPDX-License-Identifier: MIT
# What `cmake --install` puts under the prefix: the CLI, libgvk.so and libgvk.a, gvk.h, a pkg-config
# file and a CMake package (gvk::gvk, gvk::gvk_static). Included by src/CMakeLists.txt.
include(CMakePackageConfigHelpers)

install(TARGETS gvk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS gvkshared gvklib LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/gvk.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The Python package's source beside the library it loads: share/gvk/python/libgvk.path names the
# installed libgvk.so (the prefix as installed, DESTDIR left out), which both the package run from
# there and a wheel built from there (pip install PREFIX/share/gvk/python) load.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ DESTINATION ${CMAKE_INSTALL_DATADIR}/gvk/python
        PATTERN __pycache__ EXCLUDE PATTERN _install_path.py EXCLUDE PATTERN libgvk.path EXCLUDE)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(gvk_py_lib "${CMAKE_INSTALL_LIBDIR}/libgvk.so")
else()
  set(gvk_py_lib "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libgvk.so")
endif()
set(gvk_py_dir "${CMAKE_INSTALL_DATADIR}/gvk/python")
if(NOT IS_ABSOLUTE "${gvk_py_dir}")
  set(gvk_py_dir "\${CMAKE_INSTALL_PREFIX}/${gvk_py_dir}")
endif()
install(CODE "file(WRITE \"\$ENV{DESTDIR}${gvk_py_dir}/libgvk.path\" \"${gvk_py_lib}\n\")")

# What a static link of libgvk.a needs besides it: the libraries gvkdeps names, imported targets
# opened up, as found here.
set(gvk_static_deps ${GVK_EXTRA_LIBS})
if(ZLIB_FOUND)
  list(APPEND gvk_static_deps ${ZLIB_LIBRARIES})
endif()
if(GVK_HAVE_CUDA)
  get_target_property(gvk_cudart CUDA::cudart_static IMPORTED_LOCATION)
  # The host code of the .cu files is C++ (static guards, exception personality).
  list(APPEND gvk_static_deps ${gvk_cudart} ${CMAKE_DL_LIBS} ${CUDAToolkit_rt_LIBRARY} stdc++)
elseif(GVK_HAVE_HIP)
  list(APPEND gvk_static_deps ${GVK_AMDHIP64} stdc++)
endif()
list(APPEND gvk_static_deps pthread m)
list(REMOVE_DUPLICATES gvk_static_deps)

# The same for pkg-config: -L and -l instead of paths. Only Libs.private, no Requires.private: that
# would make pkg-config want htslib's and cairo's .pc files even for a shared link.
set(gvk_pc_libs "")
foreach(l ${gvk_static_deps})
  if(l MATCHES "^(.*)/lib([^/]+)\\.(so|a)(\\.[0-9.]*)?$")
    if(NOT CMAKE_MATCH_1 IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      list(APPEND gvk_pc_libs "-L${CMAKE_MATCH_1}")
    endif()
    list(APPEND gvk_pc_libs "-l${CMAKE_MATCH_2}")
  else()
    list(APPEND gvk_pc_libs "-l${l}")
  endif()
endforeach()
list(REMOVE_DUPLICATES gvk_pc_libs)
string(REPLACE ";" " " GVK_PC_LIBS_PRIVATE "${gvk_pc_libs}")
# The prefix relative to the .pc file, so that the tree can be installed anywhere (--prefix, DESTDIR).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GVK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(GVK_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH gvk_up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" GVK_PC_PREFIX "\${pcfiledir}/${gvk_up}")
  set(GVK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
set(GVK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GVK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# Two forms of Libs: with an rpath to libdir, so that a program linked through `pkg-config --libs
# gvk` finds libgvk.so without LD_LIBRARY_PATH, and without, for a libdir the linker searches
# anyway. Which one is chosen at install time, since `cmake --install --prefix` may name another
# prefix than the configured one.
set(GVK_PC_RPATH "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gvk.pc.in ${PROJECT_BINARY_DIR}/gvk-norpath.pc @ONLY)
set(GVK_PC_RPATH "-Wl,-rpath,\${libdir} ")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gvk.pc.in ${PROJECT_BINARY_DIR}/gvk.pc @ONLY)
set(gvk_pc_sysdirs "")
foreach(d ${CMAKE_C_IMPLICIT_LINK_DIRECTORIES})
  get_filename_component(d "${d}" ABSOLUTE)
  list(APPEND gvk_pc_sysdirs "${d}")
endforeach()
install(CODE "
  set(gvk_libdir \"${CMAKE_INSTALL_LIBDIR}\")
  if(NOT IS_ABSOLUTE \"\${gvk_libdir}\")
    set(gvk_libdir \"\${CMAKE_INSTALL_PREFIX}/\${gvk_libdir}\")
  endif()
  get_filename_component(gvk_libdir \"\${gvk_libdir}\" ABSOLUTE)
  set(gvk_pc \"${PROJECT_BINARY_DIR}/gvk.pc\")
  set(gvk_sysdirs \"${gvk_pc_sysdirs}\")
  list(FIND gvk_sysdirs \"\${gvk_libdir}\" gvk_sys)
  if(gvk_sys GREATER -1)
    set(gvk_pc \"${PROJECT_BINARY_DIR}/gvk-norpath.pc\")
  endif()
  file(INSTALL DESTINATION \"\${gvk_libdir}/pkgconfig\" TYPE FILE RENAME gvk.pc FILES \"\${gvk_pc}\")
")

set(gvk_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gvk)
set(GVK_STATIC_DEPS "${gvk_static_deps}")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gvkConfig.cmake.in ${PROJECT_BINARY_DIR}/gvkConfig.cmake
                              INSTALL_DESTINATION ${gvk_cmake_dir}
                              PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
# The SONAME promises compatibility within a major version (major and minor before 1.0); so does
# the package.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(gvk_compat SameMinorVersion)
else()
  set(gvk_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gvkConfigVersion.cmake COMPATIBILITY ${gvk_compat})
install(FILES ${PROJECT_BINARY_DIR}/gvkConfig.cmake ${PROJECT_BINARY_DIR}/gvkConfigVersion.cmake
        DESTINATION ${gvk_cmake_dir})
