/* SPDX-License-Identifier: MIT */
/* Alignment engine: validates a batch, answers GATK's substring shortcut, sends the pairs the
 * GPU takes through the chunk pipeline (align_gpu_pipe.c), groups the other pairs by shape so that
 * the pairs sharing a vector fill have similar sizes, and spreads the groups over threads. Each
 * thread writes CIGAR text into its own arena; pointers are fixed up at the end. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/device_policy.h"
#include "../common/err.h"
#include "../common/gpu_lock.h"
#include "../common/log.h"
#include "../common/threads.h"
#include "../common/work_split.h"
#include "align_engine.h"
#include "align_kernel.h"
#include "../serve/serve_client.h"

typedef struct {
	char *p;
	size_t len, cap;
} arena_t;

enum { W_JOBS, W_POS, W_ORDER, W_ITEMS, W_KEYS, W_TEXT_AT, W_TEXT_TID, W_GIDX, W_GJOBS, W_N };

struct gvk_align_s {
	gvk_align_opts_t opt;
	const al_isa_t *isa;
	al_gpu_t *gpu; /* NULL: no GPU */
	al_emu_t *emu; /* tests: the GPU back end's logic on the CPU (al_create's emulate, no GPU) */
	double gpu_kernel_s;
	arena_t *arena; /* one per thread */
	gvk_buf_t wk[W_N]; /* a batch's work arrays, kept between calls (no fresh pages per call) */
	char name[400];
	srv_client_t *srv; /* opts.server while it answers (NULL: none, or it stopped) */
	int gpu_lock_fd;   /* the GPU lock held, or -1 */
	int assist;        /* CPU assist for small GPU batches (align_assist.c); tests turn it off */
};

void gvk_align_opts_init(gvk_align_opts_t *opt)
{
	if (!opt) return;
	memset(opt, 0, sizeof *opt);
	opt->flavour = GVK_SW_GKL;
	opt->threads = 1;
	opt->device = GVK_DEVICE_AUTO;
	opt->isa = GVK_ISA_AUTO;
	opt->gpu = -1;
	opt->gpu_chunk_mb = 0;
	gvk_log_default(&opt->log);
}

/* Default chunk of the emulation (the GPU's depends on its free memory). */
#define EMU_CHUNK_BYTES ((size_t)256 << 20)

int gvk_align_opts_check(const gvk_align_opts_t *o, gvk_err_t *err)
{
	if (!o) return gvk_err_null(err, __func__, "o");
	if (o->flavour != GVK_SW_GKL && o->flavour != GVK_SW_JAVA)
		return gvk_err_set(err, GVK_ERR_ARG, "flavour %d is not GVK_SW_GKL or _JAVA", o->flavour);
	if (o->device != GVK_DEVICE_AUTO && o->device != GVK_DEVICE_CPU && o->device != GVK_DEVICE_GPU)
		return gvk_err_set(err, GVK_ERR_ARG, "device %d is not GVK_DEVICE_AUTO, _CPU or _GPU", o->device);
	if (o->gpu < -1) return gvk_err_set(err, GVK_ERR_ARG, "gpu must be -1 (the first GPU) or a device index, not %d", o->gpu);
	if (o->gpu_chunk_mb < 0 || o->gpu_chunk_mb > GVK_ALIGN_MAX_CHUNK_MB)
		return gvk_err_set(err, GVK_ERR_ARG, "gpu_chunk_mb %d is out of range (0 = automatic, 1..%d MiB)", o->gpu_chunk_mb,
		                   GVK_ALIGN_MAX_CHUNK_MB);
	if (!(o->gpu_min_work >= 0)) return gvk_err_set(err, GVK_ERR_ARG, "gpu_min_work must be 0 (the policy's) or positive");
	if (!(o->server_min_work >= 0 && o->server_min_work < 1e300))
		return gvk_err_set(err, GVK_ERR_ARG, "server_min_work must be 0 (the model's) or positive");
	return 0;
}

gvk_align_t *gvk_align_create(const gvk_align_opts_t *opt, gvk_err_t *err) { return al_create(opt, 0, err); }

