/* SPDX-License-Identifier: MIT */
/* gvk align: the pair table read as the CLI reads it (NEW_SW_PARAMETERS and SOFTCLIP for lines of
 * two fields), in small chunks so that lines cross chunk boundaries. Every pair accepted must pass
 * the engine's own check, which is what guards the kernels. */
#include <string.h>

#include "align/align_io.h"
#include "fuzz_util.h"

static void check_chunk(const al_chunk_t *c)
{
	for (size_t k = 0; k < c->n; ++k) {
		const gvk_align_pair_t *p = &c->pairs[k];
		gvk_err_t e = {0, ""};
		if (gvk_align_check_pair(p, &e) < 0) fz_fail("pair %zu accepted but the engine refuses it: %s", k, e.msg);
		if (memchr(p->ref, 0, (size_t)p->ref_len) || memchr(p->alt, 0, (size_t)p->alt_len))
			fz_fail("pair %zu: a NUL byte inside a sequence", k);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_file_t f;
	fz_write(&f, data, size, ".tsv");
	al_defaults_t def;
	memset(&def, 0, sizeof def);
	gvk_sw_preset("NEW_SW_PARAMETERS", &def.par);
	def.overhang = GVK_OVERHANG_SOFTCLIP;
	/* A forced scoring on odd sizes (--preset/--scores given): the per-line values are then
	 * parsed but not used. */
	def.force_par = def.force_overhang = (int)(size & 1);
	gvk_err_t err = {0, ""};
	al_reader_t *rd = al_reader_open(f.path, &def, &err);
	if (!rd) fz_fail("cannot open %s: %s", f.path, err.msg);
	al_chunk_t c;
	memset(&c, 0, sizeof c);
	long n;
	while ((n = al_reader_next(rd, &c, 3, &err)) > 0) check_chunk(&c);
	fz_check_err((int)n, &err, f.path);
	al_chunk_free(&c);
	al_reader_close(rd);
	fz_remove(&f);
	return 0;
}
