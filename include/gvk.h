/* SPDX-License-Identifier: MIT */
/* gvk: GPU variant kernels. Public interface.
 *
 * Conventions: every function that can fail returns a negative GVK_ERR_* code (or NULL) and, when
 * given a gvk_err_t, fills it with a message naming the cause. The caller owns every array it
 * passes in; objects returned by a *_create function are owned by the caller and freed with the
 * matching *_destroy. No function keeps a pointer to caller memory after it returns.
 *
 * NULL pointers: a function that returns an error code returns GVK_ERR_ARG for a NULL pointer
 * argument (or a NULL pointer field it reads, such as gvk_align_pair_t.ref), with the message
 * "FUNCTION: ARG is NULL"; a constructor returns NULL with that message. err may always be NULL;
 * an array may be NULL where its count is 0, and where its comment says so. A function that
 * cannot fail does nothing with NULL: *_destroy, *_free, *_close, *_opts_init and gvk_log_default
 * return at once, *_device_name(NULL) is "none", gvk_pairhmm_stats zeroes st for a NULL engine,
 * gvk_fastid_db_info likewise info (its name "none"), gvk_fastid_db_id(NULL, i) is NULL,
 * gvk_align_gpu_kernel_seconds(NULL) is 0, gvk_struct_layout(NULL) skips the count. The one
 * exception, as with snprintf: gvk_feature_string takes buf NULL only with size 0. */
#ifndef GVK_H
#define GVK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of these declarations; gvk_version() gives the library's. CMake checks these lines
 * against project(VERSION) when it configures. */
#define GVK_VERSION_MAJOR 0
#define GVK_VERSION_MINOR 2
#define GVK_VERSION_PATCH 0
#define GVK_VERSION "0.2.0"

/* The library's build marks what it exports (the shared library exports nothing else); for its
 * users the declarations are plain. */
#if defined(GVK_BUILDING_LIBRARY) && defined(__GNUC__)
#define GVK_EXPORT __attribute__((visibility("default")))
#else
#define GVK_EXPORT
#endif

enum {
	GVK_OK = 0,
	GVK_ERR_IO = -1,          /* a file could not be opened, read or written */
	GVK_ERR_FORMAT = -2,      /* malformed input */
	GVK_ERR_NOMEM = -3,       /* out of host memory */
	GVK_ERR_ARG = -4,         /* invalid argument */
	GVK_ERR_GPU = -5,         /* no usable GPU, or a CUDA call failed */
	GVK_ERR_UNSUPPORTED = -6  /* built without the feature asked for */
};

typedef struct {
	int code;
	char msg[512];
} gvk_err_t;

/* Static text for a GVK_ERR_* code. */
GVK_EXPORT const char *gvk_strerror(int code);

/* The library's version (GVK_VERSION of the build). */
GVK_EXPORT const char *gvk_version(void);
/* What this build contains and this CPU runs, as flags (as htslib's hts_features()). */
#define GVK_FEATURE_CUDA 1u           /* a GPU back end for NVIDIA GPUs */
#define GVK_FEATURE_HIP 2u            /* a GPU back end for AMD GPUs (HIP) */
#define GVK_FEATURE_HTSLIB 4u         /* BAM/CRAM counting, VCF/BCF input and output */
#define GVK_FEATURE_ZLIB 8u           /* gzip input and output */
#define GVK_FEATURE_CAIRO 16u         /* PNG plots */
#define GVK_FEATURE_CPU_AVX2 32u      /* AVX2 kernels built, and this CPU runs them */
#define GVK_FEATURE_CPU_AVX512 64u    /* AVX-512 kernels built, and this CPU runs them */
#define GVK_FEATURE_CPU_POPCNT 128u   /* POPCNT kernels built, and this CPU runs them */
#define GVK_FEATURE_CPU_NEON 256u     /* NEON kernels built (aarch64), and this CPU runs them */
GVK_EXPORT unsigned gvk_features(void);
/* The same in words, as "key: value" lines (commit, GPU back end and architectures, the versions of
 * htslib, zlib and cairo or "none", CPU kernels compiled in, the kernel each engine takes by
 * default on this CPU and the instruction sets of this CPU),
 * written to buf (at most size bytes, NUL-terminated). Returns the length the full text needs, like
 * snprintf. */
GVK_EXPORT int gvk_feature_string(char *buf, size_t size);

/* The layout of every struct declared in this header, as this build of the library compiled it,
 * for bindings that declare the structs by hand (the Python package checks its declarations
 * against it when imported). Per struct: one entry with field NULL whose size is sizeof(struct),
 * then one entry per field in declaration order (arrays whole: size of all their elements). */
typedef struct {
	const char *type;  /* the struct's name, e.g. "gvk_pairhmm_opts_t" */
	const char *field; /* NULL: the struct itself */
	size_t offset, size;
} gvk_layout_t;

/* A static table of *n entries (never freed), built from this header with offsetof and sizeof. */
GVK_EXPORT const gvk_layout_t *gvk_struct_layout(size_t *n);

/* ---------------------------------------------------------------------------------------------
 * Messages. The library never prints: errors come back in gvk_err_t, and notes (a fall-back to
 * the CPU, a smaller GPU chunk after an out-of-memory, profiling) go to the log of the engine's
 * options, a callback with a level. Every *_opts_init copies the process default set by
 * gvk_set_log (at first: no callback, nothing is reported), so a program calls gvk_set_log once
 * before it creates engines, or sets opts.log per engine.
 * ------------------------------------------------------------------------------------------- */
enum { GVK_LOG_ERROR = 1, GVK_LOG_WARN = 2, GVK_LOG_INFO = 3, GVK_LOG_DEBUG = 4 };

/* msg has no trailing newline. Called from any of the engine's threads, one call at a time per
 * engine; several engines may call it at once. */
typedef void (*gvk_log_fn)(void *arg, int level, const char *msg);

typedef struct {
	gvk_log_fn fn; /* NULL: messages are dropped */
	void *arg;
	int level;     /* messages up to this level are passed on (default GVK_LOG_WARN) */
} gvk_log_t;

/* The process default that *_opts_init copies; thread-safe, takes effect for engines whose
 * options are initialised afterwards. */
GVK_EXPORT void gvk_set_log(gvk_log_fn fn, void *arg, int level);
/* The current default. */
GVK_EXPORT void gvk_log_default(gvk_log_t *log);

typedef enum { GVK_DEVICE_AUTO = 0, GVK_DEVICE_CPU = 1, GVK_DEVICE_GPU = 2 } gvk_device_t;

/* How a writer that makes files (gvk_ld_job_run, gvk_cnv_write_vcf, gvk_cnv_plot) creates them,
 * for a program that keeps its outputs all-or-nothing (gvk ld and gvk cnv write temporaries and
 * rename them once every output is complete). files NULL, or a member NULL: the writer does that
 * part itself at the path it names ("-": standard output). */
typedef struct {
	void *arg; /* passed to each call */
	/* A stream for the output path, which the writer writes and leaves open for the caller to
	 * close; NULL with err set when it cannot be made. Default: the file opened for writing and
	 * closed by the writer ("PATH: cannot create (reason)", "PATH: write error"). */
	FILE *(*open)(void *arg, const char *path, gvk_err_t *err);
	/* The name under which the writer creates the output path itself (htslib writes a bgzipped
	 * VCF and its index by name; several processes of a split gvk ld write one table by name);
	 * the caller's string. Default: path. */
	const char *(*name)(void *arg, const char *path, gvk_err_t *err);
	/* A file that would describe an output wrongly (an index of the other kind beside a VCF that
	 * is replaced), to be removed once the outputs are in place; 0 or an error code. Default:
	 * removed at once where it exists. */
	int (*drop)(void *arg, const char *path, gvk_err_t *err);
} gvk_files_t;

/* ---------------------------------------------------------------------------------------------
 * Pair-HMM forward (GATK HaplotypeCaller / Intel GKL semantics, see docs/pairhmm.md, Semantics)
 * ------------------------------------------------------------------------------------------- */

/* One read: five arrays of len bytes. Qualities are raw Phred values (not +33); only their low
 * 7 bits are used, as GKL does. */
typedef struct {
	int len;
	const char *bases;
	const uint8_t *qual, *ins, *del, *gcp;
} gvk_read_t;

typedef struct {
	int len;
	const char *bases;
} gvk_hap_t;

/* Arithmetic flavour: which GKL kernel to reproduce bit-for-bit. */
typedef enum {
	GVK_PHMM_FMA = 0,   /* GKL's AVX-512 kernel: three fused multiply-adds per cell (default) */
	GVK_PHMM_NOFMA = 1  /* GKL's AVX kernel: every product and sum rounded separately */
} gvk_phmm_flavour_t;

/* CPU kernel choice; AUTO takes the widest the CPU runs. */
/* AVX2 kernels exist for the align engine so far; the others fall back to scalar or say so. NEON
 * (aarch64) kernels exist for Pair-HMM, align and the popcount products of LD and FastID. */
typedef enum { GVK_ISA_AUTO = 0, GVK_ISA_SCALAR = 1, GVK_ISA_AVX512 = 2, GVK_ISA_AVX2 = 3, GVK_ISA_NEON = 4 } gvk_isa_t;

typedef struct {
	int flavour;      /* gvk_phmm_flavour_t */
	int force_double; /* every pair in double precision (GATK --native-pair-hmm-use-double-precision) */
	int threads;      /* CPU worker threads; 0 = all processors */
	int device;       /* gvk_device_t */
	int isa;          /* gvk_isa_t */
	int gpu;          /* -1 (default): every visible GPU, each pass split between them; k: GPU k alone */
	double gpu_min_work; /* device auto: cells of a pass from which the GPU is opened (0: the
	                        policy's, docs/library.md) */
	/* Many callers, one GPU. shared = 1: the engine may be called from any number of threads at
	 * once (GATK's native threads, one active region per call). Calls that arrive while the GPU is
	 * busy, or within merge_wait_us of each other, are merged into one set of launches, and each
	 * caller gets its own results, identical to an engine of its own. A shared engine in device
	 * auto opens the GPU when it is created (small batches are its purpose). */
	int shared;
	int merge_wait_us;   /* longest a call waits for others to join its launch (default 0: merge only
	                        calls that queued while the GPU was busy) */
	int merge_max_pairs; /* pairs above which a merged launch stops taking calls (default 65536) */
	int merge_contexts;  /* merged batches in flight at once, each packed by its caller while the
	                        others compute (default 8, at most 16) */
	int gpu_profile;     /* 1: a timing line per GPU pass, 2: also per kernel bin, to the log at
	                        GVK_LOG_INFO (the CLI maps GVK_GPU_PROFILE) */
	int gpu_gap_share;   /* 1 (default): kernels with one gap-open product per read where its
	                        insertion and deletion qualities agree; 0: never (same results) */
	gvk_log_t log;       /* fall-backs (GVK_LOG_WARN), device choice and profiles (GVK_LOG_INFO) */
	/* The socket of a gvk serve (docs/gatk.md, "One GPU, many HaplotypeCallers"), or NULL (default).
	 * With device auto or gpu the engine sends its calls there, where every process's calls are
	 * merged into the server's launches. When the server is absent, stops answering or fails a
	 * call, the engine says so once (GVK_LOG_WARN) and computes on its own CPU engine from then on,
	 * with the same results. Calls that ask for raw sums (fsum, dsum), or that are too large for
	 * the protocol (4 GiB), are computed locally. */
	const char *server;
	/* Device auto: a lock file (the CLI's is gpu.lock in the per-user gvk directory) that the
	 * process must hold to open the GPU; while another process holds it the engine computes on the
	 * CPU and says so once (GVK_LOG_WARN). NULL (default): no lock. Both paths are copied. */
	const char *gpu_lock;
} gvk_pairhmm_opts_t;

