/* SPDX-License-Identifier: MIT */
/* The pruning kernels for Portable C: the builds for CPUs without POPCNT, and aarch64 (whose compilers turn the popcounts into its own instructions). */
#include "ld_prune_kern_body.h"

const prune_kern_t prune_kern_portable = {kern_r2, kern_r2s, kern_table, kern_sums, kern_direct, kern_classes};
