/* SPDX-License-Identifier: MIT */
/* GKL's IntelPairHmm natives (docs/pairhmm.md, Semantics 11) over gvk's Pair-HMM engine. Built twice:
 * libgkl_pairhmm (one thread per call) and, with GVK_JNI_OMP, libgkl_pairhmm_omp (threads as
 * asked, capped at the processors). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jni.h>

#include "gvk.h"
#include "common/gpu_lock.h"
#include "jni_pool.h"
#include "jni_throw.h"
#include "jni_workers.h"

/* initNative is static and computeLikelihoodsNative carries no handle of ours, so the field IDs
 * and the settings live in the library, as in GKL. gen counts initNative calls: an engine made
 * under older settings is dropped when it comes back from the pool. A slot holds a CPU engine and
 * the buffers a call copies the Java arrays into, kept from call to call. */
/* One chunk's copies: each read's five arrays back to back. */
typedef struct {
	uint8_t *p;
	size_t cap;
} chunk_buf_t;

typedef struct {
	gvk_pairhmm_t *cpu;
	int gen;
	gvk_read_t *reads;
	gvk_hap_t *haps;
	jbyteArray *arr;  /* the call's arrays: five per read, then one per haplotype */
	jsize *len;
	chunk_buf_t *chunk; /* the reads' copies by chunk of JNI_READ_CHUNK reads */
	uint8_t *hbytes;    /* the haplotypes' copies */
	double *out;
	size_t cap_reads, cap_haps, cap_arr, cap_len, cap_chunks, cap_hbytes, cap_out;
} phmm_slot_t;

static void slot_destroy(void *p)
{
	phmm_slot_t *s = p;
	if (s->cpu) gvk_pairhmm_destroy(s->cpu);
	for (size_t c = 0; c < s->cap_chunks; ++c) free(s->chunk[c].p);
	free(s->reads), free(s->haps), free(s->arr), free(s->len), free(s->chunk);
	free(s->hbytes), free(s->out);
	free(s);
}

/* Grows *p to n elements of size sz; 0, or -1 out of memory (*p unchanged). */
static int reserve(void **p, size_t *cap, size_t n, size_t sz)
{
	void *q;
	if (n <= *cap) return 0;
	n += n / 2 + 16;
	if (!(q = realloc(*p, n * sz))) return -1;
	*p = q, *cap = n;
	return 0;
}

/* Batches of fewer cells (read length x haplotype length summed over the pairs) stay on the CPU in
 * auto mode: below it the GPU's round trip outweighs its speed, even against all of a host's cores
 * (the crossover on GATK's own batches is in docs/gatk.md). GVK_GPU_MIN_CELLS overrides it. */
#define JNI_GPU_MIN_CELLS 1e5
#define JNI_MERGE_CONTEXTS_MAX 16 /* gvk_pairhmm_opts_t.merge_contexts: at most 16 */

/* Reads a chunk: a thread's share of a batch's copy (jni_workers.h). */
#define JNI_READ_CHUNK 8

/* The GPU takes every Java thread's batches through one shared engine (gvk_pairhmm_opts_t.shared),
 * which merges concurrent calls into shared launches; it opens at the first batch for the GPU. */
static struct {
	pthread_mutex_t lock;
	int gen;
	int device;      /* gvk_device_t from GVK_DEVICE */
	int gpu_missing; /* auto mode: the GPU engine could not be opened; stay on the CPU */
	double gpu_min_cells;
	int merge_wait_us, merge_contexts; /* merge_contexts 0: the library's */
	int helpers;            /* threads that help copy a batch's arrays (GVK_JNI_HELPERS) */
	jni_workers_t *workers; /* started at the first batch with chunks to share, kept until unload:
	                         * another Java thread's initNative may come while a batch uses them */
	gvk_pairhmm_opts_t opt;
	gvk_pairhmm_t *gpu;
	jfieldID read_bases, read_quals, ins_gop, del_gop, gcp, hap_bases;
} g_phmm = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, JNI_GPU_MIN_CELLS, 0, 0, 0, NULL, { 0 }, NULL, 0, 0, 0, 0, 0, 0 };

static jni_pool_t g_pool = JNI_POOL_INIT(slot_destroy);

/* GVK_SERVER: engines whose calls go to gvk serve, shared by every Java thread (each keeps a
 * connection per concurrent caller), one per flavour and precision, made at the initNative that
 * first needs it and kept until the library is unloaded (a Java thread may still be in a call on
 * one when another thread's initNative changes the settings). g_server is the current one; after
 * a server that did not answer (the engine said so) no other is tried. */
