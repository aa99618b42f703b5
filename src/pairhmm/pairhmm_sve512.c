/* SPDX-License-Identifier: MIT */
/* The SVE Pair-HMM kernels for 512-bit vectors (pairhmm_sve.h): 16 pairs per call in float, 8 in double. */
#define SVE_BITS 512
#define SVE_ISA phmm_isa_sve512
#define SVE_NAME "sve512"
#include "pairhmm_sve.h"
