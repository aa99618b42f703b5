/* SPDX-License-Identifier: MIT */
/* Layout of a GPU alignment chunk, shared by the CUDA back end (align_gpu.cu), its CPU emulation
 * and the per-pair logic (align_gpu_pair.h). Pairs are sorted by shape and cut into blocks of
 * AG_B (one CUDA block each, one pair per thread); a block's scratch is interleaved by thread
 * (word w of thread t at w * AG_B + t) so that the threads of a warp, which walk their matrices
 * in step, read and write consecutive words. */
#ifndef GVK_ALIGN_GPU_PLAN_H
#define GVK_ALIGN_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "align_engine.h"

enum { AG_W = 16, AG_B = 64 };    /* columns per strip (16 x 4 move bits = one word); pairs per block */
enum { AG_M, AG_I, AG_D, AG_S }; /* element op codes: element = len << 2 | op */
/* Elements per pair in the copied-back output; a longer CIGAR is fetched from the device scratch. */
enum { AG_CAP = 32 };
/* The GPU takes pairs of at most AG_MAX_CELLS cells (a block of 64 such pairs needs up to 128 MB
 * of scratch); larger ones stay on the CPU engine within the same batch. */
#define AG_MAX_CELLS ((int64_t)1 << 22)

static inline int ag_fits(const al_job_t *j) { return (int64_t)j->n * j->m <= AG_MAX_CELLS; }

#ifdef __cplusplus
#define AG_ALIGN8 alignas(8)
#else
#define AG_ALIGN8 _Alignas(8)
#endif

typedef struct {
	AG_ALIGN8 int32_t x;
	int32_t y;
} ag_int2_t;

static inline
#ifdef __CUDACC__
__host__ __device__
#endif
ag_int2_t ag_int2(int32_t x, int32_t y)
{
	ag_int2_t v;
	v.x = x, v.y = y;
	return v;
}

typedef struct {
	int32_t n, m, match, mismatch, open, extend, ovh;
	int32_t block, slot; /* its block and thread in it */
	int32_t pad;
	uint64_t seq; /* ref at seq, alt right after it */
	uint64_t el;  /* its n + m + 2 output elements */
} ag_job_t;

typedef struct {
	uint64_t moves, carry, bottom; /* offsets (in elements) of the block's scratch */
	int32_t N, M;                  /* largest n and m of its pairs */
} ag_block_t;

typedef struct {
	int32_t ne, offset, score;
} ag_res_t;

/* Device (or emulated) view of one chunk. */
typedef struct {
	const ag_job_t *jobs;
	const ag_block_t *blocks;
	const uint8_t *seq;
	uint64_t *moves;
	ag_int2_t *carry;
	int32_t *bottom;
	uint32_t *el;  /* scratch: n + m + 2 per pair */
	uint32_t *out; /* AG_CAP per pair, copied back */
	ag_res_t *res;
} ag_chunk_dev_t;

/* Host plan of a chunk: pairs order[beg .. beg + n) of the batch. Input buffer = jobs, blocks and
 * sequences back to back (in_bytes); output = results then AG_CAP elements per pair (out_bytes);
 * device scratch = moves, carry, bottom rows, full elements (scratch_bytes, el_at within it). */
typedef struct {
	size_t beg, n, nb;
	size_t seq_bytes, moves_words, carry_n, bottom_n, el_n;
	size_t jobs_at, blocks_at, seq_at, in_bytes;
	size_t res_at, out_at, out_bytes;
	size_t carry_at, bottom_at, el_at, scratch_bytes;
} ag_plan_t;

#ifdef __cplusplus
extern "C" {
#endif

/* order[0..n) = the batch's pairs sorted for the GPU (similar strip counts and lengths together). */
void ag_sort(const al_job_t *jobs, size_t n, size_t *order);

/* Plans the largest chunk starting at order[beg] (at least one block) whose input, output and
 * scratch fit in `budget` bytes. */
void ag_plan(const al_job_t *jobs, const size_t *order, size_t beg, size_t n, size_t budget, ag_plan_t *p);

/* Writes the plan's input buffer (p->in_bytes) into `in`. */
void ag_pack(const al_job_t *jobs, const size_t *order, const ag_plan_t *p, uint8_t *in);

/* Copies the chunk's results from its output buffer into the caller's arrays (al_gpu_align's);
 * a pair of more than AG_CAP elements gets room in el (at el_at) for the caller to fill. Returns
 * the number of those pairs, or GVK_ERR_NOMEM. */
long ag_unpack(const size_t *order, const ag_plan_t *p, const uint8_t *out, al_elems_t *el, size_t *el_at, int *ne,
               int32_t *offset, int32_t *score);

/* Converts count packed elements into el. */
void ag_decode(const uint32_t *ev, int count, al_elem_t *el);

/* The chunk's view over host or device buffers holding its input, output and scratch. */
ag_chunk_dev_t ag_view(const ag_plan_t *p, uint8_t *in, uint8_t *out, uint8_t *scr);

/* The GPU back end's logic run on the CPU, thread by thread (al_gpu_align's contract): for tests. */
int al_gpu_emulate(const al_job_t *jobs, size_t n, int java, al_elems_t *el, size_t *el_at, int *ne, int32_t *offset,
                   int32_t *score, gvk_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
