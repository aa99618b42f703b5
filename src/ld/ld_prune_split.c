/* SPDX-License-Identifier: MIT */
/* Splitting a chromosome over the workers (the CPU's --indep-pairwise and --indep-pairphase). What
 * a window's passes do depends only on the window's state as it arrives: its start and end, its
 * entries, each one's flag and the next SNP it is to be compared with. A piece of a chromosome, its
 * windows starting in [a, b), runs from some windows before a as if those were the chromosome's
 * first, on a worker of its own, and records its state at checkpoints from a on and at b. Then
 * each chromosome's pieces are joined in order (join_chrom): where a piece's state at a equals the
 * true one (the state at the end of the piece before, once that is joined), its flags from a on are
 * the one run's; where not, the one run goes on from the true state until its state equals the
 * piece's at a checkpoint (the removals a few windows back stop mattering, so the runs meet), or to
 * the piece's end. The lists are those of one run, however the chromosome was split. A piece sets
 * the statistics of the SNPs in [a, b) only (own_lo, own_hi), so that no SNP's are set twice. */
#include <stdlib.h>
#include <string.h>

#include "ld_prune_win.h"

typedef struct piece {
	int64_t r;       /* chromosome run */
	int64_t a, b;    /* the windows starting in [a, b) */
	int64_t from;    /* the first window run */
	int64_t lim;     /* flags[k] is SNP from + k's, for from <= SNP < lim */
	uint8_t *flags;
	int64_t *rec;    /* the states: records of start, end, size, then size each of entries, next and flags */
	size_t n_rec, cap_rec, fin; /* int64 entries; fin: where the state at b starts (b < the run's end) */
	int64_t every;   /* starts between checkpoints */
	int failed;
} piece_t;

/* Checkpoints a piece records from a on. */
enum { PIECE_CHECKS = 64 };

static int rec_push(int64_t **rec, size_t *n, size_t *cap, const window_t *wd, const uint8_t *out, const wpos_t *at)
{
	size_t need = *n + 3 + 3 * (size_t)wd->size;
	if (need > *cap) {
		size_t nc = need * 2;
		int64_t *p = realloc(*rec, nc * sizeof *p);
		if (!p) return -1;
		*rec = p, *cap = nc;
	}
	int64_t *q = *rec + *n, m = wd->size;
	q[0] = at->start, q[1] = at->end, q[2] = m;
	for (int64_t k = 0; k < m; ++k) q[3 + k] = wd->live[k], q[3 + m + k] = wd->next[k], q[3 + 2 * m + k] = out[wd->live[k]];
	*n = need;
	return 0;
}

static size_t rec_len(const int64_t *q) { return 3 + 3 * (size_t)q[2]; }

static int rec_eq(const int64_t *q, const int64_t *t) { return q[2] == t[2] && !memcmp(q, t, rec_len(q) * sizeof *q); }

/* The window of record q rebuilt in c and wd (flags into out); the SNPs in it are decoded again. */
static void rec_resume(prune_ctx_t *c, window_t *wd, uint8_t *out, const int64_t *q, wpos_t *at)
{
	int64_t m = q[2];
	*at = (wpos_t){q[0], q[1], 0};
	memset(out + q[0], 1, (size_t)(q[1] - q[0]));
	wd->size = m;
	for (int64_t k = 0; k < m; ++k) {
		int64_t e = wd->live[k] = q[3 + k];
		wd->next[k] = q[3 + m + k], out[e] = (uint8_t)q[3 + 2 * m + k];
		prune_slot_fill(c, e);
	}
}

/* Runs piece p on c's worker, out its scratch flags (clear again on return). */
static void run_piece(prune_ctx_t *c, window_t *wd, uint8_t *out, const prune_job_t *j, piece_t *p)
{
	int64_t lo = j->lo[p->r], hi = j->hi[p->r];
	prune_chrom_begin(c, j->o, lo, hi, p->a, p->b);
	wpos_t at;
	prune_window_open(c, wd, out, p->from, &at);
	int64_t top = at.end;
	for (;;) {
		if (at.start >= p->b) {
			p->fin = p->n_rec;
			if (rec_push(&p->rec, &p->n_rec, &p->cap_rec, wd, out, &at) < 0) p->failed = 1;
			break;
		}
		if (p->a > lo && at.start >= p->a && at.start < p->a + PIECE_CHECKS * p->every && (at.start - p->a) % p->every == 0 &&
		    rec_push(&p->rec, &p->n_rec, &p->cap_rec, wd, out, &at) < 0)
			p->failed = 1;
		int more = prune_window_step(c, wd, out, &at);
		if (at.end > top) top = at.end;
		if (!more) break;
	}
	p->lim = top > p->b ? top : p->b;
	p->flags = malloc((size_t)(p->lim - p->from));
	if (p->flags) memcpy(p->flags, out + p->from, (size_t)(p->lim - p->from));
	else p->failed = 1;
	memset(out + p->from, 0, (size_t)(p->lim - p->from));
}

/* Joins run r's pieces into j->pruned (out: a joiner's scratch flags, clear again on return); -1
 * when out of memory. */