/* This header has gvk_pairhmm_opts_t.shared (feature test for callers). */
#define GVK_PAIRHMM_HAS_SHARED 1

typedef struct gvk_pairhmm_s gvk_pairhmm_t;

/* Fills opt with the defaults: FMA flavour, float first, 1 thread, device auto, not shared, the
 * log of gvk_set_log. */
GVK_EXPORT void gvk_pairhmm_opts_init(gvk_pairhmm_opts_t *opt);

/* Checks the options without the device: 0, or GVK_ERR_ARG with a message naming the field (as
 * gvk_pairhmm_create does first). */
GVK_EXPORT int gvk_pairhmm_opts_check(const gvk_pairhmm_opts_t *o, gvk_err_t *err);
/* Creates an engine; NULL on failure (err says why). Free with gvk_pairhmm_destroy, after every
 * call on it has returned. An engine keeps its working arrays between calls; unless created
 * shared, one engine must not be used by two threads at once. The GPU back end selects its
 * device (cudaSetDevice) on the calling thread before each pass. */
GVK_EXPORT gvk_pairhmm_t *gvk_pairhmm_create(const gvk_pairhmm_opts_t *opt, gvk_err_t *err);
GVK_EXPORT void gvk_pairhmm_destroy(gvk_pairhmm_t *e);

/* Name of what the engine computes on: "cpu-avx512", "cpu-scalar", "gpu:<model>". */
GVK_EXPORT const char *gvk_pairhmm_device_name(const gvk_pairhmm_t *e);

/* GATK's batch: every read against every haplotype, out[r * n_haps + h] = log10 P(read | hap).
 * Returns 0 or a negative code (a read or haplotype of length 0 is GVK_ERR_ARG). */
GVK_EXPORT int gvk_pairhmm_batch(gvk_pairhmm_t *e, const gvk_read_t *reads, int n_reads,
                                 const gvk_hap_t *haps, int n_haps, double *out, gvk_err_t *err);

/* An arbitrary list of pairs, each an index into reads[] and haps[]. */
typedef struct {
	int32_t read, hap;
} gvk_pair_t;

/* Results of gvk_pairhmm_pairs, n entries each; log10 is required, the others may be NULL.
 * fsum / dsum are the raw last-row sums (scaled by 2^120 / 2^1020) of the float and double passes;
 * asking for dsum runs the double pass on every pair. fsum is 0 for pairs the float pass skipped
 * (force_double). */
typedef struct {
	double *log10;
	uint8_t *used_double;
	float *fsum;
	double *dsum;
} gvk_pairhmm_out_t;

GVK_EXPORT int gvk_pairhmm_pairs(gvk_pairhmm_t *e, const gvk_read_t *reads, const gvk_hap_t *haps,
                                 const gvk_pair_t *pairs, size_t n, gvk_pairhmm_out_t *out, gvk_err_t *err);

/* Work done since the engine was created (st zeroed for a NULL engine). */
typedef struct {
	uint64_t pairs, cells, double_pairs;
	double gpu_kernel_s; /* time the GPU spent in Pair-HMM kernels (0 on the CPU) */
} gvk_pairhmm_stats_t;

GVK_EXPORT void gvk_pairhmm_stats(const gvk_pairhmm_t *e, gvk_pairhmm_stats_t *st);

/* Visible CUDA GPUs (0 without one, or in a build without CUDA), for callers that give each
 * engine a GPU of its own (gvk_pairhmm_opts_t.gpu). */
GVK_EXPORT int gvk_pairhmm_gpu_count(void);

/* Every pair of a Pair-HMM input file (the formats gvk pairhmm reads: gkl, group or hex, detected;
 * plain or gzip), computed on e. Per pair, in input order: log10, used_double, and its group
 * (0-based record number) with the read and haplotype index inside the group. *out is allocated
 * for the caller (gvk_pairhmm_file_result_free), NULL after an error; errors name file and line. */
typedef struct {
	size_t n;
	double *log10;
	uint8_t *used_double;
	uint64_t *group;
	int32_t *read, *hap;
} gvk_pairhmm_file_result_t;

GVK_EXPORT int gvk_pairhmm_file(gvk_pairhmm_t *e, const char *path, gvk_pairhmm_file_result_t **out, gvk_err_t *err);
/* Frees a result; NULL is allowed. */
GVK_EXPORT void gvk_pairhmm_file_result_free(gvk_pairhmm_file_result_t *r);

/* The same inputs streamed in chunks of whole records (what gvk pairhmm reads; docs/library.md,
 * "Pair-HMM input files"). A reader and the chunks it fills are the caller's:
 * gvk_pairhmm_reader_close and gvk_pairhmm_chunk_free, NULL allowed. Formats: */
enum { GVK_PAIRHMM_FMT_AUTO = 0, GVK_PAIRHMM_FMT_GKL, GVK_PAIRHMM_FMT_GROUP, GVK_PAIRHMM_FMT_HEX };
typedef struct gvk_pairhmm_reader_s gvk_pairhmm_reader_t;
typedef struct gvk_pairhmm_chunk_s gvk_pairhmm_chunk_t;

/* A chunk's contents, pointing into the chunk (valid until it is refilled or freed): its reads,
 * haplotypes and pairs for gvk_pairhmm_pairs, and per pair its record (0-based) and read and
 * haplotype index inside the record; cells: read length x haplotype length, summed. */
typedef struct {
	const gvk_read_t *reads;
	const gvk_hap_t *haps;
	const gvk_pair_t *pairs;
	const uint64_t *group;
	const int32_t *rin, *hin;
	size_t n_reads, n_haps, n_pairs;
	uint64_t cells;
} gvk_pairhmm_view_t;

/* A format's name ("auto", "gkl", "group", "hex"; "?" for another code), and the code of a name
 * (-1 when unknown; name NULL: -1). */
GVK_EXPORT const char *gvk_pairhmm_format_name(int format);
GVK_EXPORT int gvk_pairhmm_format_parse(const char *name);
/* Opens path ("-": standard input; plain or gzip) in format (GVK_PAIRHMM_FMT_AUTO: told from the
 * first record); NULL with err naming the file (and line) when it cannot be read. */
GVK_EXPORT gvk_pairhmm_reader_t *gvk_pairhmm_reader_open(const char *path, int format, gvk_err_t *err);
/* The format in use (-1 for a NULL reader). */
GVK_EXPORT int gvk_pairhmm_reader_format(const gvk_pairhmm_reader_t *r);
GVK_EXPORT void gvk_pairhmm_reader_close(gvk_pairhmm_reader_t *r);
/* An empty chunk (NULL when out of memory). */
GVK_EXPORT gvk_pairhmm_chunk_t *gvk_pairhmm_chunk_new(void);
GVK_EXPORT void gvk_pairhmm_chunk_free(gvk_pairhmm_chunk_t *c);
/* Refills c with the next whole records, about max_pairs pairs (at least one record), parsed on
 * up to `threads` threads: the pairs (0 at the end of the input), or a negative code with err
 * naming file and line. */
GVK_EXPORT long gvk_pairhmm_reader_next(gvk_pairhmm_reader_t *r, gvk_pairhmm_chunk_t *c, size_t max_pairs, int threads,
                                        gvk_err_t *err);
/* c's contents into *v (an empty view for a NULL chunk). */
GVK_EXPORT void gvk_pairhmm_chunk_view(const gvk_pairhmm_chunk_t *c, gvk_pairhmm_view_t *v);
/* The input's bytes read so far, and the giving back to the system of a file's bytes before `to`
 * (a long run then does not keep the whole file mapped). Safe at any point: chunks keep copies of
 * what they hold. */
GVK_EXPORT size_t gvk_pairhmm_reader_consumed(const gvk_pairhmm_reader_t *r);
GVK_EXPORT void gvk_pairhmm_reader_release(gvk_pairhmm_reader_t *r, size_t to);
/* Seconds the reader spent reading blocks, finding record boundaries, parsing and joining the
 * threads' parts, into t[0..3] (zeros for a NULL reader). */
GVK_EXPORT void gvk_pairhmm_reader_times(const gvk_pairhmm_reader_t *r, double t[4]);

/* ---------------------------------------------------------------------------------------------
 * SNP comparisons as popcount matrix products: PLINK 1.9 LD and FastID (see docs/snp.md)
 * ------------------------------------------------------------------------------------------- */

/* Both engines compare bit-packed SNP data with popcounts, on the CPU (gvk_isa_t: AUTO, SCALAR or
 * AVX512) or one GPU. An engine holds its options only: it may be used for any number of calls,
 * by one thread at a time (one engine per thread; several engines may run at once). Every array
 * passed in stays the caller's and is not kept; each result is allocated for the caller and freed
 * with the free function named beside it. */

/* The GPU's count kernel (the results are the same): AUTO times both on the first chunk and keeps
 * the faster; POPC forces the CUDA cores (64-bit popcounts), MMA the tensor cores (binary MMA). */
typedef enum { GVK_SNP_PATH_AUTO = 0, GVK_SNP_PATH_POPC = 1, GVK_SNP_PATH_MMA = 2 } gvk_snp_path_t;

/* LD options (PLINK 1.9 --r / --r2). The gvk ld command sets gpu_path and gpu_mem from the
 * environment variables GVK_SNP_GPU_PATH (auto, popc, mma) and GVK_SNP_GPU_MEM (bytes). */
typedef struct {
	int r2;                /* 1 (default): r^2, as --r2; 0: signed r, as --r */
	int keep_allele_order; /* PLINK input: A1 as the .bim has it (--keep-allele-order); 0 (default): the
	                          founders' minor allele becomes A1, as PLINK 1.9 loads a fileset. r is signed
	                          by A1 */
	int threads;           /* CPU worker threads; 0 = all processors (default 1) */
	int device;            /* gvk_device_t (default AUTO) */
	int isa;               /* gvk_isa_t: AUTO (default), SCALAR or AVX512 */
	int gpu;               /* -1: the first visible GPU (this engine runs on one); k: GPU k (default 0) */
	int gpu_path;          /* gvk_snp_path_t (default AUTO) */
	size_t gpu_mem;        /* GPU memory to plan with, bytes; 0 (default): what is free. SNP bit planes
	                          larger than half of it are streamed through the GPU instead of kept there */
	/* Window tables (gvk_ld_table_*), PLINK's rules: pairs (A, B) of SNPs A before B on one
	 * chromosome, B at most window_snps - 1 SNPs after A, bp(B) <= bp(A) + 1000 window_kb,
	 * cM(B) <= cM(A) + window_cm, and r^2 >= window_r2 (an undefined r never passes). */
	int64_t window_snps;   /* --ld-window (default 10; at least 2) */
	double window_kb;      /* --ld-window-kb (default 1000) */
	double window_cm;      /* --ld-window-cm; < 0 (default): no limit */
	double window_r2;      /* --ld-window-r2 (default 0.2; 0 keeps every defined pair) */
	int inter_chr;         /* 1: every pair A before B; window_snps, _kb and _cm ignored (--r2 inter-chr) */
	gvk_log_t log;         /* the library's messages (see "Messages") */
} gvk_ld_opts_t;

typedef struct gvk_ld_s gvk_ld_t;

/* Checks the options without the device: 0, or GVK_ERR_ARG with a message naming the field (as
 * gvk_ld_create does first). */
GVK_EXPORT int gvk_ld_opts_check(const gvk_ld_opts_t *o, gvk_err_t *err);
/* Fills o with the defaults above and the process log default. */
GVK_EXPORT void gvk_ld_opts_init(gvk_ld_opts_t *o);
/* Checks the options (GVK_ERR_ARG naming the field) and the device: with device GPU, a GPU that
 * cannot be used is an error (GVK_ERR_GPU, or GVK_ERR_UNSUPPORTED in a build without CUDA); with
 * AUTO the engine then runs on the CPU without a message. NULL on failure. Free with
 * gvk_ld_destroy. */
