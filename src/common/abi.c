/* SPDX-License-Identifier: MIT */
/* gvk_struct_layout(): where every field of the structs of gvk.h lies in this build. The list of
 * structs and fields (gvk_abi_fields.h) is generated from gvk.h at build time by cmake/gvk_abi.cmake,
 * and offsetof / sizeof give the numbers, so the table follows the header without an edit here: a
 * field added to gvk.h is in it at the next build. */
#include <stddef.h>

#include "gvk.h"

#define GVK_ABI_STRUCT(T) {#T, NULL, 0, sizeof(T)},
#define GVK_ABI_FIELD(T, f) {#T, #f, offsetof(T, f), sizeof(((T *)0)->f)},

static const gvk_layout_t layout[] = {
#include "gvk_abi_fields.h"
};

const gvk_layout_t *gvk_struct_layout(size_t *n)
{
	if (n) *n = sizeof layout / sizeof layout[0];
	return layout;
}
