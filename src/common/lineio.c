/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE /* madvise */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#ifdef GVK_HAVE_ZLIB
#include <zlib.h>
#endif

#include "err.h"
#include "lineio.h"
#include "threads.h"

struct gvk_lr_s {
#ifdef GVK_HAVE_ZLIB
	gzFile gz;
#else
	FILE *fp;
#endif
	char *path;
	char *buf;      /* raw bytes read, [beg, end) not yet consumed */
	size_t beg, end, cap;
	char *line;
	size_t line_cap;
	long lineno;
	int eof;
	int mem;         /* reads a memory block: 1 a caller's (not owned), 2 the file mapped (munmap),
	                    3 the file read whole into buf (GVK_LR_EXACT) */
	int fd;          /* > 0: a plain regular file read with pread (large blocks on several threads) */
	off_t off;       /* its next offset */
	size_t last_len; /* bytes the last gvk_lr_next consumed, for gvk_lr_unread_line */
	size_t released; /* a mapped file's bytes given back, from its start (gvk_lr_release) */
	size_t max_line; /* the longest line taken (gvk_lr_set_max_line) */
};

enum { LR_BLOCK = 1 << 16 };

/* A regular file that does not start with the gzip magic: read with pread, so that a large
 * block is copied out of the page cache by several threads (one thread's copy of a large input
 * would set the pace of the GPU commands). Returns the descriptor, or -1. */
static int lr_open_plain(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) return -1;
	struct stat st;
	unsigned char magic[2] = {0, 0};
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, magic, 2, 0) < 0 || (magic[0] == 0x1f && magic[1] == 0x8b) ||
	    fd == 0) {
		close(fd);
		return -1;
	}
	return fd;
}

typedef struct {
	int fd;
	char *dst;
	off_t off;
	size_t len, per;
	int nt;
	ssize_t got[16]; /* bytes read by each thread, or -1 */
} pread_job_t;

static void pread_worker(void *arg, int t)
{
	pread_job_t *j = arg;
	size_t b = j->per * (size_t)t, e = b + j->per < j->len ? b + j->per : j->len, done = 0;
	j->got[t] = 0;
	while (b + done < e) {
		ssize_t n = pread(j->fd, j->dst + b + done, e - b - done, j->off + (off_t)(b + done));
		if (n < 0 && errno == EINTR) continue;
		if (n < 0) {
			j->got[t] = -1;
			return;
		}
		if (n == 0) break;
		done += (size_t)n;
	}
	j->got[t] = (ssize_t)done;
}

/* Fills dst with up to len bytes at the file's current offset; returns bytes read or -1. */
static long lr_pread(gvk_lr_t *lr, char *dst, size_t len)
{
	int nt = len >= ((size_t)16 << 20) ? gvk_ncpu() : 1;
	if (nt > 16) nt = 16;
	pread_job_t j = {lr->fd, dst, lr->off, len, (len + (size_t)nt - 1) / (size_t)nt, nt, {0}};
	if (nt == 1)
		pread_worker(&j, 0);
	else
		gvk_parallel(nt, pread_worker, &j);
	size_t total = 0;
	for (int t = 0; t < nt; ++t) {
		if (j.got[t] < 0) return -1;
		total += (size_t)j.got[t];
		/* A short piece means the file ended there (or shrank while being read): stop at it. */
		if ((size_t)j.got[t] < (t == nt - 1 ? len - j.per * (size_t)t : j.per)) break;
	}
	lr->off += (off_t)total;
	return (long)total;
}

#ifdef GVK_LR_EXACT
/* Fuzzing builds (tests/fuzz) read a plain file into a heap block of exactly its size instead of
 * mapping it: the zeroed rest of a mapping's last page would hide from AddressSanitizer a parser
 * that reads or writes past the end of its input. Returns 0 when the file is in memory. */
