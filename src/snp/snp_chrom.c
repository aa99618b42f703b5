/* SPDX-License-Identifier: MIT */
/* Chromosome codes as PLINK 1.9 reads them for human data (its default species). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snp_chrom.h"

enum { CHR_X = 23, CHR_Y = 24, CHR_XY = 25, CHR_MT = 26, CHR_MAX = 26 };

static int upper(char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }
static int digit(char c) { return c >= '0' && c <= '9'; }

static int letter_code(char c)
{
	switch (upper(c)) {
	case 'X': return CHR_X;
	case 'Y': return CHR_Y;
	case 'M': return CHR_MT;
	default: return -1;
	}
}

/* The code of name, -1 for a contig name (not a code), or a number above CHR_MAX. Only one and
 * two character names (after an optional "chr" in any case) can be codes. */
static int raw_code(const char *s, size_t len)
{
	if (len >= 1 && upper(s[0]) == 'C') {
		if (len < 3 || upper(s[1]) != 'H' || upper(s[2]) != 'R') return -1;
		s += 3, len -= 3;
	}
	if (len == 1) return digit(s[0]) ? s[0] - '0' : letter_code(s[0]);
	if (len != 2) return -1;
	if (digit(s[0]) && digit(s[1])) return (s[0] - '0') * 10 + (s[1] - '0');
	if (s[0] == '0') return letter_code(s[1]); /* 0X, 0Y, 0M as Oxford tools write them */
	if (upper(s[0]) == 'X' && upper(s[1]) == 'Y') return CHR_XY;
	if (upper(s[0]) == 'M' && upper(s[1]) == 'T') return CHR_MT;
	return -1;
}

/* name (len bytes) into out, cut to out_size - 1 bytes as snprintf cuts it. */
static void copy_name(const char *name, size_t len, char *out, size_t out_size)
{
	if (!out_size) return;
	if (len > out_size - 1) len = out_size - 1;
	memcpy(out, name, len);
	out[len] = 0;
}

int snp_chr_code(const char *name, size_t len, char *out, size_t out_size)
{
	int c = raw_code(name, len);
	if (c > CHR_MAX) {
		copy_name(name, len, out, out_size);
		return SNP_CHR_INVALID;
	}
	if (c >= 0) {
		char num[2] = {(char)('0' + c / 10), (char)('0' + c % 10)};
		copy_name(c < 10 ? num + 1 : num, c < 10 ? 1 : 2, out, out_size);
		return SNP_CHR_STD;
	}
	copy_name(name, len, out, out_size);
	return SNP_CHR_EXTRA;
}

int snp_chr_class(const char *code)
{
	if (!strcmp(code, "23")) return SNP_CHR_X;
	if (!strcmp(code, "24")) return SNP_CHR_Y;
	return SNP_CHR_AUTO;
}

/* The code of a --chr item, or -1 when it is a contig name. */
static int item_code(const char *s, size_t len)
{
	int c = raw_code(s, len);
	return c > CHR_MAX ? -2 : c;
}

/* Calls fn on each comma-separated item of list; stops at a nonzero return. PLINK 1.9 ends its
 * reading of a --chr argument at a contig name (it cuts the argument there), so the items after
 * one are not seen here either. */
static int each_item(const char *list, int (*fn)(const char *, size_t, void *), void *ctx)
{
	for (const char *p = list;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len) {
			int r = fn(p, len, ctx);
			if (r) return r;
			const char *dash = memchr(p, '-', len);
			if (!(dash && dash != p) && item_code(p, len) == -1) return 0;
		}
		if (!e) return 0;
		p = e + 1;
	}
}

typedef struct {
	const char *chr;
	int code;
} match_t;

static int match_item(const char *s, size_t len, void *ctx)
{
	const match_t *m = ctx;
	const char *dash = memchr(s, '-', len);
	if (dash && dash != s) {
		int lo = item_code(s, (size_t)(dash - s)), hi = item_code(dash + 1, len - (size_t)(dash - s) - 1);
		if (lo >= 0 && hi >= 0) return m->code >= lo && m->code <= hi;
	}
	int c = item_code(s, len);
	if (c >= 0) return c == m->code;
	return strlen(m->chr) == len && !memcmp(m->chr, s, len);
}

int snp_chr_listed(const char *list, const char *chr)
{
	char *end;
	long c = strtol(chr, &end, 10);
	match_t m = {chr, (*chr && !*end) ? (int)c : -1};
	return each_item(list, match_item, &m) > 0;
}

typedef struct {
	int allow_extra;
	char *msg;
	size_t msg_size;
} check_t;

static int check_item(const char *s, size_t len, void *ctx)
{
	check_t *k = ctx;
	const char *dash = memchr(s, '-', len);
	if (dash && dash != s) {
		int lo = item_code(s, (size_t)(dash - s)), hi = item_code(dash + 1, len - (size_t)(dash - s) - 1);
		if (lo >= 0 && hi >= 0 && lo < hi) return 0;
		snprintf(k->msg, k->msg_size, "--chr: '%.*s' is not a range of chromosome codes", (int)len, s);
		return -1;
	}
	int c = item_code(s, len);
	if (c >= 0 || (c == -1 && k->allow_extra)) return 0;
	snprintf(k->msg, k->msg_size, "--chr: '%.*s' is not a chromosome code%s", (int)len, s,
	         c == -1 ? " (--allow-extra-chr accepts other contig names)" : "");
	return -1;
}

int snp_chr_list_check(const char *list, int allow_extra, char *msg, size_t msg_size)
{
	check_t k = {allow_extra, msg, msg_size};
	if (!*list) {
		snprintf(msg, msg_size, "--chr needs a chromosome list");
		return -1;
	}
	return each_item(list, check_item, &k) ? -1 : 0;
}
