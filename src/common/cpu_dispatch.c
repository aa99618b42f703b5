/* SPDX-License-Identifier: MIT */
/* Choosing among an engine's kernel sets (cpu_dispatch.h). */
#include <stdio.h>

#include "cpu_dispatch.h"
#include "gvk.h"

const void *cpu_kernel_pick(const cpu_kernel_t *t, int n, int isa)
{
	for (int k = 0; k < n; ++k)
		if ((isa == GVK_ISA_AUTO || isa == t[k].isa) && cpu_has(t[k].need)) return t[k].set;
	return NULL;
}

int cpu_kernel_note(const cpu_kernel_t *t, int n, int isa, const void *chosen, char *buf, size_t size)
{
	int k = 0;
	while (k < n && t[k].set != chosen) ++k;
	const char *name = k < n ? t[k].name : "?";
	if (isa == GVK_ISA_AUTO && k > 0 && k < n) {
		char miss[160];
		cpu_feature_list(t[k - 1].need & ~cpu_features()->flags, miss, sizeof miss);
		snprintf(buf, size, "%s (%s needs %s, which this CPU lacks)", name, t[k - 1].name, miss);
		return 1;
	}
	int sve_set = 0;
	for (int j = 0; j < n; ++j) sve_set |= (t[j].need & CPUF_SVE) != 0;
	if (cpu_has(CPUF_SVE) && !sve_set)
		snprintf(buf, size, "%s (this CPU has SVE; this engine has no SVE kernel, NEON serves)", name);
	else
		snprintf(buf, size, "%s", name);
	return 0;
}
