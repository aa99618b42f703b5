/* SPDX-License-Identifier: MIT */
/* gvk pairhmm --format group: the input as a file, parsed as the CLI parses it. */
#include "fuzz_util.h"
#include "pairhmm_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".in");
	fz_pairhmm(f.path, PHMM_FMT_GROUP);
	fz_remove(&f);
	return 0;
}
