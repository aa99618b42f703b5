/* SPDX-License-Identifier: MIT */
/* The order of a .bim's rows as PLINK 1.9's windows see it (snp_bim_order_t): its chromosome
 * runs, the first line where a run's positions or cM values go down, and the position and cM held
 * at every 64th line. PLINK makes one pass, keeping each run's highest position and cM so far;
 * that state is a running maximum, so the rows are cut into slices, each slice's maxima since its
 * last run start are carried into the next, and every slice then replays PLINK's pass from the
 * state it was handed, on its own thread. A cM value that is not a number breaks the maximum
 * (PLINK's comparison takes the next value after it), and such a table is checked in one pass. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plink_io_bim.h"
#include "../common/threads.h"

/* The .bim's order as it is read (snp_bim_order_t), with the running state of its checks. */
typedef struct {
	snp_bim_order_t *o;
	int64_t last_bp;  /* the current chromosome's highest position so far */
	double last_cm;   /* and its highest cM value, fields "0" left out */
} order_t;

static int order_name(snp_bim_order_t *o, const char *chr, size_t *off)
{
	size_t n = strlen(chr) + 1;
	if (o->names_len + n > o->names_cap) {
		size_t cap = (o->names_len + n) * 2 + 256;
		char *p = realloc(o->names, cap);
		if (!p) return -1;
		o->names = p, o->names_cap = cap;
	}
	memcpy(o->names + o->names_len, chr, n);
	*off = o->names_len;
	o->names_len += n;
	return 0;
}

/* A new run where the chromosome changes; PLINK starts its order checks afresh there. same: the
 * line before had the same chromosome code string. */
static int order_run(order_t *st, const char *chr, int same, long ln)
{
	snp_bim_order_t *o = st->o;
	if (o->n_run && (same || !strcmp(o->names + o->run[o->n_run - 1].name, chr))) return 0;
	if ((size_t)o->n_run == o->n_run_cap) {
		size_t cap = o->n_run_cap ? o->n_run_cap * 2 : 64;
		snp_bim_run_t *r = realloc(o->run, cap * sizeof *r);
		if (!r) return -1;
		o->run = r, o->n_run_cap = cap;
	}
	snp_bim_run_t *r = &o->run[o->n_run];
	*r = (snp_bim_run_t){.line = ln};
	if (order_name(o, chr, &r->name) < 0) return -1;
	o->n_run++;
	st->last_bp = 0, st->last_cm = -DBL_MAX;
	return 0;
}

/* PLINK's position and cM for a line at a multiple of 64 (where its window search looks). */
static int order_base(snp_bim_order_t *o, int64_t row, int64_t bp, double cm)
{
	size_t k = (size_t)(row / 64);
	if (k >= o->base_cap) {
		size_t n = (k + 1) * 2;
		int64_t *b = realloc(o->base_bp, n * sizeof *b);
		if (b) o->base_bp = b;
		double *c = b ? realloc(o->base_cm, n * sizeof *c) : NULL;
		if (!c) return -1;
		o->base_cm = c;
		o->base_cap = n;
	}
	o->base_bp[k] = bp, o->base_cm[k] = cm;
	o->n_base = (int64_t)k + 1;
	return 0;
}

/* PLINK's checks of line ln (variant v) within its run: the first lines where positions and cM
 * values go down into *bp_line / *cm_line, the run's highest ones so far in *last_bp / *last_cm;
 * cm0: its cM field is exactly "0", which PLINK neither checks nor keeps as the last cM. */
static void order_check(const snp_var_t *v, int cm0, long ln, int64_t *last_bp, double *last_cm, long *bp_line,
                        long *cm_line)
{
	if (!cm0 && v->cm < *last_cm) *cm_line = *cm_line ? *cm_line : ln;
	else if (!cm0) *last_cm = v->cm;
	if (v->bp >= 0 && v->bp < *last_bp) *bp_line = *bp_line ? *bp_line : ln;
	else if (v->bp >= 0) *last_bp = v->bp;
}

/* The position and cM PLINK holds at v once checked (a line with a negative position: the run's
 * last ones). */
static int64_t base_bp(const snp_var_t *v, int64_t last_bp) { return v->bp >= 0 ? v->bp : last_bp; }
static double base_cm(const snp_var_t *v, int cm0, double last_cm) { return v->bp < 0 ? last_cm : cm0 ? 0.0 : v->cm; }

/* Line ln (the row-th variant) in the one pass. */
static int order_note(order_t *st, int same, const snp_var_t *v, int cm0, int64_t row, long ln)
{
	if (order_run(st, v->chr, same, ln) < 0) return -1;
	snp_bim_run_t *r = &st->o->run[st->o->n_run - 1];
	order_check(v, cm0, ln, &st->last_bp, &st->last_cm, &r->bp_line, &r->cm_line);
	if (row % 64) return 0;
	return order_base(st->o, row, base_bp(v, st->last_bp), base_cm(v, cm0, st->last_cm));
}

