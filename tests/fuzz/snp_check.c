/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "fuzz_util.h"
#include "snp_check.h"
#include "fastid/fidb_make.h"

static void check_var(const snp_var_t *v, int64_t i)
{
	if (!v->chr || !v->id || !v->a1 || !v->a2) fz_fail("variant %lld incomplete", (long long)i);
	if (!v->chr[0] || !v->id[0] || !v->a1[0] || !v->a2[0] || v->bp < 0)
		fz_fail("variant %lld: chromosome '%s', ID '%s', alleles '%s' '%s', position %lld", (long long)i, v->chr, v->id,
		        v->a1, v->a2, (long long)v->bp);
}

/* Bits of w at n_bits and past it, up to the words the kernels read. */
static int bits_past(const uint64_t *w, int64_t n_bits, int nw)
{
	for (int64_t b = n_bits; b < (int64_t)nw * 64; ++b)
		if (w[b >> 6] >> (b & 63) & 1) return 1;
	return 0;
}

static void check_planes(const snp_data_t *d, int64_t i)
{
	const uint64_t *a = snp_plane(d, i, SNP_PA), *b = snp_plane(d, i, SNP_PB), *v = snp_plane(d, i, SNP_PV);
	int full = 1;
	for (int k = 0; k < d->nw; ++k) {
		if ((b[k] & ~a[k]) || (a[k] & ~v[k])) fz_fail("variant %lld word %d: planes not nested", (long long)i, k);
		if (d->phased && b[k]) fz_fail("variant %lld: haplotypes with plane B set", (long long)i);
		int64_t lo = (int64_t)k * 64, n = d->n_bits - lo;
		uint64_t want = n >= 64 ? ~(uint64_t)0 : n > 0 ? ((uint64_t)1 << n) - 1 : 0;
		full &= v[k] == want;
	}
	for (int p = 0; p < SNP_PLANES; ++p)
		if (bits_past(snp_plane(d, i, p), d->n_bits, d->nw)) fz_fail("variant %lld plane %d: bits past the columns", (long long)i, p);
	if (d->full && d->full[i] != full) fz_fail("variant %lld: full flag %d, but V says %d", (long long)i, d->full[i], full);
}

void fz_check_snp_data(const snp_data_t *d)
{
	if (d->n_snp < 1 || d->n_samples < 1 || d->n_bits < 0 || (int64_t)d->nw * 64 < d->n_bits)
		fz_fail("accepted %lld SNPs, %lld samples, %lld columns in %d words", (long long)d->n_snp, (long long)d->n_samples,
		        (long long)d->n_bits, d->nw);
	if (d->n_sample_id != d->n_bits / (d->phased ? 2 : 1) && d->sample_id)
		fz_fail("%lld sample IDs for %lld columns", (long long)d->n_sample_id, (long long)d->n_bits);
	for (int64_t s = 0; s < d->n_sample_id; ++s)
		if (!d->sample_id[s]) fz_fail("sample ID %lld missing", (long long)s);
	for (int64_t i = 0; i < d->n_snp; ++i) {
		check_var(&d->var[i], i);
		check_planes(d, i);
	}
}

void fz_check_snp_stats(const snp_data_t *d)
{
	for (int64_t i = 0; i < d->n_snp; ++i)
		if (!(d->a2f[i] >= 0 && d->a2f[i] <= 1) || !(d->rate[i] >= 0 && d->rate[i] <= 1))
			fz_fail("variant %lld: A2 frequency %g, genotyping rate %g", (long long)i, d->a2f[i], d->rate[i]);
	if (bits_past(d->male, d->n_bits, d->nw) || bits_past(d->male_raw, d->n_bits, d->nw))
		fz_fail("male masks reach past the %lld columns", (long long)d->n_bits);
}

/* The made file's parts against each other. */
static void check_made(const fid_file_t *f)
{
	const fid_prof_t *p = &f->prof;
	if (p->n < 1 || p->n_snp < 1 || !f->panel.present || f->panel.n != p->n_snp || f->ids.idx || f->ids.n != (size_t)p->n)
		fz_fail("made %lld profiles of %u SNPs, a panel of %u SNPs and %zu IDs", (long long)p->n, p->n_snp, f->panel.n,
		        f->ids.n);
}

static void same_file(const fid_file_t *a, const fid_file_t *b)
{
	const fid_prof_t *p = &a->prof, *q = &b->prof;
	if (p->n != q->n || p->n_snp != q->n_snp || p->stride != q->stride ||
	    memcmp(p->w, q->w, (size_t)p->n * (size_t)p->stride * 8) != 0)
		fz_fail("the profiles read back differ from those made");
	if (a->panel.len != b->panel.len || memcmp(a->panel.raw, b->panel.raw, (size_t)a->panel.len) != 0)
		fz_fail("the panel read back differs from the one made");
	for (size_t k = 0; k < a->ids.n; ++k)
		if (strcmp(a->ids.id[k], b->ids.id[k]) != 0) fz_fail("sample ID %zu reads back as '%s', made '%s'", k, b->ids.id[k], a->ids.id[k]);
}

/* Writes f as gvk fastid --make-fidb does and reads it back as gvk fastid reads a database. */
static void round_trip(const fid_file_t *f)
{
	fz_file_t out;
	fz_write(&out, (const uint8_t *)"", 0, ".fidb");
	FILE *fp = fopen(out.path, "wb");
	gvk_err_t err = {0, ""};
	if (!fp) fz_fail("harness: cannot open %s", out.path);
	if (fidb_write(fp, &f->prof, &f->panel, &f->ids, &err) < 0) fz_fail("made, but cannot be written: %s", err.msg);
	if (fclose(fp) != 0) fz_fail("harness: cannot write %s", out.path);
	fid_file_t back;
	if (fidb_read_all(out.path, &back.prof, &back.panel, &back.ids, &err) < 0) fz_fail("written, but not read back: %s", err.msg);
	same_file(f, &back);
	fid_file_free(&back);
	fz_remove(&out);
}

void fz_check_make_fidb(const char *in, int minor, const char *const *names, int n)
{
	fid_file_t f;
	gvk_err_t err = {0, ""};
	int rc = fid_make(in, minor, 2, &f, &err); /* 2: the threaded reader and transpose */
	fz_check_err_any(rc, &err, names, n);
	if (rc < 0) return;
	check_made(&f);
	round_trip(&f);
	fid_file_free(&f);
}