static gvk_pairhmm_t *g_servers[2][2], *g_server;
static int g_no_server;
/* Device auto takes the GPU only in the process that holds the GPU lock (common/gpu_lock.h): -1
 * not tried yet, -2 lost or not usable, else the lock's descriptor, kept until the process ends. */
static int g_gpu_lock = -1;

/* Whether this process may open the GPU in device auto; says so once when another one has it. */
static int gpu_lock_won(const gvk_log_t *log)
{
	char path[4200];
	if (g_gpu_lock == -1) {
		const char *p = jni_gpu_lock_path(path, sizeof path);
		int fd = -1;
		if (!p || !gvk_gpu_nodes_present()) return 1; /* no per-user directory or no GPU: no lock to honour */
		if (gvk_gpu_lock_take(p, &fd, NULL) == 0) {
			jni_log(log, GVK_LOG_WARN, "another process holds the GPU lock %s; Pair-HMM computes on the CPU", p);
			g_gpu_lock = -2;
		} else {
			g_gpu_lock = fd >= 0 ? fd : -3;
		}
	}
	return g_gpu_lock != -2;
}

/* The server engine for the new settings, or NULL (no GVK_SERVER, device cpu, or no answer).
 * Called under g_phmm.lock. */
static gvk_pairhmm_t *server_engine(const gvk_pairhmm_opts_t *base, int device)
{
	gvk_pairhmm_opts_t opt = *base;
	gvk_pairhmm_t **e = &g_servers[base->flavour == GVK_PHMM_NOFMA][base->force_double != 0];
	if (*e || g_no_server || device == GVK_DEVICE_CPU || !(opt.server = jni_env_server())) return *e;
	opt.device = GVK_DEVICE_AUTO, opt.shared = 1;
	if ((*e = gvk_pairhmm_create(&opt, NULL)) != NULL && strncmp(gvk_pairhmm_device_name(*e), "server:", 7) != 0) {
		gvk_pairhmm_destroy(*e);
		*e = NULL;
	}
	g_no_server = *e == NULL;
	return *e;
}

static jfieldID byte_field(JNIEnv *env, jclass cls, const char *name)
{
	return cls ? (*env)->GetFieldID(env, cls, name, "[B") : NULL;
}

JNIEXPORT void JNICALL Java_com_intel_gkl_pairhmm_IntelPairHmm_initNative(JNIEnv *env, jclass cls, jclass read_cls,
                                                                          jclass hap_cls, jboolean use_double,
                                                                          jint max_threads)
{
	gvk_pairhmm_opts_t opt;
	const char *flav = getenv("GVK_PAIRHMM_FLAVOUR");
	jfieldID f[6];
	(void)cls;
	f[0] = byte_field(env, read_cls, "readBases");
	f[1] = f[0] ? byte_field(env, read_cls, "readQuals") : NULL;
	f[2] = f[1] ? byte_field(env, read_cls, "insertionGOP") : NULL;
	f[3] = f[2] ? byte_field(env, read_cls, "deletionGOP") : NULL;
	f[4] = f[3] ? byte_field(env, read_cls, "overallGCP") : NULL;
	f[5] = f[4] ? byte_field(env, hap_cls, "haplotypeBases") : NULL;
	if (!f[5]) {
		jni_throw(env, "java/lang/IllegalArgumentException", "Unable to access the holder class fields");
		return;
	}
	gvk_pairhmm_opts_init(&opt);
	opt.force_double = use_double ? 1 : 0;
#ifdef GVK_JNI_OMP
	opt.threads = max_threads < 1 ? 1 : max_threads > jni_ncpu() ? jni_ncpu() : max_threads;
#else
	(void)max_threads;
	opt.threads = 1;
#endif
	jni_log_setup(&opt.log);
	/* GKL's AVX-512 kernel is the default; its AVX kernel rounds differently (docs/gatk.md). */
	opt.flavour = flav && strcasecmp(flav, "avx") == 0 ? GVK_PHMM_NOFMA : GVK_PHMM_FMA;
	if (flav && *flav && strcasecmp(flav, "avx") != 0 && strcasecmp(flav, "avx512") != 0)
		jni_log(&opt.log, GVK_LOG_WARN, "GVK_PAIRHMM_FLAVOUR=%s is not avx512 or avx: using avx512", flav);
	opt.device = GVK_DEVICE_CPU;
	pthread_mutex_lock(&g_phmm.lock);
	g_phmm.device = jni_env_device(&opt.log);
	g_phmm.gpu_min_cells = jni_env_double(&opt.log, "GVK_GPU_MIN_CELLS", JNI_GPU_MIN_CELLS, 0);
	g_phmm.merge_wait_us = jni_env_int(&opt.log, "GVK_MERGE_WAIT_US", 0, 0, 1000000);
	g_phmm.merge_contexts = jni_env_int(&opt.log, "GVK_MERGE_CONTEXTS", 0, 1, JNI_MERGE_CONTEXTS_MAX);
#ifdef GVK_JNI_OMP
	/* A few helpers take the copy's time near its floor; more would only add polling threads. */
	g_phmm.helpers = jni_env_int(&opt.log, "GVK_JNI_HELPERS", (opt.threads < 4 ? opt.threads : 4) - 1, 0, 15);
#endif
	/* New settings: GATK calls initNative before its first batch, so no call uses the old engine. */
	if (g_phmm.gpu) gvk_pairhmm_destroy(g_phmm.gpu);
	g_phmm.gpu = NULL, g_phmm.gpu_missing = 0;
	g_server = server_engine(&opt, g_phmm.device);
	g_phmm.read_bases = f[0], g_phmm.read_quals = f[1], g_phmm.ins_gop = f[2];
	g_phmm.del_gop = f[3], g_phmm.gcp = f[4], g_phmm.hap_bases = f[5];
	g_phmm.opt = opt;
	g_phmm.gen++;
	pthread_mutex_unlock(&g_phmm.lock);
	jni_pool_clear(&g_pool);
}

