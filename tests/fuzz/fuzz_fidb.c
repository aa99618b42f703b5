/* SPDX-License-Identifier: MIT */
/* gvk fastid QUERIES DB: a .fidb of version 1 or 2 (src/fastid/fidb_io.c, fid_panel.c, fid_ids.c)
 * read whole with its panel and IDs (the queries), in blocks with the IDs of some profiles (the
 * database), and whole from a pipe (a stream, as '-' reads it), which must accept exactly what the
 * file reader accepts and give the same profiles. An accepted file is then searched against itself
 * when small and its tables written, as `gvk fastid x.fidb x.fidb` would. A version 2 input whose
 * panel hash is wrong is also read with the hash corrected, so that the fuzzer gets past the hash
 * to the profiles and IDs. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "fastid/fastid_engine.h"
#include "fastid/fastid_write.h"
#include "fastid/fidb_make.h"

static FILE *null_out;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	signal(SIGPIPE, SIG_IGN); /* the pipe's reader may stop early: the writer then sees EPIPE */
	null_out = fopen("/dev/null", "w");
	return 0;
}

static void check_whole(const fid_file_t *f)
{
	const fid_prof_t *p = &f->prof;
	if (p->n_snp < 1 || p->nw * 64 < (int64_t)p->n_snp || p->stride < p->nw)
		fz_fail("%u SNPs in %d words (stride %d)", p->n_snp, p->nw, p->stride);
	if (f->ids.n != (size_t)p->n || f->ids.idx) fz_fail("%zu IDs for %lld profiles", f->ids.n, (long long)p->n);
	for (size_t k = 0; k < f->ids.n; ++k)
		if (!f->ids.id[k] || !f->ids.id[k][0]) fz_fail("profile %zu without an ID", k);
	if (f->panel.present && f->panel.n != p->n_snp) fz_fail("a panel of %u SNPs for %u", f->panel.n, p->n_snp);
	gvk_err_t err = {0, ""};
	if (fid_panel_match(&f->panel, "a", &f->panel, "b", &err) < 0) fz_fail("the panel differs from itself: %s", err.msg);
}

/* One block of the database against the profiles read whole. */
static void same_block(const fid_prof_t *b, int64_t off, const fid_prof_t *whole)
{
	if (b->n_snp != whole->n_snp || b->nw != whole->nw || b->n < 1 || off + b->n > whole->n) fz_fail("a block's shape differs");
	for (int64_t i = 0; i < b->n; ++i)
		if (memcmp(b->w + (size_t)i * (size_t)b->stride, whole->w + (size_t)(off + i) * (size_t)whole->stride,
		           (size_t)b->nw * 8) != 0)
			fz_fail("profile %lld differs between block and whole reads", (long long)(off + i));
}

/* The database in blocks of 3 profiles, then the IDs of every other profile, as gvk fastid reads
 * those of its hits. */
static void read_blocks(const char *path, const fid_file_t *whole)
{
	fidb_reader_t rd;
	gvk_err_t err = {0, ""};
	if (fidb_open(&rd, path, &err) < 0) fz_fail("read whole, but cannot be opened in blocks: %s", err.msg);
	while (rd.done < (int64_t)rd.n) {
		int64_t off = rd.done;
		fid_prof_t b;
		if (fidb_read_block(&rd, 3, &b, &err) < 0) fz_fail("read whole, but not in blocks: %s", err.msg);
		same_block(&b, off, &whole->prof);
		fid_prof_free(&b);
	}
	size_t n_want = (size_t)(rd.n + 1) / 2;
	int64_t *want = malloc((n_want + 1) * sizeof *want);
	for (size_t k = 0; k < n_want; ++k) want[k] = 2 * (int64_t)k;
	fid_ids_t ids;
	if (fidb_read_ids(&rd, want, n_want, &ids, &err) < 0) fz_fail("read whole, but its IDs not in blocks: %s", err.msg);
	for (size_t k = 0; k < n_want; ++k)
		if (!fid_ids_get(&ids, want[k]) || strcmp(fid_ids_get(&ids, want[k]), whole->ids.id[want[k]]) != 0)
			fz_fail("the ID of profile %lld differs between block and whole reads", (long long)want[k]);
	fid_ids_free(&ids);
	free(want);
	fidb_close(&rd);
}

/* Identity against itself, tables written: each profile scores 0 against itself. */
static void search_self(const fid_file_t *f)
{
	const fid_prof_t *p = &f->prof;
	fid_job_t job = {p, p, PG_XOR, 3, 2, 1, 0, GVK_DEVICE_CPU, 0, {0}};
	fid_result_t res;
	memset(&res, 0, sizeof res);
	gvk_err_t err = {0, ""};
	if (fid_search(&job, &res, &err) < 0) fz_fail("search of an accepted database failed: %s", err.msg);
	for (int64_t q = 0; q < p->n && res.k > 0; ++q)
		if (res.top[(size_t)q * (size_t)res.k].score != 0) fz_fail("profile %lld: best self score %u", (long long)q, res.top[(size_t)q * (size_t)res.k].score);
	gvk_fastid_result_t *pub = NULL;
	if (fid_result_export(&res, (size_t)p->n, &pub, &err) < 0) fz_fail("results of an accepted database: %s", err.msg);
	if (fid_write_top(null_out, pub, &f->ids, &f->ids, &err) < 0 ||
	    fid_write_hits(null_out, pub, &f->ids, &f->ids, &err) < 0)
		fz_fail("tables of an accepted database: %s", err.msg);
	free(pub->top), free(pub->hits), free(pub); /* gvk_fastid_result_free: fastid_api.c is not in this build */
	fid_result_free(&res);
}

