# SPDX-License-Identifier: MIT
# LD as PLINK 1.9 computes it (docs/snp.md): tables and matrices, pruning, clumping; on the SNP
# engines' shared readers, planes and kernels (snp/snp.cmake).
list(APPEND GVK_SOURCES
  ld/ld_stats.c ld/ld_em.c ld/ld_engine.c ld/ld_write.c ld/ld_gz.c ld/ld_fmt.c ld/ld_api.c
  ld/ld_prune.c ld/ld_prune_win.c ld/ld_prune_split.c ld/ld_prune_kern_portable.c ld/ld_prune_kern_dispatch.c ld/ld_prune_vif.c ld/ld_lu.c ld/ld_prune_api.c ld/ld_prune_gpu.c
  ld/ld_clump.c ld/ld_clump_rows.c ld/ld_clump_input.c ld/ld_clump_write.c ld/ld_clump_api.c
  ld/ld_job.c ld/ld_job_opts.c ld/ld_job_load.c ld/ld_job_log.c ld/ld_job_prune.c ld/ld_job_clump.c
  ld/ld_split_plan.c ld/ld_split_read.c ld/ld_split_prune.c ld/ld_split_table.c ld/ld_split_out.c)
# The pruning kernels, one file per instruction set (cmake/gvk_isa.cmake); ld_prune_win.c picks.
if(GVK_X86)
  gvk_isa_kernel(popcnt ld/ld_prune_kern_popcnt.c)
  gvk_isa_kernel(avx512pop ld/ld_prune_kern_avx512.c)
endif()
gvk_gpu_or_stub(ld/ld_nogpu.c ld/ld_gpu.cu)
# gzip output through libdeflate where it is found, else zlib.
gvk_uses(LIBDEFLATE ld/ld_gz.c)
if(GVK_HAVE_LIBDEFLATE)
  list(APPEND GVK_EXTRA_LIBS ${LIBDEFLATE_LIBRARY})
endif()
list(APPEND GVK_CLI_SOURCES cli/cmd_ld.c cli/ld_args.c cli/ld_args_prune.c cli/ld_args_clump.c)