static phmm_slot_t *slot_get(gvk_err_t *err)
{
	phmm_slot_t *s;
	gvk_pairhmm_opts_t opt;
	int gen;
	pthread_mutex_lock(&g_phmm.lock);
	opt = g_phmm.opt, gen = g_phmm.gen;
	pthread_mutex_unlock(&g_phmm.lock);
	while ((s = jni_pool_take(&g_pool)) != NULL && s->gen != gen) slot_destroy(s);
	if (s) return s;
	if (!(s = calloc(1, sizeof(*s)))) return NULL;
	s->gen = gen;
	if (!(s->cpu = gvk_pairhmm_create(&opt, err))) free(s), s = NULL;
	return s;
}

/* The engine for a batch of the given size: the shared GPU engine when forced, or in auto mode when
 * there is a GPU and the batch is big enough; NULL with err set when a forced GPU cannot be opened. */
static gvk_pairhmm_t *slot_engine(phmm_slot_t *s, double cells, gvk_err_t *err)
{
	gvk_pairhmm_t *e;
	pthread_mutex_lock(&g_phmm.lock);
	int device = g_phmm.device;
	if (g_server) {
		pthread_mutex_unlock(&g_phmm.lock);
		return g_server;
	}
	if (device == GVK_DEVICE_AUTO && !g_phmm.gpu && !g_phmm.gpu_missing && cells >= g_phmm.gpu_min_cells &&
	    !gpu_lock_won(&g_phmm.opt.log))
		g_phmm.gpu_missing = 1;
	if (device == GVK_DEVICE_CPU || (device == GVK_DEVICE_AUTO && (g_phmm.gpu_missing || cells < g_phmm.gpu_min_cells))) {
		pthread_mutex_unlock(&g_phmm.lock);
		return s->cpu;
	}
	if (!g_phmm.gpu) {
		gvk_pairhmm_opts_t opt = g_phmm.opt;
		opt.device = GVK_DEVICE_GPU, opt.shared = 1, opt.merge_wait_us = g_phmm.merge_wait_us;
		if (g_phmm.merge_contexts > 0) opt.merge_contexts = g_phmm.merge_contexts;
		if (!(g_phmm.gpu = gvk_pairhmm_create(&opt, err)) && device == GVK_DEVICE_AUTO) {
			jni_log(&opt.log, GVK_LOG_INFO, "no GPU engine (%s); Pair-HMM stays on the CPU", err->msg);
			g_phmm.gpu_missing = 1;
		}
	}
	e = g_phmm.gpu ? g_phmm.gpu : device == GVK_DEVICE_GPU ? NULL : s->cpu;
	pthread_mutex_unlock(&g_phmm.lock);
	return e;
}

