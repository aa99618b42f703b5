/* SPDX-License-Identifier: MIT */
/* FastID through gvk.h: 1,000 random SNP profiles as the database, then an identity search (a
 * profile with a few genotyping errors finds its source) and a mixture search (a two-person mixture
 * finds both contributors: they have no allele the mixture lacks). */
#include <stdio.h>
#include <stdlib.h>

#include <gvk.h>

enum { N_DB = 1000, N_SNP = 500, NW = (N_SNP + 63) / 64, TOPK = 3 };

static uint64_t rng = 42;
static uint64_t next(void) /* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static int search(gvk_fastid_t *e, const char *what, const uint64_t *q, size_t n_q, const uint64_t *db)
{
	gvk_fastid_result_t *r;
	gvk_err_t err;
	int rc = gvk_fastid_search(e, q, n_q, db, N_DB, N_SNP, &r, &err);
	if (rc < 0) {
		fprintf(stderr, "fastid: %s (%s)\n", err.msg, gvk_strerror(rc));
		return 1;
	}
	for (size_t k = 0; k < r->n_queries * (size_t)r->k; ++k)
		printf("%s query %u: db %lld score %u\n", what, r->top[k].query, (long long)r->top[k].db, r->top[k].score);
	gvk_fastid_result_free(r);
	return 0;
}

/* An engine per kind of score: identity pc(q XOR d), or mixture pc(d AND NOT q). */
static gvk_fastid_t *engine(int mixture)
{
	gvk_fastid_opts_t opt;
	gvk_fastid_opts_init(&opt);
	opt.mixture = mixture;
	opt.topk = TOPK;
	gvk_err_t err;
	gvk_fastid_t *e = gvk_fastid_create(&opt, &err);
	if (!e) fprintf(stderr, "fastid: %s (%s)\n", err.msg, gvk_strerror(err.code));
	return e;
}

int main(void)
{
	/* Bit j of a profile in word j / 64 at bit j % 64; bits past N_SNP stay zero. */
	uint64_t *db = malloc(sizeof *db * N_DB * NW);
	if (!db) return 1;
	const uint64_t last = N_SNP % 64 ? (UINT64_C(1) << N_SNP % 64) - 1 : ~UINT64_C(0);
	for (int i = 0; i < N_DB; ++i)
		for (int w = 0; w < NW; ++w) db[i * NW + w] = next() & (w == NW - 1 ? last : ~UINT64_C(0));

	/* Identity: profile 17 with three bits flipped. */
	uint64_t q[NW];
	for (int w = 0; w < NW; ++w) q[w] = db[17 * NW + w];
	q[0] ^= 1u << 3, q[2] ^= UINT64_C(1) << 40, q[NW - 1] ^= 1u << 1;
	gvk_fastid_t *id = engine(0), *mix = engine(1);
	int rc = id && mix ? search(id, "identity", q, 1, db) : 1;
	/* Mixture: the alleles of profiles 5 and 600 together (sparser profiles, as minor alleles
	 * are, so that the union leaves others out). */
	for (int i = 0; i < N_DB; ++i)
		for (int w = 0; w < NW; ++w) db[i * NW + w] &= next() & next();
	for (int w = 0; w < NW; ++w) q[w] = db[5 * NW + w] | db[600 * NW + w];
	if (rc == 0) rc = search(mix, "mixture", q, 1, db);
	gvk_fastid_destroy(id);
	gvk_fastid_destroy(mix);
	free(db);
	return rc;
}