GVK_EXPORT gvk_ld_t *gvk_ld_create(const gvk_ld_opts_t *o, gvk_err_t *err);
GVK_EXPORT void gvk_ld_destroy(gvk_ld_t *e);
/* Where the engine computes: "cpu-avx512", "cpu-popcnt", "cpu-scalar" or "gpu-NAME". */
GVK_EXPORT const char *gvk_ld_device_name(const gvk_ld_t *e);

/* The SNPs of a PLINK fileset as the engine read them, by index: chromosome as PLINK 1.9 prints it
 * ("1" .. "26" with X = "23", or a contig's name), variant ID, position, and A1 / A2 after the
 * allele-order rule. */
typedef struct {
	char **chrom, **id, **a1, **a2; /* NUL-terminated */
	int64_t *bp;
	double *cm;
} gvk_ld_snps_t;

/* The full matrix (PLINK's --r square / --r2 square). */
typedef struct {
	int64_t m;          /* SNPs */
	int64_t n_samples;  /* samples the values come from (the founders of a fileset) */
	int r2;             /* r holds r^2 (1) or signed r (0) */
	double *r;          /* m x m, row-major: r[i * m + j] for SNPs i and j; NaN where undefined (no
	                       variation among the samples called at both) */
	gvk_ld_snps_t snps; /* PLINK input; every pointer NULL for a genotype matrix */
} gvk_ld_matrix_t;

/* A window table (PLINK's .ld table): the pairs that pass the windows and window_r2. */
typedef struct {
	size_t n;               /* pairs */
	int64_t *snp_a, *snp_b; /* SNP indices, snp_a < snp_b, ordered by snp_a then snp_b (the .ld order) */
	double *r;              /* per pair: r^2 (r2 = 1) or signed r (r2 = 0) */
	int r2;
	int64_t m, n_samples;   /* SNPs and samples of the input */
	gvk_ld_snps_t snps;     /* PLINK input: names the SNPs of snp_a / snp_b; NULL pointers otherwise */
} gvk_ld_table_t;

/* Layouts of an in-memory genotype matrix of n_snps x n_samples values. */
typedef enum {
	GVK_GENO_SNP_MAJOR = 0,   /* geno[i * n_samples + s]: a SNP's samples adjacent (PLINK .bed order) */
	GVK_GENO_SAMPLE_MAJOR = 1 /* geno[s * n_snps + i]: a sample's SNPs adjacent */
} gvk_geno_layout_t;

/* LD of the PLINK 1 fileset prefix.bed / .bim / .fam (SNP-major .bed), with PLINK 1.9's rules as
 * gvk ld applies them without filters: founders only (at least two), males haploid on X and only
 * males on Y, A1 by keep_allele_order, each pair over the samples called at both. *out is
 * allocated for the caller (gvk_ld_matrix_free / gvk_ld_table_free); it is NULL after an error.
 * Errors name the file and line. */
GVK_EXPORT int gvk_ld_matrix_bfile(gvk_ld_t *e, const char *prefix, gvk_ld_matrix_t **out, gvk_err_t *err);
GVK_EXPORT int gvk_ld_table_bfile(gvk_ld_t *e, const char *prefix, gvk_ld_table_t **out, gvk_err_t *err);

/* LD of an in-memory genotype matrix: int8 values 0, 1, 2 = copies of A1 (the allele r is signed
 * by), -1 = missing, in layout (gvk_geno_layout_t); n_snps >= 1, n_samples >= 2. Every sample
 * counts (no founder or sex rules) and the values are taken as given (keep_allele_order does not
 * apply). Any other value is GVK_ERR_ARG naming its SNP and sample. */
GVK_EXPORT int gvk_ld_matrix_geno(gvk_ld_t *e, const int8_t *geno, int64_t n_snps, int64_t n_samples, int layout,
                                  gvk_ld_matrix_t **out, gvk_err_t *err);
/* For the windows, chrom (n_snps names compared as strings; NULL: one chromosome) and bp (n_snps
 * positions; NULL: 1, 2, 3, ...) place the SNPs, in order as a .bim would (a window ends at the
 * first SNP beyond it). */
GVK_EXPORT int gvk_ld_table_geno(gvk_ld_t *e, const int8_t *geno, int64_t n_snps, int64_t n_samples, int layout,
                                 const char *const *chrom, const int64_t *bp, gvk_ld_table_t **out, gvk_err_t *err);

/* Free a result and everything it points to; NULL is allowed. */
GVK_EXPORT void gvk_ld_matrix_free(gvk_ld_matrix_t *r);
GVK_EXPORT void gvk_ld_table_free(gvk_ld_table_t *t);

/* LD pruning as PLINK 1.9's --indep-pairwise W[kb] S R2 (docs/snp.md, "QC -> prune"): in windows
 * moved along each chromosome, of each pair with r^2 > R2 the variant of lower MAF goes;
 * --indep-pairphase the same with r^2 from maximum-likelihood haplotype frequencies; --indep W S
 * VIF: in each window, variants go until no variance inflation factor exceeds VIF. */
enum { GVK_LD_PRUNE_PAIRWISE = 0, GVK_LD_PRUNE_PAIRPHASE = 1, GVK_LD_PRUNE_VIF = 2 };

typedef struct {
	int64_t window; /* variants (at least 2), or kb with window_kb (at least 1) (default 50) */
	int window_kb;  /* 1: window in kb (default 0) */
	int64_t step;   /* variants the window moves by: 1 .. window for a window in variants (default 5) */
	double r2;      /* r^2 threshold in [0, 1) (default 0.2); with GVK_LD_PRUNE_VIF the VIF threshold, at least 1 */
	int mode;       /* GVK_LD_PRUNE_* (default GVK_LD_PRUNE_PAIRWISE) */
} gvk_ld_prune_opts_t;

/* The two lists, each in PLINK's order (.prune.in / .prune.out). */
typedef struct {
	int64_t n_kept, n_removed;
	char **kept, **removed; /* variant IDs, NUL-terminated */
} gvk_ld_prune_result_t;

/* Fills o with the defaults above. */
GVK_EXPORT void gvk_ld_prune_opts_init(gvk_ld_prune_opts_t *o);
/* Prunes the PLINK 1 fileset prefix.bed / .bim / .fam with e's PLINK rules (founders, X / Y,
 * keep_allele_order; no filters: the caller filters first). Each chromosome must be sorted by
 * position. *out is allocated for the caller (gvk_ld_prune_free), NULL after an error; options out
 * of range are GVK_ERR_ARG naming the field. */
GVK_EXPORT int gvk_ld_prune_bfile(gvk_ld_t *e, const char *prefix, const gvk_ld_prune_opts_t *o,
                                  gvk_ld_prune_result_t **out, gvk_err_t *err);
/* Frees a result and its strings; NULL is allowed. */
GVK_EXPORT void gvk_ld_prune_free(gvk_ld_prune_result_t *r);

/* LD clumping as PLINK 1.9's --clump FILE[,FILE...] (docs/snp.md, "Clumping"): around each
 * variant with p <= p1, by p ascending, the variants within kb with |r^2| > r2 that are in no
 * clump yet; their lines with p < p2 are the clump's members. */
typedef struct {
	double p1;         /* index variants: p <= p1, in (0, 1] (default 1e-4) */
	double p2;         /* members listed: p < p2, in (0, 1] (default 0.01) */
	double r2;         /* members: |r^2| > r2, below 1 (default 0.5) */
	double kb;         /* members: within this many kb of the index, at least 0.001 (default 250) */
	int allow_overlap; /* 1: a variant may join several clumps (default 0) */
	int index_first;   /* 1: with several files, index variants come from the first only (default 0) */
	const char *snp_field; /* variant ID column names, comma-separated, first found wins (NULL: "SNP") */
	const char *p_field;   /* p-value column names, likewise (NULL: "P") */
} gvk_ld_clump_opts_t;

/* One clump, in PLINK's order (the index variant's p ascending). */
typedef struct {
	char *index;        /* index variant ID */
	char *chr;          /* its chromosome as PLINK prints it ("23" for X) */
	int64_t bp;
	double p;
	int file;           /* the report its p came from, from 1 */
	int64_t counts[5];  /* lines in the clump with p >= 0.05, [0.01, 0.05), [0.001, 0.01), [1e-4, 0.001), < 1e-4 */
	int64_t n_members;  /* listed lines (p < p2), as PLINK's SP2: one per variant and report line */
	char **members;     /* their variant IDs */
	int *member_file;   /* their reports, from 1 */
	double *member_r2;  /* their signed r^2 with the index (1 for the index's own lines) */
} gvk_ld_clump_t;

typedef struct {
	int64_t n_clumps;
	gvk_ld_clump_t *clumps;
	int64_t n_top;      /* variants of the fileset with p <= p1 */
	int64_t n_missing;  /* top variants (p <= p1) the fileset lacks, by p then ID */
	char **missing;
} gvk_ld_clump_result_t;

/* Fills o with the defaults above. */
GVK_EXPORT void gvk_ld_clump_opts_init(gvk_ld_clump_opts_t *o);
/* Clumps the PLINK 1 fileset prefix.bed / .bim / .fam by the association reports files[0 ..
 * n_files) (plain text with a header line) with e's PLINK rules (founders, X / Y,
 * keep_allele_order; no filters: the caller filters first). Each chromosome must be sorted by
 * position. *out is allocated for the caller (gvk_ld_clump_free), NULL after an error; a report
 * without the named columns, a negative p or one above 1 is GVK_ERR_FORMAT naming the file and
 * line, options out of range GVK_ERR_ARG naming the field. */
GVK_EXPORT int gvk_ld_clump_bfile(gvk_ld_t *e, const char *prefix, const char *const *files, int n_files,
                                  const gvk_ld_clump_opts_t *o, gvk_ld_clump_result_t **out, gvk_err_t *err);
/* Frees a result and everything it points to; NULL is allowed. */
GVK_EXPORT void gvk_ld_clump_free(gvk_ld_clump_result_t *r);

/* ---- The gvk ld command as one call (PLINK 1.9's --r / --r2, --indep*, --clump with every
 * option it takes, docs/snp.md): reading and filtering the input, the statistic, the output
 * files and PREFIX.log, each byte as gvk ld writes them. ---- */

/* The matrix shapes of --r / --r2 (modifiers square, square0, triangle); TABLE: the windowed
 * table. */
enum { GVK_LD_JOB_TABLE = 0, GVK_LD_JOB_SQUARE = 1, GVK_LD_JOB_SQUARE0 = 2, GVK_LD_JOB_TRIANGLE = 3 };
/* The D' column of a table (modifiers dprime, dprime-signed). */
enum { GVK_LD_JOB_DPRIME_NONE = 0, GVK_LD_JOB_DPRIME_ABS = 1, GVK_LD_JOB_DPRIME_SIGNED = 2 };

/* Every option of gvk ld, as PLINK names it; strings and arrays are the caller's and must live
 * until the job is destroyed. */