/* The byte arrays of reads [a, b) (local references) into s->arr, five a read, and the reads'
 * lengths into s->len; returns the bytes their copies take, or -1 with why set. Each JNI call
 * costs tens of nanoseconds and a batch makes hundreds, as much as a GPU batch's host work: the
 * holders' references stay in the caller's local frame (no deletion) and the quality arrays'
 * lengths are left to copy_reads' bounds check. */
static long long take_reads(JNIEnv *env, jobjectArray rd, int a, int b, phmm_slot_t *s, const char **why)
{
	jfieldID rf[5] = { g_phmm.read_bases, g_phmm.read_quals, g_phmm.ins_gop, g_phmm.del_gop, g_phmm.gcp };
	long long bytes = 0;
	for (int i = a; i < b; ++i) {
		jobject h = (*env)->GetObjectArrayElement(env, rd, i);
		jbyteArray *arr = s->arr + 5 * (size_t)i;
		if (!h) return *why = "null read holder", -1;
		for (int k = 0; k < 5; ++k)
			if (!(arr[k] = (*env)->GetObjectField(env, h, rf[k]))) return *why = "null array in a read holder", -1;
		s->len[5 * (size_t)i] = (*env)->GetArrayLength(env, arr[0]);
		bytes += 5 * (long long)s->len[5 * (size_t)i];
	}
	return bytes;
}

/* Copies reads [a, b) to p as the engine reads them best: each read's five arrays back to back
 * (R bytes each, so longer quality arrays are cut to the read), one read after another. A copy
 * by region costs the JVM no allocation and no copy back, which pinning each array
 * (GetByteArrayElements copies on HotSpot) did. A quality array shorter than its read fails the
 * copy's bounds check (a pending exception, cleared here); returns -1 with why set then. */
static int copy_reads(JNIEnv *env, int a, int b, phmm_slot_t *s, uint8_t *p, const char **why)
{
	for (int i = a; i < b; ++i) {
		const jbyteArray *arr = s->arr + 5 * (size_t)i;
		const jsize R = s->len[5 * (size_t)i];
		for (int k = 0; k < 5; ++k) (*env)->GetByteArrayRegion(env, arr[k], 0, R, (jbyte *)p + (size_t)k * R);
		if ((*env)->ExceptionCheck(env)) {
			(*env)->ExceptionClear(env);
			return *why = "read quality array shorter than the read", -1;
		}
		s->reads[i].len = R, s->reads[i].bases = (const char *)p;
		s->reads[i].qual = p + R, s->reads[i].ins = p + 2 * (size_t)R;
		s->reads[i].del = p + 3 * (size_t)R, s->reads[i].gcp = p + 4 * (size_t)R;
		p += 5 * (size_t)R;
	}
	return 0;
}

/* A batch's copy of its reads, chunk by chunk, on the calling thread and the helpers. */
typedef struct {
	jobjectArray rd; /* a global reference when helpers share the job */
	phmm_slot_t *s;
	int nr;
	_Atomic int rc;                 /* the first failure: -1 (why) or -2 (out of memory) */
	const char *_Atomic why;
} read_job_t;

static void read_fail(read_job_t *j, int rc, const char *why)
{
	int zero = 0;
	if (atomic_compare_exchange_strong(&j->rc, &zero, rc)) atomic_store(&j->why, why);
}

/* Reads of chunk c into the slot's buffer for it, in a local frame of the thread's own. */
static void read_chunk(JNIEnv *env, void *arg, int c)
{
	read_job_t *j = (read_job_t *)arg;
	phmm_slot_t *s = j->s;
	const int a = c * JNI_READ_CHUNK, b = a + JNI_READ_CHUNK < j->nr ? a + JNI_READ_CHUNK : j->nr;
	const char *why = NULL;
	long long bytes;
	if (atomic_load_explicit(&j->rc, memory_order_relaxed)) return;
	if ((*env)->PushLocalFrame(env, 6 * JNI_READ_CHUNK + 8) != 0) {
		(*env)->ExceptionClear(env);
		read_fail(j, -2, NULL);
		return;
	}
	bytes = take_reads(env, j->rd, a, b, s, &why);
	if (bytes < 0) read_fail(j, -1, why);
	else if (reserve((void **)&s->chunk[c].p, &s->chunk[c].cap, (size_t)bytes + 1, 1)) read_fail(j, -2, NULL);
	else if (copy_reads(env, a, b, s, s->chunk[c].p, &why) < 0) read_fail(j, -1, why);
	(*env)->PopLocalFrame(env, NULL);
}

