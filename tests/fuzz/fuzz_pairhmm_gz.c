/* SPDX-License-Identifier: MIT */
/* gvk pairhmm on gzip input, format detected (--format auto). An input that starts with the gzip
 * magic is written as it is (damaged streams: truncation, bad checksums, trailing bytes); any
 * other is compressed first, so that the decompressing line reader meets every kind of text. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_util.h"
#include "pairhmm_check.h"

/* Compresses data into a gzip member (level from the size, so that both stored and deflated
 * blocks occur); returns a malloc'ed buffer and its length in *out_len. */
static uint8_t *gzip_bytes(const uint8_t *data, size_t size, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, (int)(size % 10), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) fz_fail("harness: deflateInit2");
	uLong cap = deflateBound(&z, (uLong)size);
	uint8_t *out = malloc(cap);
	if (!out) fz_fail("harness: out of memory");
	z.next_in = (Bytef *)data, z.avail_in = (uInt)size;
	z.next_out = out, z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) fz_fail("harness: deflate");
	*out_len = (size_t)z.total_out;
	deflateEnd(&z);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		fz_write(&f, data, size, ".in.gz");
	} else {
		size_t n;
		uint8_t *gz = gzip_bytes(data, size, &n);
		fz_write(&f, gz, n, ".in.gz");
		free(gz);
	}
	fz_pairhmm(f.path, PHMM_FMT_AUTO);
	fz_remove(&f);
	return 0;
}
