/* SPDX-License-Identifier: MIT */
/* NEON matrix fills (align_fill_body.h): fill4, 4 pairs in 32-bit lanes; fill_diag4, one pair 4
 * cells of an anti-diagonal at a time; fill8n, 8 pairs in 16-bit lanes with saturating adds.
 * NEON has no mask registers and no movemask: comparisons give vector masks, whose move bits are
 * the sum of the lanes' weights. Bases are widened to the lane width to compare in lanes. */
#include <arm_neon.h>
#include <string.h>

#include "align_kernel.h"

static inline unsigned bits4(uint32x4_t m)
{
	const uint32x4_t w = {1, 2, 4, 8};
	return vaddvq_u32(vandq_u32(m, w));
}

static inline unsigned bits8(uint16x8_t m)
{
	const uint16x8_t w = {1, 2, 4, 8, 16, 32, 64, 128};
	return vaddvq_u16(vandq_u16(m, w));
}

static inline int32x4_t codes4(uint32x4_t ins, uint32x4_t del, uint32x4_t ex, uint32x4_t fx)
{
	uint32x4_t c = vorrq_u32(vandq_u32(ins, vdupq_n_u32(AL_INS)), vandq_u32(del, vdupq_n_u32(AL_DEL)));
	c = vorrq_u32(c, vandq_u32(ex, vdupq_n_u32(AL_EEXT)));
	return vreinterpretq_s32_u32(vorrq_u32(c, vandq_u32(fx, vdupq_n_u32(AL_FEXT))));
}

/* The low byte of each lane into 4 consecutive bytes at p. */
static inline void store_codes4(uint8_t *p, int32x4_t c)
{
	const uint16x4_t h = vmovn_u32(vreinterpretq_u32_s32(c));
	const uint32_t b4 = vget_lane_u32(vreinterpret_u32_u8(vmovn_u16(vcombine_u16(h, h))), 0);
	memcpy(p, &b4, 4);
}

#define LANES 4
#define EL int32_t
#define MW uint16_t
#define VEC int32x4_t
#define LOADA(p) vld1q_s32(p)
#define STOREA(p, v) vst1q_s32(p, v)
#define LOADU(p) vld1q_s32(p)
#define STOREU(p, v) vst1q_s32(p, v)
#define SET1 vdupq_n_s32
#define ZERO() vdupq_n_s32(0)
#define ADD vaddq_s32
#define MAX vmaxq_s32
#define GTM uint32x4_t
#define LEM uint32x4_t
#define GT vcgtq_s32
#define LE vcleq_s32
#define GT_BITS bits4
#define LE_BITS bits4
#define BT int32_t
#define BV int32x4_t
#define BLOAD(p) vld1q_s32(p)
#define SCORE(rv, av, mis, match) vbslq_s32(vceqq_s32(rv, av), match, mis)
#define CODE codes4
#define STORE_CODES store_codes4
#define LANE_FN fill4
#define DIAG_FN fill_diag4
#include "align_fill_body.h"

#define NARROW 1
#define LANES 8
#define EL int16_t
#define MW uint16_t
#define VEC int16x8_t
#define LOADA(p) vld1q_s16(p)
#define STOREA(p, v) vst1q_s16(p, v)
#define LOADU(p) vld1q_s16(p)
#define SET1 vdupq_n_s16
#define ZERO() vdupq_n_s16(0)
#define ADD vqaddq_s16
#define MAX vmaxq_s16
#define GT vcgtq_s16
#define LE vcleq_s16
#define GT_BITS bits8
#define LE_BITS bits8
#define BT int16_t
#define BV int16x8_t
#define BLOAD(p) vld1q_s16(p)
#define SCORE(rv, av, mis, match) vbslq_s16(vceqq_s16(rv, av), match, mis)
#define LANE_FN fill8n
#include "align_fill_body.h"

/* Until timed on ARM hardware: groups go to the lane fills once they fill most of their lanes,
 * as on x86 (3 of 4, 5 of 8). */
const al_isa_t al_isa_neon = {"neon", 4, 3, fill4, fill_diag4, (size_t)1 << 22, 8, 5, fill8n};