/* The helpers, started at the first batch with chunks to share; NULL when there are none. */
static jni_workers_t *workers_get(JNIEnv *env)
{
	jni_workers_t *w;
	JavaVM *vm = NULL;
	pthread_mutex_lock(&g_phmm.lock);
	if (!g_phmm.workers && g_phmm.helpers > 0 && (*env)->GetJavaVM(env, &vm) == 0) {
		g_phmm.workers = jni_workers_start(vm, g_phmm.helpers);
		if (!g_phmm.workers) g_phmm.helpers = 0;
	}
	w = g_phmm.workers;
	pthread_mutex_unlock(&g_phmm.lock);
	return w;
}

/* Copies every read's five arrays, chunk by chunk: with the helpers when the batch has chunks
 * for more than one thread, else (or when another Java thread's batch holds them) alone. */
static int read_all(JNIEnv *env, jobjectArray rd, int nr, phmm_slot_t *s, jni_workers_t **wp, const char **why)
{
	const int nc = (nr + JNI_READ_CHUNK - 1) / JNI_READ_CHUNK;
	read_job_t j = { rd, s, nr, 0, NULL };
	size_t old = s->cap_chunks;
	if (reserve((void **)&s->chunk, &s->cap_chunks, (size_t)nc, sizeof(*s->chunk))) return -2;
	memset(s->chunk + old, 0, (s->cap_chunks - old) * sizeof(*s->chunk)); /* new chunks own nothing yet */
	jni_workers_t *w = *wp = nc > 1 ? workers_get(env) : NULL;
	jobjectArray grd = w ? (jobjectArray)(*env)->NewGlobalRef(env, rd) : NULL;
	if (grd) j.rd = grd;
	else if (w) (*env)->ExceptionClear(env); /* no global reference (out of memory): copy alone */
	if (!grd || jni_workers_run(w, env, read_chunk, &j, nc) != 0)
		for (int c = 0; c < nc; ++c) read_chunk(env, &j, c);
	if (grd) (*env)->DeleteGlobalRef(env, grd);
	if (j.rc == -1) *why = j.why;
	return j.rc;
}

/* Copies every haplotype's bases into s->hbytes. */
static int read_haps(JNIEnv *env, jobjectArray hd, int nh, phmm_slot_t *s, const char **why)
{
	jbyteArray *arr = s->arr;
	size_t bytes = 0;
	int i, rc = 0;
	if ((*env)->PushLocalFrame(env, 2 * nh + 8) != 0) return (*env)->ExceptionClear(env), -2;
	for (i = 0; i < nh && rc == 0; ++i) {
		jobject h = (*env)->GetObjectArrayElement(env, hd, i);
		if (!h) *why = "null haplotype holder", rc = -1;
		else if (!(arr[i] = (*env)->GetObjectField(env, h, g_phmm.hap_bases))) *why = "null haplotype bases", rc = -1;
		else bytes += (size_t)(s->len[i] = (*env)->GetArrayLength(env, arr[i]));
	}
	if (rc == 0 && reserve((void **)&s->hbytes, &s->cap_hbytes, bytes + 1, 1)) rc = -2;
	for (i = 0, bytes = 0; i < nh && rc == 0; bytes += (size_t)s->len[i++]) {
		(*env)->GetByteArrayRegion(env, arr[i], 0, s->len[i], (jbyte *)s->hbytes + bytes);
		s->haps[i].len = s->len[i], s->haps[i].bases = (const char *)s->hbytes + bytes;
	}
	(*env)->PopLocalFrame(env, NULL);
	return rc;
}

