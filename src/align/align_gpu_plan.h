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
#include "align_kernel.h"

enum { AG_W = 16, AG_B = 64 };    /* columns per strip (16 x 4 move bits = one word); pairs per block */
enum { AG_M, AG_I, AG_D, AG_S }; /* element op codes: element = len << 2 | op */
/* Elements per pair in the copied-back output; a longer CIGAR is fetched from the device scratch. */
enum { AG_CAP = 32 };
/* The GPU takes pairs of at most AG_MAX_CELLS cells (a block of 64 such pairs needs up to 128 MB
 * of scratch); larger ones stay on the CPU engine within the same batch. */
#define AG_MAX_CELLS ((int64_t)1 << 22)

static inline int ag_fits(const al_job_t *j) { return (int64_t)j->n * j->m <= AG_MAX_CELLS; }
/* Chunks of at most AG_WARP_PAIRS pairs run the warp schedule (align_gpu_pair.h): one thread per
 * pair would leave most multiprocessors idle and make the launch as long as its largest pair. */
enum { AG_WARP_PAIRS = 16384 };

#if defined(__CUDACC__) || defined(__HIP__) /* nvcc or hipcc */
#define AG_HOST_DEVICE __host__ __device__
#else
#define AG_HOST_DEVICE
#endif

/* The warp schedule (align_gpu_pair.h): lanes per warp; how many steps a warp's first lane lags
 * behind the last lane of the warp before it (they meet through shared memory, a barrier every
 * AG_WLAG steps, in a ring of AG_WRING rows); the most warps a pair takes; and up to how many pairs
 * a chunk gives each pair several warps (beyond, fewer pairs would run at once than the chunk
 * has). */
enum { AG_LANES = 32, AG_WLAG = 8, AG_WRING = 4 * AG_WLAG, AG_WMAX_WARPS = 4, AG_WIDE_PAIRS = 512 };

/* A lane's lag behind lane 0 of its pass, in steps. */
static inline AG_HOST_DEVICE int ag_woff(int t) { return t + AG_WLAG * (t / AG_LANES); }

/* Strips of 4 columns take the fewest steps (a step is a chain of as many dependent cells as the
 * strip is wide): warps of them for a pair as wide as needs, up to AG_WMAX_WARPS. */
static inline AG_HOST_DEVICE int ag_wwarps(int m)
{
	const int lanes = (m + 3) / 4, w = (lanes + AG_LANES - 1) / AG_LANES;
	return w < 1 ? 1 : w > AG_WMAX_WARPS ? AG_WMAX_WARPS : w;
}

/* The strip width of a pair of m alt columns on nw warps: 4 with several warps; on one warp the
 * narrowest of 4, 8 and 16 that still fits the alt in one pass (docs/align-gpu.md, "Small chunks"). */
static inline AG_HOST_DEVICE int ag_wwidth(int m, int nw)
{
	return nw > 1 || m <= 4 * AG_LANES ? 4 : m <= 8 * AG_LANES ? 8 : 16;
}

/* Steps of pass g over n rows of nq strips on nl lanes: the rows plus the lag of its last active
 * lane. */
static inline AG_HOST_DEVICE int ag_wsteps(int n, int nq, int nl, int g)
{
	const int act = nq - nl * g;
	return n + ag_woff((act < nl ? act : nl) - 1);
}

/* A pair's cells in a chain on nw warps: each pass's steps times the strip width, the time its
 * launch lasts at least. */
static inline int64_t ag_wchain_cells(int n, int m, int nw)
{
	const int W = ag_wwidth(m, nw), nq = (m + W - 1) / W, nl = AG_LANES * nw;
	int64_t cells = 0;
	for (int g = 0; g * nl < nq; ++g) cells += (int64_t)ag_wsteps(n, nq, nl, g) * W;
	return cells;
}

#ifdef __cplusplus
#define AG_ALIGN8 alignas(8)
#else
#define AG_ALIGN8 _Alignas(8)
#endif

typedef struct {
	AG_ALIGN8 int32_t x;
	int32_t y;
} ag_int2_t;

static inline AG_HOST_DEVICE ag_int2_t ag_int2(int32_t x, int32_t y)
{
	ag_int2_t v;
	v.x = x, v.y = y;
	return v;
}

/* Bytes of a pair's moves in the warp schedule's shared memory (strips x rows words). */
static inline AG_HOST_DEVICE size_t ag_wmoves_bytes(int n, int m)
{
	return (size_t)((m + AG_W - 1) / AG_W) * (size_t)n * 8;
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

/* A block of the batch as the host plans it: pairs order[first .. first + cnt), its descriptor
 * (offsets within its chunk's scratch) and where its sequences and elements start in its chunk. */
typedef struct {
	size_t first;
	int32_t cnt;
	ag_block_t dev;
	uint64_t seq, el;
	size_t seq_bytes, el_n; /* its pairs' sequence bytes and n + m + 2 elements */
} ag_hblock_t;

/* A chunk: blocks b0 .. b0 + nb, pairs order[beg .. beg + n). Input buffer = jobs, blocks and
 * sequences back to back (in_bytes); output = results then AG_CAP elements per pair (out_bytes);
 * device scratch = moves, carry, bottom rows, full elements (scratch_bytes, el_at within it). */
typedef struct {
	size_t beg, n, b0, nb;
	size_t jobs_at, blocks_at, seq_at, in_bytes;
	size_t res_at, out_at, out_bytes;
	size_t carry_at, bottom_at, el_at, scratch_bytes;
	int nw; /* the warp schedule's warps per pair (ag_wwarps of the widest pair, or 1) */
} ag_plan_t;

static inline int ag_use_warp(const ag_plan_t *p) { return p->n <= AG_WARP_PAIRS; }

/* A batch cut into blocks and chunks. */
typedef struct {
	size_t n, nblk, nchunk;
	size_t *order;      /* the pairs sorted for the GPU (similar strip counts and lengths together) */
	ag_hblock_t *blk;
	ag_plan_t *chunk;
} ag_batch_t;

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts jobs[0..n), cuts them into blocks (the shape scan on nt threads) and the blocks into
 * chunks of at most `budget` bytes of input, output and scratch each (at least one block).
 * GVK_ERR_NOMEM or 0; free with ag_batch_free. */
int ag_batch_plan(const al_job_t *jobs, size_t n, size_t budget, int nt, ag_batch_t *b);
void ag_batch_free(ag_batch_t *b);

/* Writes block b's descriptor, its pairs' job headers and sequences into the input buffer `in`
 * of its chunk p: the one place the per-pair headers are built. */
void ag_pack_block(const al_job_t *jobs, const ag_batch_t *bt, const ag_plan_t *p, size_t b, uint8_t *in);

/* Converts count packed elements into el. */
void ag_decode(const uint32_t *ev, int count, al_elem_t *el);

/* The chunk's view over host or device buffers holding its input, output and scratch. */
ag_chunk_dev_t ag_view(const ag_plan_t *p, uint8_t *in, uint8_t *out, uint8_t *scr);

#ifdef __cplusplus
}
#endif

#endif