typedef struct {
	/* input: bfile, or bed, bim and fam together, or vcf */
	const char *bfile, *bed, *bim, *fam, *vcf;
	const char *out_prefix; /* --out (default "plink") */
	int out_set;            /* --out given: with out, the log goes beside the prefix only then */
	const char *out;        /* -o FILE: the table there ("-": standard output); NULL: PREFIX.ld... */
	/* the statistic: stat_set (--r / --r2 given) and its modifiers */
	int stat_set, r2, shape, shape_set; /* shape: GVK_LD_JOB_*, shape_set 1 for a matrix modifier */
	int bin;                /* 0 text, 8 bin (float64), 4 bin4 (float32) */
	int gz, spaces, with_freqs, in_phase, dcol, dprime, yes_really, inter_chr; /* dprime: GVK_LD_JOB_DPRIME_* */
	int phased;             /* --phased (a VCF's haplotypes) */
	int64_t window_snps;    /* --ld-window (default 10) */
	double window_kb;       /* --ld-window-kb (default 1000) */
	double window_cm;       /* --ld-window-cm; < 0 (default): no limit */
	double window_r2;       /* --ld-window-r2 (default 0.2) */
	int window_set, window_r2_set; /* --ld-window* / --ld-window-r2 given (refused with matrices) */
	const char *ld_snp, *ld_snp_list;
	const char *const *ld_snps; /* --ld-snps' arguments */
	int n_ld_snps;
	/* variants and samples */
	const char *chr, *extract, *exclude, *keep, *remove, *from, *to;
	const char *const *snps;    /* --snps' arguments */
	int n_snps;
	double geno;  /* highest missing-call rate kept; 1 (default): no filter */
	double maf;   /* lowest minor allele frequency kept; 0 (default): no filter */
	double mind;  /* highest sample missing-call rate kept; 1 (default): no filter */
	double hwe;   /* lowest Hardy-Weinberg exact test p kept; 0 (default): no filter */
	int hwe_midp;
	int keep_allele_order, make_founders, nonfounders, allow_extra_chr, double_id;
	/* pruning: prune_set (--indep-pairwise, --indep-pairphase or --indep given) and its values */
	int prune_set;
	gvk_ld_prune_opts_t prune;
	/* clumping: clump_set (--clump given), the reports (each may hold FILE,FILE...) and options */
	int clump_set;
	const char *const *clump_files;
	int n_clump_files;
	double clump_p1, clump_p2, clump_r2, clump_kb; /* defaults 1e-4, 0.01, 0.5, 250 */
	int clump_allow_overlap, clump_index_first, clump_verbose;
	const char *const *clump_field, *const *clump_snp_field; /* column names; NULL: "P", "SNP" */
	int n_clump_field, n_clump_snp_field;
	/* the run */
	int threads;            /* 0: all processors (default) */
	int device, isa;        /* gvk_device_t, gvk_isa_t (default AUTO) */
	int gpu_path;           /* gvk_snp_path_t (default AUTO) */
	size_t gpu_mem;         /* GPU memory to plan with, bytes; 0 (default): what is free */
	int verbose;            /* 1: each phase's time to the log at GVK_LOG_INFO ("reading the input 0.1 s") */
	int argc;               /* the command line that the log's "Options in effect" echoes */
	char *const *argv;
	/* messages: warnings a command shows (GVK_LOG_WARN), phases (GVK_LOG_INFO with verbose) */
	gvk_log_t log;
	/* progress of a table or matrix: rows done of rows, per stripe; done -1 once after the last */
	void (*progress)(void *arg, int64_t done, int64_t rows);
	void *progress_arg;
} gvk_ld_job_opts_t;

/* What a job did. */
typedef struct {
	int64_t n_snps, n_samples; /* variants and samples (haplotypes when phased) after the filters */
	int phased;
	uint64_t pairs, written;   /* pairs computed, values written */
	int64_t n_pruned;          /* --indep*: variants removed */
	int64_t n_clumps;          /* --clump: clumps formed */
	int no_table;              /* 1: a table run (--r, --r2) wrote no table (one variant, or too few founders) */
	int few_founders;          /* 1: fewer than two founders, so PLINK skips the run with a warning */
	int writes;                /* 1 on the process that wrote the files (0 on the others of a split run) */
	int threads;
	char kernel[320];          /* the kernel set that computed the pairs ("cpu-avx512", ...) */
	char out[4096];            /* the table's path (-o's file, or PREFIX.ld...); for --indep* PREFIX.prune.in,
	                            * for --clump PREFIX.clumped (not written when n_clumps is 0: no top
	                            * variant, or no founders) */
	char log_path[4096];       /* PREFIX.log, or "" when no log is written (-o without --out) */
} gvk_ld_job_summary_t;

typedef struct gvk_ld_job_s gvk_ld_job_t;

/* Fills o with the defaults above and the process log default. */
GVK_EXPORT void gvk_ld_job_opts_init(gvk_ld_job_opts_t *o);
/* PLINK's rules between the options before anything is read: 0, or GVK_ERR_ARG with gvk ld's
 * message naming the option (field). */
GVK_EXPORT int gvk_ld_job_opts_check(const gvk_ld_job_opts_t *o, gvk_err_t *err);
/* Checks o and, with device GPU, the GPU (GVK_ERR_GPU, or GVK_ERR_UNSUPPORTED without CUDA),
 * before any input is read. o (and what it points to) is kept, not copied: the caller's until
 * gvk_ld_job_destroy. NULL on failure. */
GVK_EXPORT gvk_ld_job_t *gvk_ld_job_create(const gvk_ld_job_opts_t *o, gvk_err_t *err);
/* Runs the job: reads and filters the input, computes, writes the outputs (through files, NULL:
 * at their paths) and PREFIX.log; *sum (the caller's) is filled as far as the run went. 0, or a
 * negative code with err set (GVK_ERR_ARG for a rule that needs the data, GVK_ERR_FORMAT naming
 * the file and line, GVK_ERR_IO, GVK_ERR_NOMEM). Once per job. */
GVK_EXPORT int gvk_ld_job_run(gvk_ld_job_t *j, const gvk_files_t *files, gvk_ld_job_summary_t *sum,
                              gvk_err_t *err);
/* Frees the job; NULL is allowed. */
GVK_EXPORT void gvk_ld_job_destroy(gvk_ld_job_t *j);

/* How gvk_ld_job_set_split spreads a job over processes (gvk ld under MPI, docs/mpi.md): each
 * process reads, filters, prunes and computes its share, and these hooks move the bytes between
 * them. The library links no MPI; every hook is called on every process at the same point. */
enum { GVK_LD_SPLIT_SUM, GVK_LD_SPLIT_MIN };

/* Where gvk_ld_split_t.ordered hands process 0 the bytes: 0, or -1 on a write error. */
typedef int (*gvk_ld_put_t)(void *arg, const void *p, size_t n);

typedef struct {
	int rank, size;    /* this process and how many run the job */
	void *ctx;         /* passed to the hooks */
	const char *tiles; /* "ROWSxCOLUMNS": the grid of a matrix written by name; NULL or "": the job's */
	/* every process's status rc: 0 when all are 0, else the lowest failing code, with err naming
	 * the failing process on the others */
	int (*agree)(void *ctx, int rc, gvk_err_t *err);
	/* v[0..n) summed (GVK_LD_SPLIT_SUM) or the least (GVK_LD_SPLIT_MIN) over the processes, in place */
	void (*reduce)(void *ctx, int64_t *v, int64_t n, int op);
	/* buf holds process r's cnt[r] bytes at at[r], each its own already in place: fills in the
	 * others' (each count below 2^31) */
	void (*gather)(void *ctx, void *buf, const int64_t *cnt, const int64_t *at);
	/* n bytes of process 0's buf to every process's */
	void (*bcast)(void *ctx, void *buf, int64_t n);
	/* the output by name, all processes writing it: open (together), write n bytes at off, close
	 * (together); 0, or -1 (open sets err) */
	int (*open)(void *ctx, const char *name, gvk_err_t *err);
	int (*write_at)(void *ctx, int64_t off, const void *p, int64_t n);
	int (*close)(void *ctx);
	/* every process's part (a stream read from its start, in pieces of up to size bytes through buf)
	 * to put on process 0, in rank order; this process's status (0, or a negative code with err set) */
	int (*ordered)(void *ctx, FILE *part, char *buf, size_t size, gvk_ld_put_t put, void *arg, gvk_err_t *err);
	/* a line for the user on what this process reads (NULL: none) */
	void (*note)(void *ctx, const char *line);
} gvk_ld_split_t;

/* Spreads j over the processes sp describes (the caller's, kept until gvk_ld_job_destroy); before
 * gvk_ld_job_run, on every process with its rank. sp NULL: one process. 0, or GVK_ERR_ARG for a
 * NULL job, a NULL hook (note may be NULL) or a rank outside [0, size). */
GVK_EXPORT int gvk_ld_job_set_split(gvk_ld_job_t *j, const gvk_ld_split_t *sp, gvk_err_t *err);

/* FastID options. The gvk fastid command sets the gpu_* fields from the environment variables
 * GVK_SNP_GPU_PATH, GVK_SNP_GPU_MEM, GVK_SNP_GPU_DB_BLOCK and GVK_SNP_GPU_QBATCH. */
typedef struct {
	int mixture;          /* 0 (default): identity score pc(q XOR d); 1: mixture score pc(d AND NOT q), the
	                         query being the mixture */
	int topk;             /* per query, the topk smallest scores (ties: smaller db index); 0 = none
	                         (default 10) */
	int64_t threshold;    /* also every (query, db) pair with score <= threshold; < 0 (default): none.
	                         topk 0 needs a threshold */
	int threads;          /* CPU worker threads; 0 = all processors (default 1) */
	int device;           /* gvk_device_t (default AUTO) */
	int isa;              /* gvk_isa_t: AUTO (default), SCALAR or AVX512 */
	int gpu;              /* -1: the first visible GPU (this engine runs on one); k: GPU k (default 0) */
	int gpu_path;         /* gvk_snp_path_t (default AUTO) */
	size_t gpu_mem;       /* GPU memory to plan with, bytes; 0 (default): what is free */
	int64_t gpu_db_block; /* database profiles per GPU block; 0 (default): as memory allows */
	int64_t gpu_q_batch;  /* queries per GPU batch; 0 (default): as many as a launch takes */
	gvk_log_t log;        /* the library's messages (see "Messages") */
} gvk_fastid_opts_t;

typedef struct gvk_fastid_s gvk_fastid_t;

/* Checks the options without the device: 0, or GVK_ERR_ARG with a message naming the field (as
 * gvk_fastid_create does first). */
GVK_EXPORT int gvk_fastid_opts_check(const gvk_fastid_opts_t *o, gvk_err_t *err);
/* Fills o with the defaults above and the process log default. */
GVK_EXPORT void gvk_fastid_opts_init(gvk_fastid_opts_t *o);
/* As gvk_ld_create: options checked, device GPU means the GPU or an error. NULL on failure. */
GVK_EXPORT gvk_fastid_t *gvk_fastid_create(const gvk_fastid_opts_t *o, gvk_err_t *err);
GVK_EXPORT void gvk_fastid_destroy(gvk_fastid_t *e);
GVK_EXPORT const char *gvk_fastid_device_name(const gvk_fastid_t *e);

typedef struct {
	int64_t db;     /* database index */
	uint32_t query; /* query index */
	uint32_t score;
} gvk_fastid_hit_t;

typedef struct {
	size_t n_queries;
	int k;                  /* top-list entries per query: min(topk, n_db) */
	gvk_fastid_hit_t *top;  /* n_queries x k, query-major, ascending score (ties: smaller db index);
	                           NULL when k = 0 */
	gvk_fastid_hit_t *hits; /* n_hits threshold hits ordered by query, score, db; NULL when none */
	size_t n_hits;
	uint64_t pairs;         /* scores computed */
	double search_s;        /* seconds the search itself took (copying or reading the database excluded) */
	char kernel[320];       /* what computed the scores: "cpu-avx512", "gpu-NAME popc", ...; with no database
	                           profile searched, the engine's CPU kernel */
} gvk_fastid_result_t;

