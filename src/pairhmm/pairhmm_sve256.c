/* SPDX-License-Identifier: MIT */
/* The SVE Pair-HMM kernels for 256-bit vectors (pairhmm_sve.h): 8 pairs per call in float, 4 in double. */
#define SVE_BITS 256
#define SVE_ISA phmm_isa_sve256
#define SVE_NAME "sve256"
#include "pairhmm_sve.h"
