/* SPDX-License-Identifier: MIT */
/* Intel GKL 0.8.10's Phred-to-error and match-to-match tables as computed with glibc 2.36's libm
 * (pow, log10, log1p; docs/pairhmm.md, Semantics 2 and 3), bit for bit. The values are data: each
 * .inc file holds one table's bit patterns, written by scripts/gen_pairhmm_tables.py from dumps of
 * GKL's in-memory tables; do not edit them. */
#include "pairhmm_tables.h"

const phmm_f32_t phmm_err_f[128] = {
#include "pairhmm_err_f32.inc"
};

const phmm_f64_t phmm_err_d[128] = {
#include "pairhmm_err_f64.inc"
};

const phmm_f32_t phmm_mm_f[8256] = {
#include "pairhmm_mm_f32.inc"
};

const phmm_f64_t phmm_mm_d[8256] = {
#include "pairhmm_mm_f64.inc"
};