/* Every query against every database profile. Profiles are n_snp bits packed into ceil(n_snp / 64)
 * uint64 words each, bit j in word j / 64 at bit j % 64, bits past n_snp zero (else GVK_ERR_ARG
 * naming the profile); n_q (< 2^32), n_db and n_snp at least 1. *out is allocated for the caller
 * (gvk_fastid_result_free), NULL after an error. */
GVK_EXPORT int gvk_fastid_search(gvk_fastid_t *e, const uint64_t *queries, size_t n_q, const uint64_t *db,
                                 size_t n_db, uint32_t n_snp, gvk_fastid_result_t **out, gvk_err_t *err);
/* Frees a result; NULL is allowed. */
GVK_EXPORT void gvk_fastid_result_free(gvk_fastid_result_t *r);

/* FastID profile files (.fidb; docs/snp.md, "`.fidb` profile files") as gvk fastid makes, reads and
 * searches them. A gvk_fastid_db_t holds a file's header and SNP panel, and its profiles and
 * sample IDs either whole in memory (gvk_fastid_db_read, gvk_fastid_db_make) or read as a search
 * goes (gvk_fastid_db_open: a database larger than memory, a block at a time). Messages name the
 * file ("standard input" for "-") and the profile, SNP or ID at fault. A handle is the caller's,
 * freed with gvk_fastid_db_close; no call keeps the path it was given. */
typedef struct gvk_fastid_db_s gvk_fastid_db_t;

typedef struct {
	int64_t n;           /* profiles */
	uint32_t n_snp;      /* SNPs, bits per profile */
	int has_panel;       /* 1: the SNPs are listed (a version 2 file, or made); 0: a version 1 file, whose
	                        profiles are named by their indices */
	uint64_t panel_hash; /* FNV-1a 64 of the panel's text (0 without one), as --make-fidb prints it */
	int whole;           /* 1: every profile and ID in memory (gvk_fastid_db_read, _make) */
	int seekable;        /* 1: gvk_fastid_db_range may start anywhere (whole, or a regular file opened) */
	const char *name;    /* the file as messages name it; owned by the handle */
} gvk_fastid_db_info_t;

/* --make-fidb's options. */
typedef struct {
	int minor;   /* 0 (default): bit j marks the allele 1 of the input, the VCF's ALT or the .bim's A1; 1:
	                the allele rarer among the input's calls (ties keep ALT / A1) */
	int threads; /* threads that read, decode and transpose; 0 = all processors (default 1). The profiles
	                are the same for any number */
} gvk_fastid_make_opts_t;

/* Fills o with the defaults above. */
GVK_EXPORT void gvk_fastid_make_opts_init(gvk_fastid_make_opts_t *o);
/* Checks the options: 0, or GVK_ERR_ARG with a message naming the field. */
GVK_EXPORT int gvk_fastid_make_opts_check(const gvk_fastid_make_opts_t *o, gvk_err_t *err);
/* One profile per sample of a PLINK 1 fileset (its prefix, or the path of its .bed, .bim or .fam;
 * every sample of the .fam, founder or not) or of a VCF/BCF file ("-": VCF on standard input;
 * needs htslib), with the SNP panel and the sample IDs, whole in memory: what gvk fastid
 * --make-fidb writes. Missing calls give 0. NULL with err naming the input (and its line or
 * record) on failure. */
GVK_EXPORT gvk_fastid_db_t *gvk_fastid_db_make(const char *in, const gvk_fastid_make_opts_t *o, gvk_err_t *err);
/* A whole .fidb file (version 1 or 2; "-": standard input) read into memory: header (checked
 * against the size of a regular file), panel and its hash, every profile (bits past n_snp must be
 * 0) and every ID. NULL with err set on failure. */
GVK_EXPORT gvk_fastid_db_t *gvk_fastid_db_read(const char *path, gvk_err_t *err);
/* A .fidb file opened for a search in blocks: its header and panel are read and checked now, its
 * profiles by gvk_fastid_search_db, its IDs by gvk_fastid_db_read_ids. The file stays open until
 * gvk_fastid_db_close. NULL with err set on failure. */
GVK_EXPORT gvk_fastid_db_t *gvk_fastid_db_open(const char *path, gvk_err_t *err);
/* Frees the handle and closes its file; NULL is allowed. */
GVK_EXPORT void gvk_fastid_db_close(gvk_fastid_db_t *d);
/* What d holds into *info (zeros and name "none" for a NULL d). */
GVK_EXPORT void gvk_fastid_db_info(const gvk_fastid_db_t *d, gvk_fastid_db_info_t *info);
/* Writes a whole d that has a panel (made, or read from a version 2 file) to fp as a version 2
 * .fidb. fp stays the caller's, and so does checking it after the last write (fflush, fclose):
 * GVK_ERR_IO here only for a write that failed at once. */
GVK_EXPORT int gvk_fastid_db_write(const gvk_fastid_db_t *d, FILE *fp, gvk_err_t *err);
/* 0 when the profiles of queries can be searched against those of db: the same number of SNPs
 * and, when both list their SNPs, the same panel. GVK_ERR_FORMAT naming both files and the first
 * SNP that differs otherwise. A file without a panel matches any of its SNP count. */
GVK_EXPORT int gvk_fastid_db_match(const gvk_fastid_db_t *queries, const gvk_fastid_db_t *db, gvk_err_t *err);
/* The profiles the next gvk_fastid_search_db of d takes as its database: first .. end - 1, 0 <=
 * first <= end <= n (at first: all of them; a search moves first to end), so that processes can
 * each search a slice. A file that is not seekable (standard input, a pipe) can only start where
 * its reading stands (GVK_ERR_ARG otherwise); a regular file seeks (GVK_ERR_IO when it cannot). */
GVK_EXPORT int gvk_fastid_db_range(gvk_fastid_db_t *d, int64_t first, int64_t end, gvk_err_t *err);
/* After the search of an opened d, once: reads the sample IDs of the database profiles r names
 * (its top lists and hits), the section after the profiles (a regular file seeks to it; a stream
 * must have been searched to its last profile), checking every ID. A whole d holds every ID
 * already: 0 at once. */
GVK_EXPORT int gvk_fastid_db_read_ids(gvk_fastid_db_t *d, const gvk_fastid_result_t *r, gvk_err_t *err);
/* The ID of profile i (its index as text in a version 1 file), NULL when d does not hold it; owned
 * by d. */
GVK_EXPORT const char *gvk_fastid_db_id(const gvk_fastid_db_t *d, int64_t i);

/* Every profile of queries (whole) against the profiles of db in its range (gvk_fastid_db_range),
 * read or copied block profiles at a time (0: 2^24) so that the database need not fit in memory;
 * database indices count from the file's first profile. queries and db are checked as
 * gvk_fastid_db_match does first. db may be queries itself. *out is allocated for the caller
 * (gvk_fastid_result_free), NULL after an error. */
GVK_EXPORT int gvk_fastid_search_db(gvk_fastid_t *e, const gvk_fastid_db_t *queries, gvk_fastid_db_t *db,
                                    size_t block, gvk_fastid_result_t **out, gvk_err_t *err);
/* Folds part, a result of e's search of the same queries against other database profiles (another
 * process's slice), into acc: top lists merged to at most e's topk entries (ties: smaller database
 * index), hits merged in their order, pairs summed; acc keeps its search_s and kernel (part's
 * kernel when acc searched nothing). part is only read. GVK_ERR_ARG when the query counts differ. */
GVK_EXPORT int gvk_fastid_result_merge(const gvk_fastid_t *e, gvk_fastid_result_t *acc, const gvk_fastid_result_t *part,
                                       gvk_err_t *err);
/* gvk fastid's tables of r to fp, names from queries and db (after gvk_fastid_db_read_ids): the top
 * lists as a header and rows 'query_id query rank db_id db score', by query then rank; the hits as
 * a header and rows 'query_id query db_id db score', by query, score, db. GVK_ERR_ARG naming the
 * profile when an ID is not held. fp stays the caller's, as with gvk_fastid_db_write. */
GVK_EXPORT int gvk_fastid_write_top(FILE *fp, const gvk_fastid_result_t *r, const gvk_fastid_db_t *queries,
                                    const gvk_fastid_db_t *db, gvk_err_t *err);
GVK_EXPORT int gvk_fastid_write_hits(FILE *fp, const gvk_fastid_result_t *r, const gvk_fastid_db_t *queries,
                                     const gvk_fastid_db_t *db, gvk_err_t *err);

/* ---------------------------------------------------------------------------------------------
 * Semi-global alignment with traceback (GATK's Smith-Waterman, Intel GKL semantics; see
 * docs/align.md). ref = the sequence the offset refers to, alt = the one the CIGAR describes.
 * ------------------------------------------------------------------------------------------- */

/* Overhang strategies, numbered as GKL's alignNative takes them. */
typedef enum {
	GVK_OVERHANG_SOFTCLIP = 9,
	GVK_OVERHANG_INDEL = 10,
	GVK_OVERHANG_LEADING_INDEL = 11,
	GVK_OVERHANG_IGNORE = 12
} gvk_overhang_t;

/* GATK's SWParameters: values are added (penalties are <= 0); a gap of k bases costs
 * gap_open + (k - 1) * gap_extend. */
typedef struct {
	int32_t match, mismatch, gap_open, gap_extend;
} gvk_sw_params_t;

/* Limits (checked, never truncated): sequence length 1..GVK_ALIGN_MAX_LEN (GKL's and GATK's native
 * limit); 0 <= match <= 65536; -2^28 <= mismatch, gap_open, gap_extend <= 0; and under INDEL and
 * LEADING_INDEL, 2 * gap_open + (max(len) - 2) * gap_extend > -2^30 (a gap opened from the
 * boundary beats the -2^30 sentinel). Within these no 32-bit score can overflow. */
#define GVK_ALIGN_MAX_LEN 32767

/* Fills p with a GATK preset: ORIGINAL_DEFAULT, STANDARD_NGS, NEW_SW_PARAMETERS or
 * ALIGNMENT_TO_BEST_HAPLOTYPE_SW_PARAMETERS (case-insensitive). 0, or GVK_ERR_ARG if unknown. */
GVK_EXPORT int gvk_sw_preset(const char *name, gvk_sw_params_t *p);
/* Strategy code of a name (SOFTCLIP, INDEL, LEADING_INDEL, IGNORE; case-insensitive) or of its
 * GKL number as text; GVK_ERR_ARG if unknown. */
GVK_EXPORT int gvk_overhang_parse(const char *name);
GVK_EXPORT const char *gvk_overhang_name(int overhang); /* NULL if not a strategy code */

typedef struct {
	const char *ref, *alt; /* bytes compared as they are (no case folding); need no terminator */
	int32_t ref_len, alt_len;
	gvk_sw_params_t par;
	int32_t overhang; /* gvk_overhang_t */
} gvk_align_pair_t;

typedef struct {
	const char *cigar; /* NUL-terminated; owned by the engine, valid until its next gvk_align_batch
	                      or gvk_align_destroy (see gvk_align_batch) */
	int32_t cigar_len; /* strlen(cigar) */
	int32_t offset;    /* 0-based position in ref (negative possible under IGNORE) */
	int32_t score;     /* H of the cell the traceback started from; len(alt) * match when the
	                      substring shortcut answered */
} gvk_align_result_t;

/* Which implementation to reproduce. They differ only in three corner cases (docs/align.md). */
typedef enum {
	GVK_SW_GKL = 0, /* Intel GKL native (GATK's default FASTEST_AVAILABLE aligner) */
	GVK_SW_JAVA = 1 /* GATK SmithWatermanJavaAligner */
} gvk_sw_flavour_t;

/* Largest gpu_chunk_mb accepted. */
#define GVK_ALIGN_MAX_CHUNK_MB 65536

