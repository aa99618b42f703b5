/* SPDX-License-Identifier: MIT */
/* The CPU-feature module and the dispatch tables every engine uses (src/common/cpu_dispatch.h):
 *  - the features are computed once: every thread sees the same object and flags;
 *  - AUTO takes the first set the CPU runs, an explicit request only its own set, and a set whose
 *    features the CPU lacks is never returned;
 *  - the note names the better set passed over and exactly the features this CPU lacks for it;
 *  - gvk_features() agrees with the module, and each engine's AUTO choice is one it can run. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/cpu_dispatch.h"
#include "gvk.h"

static int fails;
#define CHECK(c, ...) ((c) ? (void)0 : (void)(fails++, fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__), fprintf(stderr, __VA_ARGS__)))

static void *probe(void *arg)
{
	*(const cpu_features_t **)arg = cpu_features();
	return NULL;
}

int main(void)
{
	const cpu_features_t *seen[4];
	pthread_t th[4];
	for (int k = 0; k < 4; ++k) pthread_create(&th[k], NULL, probe, &seen[k]);
	for (int k = 0; k < 4; ++k) pthread_join(th[k], NULL);
	for (int k = 0; k < 4; ++k) CHECK(seen[k] == cpu_features(), "thread %d saw another feature object\n", k);
	const unsigned f = cpu_features()->flags;

	/* A feature this CPU cannot have: the other architecture's. */
#if defined(__x86_64__)
	const unsigned absent = CPUF_NEON;
	const char *absent_name = "neon";
#else
	const unsigned absent = CPUF_AVX2;
	const char *absent_name = "avx2";
#endif
	CHECK(!(f & absent), "flags %#x include the other architecture's %#x\n", f, absent);
	int a = 1, b = 2, c = 3;
	const cpu_kernel_t t[] = {{GVK_ISA_AVX512, absent, &a, "wide"}, {-1, 0, &b, "plain"}, {GVK_ISA_SCALAR, 0, &c, "portable"}};
	CHECK(cpu_kernel_pick(t, 3, GVK_ISA_AUTO) == &b, "AUTO did not take the first set this CPU runs\n");
	CHECK(cpu_kernel_pick(t, 3, GVK_ISA_AVX512) == NULL, "a set whose features are missing was returned\n");
	CHECK(cpu_kernel_pick(t, 3, GVK_ISA_SCALAR) == &c, "SCALAR did not take its own set\n");
	CHECK(cpu_kernel_pick(t, 3, GVK_ISA_AVX2) == NULL, "a request with no set in the table got one\n");
	char note[256];
	CHECK(cpu_kernel_note(t, 3, GVK_ISA_AUTO, &b, note, sizeof note) == 1, "passing over 'wide' was not reported\n");
	char want[128];
	snprintf(want, sizeof want, "plain (wide needs %s, which this CPU lacks)", absent_name);
	CHECK(!strcmp(note, want), "note '%s', want '%s'\n", note, want);
	CHECK(cpu_kernel_note(t, 3, GVK_ISA_SCALAR, &c, note, sizeof note) == 0 && !strncmp(note, "portable", 8),
	      "an explicit request's note: '%s'\n", note);
	char lst[64];
	cpu_feature_list(CPUF_AVX512F | CPUF_POPCNT, lst, sizeof lst);
	CHECK(!strcmp(lst, "avx512f popcnt"), "feature list '%s'\n", lst);

	const unsigned g = gvk_features();
#if defined(GVK_HAVE_AVX512)
	CHECK(!!(g & GVK_FEATURE_CPU_AVX512) == cpu_has(CPUF_FAMILY_AVX512), "GVK_FEATURE_CPU_AVX512 disagrees\n");
	CHECK(!!(g & GVK_FEATURE_CPU_POPCNT) == cpu_has(CPUF_POPCNT), "GVK_FEATURE_CPU_POPCNT disagrees\n");
#elif defined(GVK_HAVE_NEON)
	CHECK(!!(g & GVK_FEATURE_CPU_NEON) == cpu_has(CPUF_NEON), "GVK_FEATURE_CPU_NEON disagrees\n");
	CHECK(cpu_has(CPUF_NEON), "an aarch64 CPU without ASIMD reported\n");
#endif
	char fs[2048];
	gvk_feature_string(fs, sizeof fs);
	CHECK(strstr(fs, "\nCPU kernels used: pairhmm ") != NULL, "no 'CPU kernels used' line in:\n%s", fs);
	printf("%s: %d failures\n", fs, fails);
	return fails ? 1 : 0;
}
