/* SPDX-License-Identifier: MIT */
/* What this build of gvk is: its version, the commit it was built from, and what it can use
 * (GPU back end and architectures compiled in, htslib, zlib, cairo, CPU instruction sets compiled
 * and present). Each optional library has its own line, "none" when the build left it out. */
#include <stdio.h>
#include <string.h>

#include "gvk.h"
#include "common/cpu_features.h"
#include "align/align_kernel.h"
#include "pairhmm/pairhmm_kernel.h"
#include "snp/popgemm.h"
#ifdef GVK_HAVE_HTSLIB
#include <htslib/hts.h>
#endif
#ifdef GVK_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef GVK_HAVE_CAIRO
#include <cairo.h>
#endif

#ifndef GVK_COMMIT
#define GVK_COMMIT "unknown"
#endif
#ifndef GVK_CUDA_ARCHS
#define GVK_CUDA_ARCHS ""
#endif
#ifndef GVK_GPU_BACKEND
#define GVK_GPU_BACKEND ""
#endif

const char *gvk_version(void) { return GVK_VERSION; }

unsigned gvk_features(void)
{
	unsigned f = 0;
#ifdef GVK_HAVE_CUDA
	f |= GVK_GPU_BACKEND[0] == 'H' ? GVK_FEATURE_HIP : GVK_FEATURE_CUDA;
#endif
#ifdef GVK_HAVE_HTSLIB
	f |= GVK_FEATURE_HTSLIB;
#endif
#ifdef GVK_HAVE_ZLIB
	f |= GVK_FEATURE_ZLIB;
#endif
#ifdef GVK_HAVE_CAIRO
	f |= GVK_FEATURE_CAIRO;
#endif
#if defined(GVK_HAVE_AVX512)
	if (cpu_has(CPUF_AVX2)) f |= GVK_FEATURE_CPU_AVX2;
	if (cpu_has(CPUF_FAMILY_AVX512)) f |= GVK_FEATURE_CPU_AVX512;
	if (cpu_has(CPUF_POPCNT)) f |= GVK_FEATURE_CPU_POPCNT;
#elif defined(GVK_HAVE_NEON)
	if (cpu_has(CPUF_NEON)) f |= GVK_FEATURE_CPU_NEON;
#endif
	return f;
}

int gvk_feature_string(char *buf, size_t size)
{
	char cpu[160];
	cpu_feature_names(cpu, sizeof cpu);
	/* What each engine's dispatch takes here by default (pg_isa_t names carry a "cpu-" prefix). */
	const phmm_isa_t *ph = phmm_isa_select(GVK_ISA_AUTO);
	const al_isa_t *al = al_isa_select(GVK_ISA_AUTO);
	const pg_isa_t *pg = pg_isa_select(GVK_ISA_AUTO);
	char used[160];
	snprintf(used, sizeof used, "pairhmm %s, align %s, ld/fastid %s", ph->name, al->name, pg->name + 4);
	const char *hts = "none", *z = "none", *cairo = "none";
#ifdef GVK_HAVE_HTSLIB
	hts = hts_version();
#endif
#ifdef GVK_HAVE_ZLIB
	z = zlibVersion();
#endif
#ifdef GVK_HAVE_CAIRO
	cairo = cairo_version_string();
#endif
	int n = snprintf(buf, size,
	                 "commit: %s\nGPU back end: %s\nGPU architectures: %s\nhtslib: %s\nzlib: %s\ncairo: %s\n"
	                 "CPU kernels: %s\nCPU kernels used: %s\nthis CPU: %s\n",
	                 GVK_COMMIT, GVK_GPU_BACKEND[0] ? GVK_GPU_BACKEND : "none",
	                 GVK_CUDA_ARCHS[0] ? GVK_CUDA_ARCHS : "none (built without a GPU back end)", hts, z, cairo,
#if defined(GVK_HAVE_AVX512)
	                 "avx512, avx2, popcnt, scalar",
#elif defined(GVK_HAVE_SVE)
	                 "sve512 and sve256 (pairhmm), sve (ld/fastid), neon, scalar",
#elif defined(GVK_HAVE_NEON)
	                 "neon, scalar",
#else
	                 "scalar",
#endif
	                 used, cpu[0] ? cpu : "no vector extensions used by gvk");
	return n < 0 ? GVK_ERR_ARG : n;
}
