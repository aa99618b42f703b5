/* gvk fastid DB QUERIES: a .fidb read whole (the queries) and in blocks (the database), as the CLI
 * reads them, then searched against itself when small, as `gvk fastid x.fidb x.fidb` would. */
#include <string.h>

#include "fuzz_util.h"
#include "snp/fastid_engine.h"

/* The database in blocks of 3 profiles must give the profiles read whole. */
static void read_blocks(const char *path, const fid_prof_t *whole)
{
	fidb_reader_t rd;
	gvk_err_t err = {0, ""};
	int rc = fidb_open(&rd, path, &err);
	if (rc < 0) fz_fail("read whole, but cannot be opened in blocks: %s", err.msg);
	while (rc == 0 && rd.done < (int64_t)rd.n) {
		int64_t off = rd.done;
		fid_prof_t b;
		if ((rc = fidb_read_block(&rd, 3, &b, &err)) < 0) fz_fail("read whole, but not in blocks: %s", err.msg);
		if (b.n_snp != whole->n_snp || b.nw != whole->nw || b.n < 1 || off + b.n > whole->n) fz_fail("a block's shape differs");
		for (int64_t i = 0; i < b.n; ++i)
			if (memcmp(b.w + (size_t)i * (size_t)b.stride, whole->w + (size_t)(off + i) * (size_t)whole->stride,
			           (size_t)b.nw * 8) != 0)
				fz_fail("profile %lld differs between block and whole reads", (long long)(off + i));
		fid_prof_free(&b);
	}
	fidb_close(&rd);
}

static void search_self(const fid_prof_t *p)
{
	fid_job_t job = {p, p, PG_XOR, 3, 2, 1, 0, GVK_DEVICE_CPU, 0};
	fid_result_t res;
	memset(&res, 0, sizeof res);
	gvk_err_t err = {0, ""};
	if (fid_search(&job, &res, &err) < 0) fz_fail("search of an accepted database failed: %s", err.msg);
	/* Identity against itself: each profile scores 0 against itself. */
	for (int64_t q = 0; q < p->n && res.k > 0; ++q)
		if (res.top[(size_t)q * (size_t)res.k].score != 0) fz_fail("profile %lld: best self score %u", (long long)q, res.top[(size_t)q * (size_t)res.k].score);
	fid_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".fidb");
	fid_prof_t p;
	gvk_err_t err = {0, ""};
	int rc = fidb_read(f.path, &p, &err);
	fz_check_err(rc, &err, f.path);
	if (rc == 0) {
		if (p.nw * 64 < (int64_t)p.n_snp || p.stride < p.nw) fz_fail("%u SNPs in %d words (stride %d)", p.n_snp, p.nw, p.stride);
		read_blocks(f.path, &p);
		if (p.n <= 64 && p.nw <= 64) search_self(&p);
	}
	fid_prof_free(&p);
	fz_remove(&f);
	return 0;
}
