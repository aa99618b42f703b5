/* SPDX-License-Identifier: MIT */
/* Scalar Pair-HMM: the readable reference. One pair at a time, row by row, the exact expressions of
 * docs/pairhmm.md, Semantics 9. Every other kernel must return the same bits. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pairhmm_kernel.h"
#include "pairhmm_tables.h"

/* One instantiation per precision T; ERR and MM are the tables of that precision, FMA its fused
 * multiply-add, INIT the scale constant. */
#define PHMM_SCALAR(T, SUF, ERR, MM, FMA, INIT)                                                      \
	static T pair_##SUF(const gvk_read_t *r, const gvk_hap_t *h, int fused, T *row, uint8_t *hb) \
	{                                                                                            \
		const int R = r->len, H = h->len;                                                    \
		T *Mp = row, *Ip = row + H + 1, *Dp = row + 2 * (H + 1);                             \
		const T init = INIT / (T)H;                                                          \
		for (int j = 0; j <= H; ++j) Mp[j] = 0, Ip[j] = 0, Dp[j] = init;                    \
		for (int j = 0; j < H; ++j) hb[j] = phmm_base_bits((unsigned char)h->bases[j]);      \
		for (int i = 1; i <= R; ++i) {                                                       \
			int qi = r->ins[i - 1] & 127, qd = r->del[i - 1] & 127, qc = r->gcp[i - 1] & 127; \
			const T mm = MM[phmm_mm_index(qi, qd)].f, g = (T)1 - ERR[qc].f;                \
			const T mi = ERR[qi].f, ii = ERR[qc].f, md = ERR[qd].f, dd = ERR[qc].f;         \
			const T e = ERR[r->qual[i - 1] & 127].f, pm = (T)1 - e, px = e / (T)3;          \
			const uint8_t rb = phmm_base_bits((unsigned char)r->bases[i - 1]);              \
			T Md = 0, Id = 0, Dd = i == 1 ? init : 0, Ml = 0, Dl = 0;                       \
			for (int j = 1; j <= H; ++j) {                                               \
				const T Mu = Mp[j], Iu = Ip[j], Du = Dp[j];                          \
				const T prior = (rb & hb[j - 1]) ? pm : px;                          \
				T M, I, D;                                                           \
				if (fused) {                                                         \
					M = FMA(Dd, g, FMA(Id, g, Md * mm)) * prior;                 \
					I = FMA(Iu, ii, Mu * mi);                                    \
					D = FMA(Dl, dd, Ml * md);                                    \
				} else {                                                             \
					M = (Md * mm + Id * g + Dd * g) * prior;                     \
					I = Mu * mi + Iu * ii;                                       \
					D = Ml * md + Dl * dd;                                       \
				}                                                                    \
				Md = Mu, Id = Iu, Dd = Du;                                           \
				Mp[j] = Ml = M, Ip[j] = I, Dp[j] = Dl = D;                           \
			}                                                                            \
		}                                                                                    \
		T sm = 0, si = 0;                                                                    \
		for (int j = 1; j <= H; ++j) sm += Mp[j], si += Ip[j];                               \
		return sm + si;                                                                      \
	}                                                                                            \
	static int kern_##SUF(const phmm_job_t *jobs, int n, int fused, T *out, gvk_buf_t *buf)     \
	{                                                                                            \
		for (int k = 0; k < n; ++k) {                                                        \
			size_t H = (size_t)jobs[k].h->len;                                           \
			T *row = gvk_buf_reserve(buf, 3 * (H + 1) * sizeof(T) + H);                 \
			if (!row) return GVK_ERR_NOMEM;                                              \
			out[k] = pair_##SUF(jobs[k].r, jobs[k].h, fused, row, (uint8_t *)(row + 3 * (H + 1))); \
		}                                                                                    \
		return 0;                                                                            \
	}

PHMM_SCALAR(float, f, phmm_err_f, phmm_mm_f, fmaf, PHMM_INIT_F)
PHMM_SCALAR(double, d, phmm_err_d, phmm_mm_d, fma, PHMM_INIT_D)

const phmm_isa_t phmm_isa_scalar = {"scalar", 1, 1, kern_f, kern_d};
