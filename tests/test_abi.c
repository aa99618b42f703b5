/* SPDX-License-Identifier: MIT */
/* gvk_struct_layout(): the table is well formed (each struct's entry, then its fields in order,
 * each inside the struct, none overlapping, no gap or tail an omitted field could fill), names
 * every struct once, and gives what this compiler gives for the fields the Python binding once
 * had wrong. tests/python/abi_check.py compares it with a second reading of gvk.h. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gvk.h"

static int fails;

static void check(int ok, const char *type, const char *field, const char *what)
{
	if (!ok) ++fails, printf("FAIL: %s%s%s: %s\n", type, field ? "." : "", field ? field : "", what);
}

/* Entry of type.field (field NULL: the struct's), or NULL. */
static const gvk_layout_t *find(const gvk_layout_t *t, size_t n, const char *type, const char *field)
{
	for (size_t k = 0; k < n; ++k)
		if (!strcmp(t[k].type, type) && (field ? t[k].field && !strcmp(t[k].field, field) : !t[k].field))
			return &t[k];
	return NULL;
}

/* The largest alignment a field of gvk.h has (double, int64_t, pointers, size_t). */
#define MAX_ALIGN 8

/* The fields of the struct whose entry is t[s], up to the next struct's entry; returns that index. */
static size_t check_struct(const gvk_layout_t *t, size_t n, size_t s)
{
	const char *type = t[s].type;
	size_t end = 0, k = s + 1;
	check(t[s].size > 0, type, NULL, "sizeof is 0");
	check(find(t, n, type, NULL) == &t[s], type, NULL, "listed twice");
	for (; k < n && t[k].field; ++k) {
		const gvk_layout_t *f = &t[k];
		check(!strcmp(f->type, type), f->type, f->field, "listed under another struct");
		check(f->size > 0, type, f->field, "size 0");
		check(f->offset >= end, type, f->field, "overlaps the field before it");
		check(f->offset - end < MAX_ALIGN, type, f->field, "a gap before it that a field could fill");
		check(f->offset + f->size <= t[s].size, type, f->field, "ends past the struct");
		check(find(t, n, type, f->field) == f, type, f->field, "listed twice");
		end = f->offset + f->size;
	}
	check(k > s + 1, type, NULL, "no fields");
	check(t[s].size - end < MAX_ALIGN, type, NULL, "a tail after the last field that a field could fill");
	return k;
}

int main(void)
{
	size_t n = 0;
	const gvk_layout_t *t = gvk_struct_layout(&n);
	check(t && n > 0 && !t[0].field, "gvk_struct_layout", NULL, "empty, or not starting with a struct");
	if (fails) return 1;
	check(gvk_struct_layout(NULL) == t, "gvk_struct_layout", NULL, "n may be NULL");
	size_t structs = 0;
	for (size_t s = 0; s < n; s = check_struct(t, n, s)) ++structs;
	static const struct {
		const char *type, *field;
		size_t offset, size;
	} want[] = {
		{"gvk_pairhmm_opts_t", NULL, 0, sizeof(gvk_pairhmm_opts_t)},
		{"gvk_pairhmm_opts_t", "gpu_min_work", offsetof(gvk_pairhmm_opts_t, gpu_min_work), sizeof(double)},
		{"gvk_pairhmm_opts_t", "log", offsetof(gvk_pairhmm_opts_t, log), sizeof(gvk_log_t)},
		{"gvk_align_opts_t", NULL, 0, sizeof(gvk_align_opts_t)},
		{"gvk_align_opts_t", "gpu_min_work", offsetof(gvk_align_opts_t, gpu_min_work), sizeof(double)},
		{"gvk_err_t", "msg", offsetof(gvk_err_t, msg), 512},
		{"gvk_cnv_opts_t", "I", offsetof(gvk_cnv_opts_t, I), GVK_CNV_MAX_CLASSES * sizeof(double)},
		{"gvk_read_t", "gcp", offsetof(gvk_read_t, gcp), sizeof(void *)},
		{"gvk_cnv_bam_opts_t", "progress_fn", offsetof(gvk_cnv_bam_opts_t, progress_fn), sizeof(void (*)(void))},
		{"gvk_layout_t", "size", offsetof(gvk_layout_t, size), sizeof(size_t)},
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; ++k) {
		const gvk_layout_t *e = find(t, n, want[k].type, want[k].field);
		check(e != NULL, want[k].type, want[k].field, "missing");
		if (e) check(e->offset == want[k].offset && e->size == want[k].size, want[k].type, want[k].field,
		             "offset or size differs from the compiler's");
	}
	printf("%zu structs, %zu fields: %s\n", structs, n - structs, fails ? "FAILED" : "ok");
	return fails != 0;
}
