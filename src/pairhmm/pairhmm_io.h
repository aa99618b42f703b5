/* SPDX-License-Identifier: MIT */
/* Pair-HMM input: the GATK results-file format (GKL's test file), the group format ("R H" then
 * reads then haplotypes; the "10s" dataset) and the hex format, plain or gzip, read in chunks. */
#ifndef GVK_PAIRHMM_IO_H
#define GVK_PAIRHMM_IO_H

#include <stddef.h>
#include <stdint.h>
#include "gvk.h"

/* The public codes (GVK_PAIRHMM_FMT_*). */
typedef enum {
	PHMM_FMT_AUTO = GVK_PAIRHMM_FMT_AUTO,
	PHMM_FMT_GKL = GVK_PAIRHMM_FMT_GKL,
	PHMM_FMT_GROUP = GVK_PAIRHMM_FMT_GROUP,
	PHMM_FMT_HEX = GVK_PAIRHMM_FMT_HEX
} phmm_format_t;

/* A chunk of work: reads, haplotypes and the pairs between them in input order. Everything points
 * into the chunk's own arenas and stays valid until the chunk is refilled or freed. */
typedef struct gvk_pairhmm_chunk_s {
	gvk_read_t *reads;
	gvk_hap_t *haps;
	gvk_pair_t *pairs;
	uint64_t *group;     /* per pair: 0-based group (or line record) number */
	int32_t *rin, *hin;  /* per pair: read and haplotype index inside the group */
	size_t n_reads, n_haps, n_pairs;
	uint64_t cells;      /* sum of read length x haplotype length */
	/* private */
	size_t m_reads, m_haps, m_pairs, *roff, *hoff;
	/* Reads and haplotypes in arenas of their own, so that a piece's reads lie back to back
	 * (5 R bytes each), and the GPU engine copies them in one piece. */
	char *arena, *harena;
	size_t arena_len, arena_cap, harena_len, harena_cap;
	struct gvk_pairhmm_chunk_s *parts; /* pieces parsed by threads, whose arenas the chunk points into */
	int nparts;
} phmm_chunk_t;

typedef struct gvk_pairhmm_reader_s phmm_reader_t;

phmm_reader_t *phmm_reader_open(const char *path, phmm_format_t fmt, gvk_err_t *err);
void phmm_reader_close(phmm_reader_t *rd);
/* Format in use (detected from the first record when opened with PHMM_FMT_AUTO). */
phmm_format_t phmm_reader_format(const phmm_reader_t *rd);
const char *phmm_format_name(phmm_format_t fmt);
/* Parses a name given on the command line; -1 if unknown. */
int phmm_format_parse(const char *name);

/* Refills c with whole records until it holds at least max_pairs pairs or the input ends.
 * Returns the number of pairs (0 at the end) or a negative code with err naming file and line. */
long phmm_reader_next(phmm_reader_t *rd, phmm_chunk_t *c, size_t max_pairs, gvk_err_t *err);

/* The same, with the parsing spread over threads (a chunk then holds about max_pairs pairs);
 * falls back to the sequential parser for small chunks or one thread. */
long phmm_reader_next_mt(phmm_reader_t *rd, phmm_chunk_t *c, size_t max_pairs, int threads, gvk_err_t *err);

/* Seconds phmm_reader_next_mt spent reading blocks, finding cuts, parsing and joining
 * (profiling). */
void phmm_reader_times(const phmm_reader_t *rd, double t[4]);

/* The input's bytes read so far, and the giving back of those before `to` once no chunk refers
 * to them (chunks copy what they keep): see gvk_lr_consumed and gvk_lr_release. */
size_t phmm_reader_consumed(const phmm_reader_t *rd);
void phmm_reader_release(phmm_reader_t *rd, size_t to);

void phmm_chunk_free(phmm_chunk_t *c);

#endif
