# SPDX-License-Identifier: MIT
# What the SNP engines share (docs/snp.md): the PLINK fileset and VCF readers, sample and variant
# selection, bit planes, the popcount-GEMM kernels and the GPU context. LD (ld/ld.cmake) and FastID
# (fastid/fastid.cmake) are built on it.
list(APPEND GVK_SOURCES
  snp/snp_data.c snp/snp_chrom.c snp/snp_samples.c snp/snp_geno.c snp/snp_select.c snp/snp_qc.c snp/snp_num.c snp/snp_bed_bits.c snp/plink_io.c snp/plink_io_bim.c snp/bim_order.c
  snp/vcf_import.c snp/vcf_io.c snp/popgemm_scalar.c snp/popgemm_dispatch.c snp/snp_device.c)
gvk_gpu_or_stub(snp/snp_nogpu.c snp/snp_gpu.cu)
list(APPEND GVK_CLI_SOURCES cli/snp_gpu_env.c)

# VCF/BCF input through htslib, only where it is found.
gvk_uses(HTSLIB snp/vcf_io.c snp/vcf_import.c)

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
