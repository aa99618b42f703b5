# SPDX-License-Identifier: MIT
# The CPU instruction sets the engines' kernels are built for. Each engine compiles one kernel
# body once per instruction set (a small .c per set that includes the body with that set's vector
# operations) and picks among them at run time in its *_dispatch.c, through common/cpu_features.c.
# Included by the top-level CMakeLists.txt before the sources.
#
# GVK_HAVE_AVX512 (x86-64): the AVX-512, AVX2 and POPCNT kernels are built.
# GVK_HAVE_NEON (aarch64): the NEON kernels are built (Advanced SIMD is part of the aarch64 base).
# GVK_HAVE_SVE (aarch64, a compiler with the SVE intrinsics, arm_sve.h): the SVE kernels too.
set(GVK_X86 OFF)
set(GVK_ARM64 OFF)
set(GVK_HAVE_SVE OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set(GVK_X86 ON)
  add_compile_definitions(GVK_HAVE_AVX512)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
  set(GVK_ARM64 ON)
  add_compile_definitions(GVK_HAVE_NEON)
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -march=armv8-a+sve)
  check_c_source_compiles("#include <arm_sve.h>\nint main(void) { return (int)svcntd(); }" GVK_SVE_COMPILES)
  unset(CMAKE_REQUIRED_FLAGS)
  if(GVK_SVE_COMPILES)
    set(GVK_HAVE_SVE ON)
    add_compile_definitions(GVK_HAVE_SVE)
  endif()
endif()

# Compiler flags of one kernel family; the dispatch checks the same features (cpu_features.h).
#  avx512      vector arithmetic (Pair-HMM, align): AVX-512 F, VL, BW, DQ and FMA
#  avx512pop   popcounts (popgemm): AVX-512 F with VPOPCNTDQ, POPCNT and BMI2
#  avx2, popcnt, neon
#  sve         SVE kernels, vector-length agnostic (only their own files: the rest of an aarch64 build
#              stays armv8-a, so it runs on CPUs without SVE)
#  sve256, sve512  SVE kernels of one fixed vector length (for CPUs of exactly that length)
set(GVK_ISA_FLAGS_avx512 -mavx512f -mavx512vl -mavx512bw -mavx512dq -mfma)
set(GVK_ISA_FLAGS_avx512pop -mavx512f -mavx512vpopcntdq -mpopcnt -mbmi2)
set(GVK_ISA_FLAGS_avx2 -mavx2)
set(GVK_ISA_FLAGS_popcnt -mpopcnt)
set(GVK_ISA_FLAGS_neon "")
set(GVK_ISA_FLAGS_sve -march=armv8-a+sve)
set(GVK_ISA_FLAGS_sve256 -march=armv8-a+sve -msve-vector-bits=256)
set(GVK_ISA_FLAGS_sve512 -march=armv8-a+sve -msve-vector-bits=512)

# gvk_isa_kernel(<family> <file>...): adds the files to GVK_SOURCES, compiled for that family alone.
macro(gvk_isa_kernel family)
  foreach(f ${ARGN})
    list(APPEND GVK_SOURCES ${f})
    if(GVK_ISA_FLAGS_${family})
      set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS "${GVK_ISA_FLAGS_${family}}")
    endif()
  endforeach()
endmacro()
