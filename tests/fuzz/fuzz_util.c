/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* mkstemps */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"

/* /dev/shm when there is one: each execution writes its input, and a disk's file system would
 * make that the bulk of the cost. */
static const char *tmp_dir(void)
{
	struct stat st;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) return "/dev/shm";
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

static void write_all(int fd, const char *path, const uint8_t *data, size_t size)
{
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) fz_fail("harness: cannot write %s", path);
		done += (size_t)n;
	}
	close(fd);
}

void fz_write(fz_file_t *f, const uint8_t *data, size_t size, const char *suffix)
{
	snprintf(f->path, sizeof f->path, "%s/gvkfuzz.XXXXXX%s", tmp_dir(), suffix);
	int fd = mkstemps(f->path, (int)strlen(suffix));
	if (fd < 0) fz_fail("harness: cannot create %s", f->path);
	write_all(fd, f->path, data, size);
}

static char own_dir[200];

static void remove_own_dir(void)
{
	if (own_dir[0]) rmdir(own_dir);
}

void fz_write_named(fz_file_t *f, const char *name, const uint8_t *data, size_t size)
{
	if (!own_dir[0]) {
		snprintf(own_dir, sizeof own_dir, "%s/gvkfuzz.XXXXXX", tmp_dir());
		if (!mkdtemp(own_dir)) fz_fail("harness: cannot create a folder %s", own_dir);
		atexit(remove_own_dir);
	}
	snprintf(f->path, sizeof f->path, "%s/%s", own_dir, name);
	int fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) fz_fail("harness: cannot create %s", f->path);
	write_all(fd, f->path, data, size);
}

void fz_remove(fz_file_t *f)
{
	if (f->path[0]) unlink(f->path);
	f->path[0] = 0;
}

int fz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, int max)
{
	const size_t sl = strlen(FZ_SEP);
	int n = 0;
	for (int k = 0; k < max; ++k) part[k] = data + size, len[k] = 0;
	while (n < max - 1) {
		const uint8_t *s = size >= sl ? memmem(data, size, FZ_SEP, sl) : NULL;
		if (!s) break;
		part[n] = data, len[n] = (size_t)(s - data);
		++n;
		size -= (size_t)(s - data) + sl;
		data = s + sl;
	}
	part[n] = data, len[n] = size;
	return n + 1;
}

void fz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "FUZZ FINDING: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

void fz_check_err_any(int rc, const gvk_err_t *err, const char *const *names, int n)
{
	if (rc >= 0) return;
	if (err->code != rc) fz_fail("returned %d but the error says code %d (%s)", rc, err->code, err->msg);
	if (!err->msg[0]) fz_fail("returned %d without a message", rc);
	/* Only an allocation failure may leave the input unnamed (the fuzzer's inputs are small). */
	if (rc == GVK_ERR_NOMEM) return;
	for (int k = 0; k < n; ++k)
		if (strstr(err->msg, names[k])) return;
	fz_fail("the message does not name the input %s: %s", names[0], err->msg);
}

void fz_check_err(int rc, const gvk_err_t *err, const char *path)
{
	fz_check_err_any(rc, err, &path, 1);
}

uint64_t fz_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}
