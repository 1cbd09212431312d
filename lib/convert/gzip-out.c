/* One gzip member written piece by piece (gzip-out-internal.h): a deflate
 * stream of its own, made for speed and for bytes that depend on the
 * input alone. The input is taken in segments of SEG bytes (a piece is
 * buffered until a segment is full), so any cut of the same input gives
 * the same stream. A segment's matches are found by a hash of 4 bytes,
 * one candidate each (the latest position of the segment with that
 * hash, every position entered), and taken greedily; every BLOCK bytes
 * of it make a dynamic-Huffman block, its codes from its own symbol
 * counts, limited to 15 bits. An empty fixed-code block ends the
 * stream. zlib gives the CRC-32 of the trailer. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/bytes-internal.h"
#include "core/table-internal.h"
#include "gzip-out-internal.h"

#define SEG ((size_t)256 * 1024)   /* a segment: matches within it only */
#define BLOCK ((size_t)64 * 1024)  /* the input of a block */
#define HASH_BITS 15
#define MIN_MATCH 4                 /* (deflate's is 3; 4 finds them by one load) */
#define MAX_MATCH 258
#define WINDOW 32768u
#define N_LITLEN 286                /* 0-255 bytes, 256 the block's end, lengths */
#define N_DIST 30
#define N_CL 19                     /* the code-length alphabet */
#define MAX_BITS 15
#define MAX_CL_BITS 7

/* A symbol of a segment: a byte (< 256), or a match: MATCH | (length -
 * 3) << 15 | (distance - 1). */
#define MATCH 0x80000000u

struct profdb__gzo {
	unsigned char *buf;       /* the segment being filled (grown as needed) */
	size_t n_buf, cap_buf;
	uint32_t *sym;            /* a block's symbols, at most one a byte */
	size_t cap_sym;
	uint32_t head[1u << HASH_BITS];   /* by hash: its latest position + 1 */
	uint32_t crc, isize;
	int started;              /* the gzip header is written */
	/* the bits not yet whole bytes, low first */
	uint64_t bits;
	unsigned n_bits;
};

/* deflate's length and distance codes: base values and extra bits */
static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
                                      15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,
                                       17,   25,   33,   49,   65,   97,    129,   193,
                                       257,  385,  513,  769,  1025, 1537,  2049,  3073,
                                       4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* the order in which a dynamic header gives the code-length code */
static const uint8_t cl_order[N_CL] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                       11, 4,  12, 3, 13, 2, 14, 1, 15};

/* The length code (0-28) of a match of @p l3 = length - 3 (0-255): the
 * first eight lengths one code each, then four codes per doubling, and
 * 258 a code of its own. */
static unsigned len_code(unsigned l3)
{
	if (l3 < 8)
		return l3;
	if (l3 == 255)
		return 28;
	unsigned b = 31 - (unsigned)__builtin_clz(l3);
	return 4 * (b - 1) + ((l3 >> (b - 2)) & 3);
}

/* The distance code (0-29) of @p d1 = distance - 1 (0-32767): the first
 * four distances one code each, then two codes per doubling. */
static unsigned dist_code(unsigned d1)
{
	if (d1 < 4)
		return d1;
	unsigned b = 31 - (unsigned)__builtin_clz(d1);
	return 2 * b + ((d1 >> (b - 1)) & 1);
}

/* ---- bits out -------------------------------------------------------------------- */

typedef struct sink {
	unsigned char **out;
	size_t *len, *cap;
	int err;
} sink;

/* Room for @p n more bytes at the end of the output. */
static unsigned char *out_room(sink *o, size_t n)
{
	if (*o->cap - *o->len < n && profdb__grow((void **)o->out, o->cap, *o->len + n, 1) < 0) {
		o->err = -ENOMEM;
		return NULL;
	}
	return *o->out + *o->len;
}

/* @p n (at most 32) bits of @p v, low first, into @p g's bit buffer;
 * whole bytes go to @p p, which has room for them. */
static inline unsigned char *put_bits(profdb__gzo *g, unsigned char *p, uint32_t v, unsigned n)
{
	g->bits |= (uint64_t)v << g->n_bits;
	g->n_bits += n;
	if (g->n_bits >= 32) {
		profdb__put_le32(p, (uint32_t)g->bits);
		p += 4;
		g->bits >>= 32;
		g->n_bits -= 32;
	}
	return p;
}

/* The bit buffer's whole bytes out, and with @p pad its last bits too
 * (zeros above them). */
static unsigned char *flush_bits(profdb__gzo *g, unsigned char *p, int pad)
{
	while (g->n_bits >= 8 || (pad && g->n_bits)) {
		*p++ = (unsigned char)g->bits;
		g->bits >>= 8;
		g->n_bits = g->n_bits >= 8 ? g->n_bits - 8 : 0;
	}
	return p;
}

