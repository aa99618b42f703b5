/* SPDX-License-Identifier: MIT */
/* Internal interface between the Pair-HMM engine and its per-instruction-set kernels. */
#ifndef GVK_PAIRHMM_KERNEL_H
#define GVK_PAIRHMM_KERNEL_H

#include <stddef.h>
#include "gvk.h"
#include "../common/buf.h"

typedef struct {
	const gvk_read_t *r;
	const gvk_hap_t *h;
} phmm_job_t;


/* A kernel computes the raw scaled last-row sum (SM + SI, docs/pairhmm.md, Semantics 6) of n pairs;
 * fused selects GKL's AVX-512 arithmetic, else its AVX arithmetic. Returns 0 or GVK_ERR_NOMEM.
 * Kernels run with flush-to-zero on (set by the caller). */
typedef int (*phmm_kern_f)(const phmm_job_t *jobs, int n, int fused, float *out, gvk_buf_t *scratch);
typedef int (*phmm_kern_d)(const phmm_job_t *jobs, int n, int fused, double *out, gvk_buf_t *scratch);

typedef struct {
	const char *name;
	int lanes_f, lanes_d; /* pairs per call that fill the vectors */
	phmm_kern_f kf;
	phmm_kern_d kd;
} phmm_isa_t;

extern const phmm_isa_t phmm_isa_scalar;
#ifdef GVK_HAVE_AVX512
extern const phmm_isa_t phmm_isa_avx512;
#endif
#ifdef GVK_HAVE_NEON
extern const phmm_isa_t phmm_isa_neon;
#endif
#ifdef GVK_HAVE_SVE
extern const phmm_isa_t phmm_isa_sve256, phmm_isa_sve512; /* for CPUs of exactly that vector length */
#endif

/* The kernel set for a gvk_isa_t request; NULL if this build or CPU cannot run it. */
const phmm_isa_t *phmm_isa_select(int isa);
/* Which kernel k is and, for an AUTO request, why no better one was taken (cpu_kernel_note). */
int phmm_isa_note(const phmm_isa_t *k, int isa, char *buf, size_t size);

/* Flush-to-zero, as GKL's initNative sets it; returns the state to restore. */
unsigned phmm_ftz_enter(void);
void phmm_ftz_leave(unsigned saved);

#endif