typedef struct {
	const char *name;
	long line;
	size_t off;
} run_ref_t;

static int cmp_run(const void *a, const void *b)
{
	const run_ref_t *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The first line where a chromosome comes back after others: the earliest second run of a name. */
static int order_split(snp_bim_order_t *o)
{
	run_ref_t *r = malloc(sizeof *r * (size_t)(o->n_run + 1));
	if (!r) return -1;
	for (int64_t k = 0; k < o->n_run; ++k) r[k] = (run_ref_t){o->names + o->run[k].name, o->run[k].line, o->run[k].name};
	qsort(r, (size_t)o->n_run, sizeof *r, cmp_run);
	for (int64_t k = 1; k < o->n_run; ++k)
		if (!strcmp(r[k - 1].name, r[k].name) && (!o->split_line || r[k].line < o->split_line))
			o->split_line = r[k].line, o->split_name = r[k].off;
	free(r);
	return 0;
}

/* PLINK's pass over rows var[0 .. n) in turn, row k being line k + 1. */
static int order_serial(const snp_var_t *var, const uint8_t *flag, uint8_t cm0, int64_t n, snp_bim_order_t *ord)
{
	order_t st = {.o = ord};
	for (int64_t i = 0; i < n; ++i)
		if (order_note(&st, i > 0 && var[i].chr == var[i - 1].chr, &var[i], !flag || (flag[i] & cm0), i, (long)(i + 1)) < 0)
			return -1;
	return 0;
}

/* Whether row i starts a run: the first row, or a chromosome other than the row before's. */
static int run_start(const snp_var_t *var, int64_t i) { return i == 0 || !snp_var_same_chr(&var[i], &var[i - 1]); }

/* A run that starts within a slice. */
typedef struct {
	const char *chr;
	long line, bp_line, cm_line;
} slice_run_t;

/* Rows [a, b): first their maxima since the last run start (or over all of them: tail_*), whether
 * a run starts there and whether a cM value is not a number; then the state PLINK holds as the
 * slice begins (in_*), and from the replay its runs and the first lines where the run carried in
 * goes down (cont_*). */
typedef struct {
	int64_t a, b, tail_bp, in_bp;
	double tail_cm, in_cm;
	int starts, nan, nomem;
	long cont_bp, cont_cm;
	slice_run_t *run;
	int64_t n_run, cap;
} slice_t;

typedef struct {
	const snp_var_t *var;
	const uint8_t *flag;
	uint8_t cm0;
	snp_bim_order_t *o;
	slice_t *s;
	int pass;
} slices_job_t;

static int is_cm0(const slices_job_t *j, int64_t i) { return !j->flag || (j->flag[i] & j->cm0); }

static void slice_maxima(const slices_job_t *j, slice_t *s)
{
	int64_t bp = 0;
	double cm = -DBL_MAX;
	for (int64_t i = s->a; i < s->b; ++i) {
		const snp_var_t *v = &j->var[i];
		if (run_start(j->var, i)) s->starts = 1, bp = 0, cm = -DBL_MAX;
		if (!is_cm0(j, i)) {
			if (isnan(v->cm)) s->nan = 1;
			else if (!(v->cm < cm)) cm = v->cm; /* PLINK's step: of equal values (0 and -0) the later */
		}
		if (v->bp > bp) bp = v->bp;
	}
	s->tail_bp = bp, s->tail_cm = cm;
}

static slice_run_t *slice_run_add(slice_t *s, const char *chr, long line)
{
	if (s->n_run == s->cap) {
		int64_t cap = s->cap ? 2 * s->cap : 16;
		slice_run_t *g = realloc(s->run, sizeof *g * (size_t)cap);
		if (!g) return s->nomem = 1, NULL;
		s->run = g, s->cap = cap;
	}
	slice_run_t *r = &s->run[s->n_run++];
	*r = (slice_run_t){chr, line, 0, 0};
	return r;
}

/* The replay of PLINK's pass over the slice, its bases written in place. */
static void slice_replay(const slices_job_t *j, slice_t *s)
{
	int64_t last_bp = s->in_bp;
	double last_cm = s->in_cm;
	long *bp_line = &s->cont_bp, *cm_line = &s->cont_cm;
	for (int64_t i = s->a; i < s->b; ++i) {
		const snp_var_t *v = &j->var[i];
		int cm0 = is_cm0(j, i);
		if (run_start(j->var, i)) {
			slice_run_t *r = slice_run_add(s, v->chr, (long)(i + 1));
			if (!r) return;
			bp_line = &r->bp_line, cm_line = &r->cm_line, last_bp = 0, last_cm = -DBL_MAX;
		}
		order_check(v, cm0, (long)(i + 1), &last_bp, &last_cm, bp_line, cm_line);
		if (i % 64 == 0) j->o->base_bp[i / 64] = base_bp(v, last_bp), j->o->base_cm[i / 64] = base_cm(v, cm0, last_cm);
	}
}

static void slice_worker(void *arg, int tid)
{
	slices_job_t *j = arg;
	if (j->pass == 0) slice_maxima(j, &j->s[tid]);
	else slice_replay(j, &j->s[tid]);
}

/* What each slice is handed: PLINK's state after the rows before it. A slice's steps from any
 * state x end at x or at the slice's own result from the lowest state, whichever one step from x
 * to that result gives. */
static void slices_carry(slice_t *s, int nt)
{
	s[0].in_bp = 0, s[0].in_cm = -DBL_MAX;
	for (int t = 1; t < nt; ++t) {
		const slice_t *p = &s[t - 1];
		s[t].in_bp = p->starts || p->tail_bp > p->in_bp ? p->tail_bp : p->in_bp;
		s[t].in_cm = p->starts || !(p->tail_cm < p->in_cm) ? p->tail_cm : p->in_cm;
	}
}

/* The slices' runs in order into o (the first lines where a run carried into a slice goes down
 * kept by the run). */
static int slices_join(const slice_t *s, int nt, snp_bim_order_t *o)
{
	for (int t = 0; t < nt; ++t) {
		snp_bim_run_t *last = o->n_run ? &o->run[o->n_run - 1] : NULL;
		if (last && !last->bp_line) last->bp_line = s[t].cont_bp;
		if (last && !last->cm_line) last->cm_line = s[t].cont_cm;
		for (int64_t k = 0; k < s[t].n_run; ++k) {
			order_t st = {.o = o};
			if (order_run(&st, s[t].run[k].chr, 0, s[t].run[k].line) < 0) return -1;
			o->run[o->n_run - 1].bp_line = s[t].run[k].bp_line, o->run[o->n_run - 1].cm_line = s[t].run[k].cm_line;
		}
	}
	return 0;
}

/* PLINK's pass on nt threads; 1 when a cM value is not a number (the pass is then left to
 * order_serial), -1 when out of memory. */
static int order_threads(const snp_var_t *var, const uint8_t *flag, uint8_t cm0, int64_t n, int nt, snp_bim_order_t *o)
{
	size_t nb = (size_t)((n + 63) / 64);
	slice_t *s = calloc((size_t)nt, sizeof *s);
	int64_t *bb = malloc(sizeof *bb * nb);
	double *bc = malloc(sizeof *bc * nb);
	int rc = s && bb && bc ? 0 : -1;
	slices_job_t j = {var, flag, cm0, o, s, 0};
	for (int t = 0; rc == 0 && t < nt; ++t) { /* slices start at multiples of 64, so bases never straddle */
		s[t].a = (int64_t)gvk_part(nb, t, nt) * 64, s[t].b = (int64_t)gvk_part(nb, t + 1, nt) * 64;
		if (s[t].b > n) s[t].b = n;
	}
	if (rc == 0) gvk_parallel(nt, slice_worker, &j);
	for (int t = 0; rc == 0 && t < nt; ++t) rc = s[t].nan ? 1 : 0;
	if (rc == 0) {
		free(o->base_bp), free(o->base_cm);
		o->base_bp = bb, o->base_cm = bc, o->base_cap = nb, o->n_base = (int64_t)nb, bb = NULL, bc = NULL;
		slices_carry(s, nt);
		j.pass = 1;
		gvk_parallel(nt, slice_worker, &j);
		for (int t = 0; t < nt; ++t) rc = s[t].nomem ? -1 : rc;
	}
	if (rc == 0) rc = slices_join(s, nt, o);
	for (int t = 0; s && t < nt; ++t) free(s[t].run);
	free(s), free(bb), free(bc);
	return rc;
}

int snp_bim_order_rows(const snp_var_t *var, const uint8_t *flag, uint8_t cm0, int64_t n, int threads, snp_bim_order_t *ord)
{
	int nt = n >= 65536 && threads > 1 ? threads : 1, rc = nt > 1 ? order_threads(var, flag, cm0, n, nt, ord) : 1;
	if (rc == 1) rc = order_serial(var, flag, cm0, n, ord);
	return rc < 0 ? -1 : order_split(ord);
}

int snp_order_of_vars(const snp_data_t *d, snp_bim_order_t *ord) { return snp_bim_order_rows(d->var, NULL, 0, d->n_snp, 1, ord); }
void snp_bim_order_free(snp_bim_order_t *o)
{
	free(o->run);
	free(o->names);
	free(o->base_bp);
	free(o->base_cm);
	memset(o, 0, sizeof *o);
}