/* ---- Huffman codes ------------------------------------------------------------------ */

void profdb__gzo_code_lengths(const uint32_t *freq_in, unsigned n, unsigned limit, uint8_t *len)
{
	uint32_t freq[N_LITLEN];
	unsigned used = 0;
	for (unsigned i = 0; i < n; i++)
		used += (freq[i] = freq_in[i]) != 0;
	for (unsigned i = 0; used < 2; i++)   /* a complete code needs two */
		if (!freq[i])
			freq[i] = 1, used++;
	for (;;) {
		/* leaves sorted by count (insertion: at most 286), then the
		 * two-queue construction: internal nodes come in order */
		uint32_t leaf[N_LITLEN], lf[N_LITLEN];
		unsigned nl = 0;
		for (unsigned i = 0; i < n; i++) {
			if (!freq[i])
				continue;
			unsigned k = nl++;
			while (k && lf[k - 1] > freq[i]) {
				lf[k] = lf[k - 1];
				leaf[k] = leaf[k - 1];
				k--;
			}
			lf[k] = freq[i];
			leaf[k] = i;
		}
		/* nodes 0..nl-1 are leaves, nl.. internal; parent[] by node */
		uint32_t nf[2 * N_LITLEN], parent[2 * N_LITLEN];
		unsigned li = 0, ii = nl, ni = nl;
		for (unsigned k = 0; k < nl; k++)
			nf[k] = lf[k];
		while (ni < 2 * nl - 1) {
			unsigned pick[2];
			for (int t = 0; t < 2; t++)
				pick[t] = li < nl && (ii == ni || nf[li] <= nf[ii]) ? li++ : ii++;
			nf[ni] = nf[pick[0]] + nf[pick[1]];
			parent[pick[0]] = parent[pick[1]] = ni;
			ni++;
		}
		/* depths from the root (the last node) down */
		uint16_t depth[2 * N_LITLEN];
		depth[ni - 1] = 0;
		unsigned longest = 0;
		for (unsigned k = ni - 1; k-- > 0;) {
			depth[k] = (uint16_t)(depth[parent[k]] + 1);
			if (k < nl && depth[k] > longest)
				longest = depth[k];
		}
		if (longest <= limit) {
			memset(len, 0, n);
			for (unsigned k = 0; k < nl; k++)
				len[leaf[k]] = (uint8_t)depth[k];
			return;
		}
		for (unsigned i = 0; i < n; i++)
			if (freq[i])
				freq[i] = (freq[i] >> 1) | 1;
	}
}

/* The canonical codes of lengths @p len, bit-reversed (deflate sends a
 * code's highest bit first, the bit buffer takes the lowest first). */
static void canonical(const uint8_t *len, unsigned n, uint16_t *code)
{
	unsigned count[MAX_BITS + 1] = {0}, next[MAX_BITS + 2];
	for (unsigned i = 0; i < n; i++)
		count[len[i]]++;
	count[0] = 0;
	next[1] = 0;
	for (unsigned b = 1; b <= MAX_BITS; b++)
		next[b + 1] = (next[b] + count[b]) << 1;
	for (unsigned i = 0; i < n; i++) {
		if (!len[i])
			continue;
		unsigned c = next[len[i]]++, r = 0;
		for (unsigned b = 0; b < len[i]; b++)
			r |= ((c >> b) & 1) << (len[i] - 1 - b);
		code[i] = (uint16_t)r;
	}
}

/* ---- one segment --------------------------------------------------------------------- */

/* The hash-table slot of the 4 bytes at @p p (read as little-endian
 * whatever the machine, so the output is the same everywhere). */
static inline uint32_t hash4(const unsigned char *p)
{
	return (profdb__le32(p) * 0x9E3779B1u) >> (32 - HASH_BITS);
}

/* The symbols of bytes @p i to @p n of the segment at @p p (matches
 * reach back to its start, not past @p n) into g->sym, their counts
 * into @p lf and @p df: the number of symbols. */
