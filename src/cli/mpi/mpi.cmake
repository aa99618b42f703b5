# SPDX-License-Identifier: MIT
# gvk under MPI (docs/mpi.md): the CLI's drivers that split a command over the ranks of an MPI job.
# The library is unchanged; only the gvk executable links MPI.
find_package(MPI COMPONENTS C QUIET)
option(GVK_MPI "Run the gvk commands over MPI ranks when launched by mpirun or srun" ${MPI_C_FOUND})
if(GVK_MPI AND NOT MPI_C_FOUND)
  message(WARNING "gvk: GVK_MPI asked for, but no MPI C library was found; building without it")
  set(GVK_MPI OFF CACHE BOOL "" FORCE)
endif()
message(STATUS "gvk: MPI ${GVK_MPI}")
if(GVK_MPI)
  target_sources(gvk PRIVATE cli/mpi/mpi_world.c cli/mpi/mpi_out.c cli/mpi/mpi_ld.c cli/mpi/mpi_fastid.c
                 cli/mpi/mpi_records.c cli/mpi/mpi_cnv.c cli/mpi/mpi_cnv_read.c)
  target_compile_definitions(gvk PRIVATE GVK_MPI)
  if(ZLIB_FOUND)
    target_compile_definitions(gvk PRIVATE GVK_HAVE_ZLIB)
  endif()
  target_link_libraries(gvk PRIVATE MPI::MPI_C)
endif()