gvk_align_t *al_create(const gvk_align_opts_t *opt, int emulate, gvk_err_t *err)
{
	if (!opt) {
		gvk_err_null(err, __func__, "opt");
		return NULL;
	}
	if (gvk_align_opts_check(opt, err) < 0) return NULL;
	const al_isa_t *isa = al_isa_select(opt->isa);
	if (!isa) {
		gvk_err_set(err, GVK_ERR_UNSUPPORTED, "the requested CPU kernel is not available on this CPU or build");
		return NULL;
	}
	gvk_align_t *e = calloc(1, sizeof *e);
	int nt = opt->threads < 1 ? gvk_ncpu() : opt->threads;
	if (!e || !(e->arena = calloc((size_t)nt, sizeof *e->arena))) {
		free(e);
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	e->opt = *opt;
	e->opt.threads = nt;
	e->opt.server = e->opt.gpu_lock = NULL;
	e->isa = isa;
	e->gpu_lock_fd = -1;
	e->assist = 1;
	snprintf(e->name, sizeof e->name, "cpu-%s", isa->name);
	char note[256];
	int passed = al_isa_note(isa, opt->isa, note, sizeof note);
	if (passed) gvk_logf(&opt->log, GVK_LOG_INFO, "align: CPU kernel %s", note);
	/* With a server, the engine's own work (the server gone) is the CPU's. */
	if (opt->server && opt->device != GVK_DEVICE_CPU) {
		gvk_err_t cerr = {0, ""};
		e->opt.device = GVK_DEVICE_CPU;
		if ((e->srv = srv_client_connect(opt->server, &cerr)) != NULL)
			snprintf(e->name, sizeof e->name, "server:%s", srv_client_device(e->srv));
		else
			gvk_logf(&opt->log, GVK_LOG_WARN, "gvk serve cannot be used (%s); align computes on the CPU", cerr.msg);
	}
#ifdef GVK_HAVE_CUDA
	/* A build without a GPU back end has no GPU to share. */
	if (e->opt.device == GVK_DEVICE_AUTO && opt->gpu_lock && !gvk_gpu_lock_claim(opt->gpu_lock, &e->gpu_lock_fd, &opt->log, "align"))
		e->opt.device = GVK_DEVICE_CPU;
#endif
	if (e->opt.device != GVK_DEVICE_CPU) {
		gvk_err_t gerr = {0, ""};
		e->gpu = al_gpu_open(opt, &gerr);
		if (!e->gpu) gvk_gpu_lock_release(e->gpu_lock_fd), e->gpu_lock_fd = -1;
		if (e->gpu)
			snprintf(e->name, sizeof e->name, "%s%s (+cpu-%s)", opt->device == GVK_DEVICE_AUTO ? "auto: " : "",
			         al_gpu_name(e->gpu), isa->name);
		else if (emulate) {
			if (!(e->emu = al_emu_open(nt))) {
				gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
				gvk_align_destroy(e);
				return NULL;
			}
			snprintf(e->name, sizeof e->name, "gpu-emulated (+cpu-%s)", isa->name);
		} else if (opt->device == GVK_DEVICE_GPU) {
			/* Device gpu means the GPU or an error; "no GPU (...)", a machine without one, says it all. */
			if (!strncmp(gerr.msg, "no GPU (", 8)) gvk_err_set(err, gerr.code ? gerr.code : GVK_ERR_GPU, "%s", gerr.msg);
			else gvk_err_set(err, gerr.code ? gerr.code : GVK_ERR_GPU, "no usable GPU for align (%s)", gerr.msg);
			gvk_align_destroy(e);
			return NULL;
		} else if (gerr.code != GVK_ERR_UNSUPPORTED) {
			gvk_logf(&opt->log, GVK_LOG_INFO, "align: the GPU cannot be used (%s); aligning on the CPU", gerr.msg);
		}
	}
	return e;
}

void al_set_cpu_assist(gvk_align_t *e, int on) { e->assist = on; }

void gvk_align_destroy(gvk_align_t *e)
{
	if (!e) return;
	srv_client_close(e->srv);
	gvk_gpu_lock_release(e->gpu_lock_fd);
	al_gpu_close(e->gpu);
	al_emu_close(e->emu);
	for (int w = 0; w < W_N; ++w) gvk_buf_free(&e->wk[w]);
	for (int t = 0; t < e->opt.threads; ++t) free(e->arena[t].p);
	free(e->arena);
	free(e);
}

const char *gvk_align_device_name(const gvk_align_t *e) { return e ? e->name : "none"; }
double gvk_align_gpu_kernel_seconds(const gvk_align_t *e) { return e ? e->gpu_kernel_s : 0; }

/* A unit of work: pairs order[beg..beg+cnt) filled together by one kernel, or one pair answered
 * by the shortcut (pos >= 0). */
enum { K_LANES, K_SINGLE, K_NARROW };

typedef struct {
	size_t beg;
	int cnt, pos, kernel;
} item_t;

typedef struct {
	gvk_align_t *e;
	const al_job_t *jobs;
	const size_t *order;
	const item_t *items;
	size_t n_items;
	atomic_size_t next;
	atomic_int err;
	gvk_align_result_t *out;
	size_t *text_at; /* per pair: offset of its text in its thread's arena */
	int16_t *text_tid;
} run_t;

static char *arena_reserve(arena_t *a, size_t bytes)
{
	if (a->len + bytes > a->cap) {
		size_t cap = (a->len + bytes) * 2 + 65536;
		char *p = realloc(a->p, cap);
		if (!p) return NULL;
		a->p = p, a->cap = cap;
	}
	return a->p + a->len;
}

/* Traceback, CIGAR text and result of one pair once its fill is done. */
static int finish_pair(run_t *r, int tid, size_t k, const al_fill_t *f, gvk_buf_t *elbuf)
{
	const al_job_t *jb = &r->jobs[k];
	const int java = r->e->opt.flavour == GVK_SW_JAVA;
	al_elem_t *el = gvk_buf_reserve(elbuf, ((size_t)jb->n + jb->m + 2) * sizeof *el);
	if (!el) return GVK_ERR_NOMEM;
	int p1, p2;
	int32_t score = al_end_cell(jb, f, &p1, &p2), offset;
	int ne = al_traceback(jb, &f->mv, p1, p2, java, el, &offset);
	arena_t *a = &r->e->arena[tid];
	size_t cap = (size_t)ne * 11;
	char *t = arena_reserve(a, cap + 1);
	if (!t) return GVK_ERR_NOMEM;
	int gkl_cap = java ? -1 : 2 * (jb->n > jb->m ? jb->n : jb->m);
	int len = al_cigar_text(el, ne, gkl_cap, t, cap);
	r->text_at[k] = a->len, r->text_tid[k] = (int16_t)tid;
	a->len += (size_t)len + 1;
	r->out[k] = (gvk_align_result_t){NULL, len, offset, score};
	return 0;
}

static int run_item(run_t *r, int tid, const item_t *it, al_scratch_t *s, gvk_buf_t *elbuf)
{
	const al_job_t *jobs[64];
	al_fill_t f[64]; /* >= the widest kernel's lanes */
	if (it->pos >= 0) {
		size_t k = r->order[it->beg];
		arena_t *a = &r->e->arena[tid];
		char *t = arena_reserve(a, 16);
		if (!t) return GVK_ERR_NOMEM;
		int len = snprintf(t, 16, "%dM", r->jobs[k].m);
		r->text_at[k] = a->len, r->text_tid[k] = (int16_t)tid;
		a->len += (size_t)len + 1;
		r->out[k] = (gvk_align_result_t){NULL, len, it->pos, r->jobs[k].m * r->jobs[k].match};
		return 0;
	}
	const al_isa_t *isa = r->e->isa;
	for (int l = 0; l < it->cnt; ++l) jobs[l] = &r->jobs[r->order[it->beg + (size_t)l]];
	al_fill_fn fill = it->kernel == K_SINGLE ? isa->fill_single : it->kernel == K_NARROW ? isa->fill_narrow : isa->fill;
	int rc = fill(jobs, it->cnt, r->e->opt.flavour == GVK_SW_GKL, s, f);
	for (int l = 0; l < it->cnt && rc == 0; ++l) rc = finish_pair(r, tid, r->order[it->beg + (size_t)l], &f[l], elbuf);
	return rc;
}

static void run_worker(void *arg, int tid)
{
	run_t *r = arg;
	al_scratch_t s;
	memset(&s, 0, sizeof s);
	gvk_buf_t elbuf = {0};
	for (;;) {
		size_t k = atomic_fetch_add(&r->next, 1);
		if (k >= r->n_items || atomic_load(&r->err)) break;
		int rc = run_item(r, tid, &r->items[k], &s, &elbuf);
		if (rc < 0) {
			atomic_store(&r->err, rc);
			break;
		}
	}
	al_scratch_free(&s);
	gvk_buf_free(&elbuf);
}

/* The shortcut search is itself O(n * m) in the worst case, so it runs on the threads too. */
typedef struct {
	const al_job_t *jobs;
	size_t n;
	int nt;
	int *pos;
} scan_t;

static void scan_worker(void *arg, int tid)
{
	scan_t *s = arg;
	for (size_t k = (size_t)tid; k < s->n; k += (size_t)s->nt) {
		const al_job_t *jb = &s->jobs[k];
		s->pos[k] = jb->ovh == GVK_OVERHANG_SOFTCLIP || jb->ovh == GVK_OVERHANG_IGNORE ? al_last_occurrence(jb) : -1;
	}
}

typedef struct {
	uint64_t key;
	size_t idx;
} sortkey_t;

static int cmp_key_desc(const void *a, const void *b)
{
	uint64_t x = ((const sortkey_t *)a)->key, y = ((const sortkey_t *)b)->key;
	return x < y ? 1 : x > y ? -1 : 0;
}

enum { WINDOW = 256 };

/* Sorts keys[0..nf) by ref length, then within windows of WINDOW by alt length, so that
 * neighbours have similar shapes. */
static void sort_by_shape(const al_job_t *jobs, sortkey_t *keys, size_t nf)
{
	for (size_t k = 0; k < nf; ++k) keys[k].key = (uint64_t)jobs[keys[k].idx].n << 32 | (uint32_t)jobs[keys[k].idx].m;
	qsort(keys, nf, sizeof *keys, cmp_key_desc);
	for (size_t w = 0; w < nf; w += WINDOW) {
		size_t cnt = nf - w < WINDOW ? nf - w : WINDOW;
		for (size_t k = w; k < w + cnt; ++k) keys[k].key = (uint64_t)jobs[keys[k].idx].m << 32 | (uint32_t)jobs[keys[k].idx].n;
		qsort(keys + w, cnt, sizeof *keys, cmp_key_desc);
	}
}

/* Cuts keys[0..nf) (sorted) into items: groups of up to `lanes` pairs whose padded matrix has at
 * most max_cells cells, run by `kernel`; a group smaller than min_group falls back to the next
 * kernel down (narrow -> lanes -> single). order[base + k] receives keys[k].idx. */
static size_t cut_items(const al_isa_t *isa, const al_job_t *jobs, const sortkey_t *keys, size_t nf, size_t base,
                        size_t *order, item_t *items, int kernel)
{
	const int lanes = kernel == K_NARROW ? isa->lanes_narrow : isa->lanes;
	const int min_group = kernel == K_NARROW ? isa->min_group_narrow : isa->min_group;
	const size_t max_cells = kernel == K_NARROW ? isa->max_cells / 2 : isa->max_cells;
	size_t ni = 0;
	for (size_t k = 0; k < nf;) {
		order[base + k] = keys[k].idx;
		const al_job_t *jb = &jobs[keys[k].idx];
		if ((size_t)jb->n * (size_t)jb->m > max_cells) {
			items[ni++] = (item_t){base + k, 1, -1, K_SINGLE};
			++k;
			continue;
		}
		size_t beg = k;
		int N = jb->n, M = jb->m, cnt = 1;
		for (++k; k < nf && cnt < lanes; ++k, ++cnt) {
			const al_job_t *nx = &jobs[keys[k].idx];
			int N2 = N > nx->n ? N : nx->n, M2 = M > nx->m ? M : nx->m;
			if ((size_t)N2 * (size_t)M2 > max_cells) break;
			order[base + k] = keys[k].idx, N = N2, M = M2;
		}
		if (cnt >= min_group)
			items[ni++] = (item_t){base + beg, cnt, -1, kernel};
		else if (kernel == K_NARROW)
			ni += cut_items(isa, jobs, keys + beg, (size_t)cnt, base + beg, order, items + ni, K_LANES);
		else
			for (int l = 0; l < cnt; ++l) items[ni++] = (item_t){base + beg + (size_t)l, 1, -1, K_SINGLE};
	}
	return ni;
}

/* Orders the pairs whose pos is `want` (AL_TODO or AL_HOST) to fill and cuts them into items:
 * with AL_TODO the shortcut answers first, then the pairs that fit 16-bit lanes (when the kernel
 * set has them), then the others. */
static size_t plan_items(const gvk_align_t *e, const al_job_t *jobs, const int *pos, size_t n, int want,
                         size_t *order, item_t *items, sortkey_t *keys)
{
	const al_isa_t *isa = e->isa;
	size_t ni = 0, nnar = 0, nf = 0;
	for (size_t k = 0; k < n; ++k) {
		if (pos[k] >= 0 && want == AL_TODO) {
			order[n - 1 - ni] = k;
			items[ni] = (item_t){n - 1 - ni, 1, pos[k], K_SINGLE};
			++ni;
		} else if (pos[k] == want && isa->fill_narrow && al_fits_int16(&jobs[k])) {
			keys[nnar++].idx = k;
		}
	}
	nf = nnar;
	for (size_t k = 0; k < n; ++k)
		if (pos[k] == want && !(isa->fill_narrow && al_fits_int16(&jobs[k]))) keys[nf++].idx = k;
	sort_by_shape(jobs, keys, nnar);
	sort_by_shape(jobs, keys + nnar, nf - nnar);
	ni += cut_items(isa, jobs, keys, nnar, 0, order, items + ni, K_NARROW);
	ni += cut_items(isa, jobs, keys + nnar, nf - nnar, nnar, order, items + ni, K_LANES);
	return ni;
}

/* The pairs al_assist_pick gave to the CPU, aligned on the batch's thread while the GPU runs the
 * others. */
typedef struct {
	gvk_align_t *e;
	const al_job_t *jobs;
	int *pos;
	size_t n, *order;
	item_t *items;
	sortkey_t *keys;
	gvk_align_result_t *out;
	size_t *text_at;
	int16_t *text_tid;
	int rc;
} host_t;

static void host_part(void *arg)
{
	host_t *h = arg;
	const size_t ni = plan_items(h->e, h->jobs, h->pos, h->n, AL_HOST, h->order, h->items, h->keys);
	run_t r = {h->e, h->jobs, h->order, h->items, ni, 0, 0, h->out, h->text_at, h->text_tid};
	if (ni > 0) run_worker(&r, 0);
	if ((h->rc = atomic_load(&r.err)) < 0) return;
	for (size_t k = 0; k < h->n; ++k)
		if (h->pos[k] == AL_HOST) h->pos[k] = AL_HOSTED;
}

/* After the GPU part: pairs left AL_HOST (the GPU failed before their turn) go to the CPU path,
 * and after a failure (whose fall-back empties the arenas) so do the ones already answered. */
static void host_settle(int *pos, size_t n, int failed)
{
	for (size_t k = 0; k < n; ++k)
		if (pos[k] == AL_HOST || (failed && pos[k] == AL_HOSTED)) pos[k] = AL_TODO;
}

static int text_out(gvk_align_t *e, int tid, size_t k, const al_job_t *jb, const al_elem_t *el, int ne, int32_t offset,
                    int32_t score, gvk_align_result_t *out, size_t *text_at, int16_t *text_tid)
{
	const int java = e->opt.flavour == GVK_SW_JAVA;
	arena_t *a = &e->arena[tid];
	size_t cap = (size_t)ne * 11;
	if (!arena_reserve(a, cap + 1)) return GVK_ERR_NOMEM;
	int gkl_cap = java ? -1 : 2 * (jb->n > jb->m ? jb->n : jb->m);
	int len = al_cigar_text(el, ne, gkl_cap, a->p + a->len, cap);
	text_at[k] = a->len, text_tid[k] = (int16_t)tid;
	a->len += (size_t)len + 1;
	out[k] = (gvk_align_result_t){NULL, len, offset, score};
	return 0;
}

/* Where the GPU pipeline's results go: GPU job k is pair idx[k] of the batch. */
typedef struct {
	gvk_align_t *e;
	const al_job_t *jobs;
	const size_t *idx;
	gvk_align_result_t *out;
	size_t *text_at;
	int16_t *text_tid;
} gemit_t;

static int gpu_emit(void *arg, int tid, size_t k, const al_elem_t *el, int ne, int32_t offset, int32_t score)
{
	const gemit_t *g = arg;
	const size_t i = g->idx[k];
	return text_out(g->e, tid, i, &g->jobs[i], el, ne, offset, score, g->out, g->text_at, g->text_tid);
}

/* The GPU's jobs, compacted in batch order on the threads (a count, then each thread's range
 * copied to its place): serial, this copy of half a million jobs sat before the first kernel. */
enum { PICK_MAX_THREADS = 256, PREP_PARALLEL = 65536 }; /* PREP_PARALLEL: batches split over the threads */

typedef struct {
	const al_job_t *jobs;
	const int *pos;
	size_t n, *idx, at[PICK_MAX_THREADS + 1];
	al_job_t *gj;
	int nt, fill;
} pick_t;

static void pick_worker(void *arg, int t)
{
	pick_t *w = arg;
	const size_t beg = gvk_part(w->n, t, w->nt), end = gvk_part(w->n, t + 1, w->nt);
	size_t c = w->fill ? w->at[t] : 0;
	for (size_t k = beg; k < end; ++k) {
		if (w->pos[k] != AL_TODO || !ag_fits(&w->jobs[k])) continue;
		if (w->fill) w->idx[c] = k, w->gj[c] = w->jobs[k];
		++c;
	}
	if (!w->fill) w->at[t + 1] = c;
}

static size_t pick_gpu_jobs(const gvk_align_t *e, const al_job_t *jobs, const int *pos, size_t n, size_t *idx, al_job_t *gj)
{
	pick_t w = {jobs, pos, n, idx, {0}, gj, n >= PREP_PARALLEL ? e->opt.threads : 1, 0};
	if (w.nt > PICK_MAX_THREADS) w.nt = PICK_MAX_THREADS;
	gvk_parallel(w.nt, pick_worker, &w);
	for (int t = 0; t < w.nt; ++t) w.at[t + 1] += w.at[t];
	w.fill = 1;
	gvk_parallel(w.nt, pick_worker, &w);
	return w.at[w.nt];
}

/* The pairs the GPU takes (ag_fits, not answered by the shortcut) through the chunk pipeline,
 * their text into the threads' arenas. On success their pos becomes AL_DONE and *ndone counts
 * them; larger pairs and the shortcut's answers stay for the CPU path. */
static int gpu_batch(gvk_align_t *e, const al_job_t *jobs, int *pos, size_t n, gvk_align_result_t *out,
                     size_t *text_at, int16_t *text_tid, ag_idle_t idle, size_t *ndone, gvk_err_t *err)
{
	size_t *idx = gvk_buf_reserve(&e->wk[W_GIDX], n * sizeof *idx), cnt = 0;
	al_job_t *gj = gvk_buf_reserve(&e->wk[W_GJOBS], n * sizeof *gj);
	int rc = 0;
	if (!idx || !gj) rc = gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
	else cnt = pick_gpu_jobs(e, jobs, pos, n, idx, gj);
	if (rc == 0 && cnt > 0) {
		const int java = e->opt.flavour == GVK_SW_JAVA;
		const ag_backend_t be = e->gpu ? al_gpu_backend(e->gpu) : al_emu_backend(e->emu);
		const size_t budget = e->opt.gpu_chunk_mb > 0 ? (size_t)e->opt.gpu_chunk_mb << 20
		                      : e->gpu                ? al_gpu_budget(e->gpu)
		                                              : EMU_CHUNK_BYTES;
		gemit_t g = {e, jobs, idx, out, text_at, text_tid};
		ag_times_t tm = {0, 0, 0, 0, 0};
		rc = ag_run(&be, gj, cnt, java, e->opt.threads, budget, gpu_emit, &g, idle, &tm, err);
		e->gpu_kernel_s = tm.kernel;
		gvk_logf(&e->opt.log, GVK_LOG_DEBUG,
		         "align: GPU part: %zu pairs in %zu chunks of at most %zu MiB; plan %.2f ms, pack and CIGAR text "
		         "%.2f ms, waiting %.2f ms, kernels %.2f ms", cnt, tm.chunks, budget >> 20, tm.plan * 1e3,
		         tm.host * 1e3, tm.wait * 1e3, tm.kernel * 1e3);
	}
	for (size_t q = 0; q < cnt && rc == 0; ++q) pos[idx[q]] = AL_DONE;
	*ndone = rc == 0 ? cnt : 0;
	return rc;
}

/* Checks of the pairs and their jobs, on the threads for large batches (PREP_PARALLEL); bad = the
 * first invalid pair (SIZE_MAX: none), so that the message names the same pair as a serial check
 * would. */
typedef struct {
	atomic_size_t bad;
	const gvk_align_pair_t *pairs;
	al_job_t *jobs;
	size_t n;
	int nt;
} prep_t;

static void prep_worker(void *arg, int tid)
{
	prep_t *w = arg;
	int64_t beg, end;
	gvk_work_split((int64_t)w->n, w->nt, tid, NULL, NULL, &beg, &end);
	size_t bad = SIZE_MAX;
	for (size_t k = (size_t)beg; k < (size_t)end; ++k) {
		const gvk_align_pair_t *p = &w->pairs[k];
		if (gvk_align_check_pair(p, NULL) < 0) {
			bad = k;
			break;
		}
		w->jobs[k] = (al_job_t){(const uint8_t *)p->ref, (const uint8_t *)p->alt, p->ref_len, p->alt_len,
		                        p->par.match, p->par.mismatch, p->par.gap_open, p->par.gap_extend, p->overhang};
	}
	if (bad == SIZE_MAX) return;
	/* The first invalid pair over all threads: a lower range's thread may still find one. */
	size_t cur = atomic_load(&w->bad);
	while (bad < cur && !atomic_compare_exchange_weak(&w->bad, &cur, bad)) {
	}
}

static int want_gpu(const gvk_align_t *e, const al_job_t *jobs, const int *pos, size_t n)
{
	if (!e->gpu && !e->emu) return 0;
	if (e->opt.device == GVK_DEVICE_GPU) return 1;
	double cells = 0;
	for (size_t k = 0; k < n; ++k)
		if (pos[k] < 0 && ag_fits(&jobs[k])) cells += (double)jobs[k].n * jobs[k].m;
	/* Under device auto, small batches stay on the CPU (launch and copy latency). */
	return gvk_policy_auto_gpu(GVK_ENGINE_ALIGN, cells, e->opt.gpu_min_work);
}

/* Every result's CIGAR pointer into its thread's arena, once the arenas no longer move. */
typedef struct {
	const gvk_align_t *e;
	gvk_align_result_t *out;
	const size_t *text_at;
	const int16_t *text_tid;
	size_t n;
	int nt;
} link_t;

static void link_worker(void *arg, int t)
{
	const link_t *w = arg;
	const size_t beg = gvk_part(w->n, t, w->nt), end = gvk_part(w->n, t + 1, w->nt);
	for (size_t k = beg; k < end; ++k) w->out[k].cigar = w->e->arena[w->text_tid[k]].p + w->text_at[k];
}

/* With a server: whether the batch is aligned here, below server_min_work cells. */
static int send_here(const gvk_align_t *e, const al_job_t *jobs, size_t n)
{
	const double limit = e->opt.server_min_work > 0 ? e->opt.server_min_work : al_assist_server_cells(e->isa->lanes);
	double cells = 0;
	for (size_t k = 0; k < n && cells < limit; ++k) cells += (double)jobs[k].n * jobs[k].m;
	return cells < limit;
}

int gvk_align_batch(gvk_align_t *e, const gvk_align_pair_t *pairs, size_t n, gvk_align_result_t *out, gvk_err_t *err)
{
	const char *null = !e ? "e" : n == 0 ? NULL : !pairs ? "pairs" : !out ? "out" : NULL;
	if (null) return gvk_err_null(err, __func__, null);
	const double t0 = gvk_seconds();
	if (n == 0) return 0;
	al_job_t *jobs = gvk_buf_reserve(&e->wk[W_JOBS], n * sizeof *jobs);
	int *pos = gvk_buf_reserve(&e->wk[W_POS], n * sizeof *pos);
	size_t *order = gvk_buf_reserve(&e->wk[W_ORDER], n * sizeof *order);
	item_t *items = gvk_buf_reserve(&e->wk[W_ITEMS], n * sizeof *items);
	sortkey_t *keys = gvk_buf_reserve(&e->wk[W_KEYS], n * sizeof *keys);
	size_t *text_at = gvk_buf_reserve(&e->wk[W_TEXT_AT], n * sizeof *text_at);
	int16_t *text_tid = gvk_buf_reserve(&e->wk[W_TEXT_TID], n * sizeof *text_tid);
	if (!jobs || !pos || !order || !items || !keys || !text_at || !text_tid)
		return gvk_err_set(err, GVK_ERR_NOMEM, "out of memory for %zu pairs", n);
	int nt = e->opt.threads;
	if ((size_t)nt > n) nt = (int)n;
	prep_t pr = {SIZE_MAX, pairs, jobs, n, n >= PREP_PARALLEL ? nt : 1};
	gvk_parallel(pr.nt, prep_worker, &pr);
	const size_t bad = atomic_load(&pr.bad);
	if (bad != SIZE_MAX) {
		gvk_err_t perr = {0, ""};
		gvk_align_check_pair(&pairs[bad], &perr);
		return gvk_err_set(err, GVK_ERR_ARG, "pair %zu: %s", bad, perr.msg);
	}
	int rc = 0;
	if (e->srv && !send_here(e, jobs, n)) {
		/* The batch was checked here: a server that fails it (gone, or its device failed) is said
		 * once and left for good; a batch too large for it is computed here. */
		gvk_err_t serr = {0, ""};
		if ((rc = srv_client_align(e->srv, e->opt.flavour, e->opt.raw, pairs, n, out, &serr)) == 0) return 0;
		if (rc != SRV_LOCAL) {
			gvk_logf(&e->opt.log, GVK_LOG_WARN, "gvk serve %s (%s); align computes on the CPU", srv_failure(rc), serr.msg);
			srv_client_close(e->srv);
			e->srv = NULL;
			snprintf(e->name, sizeof e->name, "cpu-%s", e->isa->name);
		}
		rc = 0;
	}
	if (e->opt.raw) {
		for (size_t k = 0; k < n; ++k) pos[k] = AL_TODO;
	} else {
		/* A thread per few thousand pairs: a thread started for a small batch's cheap scan costs
		 * more than the scan, and on a busy host may wait a scheduler period to run. */
		const int snt = (size_t)nt > 1 + n / 4096 ? (int)(1 + n / 4096) : nt;
		scan_t sc = {jobs, n, snt, pos};
		gvk_parallel(snt, scan_worker, &sc);
	}
	for (int t = 0; t < e->opt.threads; ++t) e->arena[t].len = 0;
	e->gpu_kernel_s = 0;
	const double t1 = gvk_seconds();
	size_t ngpu = 0; /* pairs the GPU answered: all n leave nothing for the CPU path's planning */
	int all_host = 0;
	host_t h = {e, jobs, pos, n, order, items, keys, out, text_at, text_tid, 0};
	const int gpu = want_gpu(e, jobs, pos, n);
	const size_t nhost = gpu && e->assist ? al_assist_pick(jobs, pos, n, e->isa->lanes, &all_host) : 0;
	if (all_host) {
		host_part(&h); /* this thread finishes the batch before a launch would */
		if (h.rc < 0) return gvk_err_set(err, h.rc, "out of memory in the align engine");
	} else if (gpu) {
		gvk_err_t gerr = {0, ""};
		const ag_idle_t idle = {nhost > 0 ? host_part : NULL, &h};
		rc = gpu_batch(e, jobs, pos, n, out, text_at, text_tid, idle, &ngpu, &gerr);
		host_settle(pos, n, rc < 0);
		if (rc == 0 && h.rc < 0) return gvk_err_set(err, h.rc, "out of memory in the align engine");
		if (rc < 0) {
			/* Any GPU failure: this batch and the next ones on the CPU. */
			gvk_logf(&e->opt.log, GVK_LOG_WARN, "align: GPU failed (%s); falling back to the CPU", gerr.msg);
			al_gpu_close(e->gpu);
			al_emu_close(e->emu);
			e->gpu = NULL, e->emu = NULL;
			snprintf(e->name, sizeof e->name, "cpu-%s", e->isa->name);
			for (int t = 0; t < e->opt.threads; ++t) e->arena[t].len = 0;
			rc = 0;
		}
	}
	const double t2 = gvk_seconds();
	size_t ni = ngpu == n ? 0 : plan_items(e, jobs, pos, n, AL_TODO, order, items, keys);
	run_t r = {e, jobs, order, items, ni, 0, 0, out, text_at, text_tid};
	if (ni > 0) gvk_parallel(nt < (int)ni ? nt : (int)ni, run_worker, &r);
	if ((rc = atomic_load(&r.err)) < 0) return gvk_err_set(err, rc, "out of memory in the align engine");
	const double t3 = gvk_seconds();
	link_t lk = {e, out, text_at, text_tid, n, n >= PREP_PARALLEL ? nt : 1};
	gvk_parallel(lk.nt, link_worker, &lk);
	gvk_logf(&e->opt.log, GVK_LOG_DEBUG,
	         "align: batch of %zu pairs on %s: checks and shortcut %.2f ms, GPU part %.2f ms (%zu pairs of it on this "
	         "thread%s), CPU part %.2f ms, results %.2f ms", n, e->name, (t1 - t0) * 1e3, (t2 - t1) * 1e3, nhost,
	         all_host ? ", the whole batch" : "", (t3 - t2) * 1e3, (gvk_seconds() - t3) * 1e3);
	return 0;
}

long gvk_align_batch_copy(gvk_align_result_t *out, size_t n, char *text, size_t size, gvk_err_t *err)
{
	if (n > 0 && !out) return gvk_err_null(err, __func__, "out");
	size_t need = 0;
	for (size_t k = 0; k < n; ++k) need += (size_t)out[k].cigar_len + 1;
	if (need > 0 && !text) return gvk_err_null(err, __func__, "text");
	if (need > size) return gvk_err_set(err, GVK_ERR_ARG, "align: the CIGARs need %zu bytes, the buffer has %zu", need, size);
	size_t at = 0;
	for (size_t k = 0; k < n; ++k) {
		memcpy(text + at, out[k].cigar, (size_t)out[k].cigar_len + 1);
		out[k].cigar = text + at;
		at += (size_t)out[k].cigar_len + 1;
	}
	return (long)need;
}