static size_t find_matches(profdb__gzo *g, const unsigned char *p, size_t i, size_t n,
                           uint32_t *lf, uint32_t *df)
{
	uint32_t *head = g->head, *sym = g->sym;
	size_t ns = 0;
	while (n >= 8 && i <= n - 8) {   /* 8 bytes readable at i */
		uint32_t h = hash4(p + i), cand = head[h];
		head[h] = (uint32_t)i + 1;
		if (!cand || i + 1 - cand > WINDOW || memcmp(p + cand - 1, p + i, MIN_MATCH)) {
			lf[p[i]]++;
			sym[ns++] = p[i++];
			continue;
		}
		size_t from = cand - 1, len = MIN_MATCH, most = n - i < MAX_MATCH ? n - i : MAX_MATCH;
		while (len + 8 <= most) {   /* 8 bytes at a time: the first that differs */
			uint64_t d = profdb__le64(p + from + len) ^ profdb__le64(p + i + len);
			if (d) {
				len += (size_t)__builtin_ctzll(d) >> 3;
				most = len;
				break;
			}
			len += 8;
		}
		while (len < most && p[from + len] == p[i + len])
			len++;
		uint32_t d1 = (uint32_t)(i - from - 1);
		lf[257 + len_code((unsigned)len - 3)]++;
		df[dist_code(d1)]++;
		sym[ns++] = MATCH | (uint32_t)(len - 3) << 15 | d1;
		/* the positions the match covers are candidates too: 3 % slower,
		 * 11 % smaller on pprof's protobuf */
		for (size_t k = i + 1; k < i + len && k <= n - 8; k++)
			head[hash4(p + k)] = (uint32_t)k + 1;
		i += len;
	}
	for (; i < n; i++) {
		lf[p[i]]++;
		sym[ns++] = p[i];
	}
	return ns;
}

/* The dynamic block's header: the two codes' lengths, run-length coded
 * by the code-length code. */
static unsigned char *put_header(profdb__gzo *g, unsigned char *p, const uint8_t *ll,
                                 unsigned hlit, const uint8_t *dl, unsigned hdist)
{
	uint8_t all[N_LITLEN + N_DIST], rl[N_LITLEN + N_DIST], rx[N_LITLEN + N_DIST];
	unsigned n = hlit + hdist, nr = 0;
	memcpy(all, ll, hlit);
	memcpy(all + hlit, dl, hdist);
	uint32_t cf[N_CL] = {0};
	for (unsigned i = 0; i < n;) {
		unsigned run = 1;
		while (i + run < n && all[i + run] == all[i])
			run++;
		if (all[i] == 0 && run >= 3) {
			unsigned r = run > 138 ? 138 : run;
			rl[nr] = r >= 11 ? 18 : 17;
			rx[nr++] = (uint8_t)(r >= 11 ? r - 11 : r - 3);
			i += r;
		} else if (all[i] != 0 && run >= 4) {
			rl[nr] = all[i];
			rx[nr++] = 0;
			unsigned r = run - 1 > 6 ? 6 : run - 1;
			rl[nr] = 16;
			rx[nr++] = (uint8_t)(r - 3);
			i += 1 + r;
		} else {
			rl[nr] = all[i];
			rx[nr++] = 0;
			i++;
		}
	}
	for (unsigned k = 0; k < nr; k++)
		cf[rl[k]]++;
	uint8_t cl[N_CL];
	uint16_t cc[N_CL];
	profdb__gzo_code_lengths(cf, N_CL, MAX_CL_BITS, cl);
	canonical(cl, N_CL, cc);
	unsigned hclen = N_CL;
	while (hclen > 4 && !cl[cl_order[hclen - 1]])
		hclen--;
	p = put_bits(g, p, (hlit - 257) | (hdist - 1) << 5 | (hclen - 4) << 10, 14);
	for (unsigned k = 0; k < hclen; k++)
		p = put_bits(g, p, cl[cl_order[k]], 3);
	static const uint8_t rx_bits[3] = {2, 3, 7};
	for (unsigned k = 0; k < nr; k++) {
		p = put_bits(g, p, cc[rl[k]], cl[rl[k]]);
		if (rl[k] >= 16)
			p = put_bits(g, p, rx[k], rx_bits[rl[k] - 16]);
	}
	return p;
}

/* Bytes @p at to @p end of the segment at @p p as a dynamic block (not
 * the last). */
