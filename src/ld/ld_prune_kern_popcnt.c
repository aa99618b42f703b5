/* SPDX-License-Identifier: MIT */
/* The pruning kernels for x86-64 with POPCNT (compiled with -mpopcnt). */
#include "ld_prune_kern_body.h"

const prune_kern_t prune_kern_popcnt = {kern_r2, kern_r2s, kern_table, kern_sums, kern_direct, kern_classes};