typedef struct {
	int flavour;      /* gvk_sw_flavour_t */
	int raw;          /* 1: the aligner alone (GKL's alignNative); 0: GATK's exact-substring shortcut
	                     first (SOFTCLIP and IGNORE), as GATK's align() does */
	int threads;      /* CPU worker threads (< 1: all processors); they also pack the GPU's input and
	                     write the CIGAR text of its results */
	int device;       /* gvk_device_t */
	int isa;          /* gvk_isa_t */
	int gpu;          /* -1 (default): the first visible GPU (this engine runs on one); k: GPU k */
	int gpu_chunk_mb; /* GPU memory per chunk of a batch, MiB (0 = a quarter of the free memory, at
	                     most 4 GiB; 1..GVK_ALIGN_MAX_CHUNK_MB): small values stream many chunks */
	double gpu_min_work; /* device auto: cells of a batch from which it goes to the GPU (0: the
	                        policy's, docs/library.md) */
	gvk_log_t log;    /* messages: a GPU that cannot be used (INFO), a GPU failure (WARN) */
	const char *server;   /* a gvk serve socket, as gvk_pairhmm_opts_t.server (default NULL) */
	const char *gpu_lock; /* device auto's GPU lock file, as gvk_pairhmm_opts_t.gpu_lock (default NULL) */
	double server_min_work; /* with a server: cells of a batch from which it is sent there; smaller
	                           batches (GATK's one pair per call) are aligned here, sooner than a
	                           round trip (0: the engine's model, docs/align-gpu.md; 1: every batch) */
} gvk_align_opts_t;

typedef struct gvk_align_s gvk_align_t;

/* Checks the options without the device: 0, or GVK_ERR_ARG with a message naming the field (as
 * gvk_align_create does first). */
GVK_EXPORT int gvk_align_opts_check(const gvk_align_opts_t *o, gvk_err_t *err);
/* Defaults: GKL flavour, shortcut on, 1 thread, device auto, widest ISA, automatic GPU chunks,
 * the process's log (gvk_set_log). */
GVK_EXPORT void gvk_align_opts_init(gvk_align_opts_t *opt);
/* NULL on failure (err says why): GVK_ERR_ARG for an unknown flavour or device or a gpu_chunk_mb
 * out of range, GVK_ERR_UNSUPPORTED for an ISA this CPU or build lacks, GVK_ERR_GPU (or
 * GVK_ERR_UNSUPPORTED in a build without CUDA) for device gpu without a usable GPU. One engine
 * must not be used by two threads at once. */
GVK_EXPORT gvk_align_t *gvk_align_create(const gvk_align_opts_t *opt, gvk_err_t *err);
GVK_EXPORT void gvk_align_destroy(gvk_align_t *e);
/* "cpu-avx512", "cpu-avx2", "cpu-scalar", or with a GPU "gpu-NAME (+cpu-ISA)" (device gpu) or
 * "auto: gpu-NAME (+cpu-ISA)" (device auto: batches of at least 2e7 cells go to the GPU). A
 * device auto engine without a usable GPU runs on the CPU; a GPU failure during a batch moves
 * that batch and the following ones to the CPU, with a GVK_LOG_WARN message. */
GVK_EXPORT const char *gvk_align_device_name(const gvk_align_t *e);
/* GPU kernel time of the last gvk_align_batch call, seconds (0 when it ran on the CPU; under
 * gpu_emulate, the emulated kernels' CPU time). */
GVK_EXPORT double gvk_align_gpu_kernel_seconds(const gvk_align_t *e);

/* Checks one pair against the limits above; 0 or GVK_ERR_ARG with a message. */
GVK_EXPORT int gvk_align_check_pair(const gvk_align_pair_t *p, gvk_err_t *err);

/* Aligns n pairs; out[k] is the result of pairs[k]. The CIGAR strings live in memory owned by the
 * engine and stay valid until the next gvk_align_batch call on it or gvk_align_destroy (no copy:
 * the fast path; gvk_align_batch_copy keeps them). Returns 0, or a negative code (an invalid
 * pair: GVK_ERR_ARG naming its index; nothing is aligned). */
GVK_EXPORT int gvk_align_batch(gvk_align_t *e, const gvk_align_pair_t *pairs, size_t n,
                               gvk_align_result_t *out, gvk_err_t *err);

/* Copies the CIGARs of the n results of the last gvk_align_batch (out as it filled them) into
 * the caller's buffer text of size bytes, one after the other, each NUL-terminated, and points
 * out[k].cigar there. Needs sum(cigar_len + 1) bytes: returns that number, or, when size is too
 * small, GVK_ERR_ARG with nothing changed. */
GVK_EXPORT long gvk_align_batch_copy(gvk_align_result_t *out, size_t n, char *text, size_t size, gvk_err_t *err);

/* The pair table gvk align reads (docs/align.md, "Input"), streamed: tab-separated lines `ref alt
 * [match mismatch gap_open gap_extend strategy]`, an optional header whose first field is `ref`,
 * plain or gzip. A line of two fields takes def's scores and strategy; force_par / force_overhang
 * make every line take them. */
typedef struct {
	gvk_sw_params_t par;
	int overhang; /* GVK_OVERHANG_* */
	int force_par, force_overhang;
} gvk_align_defaults_t;

typedef struct gvk_align_reader_s gvk_align_reader_t;

/* Opens path ("-": standard input); def is copied. The reader is the caller's
 * (gvk_align_reader_close, NULL allowed); NULL with err naming the file when it cannot be read. */
GVK_EXPORT gvk_align_reader_t *gvk_align_reader_open(const char *path, const gvk_align_defaults_t *def, gvk_err_t *err);
/* The next pairs, up to max_pairs: their number (0 at the end of the input) with *pairs pointing at
 * them and *cells their ref x alt lengths summed (cells may be NULL); they live in the reader until
 * its next call. A negative code with err naming file and line for a bad line. */
GVK_EXPORT long gvk_align_reader_next(gvk_align_reader_t *r, size_t max_pairs, const gvk_align_pair_t **pairs,
                                      uint64_t *cells, gvk_err_t *err);
GVK_EXPORT void gvk_align_reader_close(gvk_align_reader_t *r);

/* ---------------------------------------------------------------------------------------------
 * CNV detection (cn.MOPS semantics, see docs/cnv.md and docs/library.md "CNV")
 *
 * Counts (gvk_cnv_counts_t: from a file, from BAM/CRAM, or from arrays) go through an engine made
 * from options (gvk_cnv_opts_t) and come back as a gvk_cnv_result_t. Every array named below is
 * malloc'ed by the library and owned by the struct it is in; one free call per struct.
 * ------------------------------------------------------------------------------------------- */

#define GVK_CNV_MAX_CLASSES 16

/* A read-count matrix: m regions x N samples, stored region-fastest (x[s * m + r], R's
 * column-major order), regions grouped by reference sequence: the rows of sequence q are
 * seq_off[q] .. seq_off[q + 1] - 1. Coordinates are 1-based inclusive (a window that starts at 0
 * is kept as the package makes it). Everything is owned by the struct; free with
 * gvk_cnv_counts_free (which also zeroes it; a zeroed struct may be freed). */
typedef struct {
	int m, N, n_seqs;
	char **samples;   /* N names */
	char **seq_names; /* n_seqs names */
	int *seq_off;     /* n_seqs + 1 row offsets */
	int64_t *start, *end;
	double *x;
	int is_matrix;    /* plain matrix input: one pseudo-sequence "undef", region i = [i, i] */
	int64_t *seq_len; /* n_seqs lengths from the BAM header (0: not in it), or NULL (count matrix) */
} gvk_cnv_counts_t;

GVK_EXPORT void gvk_cnv_counts_free(gvk_cnv_counts_t *c);

/* Reads a tab-separated count matrix: a header 'chr start end S1 .. SN' then one line per region,
 * or a header of sample names only (plain matrix). as_matrix ignores coordinates. Counts must be
 * non-negative integers; rows of a sequence contiguous; N >= 2. Errors name file and line. */
GVK_EXPORT int gvk_cnv_counts_read(const char *path, int as_matrix, gvk_cnv_counts_t *c, gvk_err_t *err);
/* The same, parsing with `threads` threads (0: all processors; blocks of lines split at line ends). */
GVK_EXPORT int gvk_cnv_counts_read_mt(const char *path, int as_matrix, int threads, gvk_cnv_counts_t *c,
                                      gvk_err_t *err);

/* Layout of the counts given to gvk_cnv_counts_from_arrays. */
enum {
	GVK_CNV_REGION_MAJOR = 0, /* x[r * N + s]: one row per region (a C-ordered m x N array, numpy's default) */
	GVK_CNV_SAMPLE_MAJOR = 1  /* x[s * m + r]: one run per sample (a Fortran-ordered m x N array, and
	                             gvk_cnv_counts_t's own layout) */
};

/* Counts held in memory by the caller, for gvk_cnv_counts_from_arrays. Nothing is kept: every
 * array is read during the call and copied. */
typedef struct {
	int m, N;                     /* regions (>= 1) and samples (>= 2) */
	const double *x;              /* m x N counts: finite, >= 0 (integers give the package's results; */
	const int64_t *x_int;         /*   other values are modelled as they are); exactly one of x, x_int */
	int layout;                   /* GVK_CNV_REGION_MAJOR (0) or GVK_CNV_SAMPLE_MAJOR */
	const char *const *samples;   /* N non-empty names, or NULL: "S1" .. "SN" */
	/* Coordinates: all three arrays (m entries each) or none. With them, the regions of one sequence
	 * must be consecutive rows (sort by sequence), 0 <= start <= end, 1-based inclusive; without
	 * them the counts are a plain matrix as cn.mops takes one (one sequence "undef", region i =
	 * [i, i], is_matrix = 1). */
	const char *const *seq_names; /* m names, the sequence of each region */
	const int64_t *start, *end;
} gvk_cnv_count_arrays_t;

/* Builds *c (a copy, owned by c: gvk_cnv_counts_free) from in-memory arrays. Returns 0, or
 * GVK_ERR_ARG with a message naming the bad value (NULL arrays, m < 1, N < 2, a negative, NaN or
 * infinite count, an int64 count above 2^53, an empty name, bad or half-given coordinates, rows
 * of a sequence not consecutive), or GVK_ERR_NOMEM; on error *c is zeroed. */
GVK_EXPORT int gvk_cnv_counts_from_arrays(const gvk_cnv_count_arrays_t *a, gvk_cnv_counts_t *c, gvk_err_t *err);

/* Read counting from BAM/CRAM (docs/cnv.md, Semantics 1). bed NULL: fixed windows of length wl over every
 * @SQ of the first file; otherwise the BED intervals (0-based half-open, converted to 1-based).
 * Sample names come from each file's @RG SM (the file name without .bam/.cram when it has none);
 * two files of one name, or one file of several, are an error. A BED contig missing from the
 * header is an error when the header has it under another spelling (chr1 / 1) or has none of the
 * BED's contigs; otherwise its targets count 0. Windows whose counts and cn.MOPS model (default
 * classes) would exceed the machine's physical memory, or that number more than INT_MAX, are
 * refused before any is laid out (GVK_ERR_NOMEM, GVK_ERR_ARG; the message names a window length
 * that fits). Returns GVK_ERR_UNSUPPORTED when gvk was built without htslib. */
typedef struct {
	int wl;          /* window length (default 25000) */
	int min_mapq;    /* keep reads with MAPQ >= this (default 1) */
	int threads;     /* 0: all processors (default 1). Files, and runs of windows read through the index when there are
	                  * fewer files than threads, are counted at once; the counts never depend on it */
	const char *reference; /* FASTA for CRAM, may be NULL */
	/* Notes go to log: GVK_LOG_INFO for sample names taken from file names and for BED contigs
	 * absent from a header (their targets count 0). */
	gvk_log_t log;
	/* Progress while counting, when progress_fn is set: text without a newline, kind
	 * GVK_PROGRESS_UPDATE (replaces the last progress text) or GVK_PROGRESS_END (the final text;
	 * the line is done). Called from the counting threads, one call at a time. */
	void (*progress_fn)(void *arg, int kind, const char *text);
	void *progress_arg;
} gvk_cnv_bam_opts_t;

