# SPDX-License-Identifier: MIT
# What the SNP engines share (docs/snp.md): the PLINK fileset and VCF readers, sample and variant
# selection, bit planes, the popcount-GEMM kernels and the GPU context. LD (ld/ld.cmake) and FastID
# (fastid/fastid.cmake) are built on it.
list(APPEND GVK_SOURCES
  snp/snp_data.c snp/snp_chrom.c snp/snp_samples.c snp/snp_geno.c snp/snp_select.c snp/snp_qc.c snp/snp_num.c snp/snp_bed_bits.c snp/plink_io.c snp/plink_io_bim.c snp/bim_order.c
  snp/vcf_import.c snp/vcf_io.c snp/popgemm_scalar.c snp/popgemm_dispatch.c snp/snp_device.c)
# The GPU context when CUDA or HIP is there, else the stub that reports its absence.
if(GVK_HAVE_CUDA OR GVK_HAVE_HIP)
  list(APPEND GVK_SOURCES snp/snp_gpu.cu)
else()
  list(APPEND GVK_SOURCES snp/snp_nogpu.c)
endif()
list(APPEND GVK_CLI_SOURCES cli/snp_gpu_env.c)

# VCF/BCF input through htslib (cmake/gvk_htslib.cmake), only where it is found.
if(GVK_HAVE_HTSLIB)
  set_source_files_properties(snp/vcf_io.c snp/vcf_import.c PROPERTIES COMPILE_DEFINITIONS GVK_HAVE_HTSLIB
    INCLUDE_DIRECTORIES ${HTSLIB_INCLUDE_DIR})
endif()

# gzip output through libdeflate where it is found (cmake/gvk_libdeflate.cmake), else zlib.
if(GVK_HAVE_LIBDEFLATE)
  set_source_files_properties(snp/ld_gz.c PROPERTIES COMPILE_DEFINITIONS GVK_HAVE_LIBDEFLATE
    INCLUDE_DIRECTORIES ${LIBDEFLATE_INCLUDE_DIR})
  list(APPEND GVK_EXTRA_LIBS ${LIBDEFLATE_LIBRARY})
endif()

# One file per instruction set (cmake/gvk_isa.cmake); popgemm_dispatch.c picks at run time.
if(GVK_X86)
  gvk_isa_kernel(popcnt snp/popgemm_popcnt.c)
  gvk_isa_kernel(avx512pop snp/popgemm_avx512.c)
elseif(GVK_ARM64)
  gvk_isa_kernel(neon snp/popgemm_neon.c)
  if(GVK_HAVE_SVE)
    gvk_isa_kernel(sve snp/popgemm_sve.c)
  endif()
endif()
