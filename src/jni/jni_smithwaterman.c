/* SPDX-License-Identifier: MIT */
/* GKL's IntelSmithWaterman natives (docs/align.md, Semantics 8) over gvk's aligner in raw GKL mode. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jni.h>

#include "gvk.h"
#include "jni_pool.h"
#include "jni_throw.h"

static void engine_destroy(void *p) { gvk_align_destroy(p); }

/* alignNative is static and one call is one pair: engines are borrowed from a shared pool. */
static jni_pool_t g_pool = JNI_POOL_INIT(engine_destroy);

/* GVK_SERVER: engines send their pairs to gvk serve; set once the server failed to answer a new
 * engine (which said so), so that the next engines do not try again. */
static atomic_int g_no_server;

static gvk_align_t *engine_get(gvk_err_t *err)
{
	gvk_align_opts_t opt;
	gvk_align_t *e = jni_pool_take(&g_pool);
	if (e) return e;
	gvk_align_opts_init(&opt);
	opt.flavour = GVK_SW_GKL;
	opt.raw = 1;      /* alignNative's answer: no substring shortcut (GATK does that in Java) */
	opt.threads = 1;  /* one pair per call */
	opt.device = GVK_DEVICE_CPU; /* a single pair is never worth a GPU launch of its own */
	jni_log_setup(&opt.log);
	/* Through gvk serve, every process's pairs share launches; GVK_DEVICE=cpu keeps them here. */
	if (!atomic_load(&g_no_server) && (opt.server = jni_env_server()) != NULL && jni_env_device(&opt.log) != GVK_DEVICE_CPU)
		opt.device = GVK_DEVICE_AUTO;
	e = gvk_align_create(&opt, err);
	if (e && opt.device == GVK_DEVICE_AUTO && strncmp(gvk_align_device_name(e), "server:", 7) != 0)
		atomic_store(&g_no_server, 1);
	return e;
}

JNIEXPORT void JNICALL Java_com_intel_gkl_smithwaterman_IntelSmithWaterman_initNative(JNIEnv *env, jclass cls)
{
	(void)env, (void)cls;
}

JNIEXPORT jint JNICALL Java_com_intel_gkl_smithwaterman_IntelSmithWaterman_alignNative(
	JNIEnv *env, jclass cls, jbyteArray ref, jbyteArray alt, jbyteArray cigar, jint match, jint mismatch, jint open,
	jint extend, jbyte strategy)
{
	gvk_align_pair_t p;
	gvk_align_result_t r;
	gvk_err_t err = { 0, "" };
	gvk_align_t *e;
	jbyte *rp, *ap;
	jsize cap;
	int rc;
	(void)cls;
	if (!ref || !alt || !cigar) {
		jni_throw(env, "java/lang/NullPointerException", "null argument to alignNative");
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.ref_len = (*env)->GetArrayLength(env, ref);
	p.alt_len = (*env)->GetArrayLength(env, alt);
	p.par.match = match, p.par.mismatch = mismatch, p.par.gap_open = open, p.par.gap_extend = extend;
	p.overhang = strategy;
	cap = (*env)->GetArrayLength(env, cigar);
	rp = (*env)->GetByteArrayElements(env, ref, NULL);
	ap = rp ? (*env)->GetByteArrayElements(env, alt, NULL) : NULL;
	if (!ap) {
		if (rp) (*env)->ReleaseByteArrayElements(env, ref, rp, JNI_ABORT);
		jni_throw(env, "java/lang/IllegalArgumentException", "Unable to access the input arrays");
		return -1;
	}
	p.ref = (const char *)rp, p.alt = (const char *)ap;
	if (!(e = engine_get(&err))) rc = err.code ? err.code : GVK_ERR_NOMEM;
	else rc = gvk_align_batch(e, &p, 1, &r, &err);
	if (rc == 0) /* the CIGAR already has GKL's truncation to 2 * max(len) characters */
		(*env)->SetByteArrayRegion(env, cigar, 0, r.cigar_len < cap ? r.cigar_len : cap, (const jbyte *)r.cigar);
	jni_pool_give(&g_pool, e);
	(*env)->ReleaseByteArrayElements(env, alt, ap, JNI_ABORT);
	(*env)->ReleaseByteArrayElements(env, ref, rp, JNI_ABORT);
	if (rc == 0) return r.offset;
	if (rc == GVK_ERR_NOMEM) jni_throw(env, "java/lang/OutOfMemoryError", "Memory allocation issue");
	else jni_throw(env, "java/lang/IllegalArgumentException", err.msg[0] ? err.msg : gvk_strerror(rc));
	return -1;
}

JNIEXPORT void JNICALL Java_com_intel_gkl_smithwaterman_IntelSmithWaterman_doneNative(JNIEnv *env, jclass cls)
{
	(void)env, (void)cls;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved)
{
	(void)vm, (void)reserved;
	jni_pool_clear(&g_pool);
}
