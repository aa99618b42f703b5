/* SPDX-License-Identifier: MIT */
/* NEON Pair-HMM kernels (pairhmm_body.h): 4 pairs per call in float, 2 in double, one pair per
 * lane. Each lane does GKL's operations in GKL's order: vfmaq where its AVX-512 kernel fuses (one
 * rounding, as _mm512_fmadd), vmulq and vaddq where its AVX kernel rounds each step (the build's
 * -ffp-contract=off keeps the compiler from fusing them). Masks are vectors here; the MASK bits of
 * the body are made from and into them with a lane-weight vector. */
#include <arm_neon.h>
#include <stdint.h>

#include "pairhmm_kernel.h"
#include "pairhmm_tables.h"

static inline unsigned ge_bits4(int32x4_t v, int j)
{
	const uint32x4_t w = {1, 2, 4, 8};
	return vaddvq_u32(vandq_u32(vcgeq_s32(v, vdupq_n_s32(j)), w));
}

static inline float32x4_t mask_add4(float32x4_t a, unsigned k, float32x4_t b)
{
	const uint32x4_t w = {1, 2, 4, 8};
	return vbslq_f32(vtstq_u32(vdupq_n_u32(k), w), vaddq_f32(a, b), a);
}

static inline unsigned ge_bits2(int32x2_t v, int j)
{
	const uint32x2_t w = {1, 2};
	return vaddv_u32(vand_u32(vcge_s32(v, vdup_n_s32(j)), w));
}

static inline float64x2_t mask_add2(float64x2_t a, unsigned k, float64x2_t b)
{
	const uint64x2_t w = {1, 2};
	return vbslq_f64(vtstq_u64(vdupq_n_u64(k), w), vaddq_f64(a, b), a);
}

/* The prior of two double lanes: the 32-bit base test widened to 64-bit lane masks. */
static inline float64x2_t prior2(int32x2_t rb, const int32_t *p, float64x2_t pm, float64x2_t px)
{
	const uint32x2_t t = vtst_s32(rb, vld1_s32(p));
	return vbslq_f64(vreinterpretq_u64_s64(vmovl_s32(vreinterpret_s32_u32(t))), pm, px);
}

#define T float
#define W 4
#define V float32x4_t
#define MASK unsigned
#define HB int32x4_t
#define INIT PHMM_INIT_F
#define ERR phmm_err_f
#define MM phmm_mm_f
#define V_ZERO() vdupq_n_f32(0)
#define V_LOAD(p) vld1q_f32(p)
#define V_STORE(p, v) vst1q_f32(p, v)
#define V_ADD vaddq_f32
#define V_MUL vmulq_f32
#define V_FMA(a, b, c) vfmaq_f32(c, a, b)
#define V_PRIOR(rb, p, pm, px) vbslq_f32(vtstq_s32(rb, vld1q_s32(p)), pm, px)
#define V_MASK_ADD(a, k, a2, b) mask_add4(a, k, b)
#define HB_LOAD(p) vld1q_s32((const int32_t *)(p))
#define HB_GE ge_bits4
#define ROW_FN row_f
#define PAR_FN par_f
#define KERN_FN kern_f
#include "pairhmm_body.h"

#define T double
#define W 2
#define V float64x2_t
#define MASK unsigned
#define HB int32x2_t
#define INIT PHMM_INIT_D
#define ERR phmm_err_d
#define MM phmm_mm_d
#define V_ZERO() vdupq_n_f64(0)
#define V_LOAD(p) vld1q_f64(p)
#define V_STORE(p, v) vst1q_f64(p, v)
#define V_ADD vaddq_f64
#define V_MUL vmulq_f64
#define V_FMA(a, b, c) vfmaq_f64(c, a, b)
#define V_PRIOR prior2
#define V_MASK_ADD(a, k, a2, b) mask_add2(a, k, b)
#define HB_LOAD(p) vld1_s32((const int32_t *)(p))
#define HB_GE ge_bits2
#define ROW_FN row_d
#define PAR_FN par_d
#define KERN_FN kern_d
#include "pairhmm_body.h"

const phmm_isa_t phmm_isa_neon = {"neon", 4, 2, kern_f, kern_d};
