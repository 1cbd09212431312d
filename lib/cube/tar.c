/* The tar layer of the Cube reader: a bounds-checked ustar walker over the
 * archive bytes; a gzip-compressed archive is inflated first (lib/core's
 * gzip helper, which checks every member's CRC-32 and ISIZE).
 *
 * Why a walker of our own for plain tars: real .cubex files carry wrong
 * header checksums (libarchive refuses them) and an extra all-zero block
 * after members whose size is a multiple of 512 (libarchive stops there), and
 * we want member offsets so that rows are read in place from the mapping.
 * The walker accepts what CubeLib accepts (doc/FORMATS.md, "Cube"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cube-internal.h"
#include "../core/table-internal.h"
#include "../core/gunzip-internal.h"
#include "layout-internal.h"
#include "../core/search-internal.h"

enum { BLOCK = TAR_BLOCK };

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static int has_magic(const unsigned char *h)
{
	return memcmp(h + TAR_MAGIC, "ustar", TAR_MAGIC_LEN) == 0;
}

/* Octal text (leading spaces, stops at NUL/space) or GNU base-256. */
static int parse_number(const unsigned char *p, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	if (p[0] & 0x80) {
		if (p[0] != 0x80)
			return -1; /* negative or too large */
		for (i = 1; i < n; i++) {
			if (v >> 56)
				return -1;
			v = (v << 8) | p[i];
		}
		*out = v;
		return 0;
	}
	while (i < n && p[i] == ' ')
		i++;
	size_t digits = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(p[i] - '0');
	}
	if (digits == 0)
		return -1;
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != 0)
			return -1;
	*out = v;
	return 0;
}

static int checksum_ok(const unsigned char *h)
{
	uint64_t stored;
	if (parse_number(h + TAR_CHKSUM, TAR_CHKSUM_LEN, &stored) < 0)
		return 0;
	uint64_t sum = 0;
	for (int i = 0; i < BLOCK; i++)
		sum += (i >= TAR_CHKSUM && i < TAR_CHKSUM + TAR_CHKSUM_LEN) ? ' ' : h[i];
	return sum == stored;
}

/* A pax extended header: returns the "size" record if present. */
static int pax_size(const unsigned char *p, uint64_t n, uint64_t *size)
{
	uint64_t i = 0;
	int found = 0;
	while (i < n) {
		uint64_t len = 0, j = i;
		while (j < n && p[j] >= '0' && p[j] <= '9' && len < (1u << 30))
			len = len * 10 + (uint64_t)(p[j++] - '0');
		if (j >= n || p[j] != ' ' || len <= j - i || len > n - i)
			return -1;
		const unsigned char *kv = p + j + 1;
		uint64_t kvlen = len - (j + 1 - i);
		if (kvlen >= 6 && memcmp(kv, "size=", 5) == 0) {
			uint64_t v = 0;
			for (uint64_t k = 5; k < kvlen && kv[k] != '\n'; k++) {
				if (kv[k] < '0' || kv[k] > '9' || v > UINT64_MAX / 16)
					return -1;
				v = v * 10 + (uint64_t)(kv[k] - '0');
			}
			*size = v;
			found = 1;
		}
		i += len;
	}
	return found;
}

static int add_member(profdb_cube *c, size_t *cap, const char *name, size_t name_len,
                      uint64_t header_off, uint64_t off, uint64_t size)
{
	if (c->n_members >= UINT32_MAX - 1)
		return profdb__fail(-EFBIG, "%s: more than 4G tar members", c->in.name);
	if (profdb__grow((void **)&c->members, cap, (size_t)c->n_members + 1,
	                 sizeof *c->members) < 0)
		return -ENOMEM;
	char *s = malloc(name_len + 1);
	if (!s)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->in.name);
	memcpy(s, name, name_len);
	s[name_len] = 0;
	c->members[c->n_members++] = (cube_member){s, off, size, header_off};
	return 0;
}

static int member_cmp(const void *a, const void *b);