/* The file read as gvk fastid reads queries and databases; returns rc, fills *out on success. */
static int read_file(const char *path, fid_file_t *out)
{
	gvk_err_t err = {0, ""};
	int rc = fidb_read_all(path, &out->prof, &out->panel, &out->ids, &err);
	fz_check_err(rc, &err, path);
	if (rc < 0) return rc;
	check_whole(out);
	read_blocks(path, out);
	if (out->prof.n <= 64 && out->prof.nw <= 64) search_self(out);
	return 0;
}

typedef struct {
	const char *path;
	const uint8_t *data;
	size_t size;
} feed_t;

static void *feed(void *arg)
{
	const feed_t *f = arg;
	int fd = open(f->path, O_WRONLY);
	for (size_t done = 0; fd >= 0 && done < f->size;) {
		ssize_t n = write(fd, f->data + done, f->size - done);
		if (n <= 0) break;
		done += (size_t)n;
	}
	if (fd >= 0) close(fd);
	return NULL;
}

/* Wakes a writer still waiting in open() for a reader (one the parser never became). */
static void release_writer(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd >= 0) close(fd);
}

/* The same bytes from a pipe: accepted exactly when the file was, with the same profiles. The
 * writer thread takes no signal, and the reader holds off libFuzzer's SIGALRM meanwhile: its
 * handler has no SA_RESTART, so a tick would fail the pipe's open() or read() with EINTR, an
 * error of the harness and not of the file. A tick held off is taken once the pipe is read. */
static void read_stream(const uint8_t *data, size_t size, int file_rc, const fid_file_t *file)
{
	fz_file_t p;
	fz_write(&p, data, 0, ".pipe");
	unlink(p.path);
	if (mkfifo(p.path, 0600) < 0) fz_fail("harness: cannot make the pipe %s", p.path);
	feed_t fd = {p.path, data, size};
	sigset_t all, alarm, old;
	sigfillset(&all);
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_t th;
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&th, NULL, feed, &fd) != 0) fz_fail("harness: no thread");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_sigmask(SIG_BLOCK, &alarm, NULL);
	fid_file_t s;
	gvk_err_t err = {0, ""};
	int rc = fidb_read_all(p.path, &s.prof, &s.panel, &s.ids, &err);
	release_writer(p.path);
	pthread_join(th, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fz_check_err(rc, &err, p.path);
	if ((rc < 0) != (file_rc < 0)) fz_fail("the file reader says %d, the stream reader %d (%s)", file_rc, rc, err.msg);
	if (rc == 0 && (s.prof.n != file->prof.n || s.prof.stride != file->prof.stride ||
	                memcmp(s.prof.w, file->prof.w, (size_t)s.prof.n * (size_t)s.prof.stride * 8) != 0 ||
	                s.ids.n != file->ids.n || s.panel.len != file->panel.len))
		fz_fail("the stream reader's profiles differ from the file reader's");
	if (rc == 0) fid_file_free(&s);
	fz_remove(&p);
}

/* A version 2 input whose header and panel fit but whose hash is wrong, with the hash corrected:
 * 1 when there is one (in *fixed, malloc'ed). */
static int fixed_hash(const uint8_t *data, size_t size, uint8_t **fixed)
{
	if (size < FIDB_V2_HEADER || memcmp(data, "FID2", 4) != 0) return 0;
	uint64_t len = 0, want = 0;
	for (int b = 7; b >= 0; --b) len = len << 8 | data[16 + b], want = want << 8 | data[32 + b];
	if (len > size - FIDB_V2_HEADER) return 0;
	uint64_t h = fid_fnv1a(data + FIDB_V2_HEADER, (size_t)len);
	if (h == want) return 0;
	*fixed = malloc(size);
	memcpy(*fixed, data, size);
	for (int b = 0; b < 8; ++b) (*fixed)[32 + b] = (uint8_t)(h >> (8 * b));
	return 1;
}

static void one_input(const uint8_t *data, size_t size, int stream)
{
	fz_file_t f;
	fz_write(&f, data, size, ".fidb");
	fid_file_t whole;
	int rc = read_file(f.path, &whole);
	if (stream) read_stream(data, size, rc, &whole);
	if (rc == 0) fid_file_free(&whole);
	fz_remove(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one_input(data, size, 1);
	uint8_t *fixed;
	if (fixed_hash(data, size, &fixed)) {
		one_input(fixed, size, 0);
		free(fixed);
	}
	return 0;
}