static int put_block(profdb__gzo *g, const unsigned char *p, size_t at, size_t end, sink *o)
{
	uint32_t lf[N_LITLEN] = {0}, df[N_DIST] = {0};
	if (profdb__grow((void **)&g->sym, &g->cap_sym, end - at, sizeof *g->sym) < 0)
		return -ENOMEM;
	size_t ns = find_matches(g, p, at, end, lf, df);
	lf[256] = 1;
	uint8_t ll[N_LITLEN], dl[N_DIST];
	uint16_t lc[N_LITLEN], dc[N_DIST];
	profdb__gzo_code_lengths(lf, N_LITLEN, MAX_BITS, ll);
	profdb__gzo_code_lengths(df, N_DIST, MAX_BITS, dl);
	canonical(ll, N_LITLEN, lc);
	canonical(dl, N_DIST, dc);
	unsigned hlit = N_LITLEN, hdist = N_DIST;
	while (!ll[hlit - 1])
		hlit--;
	while (hdist > 1 && !dl[hdist - 1])
		hdist--;
	/* at most 15 + 5 + 15 + 13 bits a symbol, and the header */
	unsigned char *p0 = out_room(o, ns * 6 + 1024), *q = p0;
	if (!q)
		return o->err;
	q = put_bits(g, q, 2 << 1, 3);   /* not the last block; dynamic codes */
	q = put_header(g, q, ll, hlit, dl, hdist);
	for (size_t k = 0; k < ns; k++) {
		uint32_t s = g->sym[k];
		if (!(s & MATCH)) {
			q = put_bits(g, q, lc[s], ll[s]);
			continue;
		}
		unsigned l3 = (s >> 15) & 0xFF, d1 = s & 0x7FFF, c = len_code(l3), dcd = dist_code(d1);
		q = put_bits(g, q, lc[257 + c] | (uint32_t)(l3 + 3 - len_base[c]) << ll[257 + c],
		             ll[257 + c] + len_extra[c]);
		q = put_bits(g, q, dc[dcd] | (uint32_t)(d1 + 1 - dist_base[dcd]) << dl[dcd],
		             dl[dcd] + dist_extra[dcd]);
	}
	q = put_bits(g, q, lc[256], ll[256]);
	q = flush_bits(g, q, 0);
	*o->len += (size_t)(q - p0);
	return 0;
}

/* Segment @p p, @p n bytes, as blocks. */
static int put_segment(profdb__gzo *g, const unsigned char *p, size_t n, sink *o)
{
	memset(g->head, 0, sizeof g->head);
	int r = 0;
	for (size_t at = 0; at < n && r == 0; at += BLOCK)
		r = put_block(g, p, at, n - at < BLOCK ? n : at + BLOCK, o);
	return r;
}

/* ---- the stream ---------------------------------------------------------------------- */

profdb__gzo *profdb__gzo_new(void)
{
	profdb__gzo *g = malloc(sizeof *g);
	if (!g)
		return NULL;
	g->buf = NULL;
	g->n_buf = g->cap_buf = 0;
	g->sym = NULL;
	g->cap_sym = 0;
	g->crc = (uint32_t)crc32(0, NULL, 0);
	g->isize = 0;
	g->started = 0;
	g->bits = 0;
	g->n_bits = 0;
	return g;
}

int profdb__gzo_put(profdb__gzo *g, const unsigned char *data, size_t len, int fin,
                    unsigned char **out, size_t *out_len, size_t *out_cap)
{
	sink o = {out, out_len, out_cap, 0};
	if (!g->started) {
		/* gzip: deflate, no name, no time, "fastest", Unix */
		static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};
		unsigned char *p = out_room(&o, sizeof head);
		if (!p)
			return o.err;
		memcpy(p, head, sizeof head);
		*out_len += sizeof head;
		g->started = 1;
	}
	if (len) {
		g->crc = (uint32_t)crc32_z(g->crc, data, len);
		g->isize += (uint32_t)len;   /* (the size modulo 2^32, as gzip keeps it) */
	}
	int r;
	while (len) {
		if (!g->n_buf && len >= SEG) {   /* straight from the piece */
			if ((r = put_segment(g, data, SEG, &o)) < 0)
				return r;
			data += SEG, len -= SEG;
			continue;
		}
		size_t take = SEG - g->n_buf < len ? SEG - g->n_buf : len;
		if (profdb__grow((void **)&g->buf, &g->cap_buf, g->n_buf + take, 1) < 0)
			return -ENOMEM;
		memcpy(g->buf + g->n_buf, data, take);
		g->n_buf += take, data += take, len -= take;
		if (g->n_buf == SEG) {
			if ((r = put_segment(g, g->buf, SEG, &o)) < 0)
				return r;
			g->n_buf = 0;
		}
	}
	if (!fin)
		return 0;
	if (g->n_buf && (r = put_segment(g, g->buf, g->n_buf, &o)) < 0)
		return r;
	g->n_buf = 0;
	unsigned char *p0 = out_room(&o, 16), *q = p0;
	if (!q)
		return o.err;
	q = put_bits(g, q, 1 | 1 << 1, 3 + 7);   /* the last block: fixed codes, its end only */
	q = flush_bits(g, q, 1);
	profdb__put_le32(q, g->crc);
	profdb__put_le32(q + 4, g->isize);
	*out_len += (size_t)(q + 8 - p0);
	return 0;
}

void profdb__gzo_free(profdb__gzo *g)
{
	if (g) {
		free(g->buf);
		free(g->sym);
	}
	free(g);
}