static int walk(profdb_cube *c)
{
	const profdb__input *in = &c->tar;
	uint64_t pos = 0;
	size_t cap = 0;
	int64_t pax_next_size = -1;
	const unsigned char *longname = NULL;
	uint64_t longname_len = 0;
	bool warned = false;
	int r;

	while (pos < in->size) {
		const unsigned char *h;
		if (in->size - pos < BLOCK) {
			if (all_zero(in->base + pos, (size_t)(in->size - pos)))
				break;
			return profdb__fail(-ENODATA, "%s: tar header at offset %" PRIu64
			                    " truncated (%" PRIu64 " bytes left)", in->name, pos,
			                    in->size - pos);
		}
		if ((r = profdb__range(in, pos, BLOCK, "tar header", &h)) < 0)
			return r;
		if (all_zero(h, BLOCK)) {
			/* End of archive, or the extra zero block CubeW/CubeLib write
			 * after a member whose size is a multiple of 512. */
			const unsigned char *nh;
			if (in->size - pos >= 2 * BLOCK &&
			    profdb__range(in, pos + BLOCK, BLOCK, "tar header", &nh) == 0 &&
			    has_magic(nh)) {
				pos += BLOCK;
				continue;
			}
			break;
		}
		int magic = has_magic(h), sum = checksum_ok(h);
		if (!magic && !sum && pos == 0 && !c->gzipped)
			return profdb__fail(-EPROTONOSUPPORT,
			                    "%s: neither a tar archive nor gzip-compressed: offset 0 holds "
			                    "no tar header (no ustar magic, no valid checksum) and not "
			                    "the gzip magic 1f 8b (found %02x %02x)", in->name, h[0], h[1]);
		if (!magic && !sum)
			return profdb__fail(pos == 0 ? -EPROTONOSUPPORT : -EBADMSG,
			                    "%s: no tar header at offset %" PRIu64 "%s"
			                    " (neither ustar magic nor a valid checksum)", in->name, pos,
			                    c->gzipped ? " of the inflated archive" : "");
		size_t name_len = strnlen((const char *)h + TAR_NAME, TAR_NAME_LEN);
		uint64_t size;
		if (parse_number(h + TAR_SIZE, TAR_SIZE_LEN, &size) < 0)
			return profdb__fail(-EBADMSG, "%s: member '%.*s' (header at offset %" PRIu64
			                    "): bad size field", in->name, (int)name_len, h, pos);
		if (pax_next_size >= 0)
			size = (uint64_t)pax_next_size;
		pax_next_size = -1;
		if (!sum && !warned) {
			warned = true;
			profdb__warn(&c->opts, "%s: member '%.*s' (header at offset %" PRIu64
			             "): wrong tar checksum, accepted as CubeLib does", in->name,
			             (int)name_len, h, pos);
		}
		uint64_t data = pos + BLOCK;
		if (size > in->size - data)
			return profdb__fail(-ENODATA, "%s: member '%.*s' (header at offset %" PRIu64
			                    "): %" PRIu64 " bytes at offset %" PRIu64
			                    " run past the end of the archive (%" PRIu64 " bytes)",
			                    in->name, (int)name_len, h, pos, size, data, in->size);
		char type = (char)h[TAR_TYPEFLAG];
		if (type == 'x') {
			uint64_t v = 0;
			int pr = pax_size(in->base + data, size, &v);
			if (pr < 0)
				return profdb__fail(-EBADMSG, "%s: pax header at offset %" PRIu64
				                    " is malformed", in->name, pos);
			if (pr > 0) {
				if (v > (uint64_t)INT64_MAX)
					return profdb__fail(-EBADMSG, "%s: pax header at offset %" PRIu64
					                    ": size out of range", in->name, pos);
				pax_next_size = (int64_t)v;
			}
		} else if (type == 'L') {
			longname = in->base + data;
			longname_len = strnlen((const char *)longname, (size_t)(size < 4096 ? size : 4096));
		} else if (type == '0' || type == 0 || type == '7') {
			const char *nm = (const char *)h;
			size_t nl = name_len;
			if (longname) {
				nm = (const char *)longname;
				nl = (size_t)longname_len;
			}
			if ((r = add_member(c, &cap, nm, nl, pos, data, size)) < 0)
				return r;
			longname = NULL;
		} else {
			longname = NULL;
		}
		uint64_t padded = size + ((BLOCK - size % BLOCK) % BLOCK);
		if (padded > in->size - data)
			break; /* last member without padding */
		pos = data + padded;
	}
	if (c->n_members == 0)
		return profdb__fail(-EPROTONOSUPPORT, "%s: no tar members", in->name);
	qsort(c->members, c->n_members, sizeof *c->members, member_cmp);
	return 0;
}

/* The most a single deflate stream can expand (RFC 1951 worst case). */
#define DEFLATE_MAX_RATIO 1032u

int profdb__cube_inflate_any(const unsigned char *data, size_t size, uint64_t limit, const char *what,
                     unsigned char **out, size_t *out_size)
{
	/* One deflate stream cannot expand more than 1032:1: a tiny file
	 * cannot claim gigabytes. */
	const char *why = "options.max_memory, or the Cube reader's cap";
	if (limit / DEFLATE_MAX_RATIO > size) {
		limit = (uint64_t)size * DEFLATE_MAX_RATIO + 4096;
		why = "1032 times the compressed size, the most deflate can expand";
	}
	uint64_t n;
	int r = profdb__gunzip_alloc(data, size, what, limit, why, out, &n);
	*out_size = r < 0 ? 0 : (size_t)n;
	return r;
}

int profdb__cube_tar_load(profdb_cube *c)
{
	c->tar = c->in;
	if (profdb__is_gzip(c->in.base, c->in.size)) {
		size_t n;
		int r = profdb__cube_inflate_any(c->in.base, (size_t)c->in.size, profdb__cube_inflate_limit(c),
		                         c->in.name, &c->inflated, &n);
		if (r < 0)
			return r;
		if (profdb__is_gzip(c->inflated, n))
			return profdb__fail(-EPROTONOSUPPORT, "%s: gzip-compressed twice; a .cubex is a "
			                    "tar archive, compressed at most once", c->in.name);
		c->gzipped = 1;
		profdb__input_mem(&c->tar, c->inflated, n, c->in.name);
	}
	return walk(c);
}

static int member_cmp(const void *a, const void *b)
{
	const cube_member *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	if (r)
		return r;
	return x->header_off < y->header_off ? -1 : x->header_off > y->header_off;
}

typedef struct member_key {
	const cube_member *members;
	const char *name;
} member_key;

static int not_after_name(const void *ctx, size_t i)
{
	const member_key *k = ctx;
	return strcmp(k->members[i].name, k->name) <= 0;
}

const cube_member *profdb__cube_member_find(const profdb_cube *c, const char *name)
{
	/* members[] is sorted by (name, archive position): the upper bound of
	 * the name, so the last member of that name, which wins as in CubeLib's
	 * member map. */
	member_key key = {c->members, name};
	size_t lo = profdb__lower_bound(0, c->n_members, &key, not_after_name);
	if (lo > 0 && strcmp(c->members[lo - 1].name, name) == 0)
		return &c->members[lo - 1];
	return NULL;
}
