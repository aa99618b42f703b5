/* SPDX-License-Identifier: MIT */
/* SVE Pair-HMM kernels of one vector length (pairhmm_body.h), included by pairhmm_sve256.c and
 * pairhmm_sve512.c, which define SVE_BITS, SVE_ISA and SVE_NAME and are compiled with
 * -msve-vector-bits=SVE_BITS: the body needs its lane count W at compile time, so each length is a
 * kernel set of its own, which the dispatch takes only on a CPU of exactly that length. One pair
 * per lane, GKL's operations in GKL's order as in the NEON kernel: svmla (a * b + c, one rounding,
 * as _mm512_fmadd) where GKL's AVX-512 kernel fuses, svmul and svadd where its AVX kernel rounds
 * each step. SVE arithmetic obeys FPCR.FZ as NEON's does, so the engine's flush-to-zero applies. */
#include <arm_sve.h>
#include <stdint.h>

#include "pairhmm_kernel.h"
#include "pairhmm_tables.h"

#if !defined(__ARM_FEATURE_SVE_BITS) || __ARM_FEATURE_SVE_BITS != SVE_BITS
#error "an SVE Pair-HMM kernel needs -msve-vector-bits=SVE_BITS (cmake/gvk_isa.cmake)"
#endif

#define FIXED __attribute__((arm_sve_vector_bits(SVE_BITS)))
typedef svfloat32_t vf_t FIXED;
typedef svfloat64_t vd_t FIXED;
typedef svint32_t vi32_t FIXED;
typedef svint64_t vi64_t FIXED;
typedef svuint32_t vu32_t FIXED;
typedef svuint64_t vu64_t FIXED;

/* Zero of the fixed-length type: the body picks between it and another vector with ?:, which
 * takes no sizeless operand. */
static inline vf_t zero_f(void) { return svdup_n_f32(0); }
static inline vd_t zero_d(void) { return svdup_n_f64(0); }

/* 1 << lane: a lane's bit in the body's MASK */
static inline vu32_t lane_bits32(void) { return svlsl_u32_x(svptrue_b32(), svdup_n_u32(1), svindex_u32(0, 1)); }
static inline vu64_t lane_bits64(void) { return svlsl_u64_x(svptrue_b64(), svdup_n_u64(1), svindex_u64(0, 1)); }

static inline unsigned ge_bits_f(vi32_t v, int j)
{
	return (unsigned)svaddv_u32(svcmpge_n_s32(svptrue_b32(), v, j), lane_bits32());
}

static inline vf_t mask_add_f(vf_t a, unsigned k, vf_t b)
{
	const svbool_t all = svptrue_b32();
	return svadd_f32_m(svcmpne_n_u32(all, svand_u32_x(all, svdup_n_u32(k), lane_bits32()), 0), a, b);
}

static inline vf_t prior_f(vi32_t rb, const int32_t *p, vf_t pm, vf_t px)
{
	const svbool_t all = svptrue_b32();
	return svsel_f32(svcmpne_n_s32(all, svand_s32_x(all, rb, svld1_s32(all, p)), 0), pm, px);
}

/* Double lanes keep the 32-bit base bits and lengths sign-extended into 64-bit lanes. */
static inline unsigned ge_bits_d(vi64_t v, int j)
{
	return (unsigned)svaddv_u64(svcmpge_n_s64(svptrue_b64(), v, j), lane_bits64());
}

static inline vd_t mask_add_d(vd_t a, unsigned k, vd_t b)
{
	const svbool_t all = svptrue_b64();
	return svadd_f64_m(svcmpne_n_u64(all, svand_u64_x(all, svdup_n_u64(k), lane_bits64()), 0), a, b);
}

static inline vd_t prior_d(vi64_t rb, const int32_t *p, vd_t pm, vd_t px)
{
	const svbool_t all = svptrue_b64();
	return svsel_f64(svcmpne_n_s64(all, svand_s64_x(all, rb, svld1sw_s64(all, p)), 0), pm, px);
}

#define T float
#define W (SVE_BITS / 32)
#define V vf_t
#define MASK unsigned
#define HB vi32_t
#define INIT PHMM_INIT_F
#define ERR phmm_err_f
#define MM phmm_mm_f
#define V_ZERO zero_f
#define V_LOAD(p) svld1_f32(svptrue_b32(), p)
#define V_STORE(p, v) svst1_f32(svptrue_b32(), p, v)
#define V_ADD(a, b) svadd_f32_x(svptrue_b32(), a, b)
#define V_MUL(a, b) svmul_f32_x(svptrue_b32(), a, b)
#define V_FMA(a, b, c) svmla_f32_x(svptrue_b32(), c, a, b)
#define V_PRIOR prior_f
#define V_MASK_ADD(a, k, a2, b) mask_add_f(a, k, b)
#define HB_LOAD(p) svld1_s32(svptrue_b32(), (const int32_t *)(p))
#define HB_GE ge_bits_f
#define ROW_FN row_f
#define PAR_FN par_f
#define KERN_FN kern_f
#include "pairhmm_body.h"

#define T double
#define W (SVE_BITS / 64)
#define V vd_t
#define MASK unsigned
#define HB vi64_t
#define INIT PHMM_INIT_D
#define ERR phmm_err_d
#define MM phmm_mm_d
#define V_ZERO zero_d
#define V_LOAD(p) svld1_f64(svptrue_b64(), p)
#define V_STORE(p, v) svst1_f64(svptrue_b64(), p, v)
#define V_ADD(a, b) svadd_f64_x(svptrue_b64(), a, b)
#define V_MUL(a, b) svmul_f64_x(svptrue_b64(), a, b)
#define V_FMA(a, b, c) svmla_f64_x(svptrue_b64(), c, a, b)
#define V_PRIOR prior_d
#define V_MASK_ADD(a, k, a2, b) mask_add_d(a, k, b)
#define HB_LOAD(p) svld1sw_s64(svptrue_b64(), (const int32_t *)(p))
#define HB_GE ge_bits_d
#define ROW_FN row_d
#define PAR_FN par_d
#define KERN_FN kern_d
#include "pairhmm_body.h"

const phmm_isa_t SVE_ISA = {SVE_NAME, SVE_BITS / 32, SVE_BITS / 64, kern_f, kern_d};
