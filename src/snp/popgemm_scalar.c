/* SPDX-License-Identifier: MIT */
/* Portable kernels: the compiler's popcount for the target baseline. */
#define PG_NAME(f) pg_scalar_##f
#include "popgemm_body.h"

const pg_isa_t pg_isa_scalar = {"cpu-scalar", pg_scalar_ld_row, pg_scalar_tab_row, pg_scalar_bed_row, pg_scalar_popcount, pg_scalar_fid_row};
