/* SPDX-License-Identifier: MIT */
/* CPU assist for small GPU batches (docs/align-gpu.md, "CPU assist"). A batch of a few thousand
 * pairs runs one warp per pair, so its launch lasts as long as its longest pair, and a warp fills
 * a pair's cells several times slower than one CPU core does. GATK's calls are such batches: a
 * region's haplotypes against the reference are its longest pairs. The batch's own thread
 * therefore aligns the longest pairs while the GPU aligns the rest; the split minimises the longer
 * of the two times under a cost model of both (the results are the same on either side). The
 * same model keeps batches smaller than a call's fixed cost out of gvk serve. */
#include <stdint.h>
#include <stdlib.h>

#include "align_engine.h"
#include "align_gpu_plan.h"

/* The model, in nanoseconds, fitted to gvk serve's per-launch timings on an H200 host under load
 * (docs/align-gpu.md): a launch's fixed cost (copies, launch, synchronisation, a warp's first
 * strips), a call through gvk serve (a launch and a round trip), a warp's cost per cell of its
 * chain (ag_wchain_cells: a pair on a warp takes its rows plus the lanes' lag in steps of a strip's
 * width, whatever its other side), and one busy CPU core's per cell for the widest to the
 * narrowest kernel sets. The assist runs on the batch's own thread: a thread started per call can
 * wait a scheduler period on a busy host, and a shared host's cores serve other batches. */
#define GPU_LAUNCH_NS 150000.0
#define SERVER_CALL_NS (GPU_LAUNCH_NS + 20000.0)
#define GPU_CHAIN_CELL_NS 35.0
#define CPU_CELL_NS(lanes) ((lanes) >= 16 ? 0.4 : (lanes) >= 8 ? 0.5 : 3.5)

/* Pairs shorter on a warp than the longest by this factor are never worth moving: the GPU's time
 * would be bound by its launch before their turn. */
enum { CANDIDATE_DIV = 16 };

typedef struct {
	int64_t chain, cells; /* the pair on a warp (ag_wchain_cells) and on a CPU core */
	size_t k;
} cand_t;

static int cmp_chain_desc(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	if (x->chain != y->chain) return x->chain < y->chain ? 1 : -1;
	return x->k < y->k ? -1 : x->k > y->k; /* a fixed order: the same split for the same batch */
}

/* A pair's chain in a launch of n pairs: as wide as it needs when n allows several warps a pair
 * (ag_plan_t.nw), one warp otherwise. */
static int64_t job_chain(const al_job_t *j, size_t n)
{
	return ag_wchain_cells(j->n, j->m, n <= AG_WIDE_PAIRS ? ag_wwarps(j->m) : 1);
}

double al_assist_server_cells(int cpu_lanes) { return SERVER_CALL_NS / CPU_CELL_NS(cpu_lanes); }

size_t al_assist_pick(const al_job_t *jobs, int *pos, size_t n, int cpu_lanes, int *all)
{
	*all = 0;
	if (n == 0 || n > AG_WARP_PAIRS) return 0;
	size_t neligible = 0;
	int64_t top = 0;
	for (size_t k = 0; k < n; ++k) {
		if (pos[k] != AL_TODO || !ag_fits(&jobs[k])) continue;
		++neligible;
		const int64_t ch = job_chain(&jobs[k], n);
		if (ch > top) top = ch;
	}
	if (neligible == 0) return 0;
	const int64_t floor = top / CANDIDATE_DIV;
	cand_t *c = malloc(neligible * sizeof *c);
	if (!c) return 0; /* the GPU takes them all, as without assist */
	size_t nc = 0;
	for (size_t k = 0; k < n; ++k) {
		if (pos[k] != AL_TODO || !ag_fits(&jobs[k])) continue;
		const int64_t ch = job_chain(&jobs[k], n);
		if (ch >= floor) c[nc++] = (cand_t){ch, (int64_t)jobs[k].n * jobs[k].m, k};
	}
	qsort(c, nc, sizeof *c, cmp_chain_desc);
	/* Moving the i longest: the CPU needs all their cells; the GPU its launch and its own longest
	 * pair (none when nothing is left). */
	const double cpu_ns = CPU_CELL_NS(cpu_lanes);
	double best = GPU_LAUNCH_NS + GPU_CHAIN_CELL_NS * (double)c[0].chain, sum = 0;
	size_t best_i = 0;
	for (size_t i = 1; i <= nc; ++i) {
		sum += (double)c[i - 1].cells;
		const double cpu = cpu_ns * sum;
		const int64_t next = i < nc ? c[i].chain : 0;
		const double gpu = i == neligible ? 0 : GPU_LAUNCH_NS + GPU_CHAIN_CELL_NS * (double)(next > floor ? next : floor);
		const double t = cpu > gpu ? cpu : gpu;
		if (t < best) best = t, best_i = i;
	}
	for (size_t i = 0; i < best_i; ++i) pos[c[i].k] = AL_HOST;
	*all = best_i == neligible;
	free(c);
	return best_i;
}
