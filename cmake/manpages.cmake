# SPDX-License-Identifier: MIT
# Manual pages gvk(1) and gvk-COMMAND(1), made at build time from the program's --help by help2man
# (cmake/gvk-man.sh) and installed under share/man/man1. Without help2man there are none.
find_program(GVK_HELP2MAN help2man)
# A cross build's gvk does not run here: its manual pages come from the native build.
if(GVK_HELP2MAN AND NOT CMAKE_CROSSCOMPILING)
  set(man_dir ${PROJECT_BINARY_DIR}/man/man1)
  set(man_pages)
  # command, guide in the sources, one-line description
  foreach(page
      "-|README.md|GPU variant kernels: genomic variant kernels on CPU and GPU"
      "pairhmm|docs/pairhmm.md|Pair-HMM forward log10 likelihoods, bit-identical to Intel GKL"
      "align|docs/align.md|GATK's Smith-Waterman alignment: CIGAR, offset and score"
      "cnv|docs/cnv.md|copy-number variants with the cn.MOPS model"
      "ld|docs/snp.md|linkage disequilibrium with PLINK 1.9's --r and --r2"
      "fastid|docs/snp.md|FastID identity and mixture searches of SNP profiles")
    string(REPLACE "|" ";" f "${page}")
    list(GET f 0 cmd)
    list(GET f 1 guide)
    list(GET f 2 desc)
    if(cmd STREQUAL "-")
      set(name gvk)
    else()
      set(name gvk-${cmd})
    endif()
    add_custom_command(OUTPUT ${man_dir}/${name}.1
      COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}
      COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/gvk-man.sh $<TARGET_FILE:gvk> ${PROJECT_VERSION} ${cmd} "${desc}"
              ${guide} ${man_dir}/${name}.1
      DEPENDS gvk ${PROJECT_SOURCE_DIR}/cmake/gvk-man.sh VERBATIM)
    list(APPEND man_pages ${man_dir}/${name}.1)
  endforeach()
  add_custom_target(manpages ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  message(STATUS "Manual pages: yes (help2man)")
else()
  message(STATUS "Manual pages: no (help2man not found, or a cross build)")
endif()