static int lr_read_exact(gvk_lr_t *lr, size_t size)
{
	char *b = malloc(size);
	if (!b) return -1;
	if (lr_pread(lr, b, size) != (long)size) {
		free(b);
		lr->off = 0;
		return -1;
	}
	free(lr->buf);
	lr->buf = b, lr->beg = 0, lr->end = lr->cap = size;
	lr->mem = 3, lr->eof = 1;
	return 0;
}
#endif

/* A plain file is mapped whole when it can be: blocks are then pointers into the page cache, not
 * copies of it (copying would be a large share of the parser's work), and the kernel is asked
 * to read ahead. Private and writable, so that a parser that edits its block copies only the
 * pages it touches. Falls back to pread (empty files, no address space). A file truncated by
 * another process while it is read ends this one with SIGBUS, where pread saw a short read. */
static void lr_map(gvk_lr_t *lr)
{
	struct stat st;
	if (fstat(lr->fd, &st) != 0 || st.st_size <= 0 || (unsigned long long)st.st_size > (size_t)-1 / 2) return;
#ifdef GVK_LR_EXACT
	if (lr_read_exact(lr, (size_t)st.st_size) == 0) return;
#endif
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, lr->fd, 0);
	if (m == MAP_FAILED) return;
	madvise(m, (size_t)st.st_size, MADV_WILLNEED);
	free(lr->buf);
	lr->buf = m, lr->beg = 0, lr->end = lr->cap = (size_t)st.st_size;
	lr->mem = 2, lr->eof = 1;
}

