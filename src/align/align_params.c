/* SPDX-License-Identifier: MIT */
/* Named parameter sets, strategy names and the input limits (docs/align.md, Semantics 2, 3
 * and 9). */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "../common/err.h"
#include "gvk.h"

static const struct {
	const char *name;
	gvk_sw_params_t p;
} presets[] = {
	{"ORIGINAL_DEFAULT", {3, -1, -4, -3}},
	{"STANDARD_NGS", {25, -50, -110, -6}},
	{"NEW_SW_PARAMETERS", {200, -150, -260, -11}},
	{"ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS", {10, -15, -30, -5}},
};

int gvk_sw_preset(const char *name, gvk_sw_params_t *p)
{
	if (!name || !p) return GVK_ERR_ARG;
	for (size_t k = 0; k < sizeof presets / sizeof presets[0]; ++k)
		if (!strcasecmp(name, presets[k].name)) {
			*p = presets[k].p;
			return 0;
		}
	return GVK_ERR_ARG;
}

static const char *const ovh_names[] = {"SOFTCLIP", "INDEL", "LEADING_INDEL", "IGNORE"};

int gvk_overhang_parse(const char *name)
{
	if (!name) return GVK_ERR_ARG;
	for (int k = 0; k < 4; ++k)
		if (!strcasecmp(name, ovh_names[k])) return GVK_OVERHANG_SOFTCLIP + k;
	char *end;
	long v = strtol(name, &end, 10);
	if (*name && !*end && v >= GVK_OVERHANG_SOFTCLIP && v <= GVK_OVERHANG_IGNORE) return (int)v;
	return GVK_ERR_ARG;
}

const char *gvk_overhang_name(int overhang)
{
	if (overhang < GVK_OVERHANG_SOFTCLIP || overhang > GVK_OVERHANG_IGNORE) return NULL;
	return ovh_names[overhang - GVK_OVERHANG_SOFTCLIP];
}

int gvk_align_check_pair(const gvk_align_pair_t *p, gvk_err_t *err)
{
	if (!p) return gvk_err_null(err, __func__, "p");
	/* Without the function's name: gvk_align_batch puts "pair K: " before these. */
	if (p->ref_len < 1) return gvk_err_set(err, GVK_ERR_ARG, "empty ref sequence");
	if (p->alt_len < 1) return gvk_err_set(err, GVK_ERR_ARG, "empty alt sequence");
	if (!p->ref) return gvk_err_set(err, GVK_ERR_ARG, "ref is NULL");
	if (!p->alt) return gvk_err_set(err, GVK_ERR_ARG, "alt is NULL");
	if (p->ref_len > GVK_ALIGN_MAX_LEN || p->alt_len > GVK_ALIGN_MAX_LEN)
		return gvk_err_set(err, GVK_ERR_ARG, "sequence of %d bases is longer than the limit of %d",
		                   p->ref_len > p->alt_len ? p->ref_len : p->alt_len, GVK_ALIGN_MAX_LEN);
	if (!gvk_overhang_name(p->overhang))
		return gvk_err_set(err, GVK_ERR_ARG, "unknown overhang strategy code %d", p->overhang);
	const gvk_sw_params_t *s = &p->par;
	if (s->match < 0 || s->match > 65536)
		return gvk_err_set(err, GVK_ERR_ARG, "match %d outside 0..65536", s->match);
	const int32_t lim = -(1 << 28);
	if (s->mismatch > 0 || s->gap_open > 0 || s->gap_extend > 0)
		return gvk_err_set(err, GVK_ERR_ARG, "mismatch, gap_open and gap_extend must be <= 0 (got %d, %d, %d)",
		                   s->mismatch, s->gap_open, s->gap_extend);
	if (s->mismatch < lim || s->gap_open < lim || s->gap_extend < lim)
		return gvk_err_set(err, GVK_ERR_ARG, "mismatch, gap_open and gap_extend must be >= -2^28 (got %d, %d, %d)",
		                   s->mismatch, s->gap_open, s->gap_extend);
	if (p->overhang == GVK_OVERHANG_INDEL || p->overhang == GVK_OVERHANG_LEADING_INDEL) {
		/* A gap opened from the boundary must beat the -2^30 sentinel of E[i][0] and F[0][j]
		 * (docs/align.md, Semantics 4.1); this also keeps every score above -2^31. */
		int64_t len = p->ref_len > p->alt_len ? p->ref_len : p->alt_len;
		int64_t edge = (int64_t)s->gap_open + (len - 1) * s->gap_extend;
		if (edge + s->gap_open <= -(INT64_C(1) << 30) + s->gap_extend)
			return gvk_err_set(err, GVK_ERR_ARG,
			                   "gap penalties too large for %lld bases under %s: gap_open + (len - 1) * gap_extend = %lld "
			                   "leaves no room above the -2^30 sentinel",
			                   (long long)len, gvk_overhang_name(p->overhang), (long long)edge);
	}
	return 0;
}