/* Copies every read's five arrays and every haplotype's bases, computes into s->out. */
static int compute(JNIEnv *env, jobjectArray rd, jobjectArray hd, int nr, int nh, phmm_slot_t *s, const char **why)
{
	const size_t na_max = 5 * (size_t)nr + (size_t)nh;
	int i, rc = 0;
	gvk_err_t err = { 0, "" };
	jni_workers_t *w = NULL;
	if (reserve((void **)&s->reads, &s->cap_reads, (size_t)nr, sizeof(*s->reads)) ||
	    reserve((void **)&s->haps, &s->cap_haps, (size_t)nh, sizeof(*s->haps)) ||
	    reserve((void **)&s->arr, &s->cap_arr, na_max, sizeof(*s->arr)) ||
	    reserve((void **)&s->len, &s->cap_len, na_max, sizeof(*s->len)) ||
	    reserve((void **)&s->out, &s->cap_out, (size_t)nr * (size_t)nh, sizeof(*s->out)))
		return -2;
	/* The haplotypes first: their references and lengths are done with before the reads' use s->arr. */
	rc = read_haps(env, hd, nh, s, why);
	if (rc == 0) rc = read_all(env, rd, nr, s, &w, why);
	if (rc == 0 && nr > 0 && nh > 0) {
		double rl = 0, hl = 0;
		gvk_pairhmm_t *e;
		for (i = 0; i < nr; ++i) rl += s->reads[i].len;
		for (i = 0; i < nh; ++i) hl += s->haps[i].len;
		e = slot_engine(s, rl * hl, &err);
		/* Polling helpers would take cores from the CPU engine's threads. */
		if (e == s->cpu) jni_workers_park(w);
		rc = e ? gvk_pairhmm_batch(e, s->reads, nr, s->haps, nh, s->out, &err) : err.code ? err.code : GVK_ERR_GPU;
		if (rc) rc = rc == GVK_ERR_NOMEM ? -2 : rc == GVK_ERR_ARG ? -1 : -3;
		if (rc == -1 || rc == -3) {
			static __thread char msg[sizeof(err.msg) + 8];
			snprintf(msg, sizeof(msg), "gvk: %s", err.msg);
			*why = msg;
		}
	}
	return rc;
}

JNIEXPORT void JNICALL Java_com_intel_gkl_pairhmm_IntelPairHmm_computeLikelihoodsNative(JNIEnv *env, jobject self,
                                                                                         jobjectArray rd,
                                                                                         jobjectArray hd,
                                                                                         jdoubleArray lk)
{
	int nr, nh, rc;
	phmm_slot_t *s;
	gvk_err_t err = { 0, "" };
	const char *why = "";
	(void)self;
	if (!rd || !hd || !lk) {
		jni_throw(env, "java/lang/NullPointerException", "null argument to computeLikelihoodsNative");
		return;
	}
	if (!g_phmm.hap_bases) {
		jni_throw(env, "java/lang/IllegalArgumentException", "initNative was not called");
		return;
	}
	nr = (*env)->GetArrayLength(env, rd);
	nh = (*env)->GetArrayLength(env, hd);
	if ((int64_t)(*env)->GetArrayLength(env, lk) < (int64_t)nr * nh) {
		jni_throw(env, "java/lang/IllegalArgumentException", "likelihood array shorter than reads x haplotypes");
		return;
	}
	if (!(s = slot_get(&err))) {
		static __thread char msg[sizeof(err.msg) + 8];
		rc = err.code == GVK_ERR_NOMEM || err.code == 0 ? -2 : -3;
		snprintf(msg, sizeof(msg), "gvk: %s", err.msg);
		why = msg;
	} else {
		rc = compute(env, rd, hd, nr, nh, s, &why);
		if (rc == 0 && nr > 0 && nh > 0) (*env)->SetDoubleArrayRegion(env, lk, 0, nr * nh, s->out);
		jni_pool_give(&g_pool, s);
	}
	if (rc == -2) jni_throw(env, "java/lang/OutOfMemoryError", "Memory allocation issue");
	else if (rc == -1) jni_throw(env, "java/lang/IllegalArgumentException", why);
	else if (rc != 0) jni_throw(env, "java/lang/RuntimeException", why);
}

JNIEXPORT void JNICALL Java_com_intel_gkl_pairhmm_IntelPairHmm_doneNative(JNIEnv *env, jobject self)
{
	(void)env, (void)self;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved)
{
	(void)vm, (void)reserved;
	jni_pool_clear(&g_pool);
	pthread_mutex_lock(&g_phmm.lock);
	jni_workers_stop(g_phmm.workers);
	g_phmm.workers = NULL;
	if (g_phmm.gpu) gvk_pairhmm_destroy(g_phmm.gpu);
	g_phmm.gpu = NULL;
	for (int f = 0; f < 2; ++f)
		for (int d = 0; d < 2; ++d) {
			if (g_servers[f][d]) gvk_pairhmm_destroy(g_servers[f][d]);
			g_servers[f][d] = NULL;
		}
	g_server = NULL;
	pthread_mutex_unlock(&g_phmm.lock);
}