gvk_lr_t *gvk_lr_open(const char *path, gvk_err_t *err)
{
	gvk_lr_t *lr = calloc(1, sizeof *lr);
	int is_stdin = strcmp(path, "-") == 0;
	if (!lr || !(lr->path = strdup(is_stdin ? "<stdin>" : path)) || !(lr->buf = malloc(LR_BLOCK))) {
		gvk_lr_close(lr);
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory opening %s", path);
		return NULL;
	}
	lr->cap = LR_BLOCK;
	lr->max_line = GVK_LINE_MAX_TABLE;
	if (!is_stdin && (lr->fd = lr_open_plain(path)) > 0) {
		lr_map(lr);
		return lr;
	}
	lr->fd = 0;
#ifdef GVK_HAVE_ZLIB
	lr->gz = is_stdin ? gzdopen(dup(0), "rb") : gzopen(path, "rb");
	if (!lr->gz) {
#else
	lr->fp = is_stdin ? stdin : fopen(path, "rb");
	if (!lr->fp) {
#endif
		gvk_err_set(err, GVK_ERR_IO, "%s: cannot open: %s", lr->path, strerror(errno ? errno : ENOENT));
		gvk_lr_close(lr);
		return NULL;
	}
	return lr;
}

gvk_lr_t *gvk_lr_open_mem(const char *text, size_t len, const char *path, long lineno, gvk_err_t *err)
{
	gvk_lr_t *lr = calloc(1, sizeof *lr);
	if (!lr || !(lr->path = strdup(path))) {
		free(lr);
		gvk_err_set(err, GVK_ERR_NOMEM, "out of memory");
		return NULL;
	}
	lr->mem = 1, lr->eof = 1;
	lr->buf = (char *)text, lr->end = lr->cap = len;
	lr->lineno = lineno;
	lr->max_line = GVK_LINE_MAX_TABLE;
	return lr;
}

void gvk_lr_set_max_line(gvk_lr_t *lr, size_t max) { lr->max_line = max; }

void gvk_lr_close(gvk_lr_t *lr)
{
	if (!lr) return;
	/* Only what is still ours: the address range given back may hold other mappings by now. */
	if (lr->mem == 2) munmap(lr->buf + lr->released, lr->cap - lr->released);
	if (lr->mem == 1 || lr->mem == 2) lr->buf = NULL;
	if (lr->fd > 0) close(lr->fd);
#ifdef GVK_HAVE_ZLIB
	if (lr->gz) gzclose(lr->gz);
#else
	if (lr->fp && lr->fp != stdin) fclose(lr->fp);
#endif
	free(lr->path);
	free(lr->buf);
	free(lr->line);
	free(lr);
}

/* Moves unread bytes to the front and reads more, growing the buffer up to `limit` bytes when it
 * is full; returns bytes added, 0 at EOF, <0 on error. */
static long lr_fill(gvk_lr_t *lr, size_t limit, gvk_err_t *err)
{
	if (lr->beg > 0) {
		memmove(lr->buf, lr->buf + lr->beg, lr->end - lr->beg);
		lr->end -= lr->beg;
		lr->beg = 0;
	}
	if (lr->end == lr->cap) {
		size_t cap = lr->cap * 2 < limit ? lr->cap * 2 : limit > lr->cap ? limit : lr->cap * 2;
		char *nb = realloc(lr->buf, cap);
		if (!nb) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory for a line", lr->path);
		lr->buf = nb;
		lr->cap = cap;
	}
	if (lr->fd > 0) {
		long got = lr_pread(lr, lr->buf + lr->end, lr->cap - lr->end);
		if (got < 0) return gvk_err_set(err, GVK_ERR_IO, "%s: read error after line %ld: %s", lr->path, lr->lineno, strerror(errno));
		lr->end += (size_t)got;
		return got;
	}
#ifdef GVK_HAVE_ZLIB
	int n = gzread(lr->gz, lr->buf + lr->end, (unsigned)(lr->cap - lr->end));
	int zerr = Z_OK;
	const char *m = n <= 0 ? gzerror(lr->gz, &zerr) : NULL;
	/* A truncated or corrupt gzip stream ends with Z_BUF_ERROR or Z_DATA_ERROR, not a clean EOF. */
	if (n < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
		return gvk_err_set(err, GVK_ERR_IO, "%s: read error after line %ld: %s", lr->path, lr->lineno,
		                   zerr == Z_BUF_ERROR ? "truncated gzip input" : m);
#else
	size_t n = fread(lr->buf + lr->end, 1, lr->cap - lr->end, lr->fp);
	if (n == 0 && ferror(lr->fp))
		return gvk_err_set(err, GVK_ERR_IO, "%s: read error after line %ld", lr->path, lr->lineno);
	if (lr->lineno == 0 && lr->end == 0 && n >= 2 && (unsigned char)lr->buf[0] == 0x1f &&
	    (unsigned char)lr->buf[1] == 0x8b)
		return gvk_err_set(err, GVK_ERR_UNSUPPORTED, "%s: gzip input needs a gvk built with zlib", lr->path);
#endif
	lr->end += (size_t)n;
	return (long)n;
}

/* Line ln refused: a NUL byte at column col, or (col 0) over the limit. */
static int lr_refuse_at(const gvk_lr_t *lr, long ln, size_t col, gvk_err_t *err)
{
	if (col) return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: NUL byte in line (column %zu)", lr->path, ln, col);
	size_t mib = lr->max_line >> 20;
	if (mib << 20 == lr->max_line)
		return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: line longer than %zu MiB, the longest this input may have",
		                   lr->path, ln, mib);
	return gvk_err_set(err, GVK_ERR_FORMAT, "%s:%ld: line longer than %zu bytes, the longest this input may have",
	                   lr->path, ln, lr->max_line);
}

/* A NUL byte (nul) or a line over the limit at buffer offset `at`, which lies in the line after
 * the reader's lineno or in a line after it within the unread bytes. */
static int lr_refuse(const gvk_lr_t *lr, size_t at, int nul, gvk_err_t *err)
{
	long ln = lr->lineno + 1;
	const char *ls = lr->buf + lr->beg, *e = lr->buf + at;
	for (const char *p = ls; p < e && (p = memchr(p, '\n', (size_t)(e - p))); ++p) ++ln, ls = p + 1;
	return lr_refuse_at(lr, ln, nul ? (size_t)(e - ls) + 1 : 0, err);
}

int gvk_lr_check_line(const gvk_lr_t *lr, const char *line, size_t len, long lineno, gvk_err_t *err)
{
	/* as lr_line sees a line: a NUL byte within the bytes it reads before it knows the line is
	 * too long comes first */
	const char *nul = memchr(line, 0, len < lr->max_line + 1 ? len : lr->max_line + 1);
	if (nul) return lr_refuse_at(lr, lineno, (size_t)(nul - line) + 1, err);
	return len > lr->max_line ? lr_refuse_at(lr, lineno, 0, err) : 0;
}

/* The first '\n' in [p, e), or NULL; a NUL byte before it is returned in *nul. Looked for in
 * pieces that stay in the cache, so that a long line is not read twice from memory and a NUL
 * near the start of an endless line is seen without reading on. */
static char *lr_scan(const char *p, const char *e, const char **nul)
{
	enum { PIECE = 1 << 14 };
	*nul = NULL;
	while (p < e) {
		size_t n = (size_t)(e - p) < PIECE ? (size_t)(e - p) : PIECE;
		char *nl = memchr(p, '\n', n);
		if ((*nul = memchr(p, 0, nl ? (size_t)(nl - p) : n))) return NULL;
		if (nl) return nl;
		p += n;
	}
	return NULL;
}

/* The next line in the reader's own buffer: its offset there in *at (the buffer may move when it
 * is refilled), its length without '\n' and '\r' in *len. A NUL byte or a line over the limit is
 * refused as soon as it is read. */
static int lr_line(gvk_lr_t *lr, size_t *at, size_t *len, gvk_err_t *err)
{
	size_t scan = lr->beg;
	for (;;) {
		/* One byte past the limit tells a line over it; the '\n' after a line at the limit is
		 * that byte. */
		size_t seen = lr->end - lr->beg > lr->max_line + 1 ? lr->beg + lr->max_line + 1 : lr->end;
		const char *nul;
		char *nl = lr_scan(lr->buf + scan, lr->buf + seen, &nul);
		if (nul) return lr_refuse(lr, (size_t)(nul - lr->buf), 1, err);
		if (!nl && seen - lr->beg > lr->max_line) return lr_refuse(lr, seen, 0, err);
		if (nl || lr->eof) {
			size_t stop = nl ? (size_t)(nl - lr->buf) : lr->end;
			if (!nl && stop == lr->beg) return 0;
			size_t n = stop - lr->beg;
			if (n > 0 && lr->buf[stop - 1] == '\r') --n;
			*at = lr->beg, *len = n;
			lr->last_len = (nl ? stop + 1 : stop) - lr->beg;
			lr->beg = nl ? stop + 1 : stop;
			lr->lineno++;
			return 1;
		}
		size_t done = seen - lr->beg;
		long got = lr_fill(lr, lr->max_line + 1, err);
		if (got < 0) return (int)got;
		if (got == 0) lr->eof = 1;
		scan = lr->beg + done;
	}
}

int gvk_lr_next(gvk_lr_t *lr, char **line, size_t *len, gvk_err_t *err)
{
	size_t at, n;
	int rc = lr_line(lr, &at, &n, err);
	if (rc <= 0) return rc;
	if (n + 1 > lr->line_cap) {
		char *nb = realloc(lr->line, n + 1);
		if (!nb) return gvk_err_set(err, GVK_ERR_NOMEM, "%s: out of memory for a line", lr->path);
		lr->line = nb;
		lr->line_cap = n + 1;
	}
	memcpy(lr->line, lr->buf + at, n);
	lr->line[n] = 0;
	*line = lr->line;
	*len = n;
	return 1;
}

int gvk_lr_view(gvk_lr_t *lr, const char **line, size_t *len, gvk_err_t *err)
{
	size_t at;
	int rc = lr_line(lr, &at, len, err);
	if (rc == 1) *line = lr->buf + at;
	return rc;
}

size_t gvk_lr_consumed(const gvk_lr_t *lr) { return lr->mem == 2 ? lr->beg : 0; }

void gvk_lr_release(gvk_lr_t *lr, size_t to)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	to = to / page * page;
	if (lr->mem != 2 || to <= lr->released || to > lr->cap) return;
	munmap(lr->buf + lr->released, to - lr->released);
	lr->released = to;
}

