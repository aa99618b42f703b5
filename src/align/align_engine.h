/* SPDX-License-Identifier: MIT */
/* Internal interface between the alignment engine, its GPU chunk pipeline (align_gpu_pipe.c) and
 * the GPU back ends that pipeline drives: CUDA (align_gpu.cu, or the stub in align_nogpu.c) and
 * the CPU emulation (align_gpu_emu.c). A back end runs one chunk per slot and returns, per pair,
 * the end cell's offset and score and the CIGAR elements; CIGAR text and the substring shortcut
 * stay on the host, shared with the CPU path. */
#ifndef GVK_ALIGN_ENGINE_H
#define GVK_ALIGN_ENGINE_H

#include <stddef.h>
#include "align_gpu_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host slots of the pipeline: chunk k + 1 is packed and chunk k - 1 formatted while chunk k runs. */
enum { AG_SLOTS = 3 };

/* A back end. Slot s holds one chunk from buffers() to the end of its formatting; the pipeline
 * submits chunks in order and waits for chunk k before it submits chunk k + 2, so a back end
 * needs two sets of device buffers. */
typedef struct {
	void *ctx;
	/* Host input and output buffers of slot s, big enough for chunk p (pinned on a real GPU). */
	int (*buffers)(void *ctx, int s, const ag_plan_t *p, uint8_t **in, uint8_t **out, gvk_err_t *err);
	/* Starts slot s's chunk (input copy, kernel, output copy) without waiting for it. */
	int (*submit)(void *ctx, int s, const ag_plan_t *p, int java, gvk_err_t *err);
	/* Waits for slot s's chunk; adds its kernel time to *kernel_s. */
	int (*wait)(void *ctx, int s, double *kernel_s, gvk_err_t *err);
	/* Copies `count` full elements of a long CIGAR (element offset `el` in the chunk's scratch) of
	 * slot s's chunk, after its wait and before the next submit. */
	int (*fetch)(void *ctx, int s, uint64_t el, int count, uint32_t *dst, gvk_err_t *err);
} ag_backend_t;

/* Receives the result of jobs[k] on worker thread tid (0 .. nt - 1), elements in el[0..ne). */
typedef int (*ag_emit_fn)(void *arg, int tid, size_t k, const al_elem_t *el, int ne, int32_t offset, int32_t score);

/* Where the time of an ag_run went, seconds (for the engine's DEBUG messages). */
typedef struct {
	double plan;   /* sort, blocks and chunks */
	double kernel; /* the back end's kernels (they overlap the rest) */
	double host;   /* packing and formatting on the threads, the part the kernels did not hide included */
	double wait;   /* waiting for chunks: the kernels' part the host work did not hide */
	size_t chunks;
} ag_times_t;

/* Host work to run while the back end computes: called once on ag_run's thread, after the last
 * chunk was submitted and before it is waited for, when no packing or formatting runs. */
typedef struct {
	void (*fn)(void *arg);
	void *arg;
} ag_idle_t;

/* Aligns jobs[0..n) (each of at most AG_MAX_CELLS cells) through back end be in chunks of at most
 * `budget` bytes: packing and formatting (emit) run on nt threads, overlapped with the back end's
 * chunks; idle (fn may be NULL) runs under the last chunk. Adds its times to *tm. 0 or a negative
 * code; on failure every submitted chunk has been waited for and idle may not have run. */
int ag_run(const ag_backend_t *be, const al_job_t *jobs, size_t n, int java, int nt, size_t budget, ag_emit_fn emit,
           void *arg, ag_idle_t idle, ag_times_t *tm, gvk_err_t *err);

/* A pair's state in a batch (the engine's pos[k]): the substring shortcut's answer (>= 0), to
 * align, answered by the GPU, given to the CPU threads to align under the GPU's launch (CPU
 * assist), or answered by them. */
enum { AL_TODO = -1, AL_DONE = -2, AL_HOST = -3, AL_HOSTED = -4 };

/* CPU assist (align_assist.c): in a batch small enough that the GPU's time is that of its longest
 * pair, marks AL_HOST the AL_TODO pairs the GPU takes (ag_fits) that the CPU threads should align
 * instead, for the shortest time of both; cpu_lanes is the CPU kernel set's width. Returns how many
 * it marked; *all is set when that is every pair the GPU would have taken. */
size_t al_assist_pick(const al_job_t *jobs, int *pos, size_t n, int cpu_lanes, int *all);
/* The cells one CPU core aligns in the time of the shortest call through gvk serve (a round trip
 * and a launch): the default of server_min_work. */
double al_assist_server_cells(int cpu_lanes);

/* The CUDA back end. NULL with err filled when there is no usable GPU. */
typedef struct al_gpu_s al_gpu_t;
#include "align_testing.h" /* al_create */
/* CPU assist (al_assist_pick) on or off; on by default, off in the tests of the GPU kernels. */
void al_set_cpu_assist(gvk_align_t *e, int on);

al_gpu_t *al_gpu_open(const gvk_align_opts_t *opt, gvk_err_t *err);
void al_gpu_close(al_gpu_t *g);
const char *al_gpu_name(const al_gpu_t *g);
ag_backend_t al_gpu_backend(al_gpu_t *g);
size_t al_gpu_budget(const al_gpu_t *g); /* bytes per chunk */

/* The emulation: the kernel's per-pair code run on the CPU on nt threads, for tests. */
typedef struct al_emu_s al_emu_t;
al_emu_t *al_emu_open(int nt);
void al_emu_close(al_emu_t *m);
ag_backend_t al_emu_backend(al_emu_t *m);

#ifdef __cplusplus
}
#endif

#endif