enum { GVK_PROGRESS_UPDATE = 1, GVK_PROGRESS_END = 2 };

/* Defaults: windows of 25000, MAPQ >= 1, 1 thread, no reference, the default log, no progress. */
GVK_EXPORT void gvk_cnv_bam_opts_init(gvk_cnv_bam_opts_t *o);
GVK_EXPORT int gvk_cnv_count_bams(const char *const *paths, int n_paths, const char *bed,
                                  const gvk_cnv_bam_opts_t *o, gvk_cnv_counts_t *c, gvk_err_t *err);
GVK_EXPORT int gvk_cnv_have_bam(void);
/* 1 when built with the GPU back end of the EM (a device may still be absent at run time). */
GVK_EXPORT int gvk_cnv_have_gpu(void);

enum { GVK_CNV_NORM_MEAN = 0, GVK_CNV_NORM_MEDIAN, GVK_CNV_NORM_QUANT, GVK_CNV_NORM_MODE, GVK_CNV_NORM_POISSON };

typedef struct {
	int n_classes;
	double I[GVK_CNV_MAX_CLASSES]; /* fold changes; class i has copy-number label i */
	int cn2;                       /* index of the normal class (2) */
	double prior_impact;
	int cyc;
	int norm;                      /* 0 raw, 1 normalize, 2 raw + coverage factors */
	int norm_type, size_factor;    /* GVK_CNV_NORM_* (size_factor: MEAN, MEDIAN, QUANT, MODE) */
	double norm_qu, qu_size_factor;
	double upper, lower;           /* calling thresholds on the segment mean (median) */
	int min_width;
	double min_read_count;
	int use_median;
	/* fast segmentation */
	double seg_alpha;
	int seg_delta, seg_max_int;
	double seg_cyber_weight;
	int keep_posterior;            /* fill gvk_cnv_result_t.post */
	int log_domain;                /* log-sum-exp E-step instead of the package's linear floor */
	int threads;                   /* CPU threads; 0 = all processors (default 1) */
	int device;                    /* gvk_device_t: where the EM runs. GPU: the GPU or an error (at
	                                * gvk_cnv_create when none is usable); AUTO: the GPU for inputs of
	                                * at least gpu_min_work counts when one is usable, else the CPU
	                                * without a message */
	int gpu;                       /* -1 (default): the first visible GPU (the EM runs on one); k: GPU k */
	int exact_ties;                /* after a GPU EM, recompute on the CPU the EM of every sequence whose
	                                * segmentation meets a near tie (package-identical segments, slower) */
	double gpu_min_work;           /* AUTO's threshold in counts (m x N); 0: the policy's (1e6,
	                                * docs/library.md "Device choice") */
	gvk_log_t log;                 /* WARN: a GPU failure under AUTO (the EM reruns on the CPU); INFO: a
	                                * smaller GPU chunk after an out-of-memory, near-tie redos; DEBUG:
	                                * the device chosen */
} gvk_cnv_opts_t;

/* Defaults of cn.mops (exome = 0) or exomecn.mops (exome = 1): 1 thread, device auto, the default
 * log (gvk_log_default). */
GVK_EXPORT void gvk_cnv_opts_init(gvk_cnv_opts_t *o, int exome);

typedef struct gvk_cnv_s gvk_cnv_t;

/* Checks the options without the device: 0, or GVK_ERR_ARG with a message naming the field (as
 * gvk_cnv_create does first). */
GVK_EXPORT int gvk_cnv_opts_check(const gvk_cnv_opts_t *o, gvk_err_t *err);
/* Checks the options and keeps a copy of them; NULL on failure (GVK_ERR_ARG: an option out of
 * range; GVK_ERR_GPU: device GPU and no usable GPU; GVK_ERR_UNSUPPORTED: device GPU in a build
 * without the GPU back end). Free with gvk_cnv_destroy. One engine must not be used by two
 * threads at once; several engines may run at once. */
GVK_EXPORT gvk_cnv_t *gvk_cnv_create(const gvk_cnv_opts_t *o, gvk_err_t *err);
GVK_EXPORT void gvk_cnv_destroy(gvk_cnv_t *e);

/* One final segment of one sample: a run of regions of one sequence with one call. */
typedef struct {
	int seq, sample;     /* index into counts.seq_names, counts.samples */
	int first, last;     /* region rows (global: index into counts.start / end), inclusive */
	double mean, median; /* of the segment's individual calls (sI/NI, log2 scale) */
	int cn;              /* integer copy number: the class index, label CN<cn> */
	int is_cnv;          /* 1 when called a CNV (mean or median beyond upper / lower, min_width long) */
} gvk_cnv_seg_t;

/* A CNV region: the union of overlapping CNVs of any samples on one sequence. */
typedef struct {
	int seq, first, last; /* sequence index, region rows (global), inclusive */
	int *cn;              /* N copy numbers (class indices), one per sample: cn2 where the sample has no
	                         CNV there; points into gvk_cnv_result_t.cnvr_cn */
} gvk_cnv_region_t;

/* The pipeline's output. It refers to the counts by index (sequence, sample, region row) and
 * holds no names: look them up in the gvk_cnv_counts_t that was run. m, N are the counts', n
 * the classes. Per-region arrays are region-fastest with leading dimension m: (component c,
 * region r) at c * m + r, i.e. one run of m values per sample (or class). Every pointer is owned
 * by the result and freed by gvk_cnv_result_free; NULL only where said. */
typedef struct {
	int m, N, n;
	double *norm;               /* N x m normalized counts */
	double *cov;                /* N coverage factors (1 unless norm = 2) */
	double *lambda, *alpha;     /* n x m: per region, the EM's Poisson means and mixture weights */
	double *post;               /* (k * n + i) x m posteriors of sample k, class i; NULL unless keep_posterior */
	double *sini, *ini;         /* N x m sI/NI (per-sample information), m I/NI (per-region) */
	uint8_t *cls;               /* N x m most probable class per region and sample */
	double *seg_stat, *call;    /* N x m segmentation statistic, individual call */
	/* The CNV table: every final segment, ordered by sequence, sample, first region; the CNVs
	 * among them (is_cnv) are listed by cnvs, in the same order. */
	gvk_cnv_seg_t *segs;
	size_t n_segs;
	size_t *cnvs;               /* n_cnvs indices into segs */
	size_t n_cnvs;
	/* CNV regions, ordered by sequence, then first region; cnvr_cn is n_cnvr x N, row k the
	 * copy numbers of region k (the same memory as cnvr[k].cn). */
	gvk_cnv_region_t *cnvr;
	size_t n_cnvr;
	int *cnvr_cn;
	/* normalization diagnostics per sequence q (and sample s at q * N + s) */
	double *nf_size, *nf_before, *nf_final; /* n_seqs x N */
	double *nf_u, *nf_bw, *nf_mode;         /* n_seqs */
	int *nf_nuser, *nf_excluded;            /* n_seqs */
	/* segmentation diagnostics at q * N + s */
	double *sp_eps, *sp_sd, *sp_q95;
	int *sp_ninit;
	double t_norm, t_em, t_seg, t_call;     /* seconds per stage */
	char device_name[64];                   /* where the EM ran: "cpu" or "gpu" */
} gvk_cnv_result_t;

/* The whole pipeline (normalization, EM, segmentation, calls, integer copy numbers) on c, which is
 * only read. *res is allocated for the caller (gvk_cnv_result_free), NULL on error. Errors:
 * GVK_ERR_ARG (NULL arguments, fewer than 2 samples or no regions, a sample name given twice
 * (checked before anything is computed), an option the counts make invalid), GVK_ERR_FORMAT (a
 * negative or non-finite count), GVK_ERR_NOMEM (also before any allocation when the model's
 * arrays would exceed the machine's physical memory), GVK_ERR_GPU (device GPU and the GPU
 * failed). */
GVK_EXPORT int gvk_cnv_run(gvk_cnv_t *e, const gvk_cnv_counts_t *c, gvk_cnv_result_t **res, gvk_err_t *err);
GVK_EXPORT void gvk_cnv_result_free(gvk_cnv_result_t *r);

/* Contig lengths for counts read from a matrix, which holds windows but no lengths (the VCF's
 * ##contig lines and the choice of its index want them): path is a samtools faidx .fai or any file
 * of 'name length' lines (tab- or space-separated, further columns ignored, plain or gzip); lines
 * of other contigs are skipped. Every sequence of c must be listed once, with a length that holds
 * its last window. Sets c->seq_len (owned by c) and returns 0; on error (GVK_ERR_FORMAT naming the
 * file and line, or the contig; GVK_ERR_ARG for a plain matrix; GVK_ERR_IO) c is unchanged. */
GVK_EXPORT int gvk_cnv_counts_read_lengths(const char *path, gvk_cnv_counts_t *c, gvk_err_t *err);

/* ---- The outputs of gvk cnv (docs/cnv.md, "Outputs"), byte for byte, for a program that wants the
 * same files. Every writer reads the counts that were run and their result (and o, the options of
 * the engine that ran them, where said) and keeps nothing. ---- */

/* The text tables. The --regions tables are written by the command as PREFIX + their suffix
 * (gvk_cnv_table_suffix). */
enum {
	GVK_CNV_TABLE_CNVS = 0,        /* -o: 'sample chr start end mean median CN', the CNVs */
	GVK_CNV_TABLE_SEGMENTS,        /* --segments: the same columns, every segment */
	GVK_CNV_TABLE_CNVR,            /* --cnvr: 'chr start end' and one copy number per sample */
	GVK_CNV_TABLE_CALLS_BED,       /* --calls-bed: 'chrom start end sample CN', 0-based, by position */
	GVK_CNV_TABLE_SEG,             /* --seg: every segment as SEG (IGV, GISTIC), by sample */
	GVK_CNV_TABLE_NORMALIZED,      /* --regions: normalized counts per region and sample */
	GVK_CNV_TABLE_INI,             /* I/NI per region */
	GVK_CNV_TABLE_SINI,            /* sI/NI per region and sample */
	GVK_CNV_TABLE_REGION_CN,       /* most probable class per region and sample */
	GVK_CNV_TABLE_LAMBDA,          /* the EM's Poisson means per region and class */
	GVK_CNV_TABLE_ALPHA,           /* the EM's mixture weights per region and class */
	GVK_CNV_TABLE_SEG_STAT,        /* segmentation statistic per region and sample */
	GVK_CNV_TABLE_INDIVIDUAL_CALL, /* individual call per region and sample */
	GVK_CNV_TABLE_NORM_FACTORS,    /* normalization diagnostics per sequence and sample */
	GVK_CNV_TABLE_PARAMS,          /* the run's parameters, as cn.mops' params() (reads o) */
	GVK_CNV_TABLE_SEG_PARAMS,      /* segmentation diagnostics per sequence and sample */
	GVK_CNV_TABLE_POSTERIOR,       /* posteriors, one row per region and sample (keep_posterior) */
	GVK_CNV_N_TABLES
};

/* The file name suffix of a --regions table (".normalized.tsv", ".posterior.tsv", ...); NULL for
 * the other tables and for an unknown code. A static string. */
GVK_EXPORT const char *gvk_cnv_table_suffix(int table);
/* Writes table to fp, which stays the caller's (open). o may be NULL except for
 * GVK_CNV_TABLE_PARAMS. Returns 0, GVK_ERR_ARG (a NULL argument, an unknown table, a result of
 * other counts, the posteriors of a result without them), GVK_ERR_NOMEM, or GVK_ERR_IO ("write
 * error") when fp reports an error. */