static int join_chrom(prune_ctx_t *c, window_t *wd, uint8_t *out, prune_job_t *j, int64_t r)
{
	piece_t *pc = j->pc + j->pc_at[r];
	int64_t n = j->pc_at[r + 1] - j->pc_at[r], lo = j->lo[r], hi = j->hi[r];
	int64_t *mine = NULL; /* the one run's state at a piece's end, where it did not meet the piece */
	size_t n_mine = 0, cap_mine = 0;
	const int64_t *truth = NULL;
	int rc = 0;
	for (int64_t k = 0; k < n && rc == 0; ++k) {
		piece_t *p = pc + k;
		int64_t meet = p->a; /* p's flags are the one run's from here on */
		if (k > 0 && !rec_eq(truth, p->rec)) {
			__atomic_fetch_add(&j->resumed, 1, __ATOMIC_RELAXED);
			prune_chrom_begin(c, j->o, lo, hi, 0, 0);
			wpos_t at;
			rec_resume(c, wd, out, truth, &at);
			int64_t top = at.end;
			size_t q = rec_len(p->rec);
			meet = p->b;
			while (at.start < p->b) {
				for (; q < p->fin && p->rec[q] < at.start; q += rec_len(p->rec + q)) {}
				if (q < p->fin && p->rec[q] == at.start) {
					n_mine = 0;
					if (rec_push(&mine, &n_mine, &cap_mine, wd, out, &at) < 0) rc = -1;
					if (rc == 0 && rec_eq(mine, p->rec + q)) {
						meet = at.start;
						break;
					}
				}
				int more = prune_window_step(c, wd, out, &at);
				if (at.end > top) top = at.end;
				if (!more) break;
			}
			memcpy(j->pruned + p->a, out + p->a, (size_t)(meet - p->a));
			if (meet == p->b && k + 1 < n) {
				n_mine = 0;
				if (rec_push(&mine, &n_mine, &cap_mine, wd, out, &at) < 0) rc = -1;
			}
			memset(out + p->a, 0, (size_t)(top - p->a));
		}
		memcpy(j->pruned + meet, p->flags + (meet - p->from), (size_t)(p->b - meet));
		truth = meet < p->b || k == 0 ? p->rec + p->fin : mine;
	}
	int64_t cnt = 0;
	for (int64_t i = lo; i < hi; ++i) cnt += j->pruned[i];
	j->n_pruned[r] = cnt;
	free(mine);
	return rc;
}

/* Runs the pieces, or with j->joining joins them, taking the next of either in turn; each worker
 * has scratch flags of its own. */
void prune_split_worker(void *arg, int tid)
{
	prune_job_t *j = arg;
	(void)tid;
	prune_ctx_t c;
	window_t wd;
	uint8_t *out = calloc((size_t)j->d->n_snp + 1, 1);
	int ok = prune_worker_open(&c, &wd, j) == 0 && out;
	int64_t n = j->joining ? j->n_run : j->n_pc;
	for (int64_t k; ok && !c.io_failed && (k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < n;) {
		if (j->joining) {
			ok = join_chrom(&c, &wd, out, j, k) == 0;
		} else {
			run_piece(&c, &wd, out, j, &j->pc[k]);
			ok = !j->pc[k].failed;
		}
	}
	prune_worker_close(&c, &wd, j, ok);
	free(out);
}

/* The pieces of each run when splitting helps: the CPU, pairwise or pairphase, several threads and
 * fewer chromosomes than a few per thread. A piece takes about a third of a thread's share of the
 * SNPs, and no fewer than 64 windows' worth; it starts 8 windows before its own (piece_lead). Returns the
 * number of pieces (0: no split), -1 when out of memory. */
int64_t prune_split_plan(prune_job_t *j, int nt)
{
	const ld_prune_opt_t *o = j->o;
	if (j->gpu || o->mode == LD_PRUNE_VIF || nt < 2 || j->n_run >= 3 * (int64_t)nt) return 0;
	int64_t total = 0, n = 0;
	for (int64_t r = 0; r < j->n_run; ++r) total += j->hi[r] - j->lo[r];
	int64_t len = o->piece > 0 ? o->piece : total / (3 * nt);
	if (o->piece <= 0 && len < 64 * j->cap) len = 64 * j->cap;
	int64_t lead = o->piece_lead < 0 ? 0 : o->piece_lead > 0 ? o->piece_lead : 8;
	int64_t warm = (lead * j->cap + o->step - 1) / o->step * o->step, every = (j->cap + o->step - 1) / o->step * o->step;
	for (int64_t r = 0; r < j->n_run; ++r) {
		int64_t steps = (j->hi[r] - j->lo[r] + o->step - 1) / o->step, per = (len + o->step - 1) / o->step;
		n += steps / per > 1 ? steps / per : 1;
	}
	if (n <= j->n_run) return 0;
	j->pc = calloc((size_t)n, sizeof *j->pc);
	j->pc_at = malloc(sizeof *j->pc_at * (size_t)(j->n_run + 1));
	if (!j->pc || !j->pc_at) return -1;
	int64_t at = 0;
	for (int64_t r = 0; r < j->n_run; ++r) {
		int64_t lo = j->lo[r], hi = j->hi[r];
		int64_t steps = (hi - lo + o->step - 1) / o->step, per = (len + o->step - 1) / o->step;
		int64_t k = steps / per > 1 ? steps / per : 1;
		j->pc_at[r] = at;
		for (int64_t q = 0; q < k; ++q) {
			piece_t *p = j->pc + at++;
			p->r = r, p->every = every;
			p->a = lo + steps * q / k * o->step;
			p->b = q + 1 < k ? lo + steps * (q + 1) / k * o->step : hi;
			p->from = p->a - warm > lo ? p->a - warm : lo;
		}
	}
	j->pc_at[j->n_run] = at;
	return j->n_pc = at;
}

void prune_split_free(prune_job_t *j)
{
	for (int64_t k = 0; k < j->n_pc; ++k) free(j->pc[k].flags), free(j->pc[k].rec);
	free(j->pc), free(j->pc_at);
}