/* The lines of a counted block are counted here anyway: their lengths are checked on the way. */
static int lr_count(gvk_lr_t *lr, const char *blk, size_t len, gvk_err_t *err)
{
	const char *p = blk, *e = blk + len;
	for (const char *nl; (nl = memchr(p, '\n', (size_t)(e - p))); p = nl + 1, lr->lineno++, lr->beg = (size_t)(p - lr->buf))
		if ((size_t)(nl - p) > lr->max_line) return lr_refuse(lr, (size_t)(p - lr->buf) + lr->max_line + 1, 0, err);
	if (p < e && (size_t)(e - p) > lr->max_line) return lr_refuse(lr, (size_t)(p - lr->buf) + lr->max_line + 1, 0, err);
	if (p < e) lr->lineno++;
	return 0;
}

static int lr_block(gvk_lr_t *lr, size_t want, char **blk, size_t *len, int count, gvk_err_t *err)
{
	/* The first line is read as a line is, then given back: a file of zeros or one endless line
	 * is refused after its first bytes, not after `want` of them, and a block whose first line
	 * ends past `want` is that line. */
	size_t first, flen;
	int rc = lr_line(lr, &first, &flen, err);
	if (rc <= 0) return rc;
	lr->beg = first, lr->lineno--;
	const size_t limit = want + lr->max_line + 1;
	for (;;) {
		size_t have = lr->end - lr->beg;
		char *nl = NULL;
		if (have >= want || lr->eof) {
			/* The last newline within the first `want` bytes, or the first one after them. */
			size_t lim = have < want ? have : want;
			for (size_t k = lim; k > 0 && !nl; --k)
				if (lr->buf[lr->beg + k - 1] == '\n') nl = lr->buf + lr->beg + k - 1;
			if (!nl && have > want) nl = memchr(lr->buf + lr->beg + want, '\n', have - want);
		}
		if (nl || (lr->eof && have)) {
			size_t stop = nl ? (size_t)(nl - lr->buf) + 1 : lr->end, beg = lr->beg;
			long lineno = lr->lineno;
			*blk = lr->buf + lr->beg, *len = stop - lr->beg;
			if (count && (rc = lr_count(lr, *blk, *len, err)) < 0) {
				lr->beg = beg, lr->lineno = lineno;
				return rc;
			}
			lr->beg = stop;
			return 1;
		}
		if (lr->eof) return 0;
		long got = lr_fill(lr, limit, err); /* grows the buffer when it is full */
		if (got < 0) return (int)got;
		if (got == 0) lr->eof = 1;
	}
}

int gvk_lr_block(gvk_lr_t *lr, size_t want, char **blk, size_t *len, gvk_err_t *err)
{
	return lr_block(lr, want, blk, len, 1, err);
}

int gvk_lr_block_uncounted(gvk_lr_t *lr, size_t want, char **blk, size_t *len, gvk_err_t *err)
{
	return lr_block(lr, want, blk, len, 0, err);
}

void gvk_lr_add_lines(gvk_lr_t *lr, long lines) { lr->lineno += lines; }

void gvk_lr_unread(gvk_lr_t *lr, size_t bytes, long lines)
{
	lr->beg -= bytes;
	lr->lineno -= lines;
}

void gvk_lr_unread_line(gvk_lr_t *lr) { gvk_lr_unread(lr, lr->last_len, 1); }

long gvk_lr_lineno(const gvk_lr_t *lr) { return lr->lineno; }
const char *gvk_lr_path(const gvk_lr_t *lr) { return lr->path; }
