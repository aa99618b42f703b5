# SPDX-License-Identifier: MIT
# FastID identity and mixture search (docs/snp.md): .fidb profiles, panels, the search and its
# output; on the SNP engines' shared readers, planes and kernels (snp/snp.cmake).
list(APPEND GVK_SOURCES
  fastid/fidb_io.c fastid/fid_panel.c fastid/fid_ids.c fastid/fidb_make.c fastid/fastid_engine.c
  fastid/fastid_write.c fastid/fastid_api.c fastid/fastid_db_api.c fastid/fastid_result_api.c)
gvk_gpu_or_stub(fastid/fastid_nogpu.c fastid/fastid_gpu.cu)
list(APPEND GVK_CLI_SOURCES cli/cmd_fastid.c)
