# SPDX-License-Identifier: MIT
# Cross build for 64-bit ARM Linux with Debian's cross compilers (gcc-aarch64-linux-gnu,
# g++-aarch64-linux-gnu); the tests run under qemu-user (qemu-aarch64) through
# CMAKE_CROSSCOMPILING_EMULATOR. docs/arm.md:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake && cmake --build build-aarch64
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch: the target's libraries in /usr/lib/aarch64-linux-gnu (zlib1g-dev:arm64 after
# `dpkg --add-architecture arm64`), its own C library under /usr/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
# Headers and libraries of the target only: no x86 htslib, zlib, cairo or MPI leaks in.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
find_program(GVK_QEMU_AARCH64 qemu-aarch64)
# qemu 7.2 with the cross C library (libc6-arm64-cross) as its -L prefix never returns from a
# thread start, while the multiarch C library (libc6:arm64, which zlib1g-dev:arm64 brings) works:
# use the multiarch loader when it is there and the cross prefix only without it.
if(GVK_QEMU_AARCH64 AND EXISTS /lib/ld-linux-aarch64.so.1)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GVK_QEMU_AARCH64})
elseif(GVK_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GVK_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu)
endif()
# No GPU code in the cross build (docs/arm.md says what a CUDA build for ARM hosts needs).
set(GVK_GPU off CACHE STRING "GPU back end: auto, cuda, hip or off")
# Nothing of the build machine's: its cairo (found through pkg-config) would be x86 code.
set(GVK_CAIRO OFF CACHE BOOL "Use cairo for PNG plots when found")
