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

/* The body's lane helpers at one lane width B (32: float lanes, S f; 64: double lanes, S d, which
 * keep the 32-bit base bits and lengths sign-extended): lane_bitsB, 1 << lane, a lane's bit in the
 * body's MASK; ge_bits_S, the lanes whose length reaches j; mask_add_S, b added in the lanes of k;
 * prior_S, pm where the read base matches the haplotype's bits, else px. LD loads p's 32-bit bits
 * into B-bit lanes. */
#define SVE_LANE_HELPERS(B, S, VF, VI, VU, LD)                                                          \
	static inline VU lane_bits##B(void)                                                                   \
	{                                                                                                     \
		return svlsl_u##B##_x(svptrue_b##B(), svdup_n_u##B(1), svindex_u##B(0, 1));                        \
	}                                                                                                     \
	static inline unsigned ge_bits_##S(VI v, int j)                                                        \
	{                                                                                                     \
		return (unsigned)svaddv_u##B(svcmpge_n_s##B(svptrue_b##B(), v, j), lane_bits##B());                \
	}                                                                                                     \
	static inline VF mask_add_##S(VF a, unsigned k, VF b)                                                  \
	{                                                                                                     \
		const svbool_t all = svptrue_b##B();                                                            \
		return svadd_f##B##_m(svcmpne_n_u##B(all, svand_u##B##_x(all, svdup_n_u##B(k), lane_bits##B()), 0), a, b); \
	}                                                                                                     \
	static inline VF prior_##S(VI rb, const int32_t *p, VF pm, VF px)                                      \
	{                                                                                                     \
		const svbool_t all = svptrue_b##B();                                                            \
		return svsel_f##B(svcmpne_n_s##B(all, svand_s##B##_x(all, rb, LD(all, p)), 0), pm, px);           \
	}
SVE_LANE_HELPERS(32, f, vf_t, vi32_t, vu32_t, svld1_s32)
SVE_LANE_HELPERS(64, d, vd_t, vi64_t, vu64_t, svld1sw_s64)
#undef SVE_LANE_HELPERS

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