GVK_EXPORT int gvk_cnv_write_table(FILE *fp, int table, const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r,
                                   const gvk_cnv_opts_t *o, gvk_err_t *err);
/* The count matrix in the format gvk_cnv_counts_read reads (gvk cnv --counts-out, --count-only);
 * codes as gvk_cnv_write_table. */
GVK_EXPORT int gvk_cnv_counts_write(FILE *fp, const gvk_cnv_counts_t *c, gvk_err_t *err);

/* The CNV regions as VCF 4.3 (docs/cnv.md, "VCF": <DEL>/<DUP>, GT:CN:SM per sample) at path. A
 * path ending in .gz is bgzipped and indexed beside it: path.tbi, or path.csi when a contig is
 * 2^29 bases or longer (the index of the other kind is dropped); a device or fifo gets no index.
 * reference: a FASTA whose base at POS becomes REF (NULL: N); threads: of the index build (0: all
 * processors). Returns 0, GVK_ERR_ARG (a NULL argument), GVK_ERR_IO naming the file,
 * GVK_ERR_NOMEM, or GVK_ERR_UNSUPPORTED (.gz in a build without htslib). */
GVK_EXPORT int gvk_cnv_write_vcf(const char *path, const gvk_files_t *files, const gvk_cnv_counts_t *c,
                                 const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o, const char *reference,
                                 int threads, gvk_err_t *err);

/* Plots (docs/cnv.md, "Plots"): per sample PREFIX.SAMPLE.genome.EXT and PREFIX.SAMPLE.CONTIG.EXT,
 * and PREFIX.cohort.EXT, EXT png and / or svg (characters of names other than letters, digits,
 * '.', '_' and '-' become '_'). */
enum { GVK_CNV_PLOT_CONTIGS_CALLS = 0, GVK_CNV_PLOT_CONTIGS_ALL, GVK_CNV_PLOT_CONTIGS_NONE };

typedef struct {
	int png, svg;  /* the formats written, 0 or 1 each, one at least (default png); PNG needs cairo
	                * (GVK_FEATURE_CAIRO) */
	int contigs;   /* per-contig plots: GVK_CNV_PLOT_CONTIGS_CALLS (default: the contigs where the
	                * sample has a call), _ALL, _NONE */
	int plain_svg; /* 1: SVG written by gvk itself (text as <text>) in a build with cairo too; a
	                * build without cairo always does (default 0) */
} gvk_cnv_plot_opts_t;

/* Defaults: PNG, per-contig plots of the contigs with a call, SVG through cairo when built. */
GVK_EXPORT void gvk_cnv_plot_opts_init(gvk_cnv_plot_opts_t *po);
/* 0, or GVK_ERR_ARG with a message naming the field. */
GVK_EXPORT int gvk_cnv_plot_opts_check(const gvk_cnv_plot_opts_t *po, gvk_err_t *err);
/* Writes every plot through files (NULL: at its path; the prefix's directory must exist). Returns
 * 0, GVK_ERR_ARG (a NULL argument, a bad option), GVK_ERR_UNSUPPORTED (PNG in a build without
 * cairo, before any file is made), GVK_ERR_IO naming the file, or GVK_ERR_NOMEM. */
GVK_EXPORT int gvk_cnv_plot(const char *prefix, const gvk_cnv_plot_opts_t *po, const gvk_files_t *files,
                            const gvk_cnv_counts_t *c, const gvk_cnv_result_t *r, const gvk_cnv_opts_t *o,
                            gvk_err_t *err);

/* ---- Work spread over processes (gvk cnv under MPI; the library has no MPI of its own): each
 * process reads or counts a part, and the model runs with the caller's hooks joining what the
 * processes computed. ---- */

/* The rows of a count matrix whose lines lie in bytes [lo, hi) of path (lo and hi at line starts
 * after the header, which is read from the file's start), for a reader that splits the file.
 * line0: the number of the range's first line, for messages. c has the range's regions only (m
 * may be 0; it is the caller's, gvk_cnv_counts_free); sequences are checked for contiguity within
 * the range; a plain matrix's regions are numbered from 1 within the range. A plain
 * (uncompressed) file only. Errors as gvk_cnv_counts_read_mt, naming file and line. */
GVK_EXPORT int gvk_cnv_counts_read_range(const char *path, int as_matrix, int threads, int64_t lo, int64_t hi,
                                         long line0, gvk_cnv_counts_t *c, gvk_err_t *err);
/* gvk_cnv_count_bams counting one share of the rows in every file: share (0 .. shares - 1) of
 * shares runs of about equal rows, rows [*row0, *row1). c has every row (the caller's), the
 * others' counts 0. */
GVK_EXPORT int gvk_cnv_count_bams_share(const char *const *paths, int n_paths, const char *bed,
                                        const gvk_cnv_bam_opts_t *o, int share, int shares, int *row0, int *row1,
                                        gvk_cnv_counts_t *c, gvk_err_t *err);

/* A final segment of one (sequence, sample): rows relative to the sequence's first, inclusive,
 * and the mean and median of its values. */
typedef struct {
	int start, end;
	double mean, median;
} gvk_cnv_piece_t;

/* How gvk_cnv_run_split spreads a run: each process holds the whole counts and result arrays,
 * runs the EM of its regions [r0, r1) and the segmentation of its (sequence, sample) pairs
 * [p0, p1) (pair q * N + s), and the hooks join what the processes computed. Every hook is called
 * on every process with its status so far and returns the status agreed by all. */
typedef struct {
	int r0, r1, p0, p1;
	void *ctx; /* passed to the hooks */
	/* after the EM: every region's EM outputs (lambda, alpha, post, sini, ini, cls) on every
	 * process */
	int (*em_join)(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, int rc, gvk_err_t *err);
	/* after the segmentation: again[q] (one per sequence) set wherever any process set it */
	int (*near_join)(void *ctx, uint8_t *again, int n_seqs, int rc, gvk_err_t *err);
	/* after the segmentation: every pair's pieces, scores, calls and diagnostics on the process
	 * that makes the calls (*calls = 1 there, 0 elsewhere); pieces[pi] is malloc'ed, and a hook
	 * that replaces one frees the old one and mallocs the new */
	int (*seg_join)(void *ctx, const gvk_cnv_counts_t *c, gvk_cnv_result_t *r, gvk_cnv_piece_t **pieces,
	                int *n_pieces, int rc, int *calls, gvk_err_t *err);
} gvk_cnv_split_t;

/* gvk_cnv_run with the EM and the segmentation spread as sp says (NULL: gvk_cnv_run). *res is the
 * caller's (gvk_cnv_result_free); on a process whose seg_join says another one calls, it holds
 * the segmentation of its own pairs only. Errors as gvk_cnv_run, and GVK_ERR_ARG for a NULL hook
 * or ranges outside the counts. */
GVK_EXPORT int gvk_cnv_run_split(gvk_cnv_t *e, const gvk_cnv_counts_t *c, const gvk_cnv_split_t *sp,
                                 gvk_cnv_result_t **res, gvk_err_t *err);

/* ---------------------------------------------------------------------------------------------
 * The per-host GPU service (gvk serve; docs/gatk.md, "One GPU, many HaplotypeCallers"): one process
 * owns the GPUs and runs shared Pair-HMM and align engines; client engines whose options name its
 * socket (gvk_pairhmm_opts_t.server, gvk_align_opts_t.server) send their calls there, and calls of
 * many processes are merged into large launches.
 * ------------------------------------------------------------------------------------------- */

/* How a thread waiting for the GPU spends the wait (CUDA's device flags), for every GPU of the
 * process, set before its first GPU use. */
typedef enum { GVK_GPU_WAIT_AUTO = 0, GVK_GPU_WAIT_SPIN = 1, GVK_GPU_WAIT_YIELD = 2, GVK_GPU_WAIT_BLOCK = 3 } gvk_gpu_wait_t;

typedef struct {
	const char *socket; /* path of the socket, its directory existing (copied); required */
	int device;         /* gvk_device_t of the engines (default auto) */
	int threads;        /* CPU threads of each engine; 0 = all processors (default) */
	int gpu;            /* GPU of the engines: -1 every GPU (default), k GPU k alone */
	long group;         /* a group id whose members may connect too (socket 0660), or -1 (default: 0600) */
	int max_clients;    /* connections at once; 0 = 1024 (default) */
	int merge_contexts; /* Pair-HMM merged batches in flight, 1 to 16; 0 = the engine's default */
	int merge_wait_us;  /* how long a merged batch waits for more calls, 0 (default) to 10^6 */
	int gpu_wait;       /* gvk_gpu_wait_t (default auto) */
	int poll_clients;   /* up to this many connections, the connection threads and the clients poll
	                     * for the next message instead of sleeping; 0 = a quarter of the
	                     * processors (default), -1 = never */
	gvk_log_t log;      /* connects and disconnects (GVK_LOG_INFO), refused peers (GVK_LOG_WARN) */
} gvk_serve_opts_t;

/* Merged launches: how many, the calls and pairs they held, the largest, and by_calls[b] those of
 * 2^b to 2^(b+1) - 1 calls (the last bucket: 128 calls and more). */
enum { GVK_SERVE_MERGE_BUCKETS = 8 };
typedef struct {
	uint64_t batches, calls, pairs, max_pairs, by_calls[GVK_SERVE_MERGE_BUCKETS];
} gvk_serve_merge_t;

/* Clients served and refused; per engine ([0] Pair-HMM, [1] align) calls, pairs and merges; calls
 * that failed; the device the Pair-HMM engines compute on. */
typedef struct {
	uint64_t clients, refused, calls[2], pairs[2], errors;
	gvk_serve_merge_t merge[2];
	char device[128];
} gvk_serve_summary_t;

typedef struct gvk_serve_s gvk_serve_t;

GVK_EXPORT void gvk_serve_opts_init(gvk_serve_opts_t *o);
GVK_EXPORT int gvk_serve_opts_check(const gvk_serve_opts_t *o, gvk_err_t *err);
/* Opens the engines (GVK_DEVICE_GPU: the GPU or an error) and binds the socket: refuses
 * (GVK_ERR_IO) when a live server holds it, replaces a stale one. The service is the caller's
 * (gvk_serve_destroy); NULL with err set on failure. */
GVK_EXPORT gvk_serve_t *gvk_serve_create(const gvk_serve_opts_t *o, gvk_err_t *err);
/* Serves until gvk_serve_stop, then lets the calls in flight finish, closes every connection and
 * removes the socket: 0 or an error code. */
GVK_EXPORT int gvk_serve_run(gvk_serve_t *s, gvk_err_t *err);
/* Asks gvk_serve_run to return; safe from any thread and from a signal handler; NULL: nothing. */
GVK_EXPORT void gvk_serve_stop(gvk_serve_t *s);
/* The figures so far into *sum (zeros for a NULL service). */
GVK_EXPORT void gvk_serve_summary(gvk_serve_t *s, gvk_serve_summary_t *sum);
/* After gvk_serve_run has returned (or without it); NULL: nothing. */
GVK_EXPORT void gvk_serve_destroy(gvk_serve_t *s);
/* The per-user directory of the default socket and the GPU lock: runtime_dir/gvk when runtime_dir
 * (the caller's $XDG_RUNTIME_DIR) is given and not empty, else /tmp/gvk-UID; made (mode 0700) when
 * missing; refused (GVK_ERR_IO) when it is not a directory of user uid. 0, or an error code. */
GVK_EXPORT int gvk_serve_user_dir(const char *runtime_dir, unsigned uid, char *dir, size_t size, gvk_err_t *err);

#ifdef __cplusplus
}
#endif
#endif
