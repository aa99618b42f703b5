/* SPDX-License-Identifier: MIT */
/* The same kernels built with the POPCNT instruction (compiled with -mpopcnt). */
#define PG_NAME(f) pg_popcnt_##f
#include "popgemm_body.h"

const pg_isa_t pg_isa_popcnt = {"cpu-popcnt", pg_popcnt_ld_row, pg_popcnt_tab_row, pg_popcnt_bed_row, pg_popcnt_popcount, pg_popcnt_fid_row};
