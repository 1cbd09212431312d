/* gzip decoding for every reader that meets it (gzip Callgrind files,
 * gzip-compressed .cubex archives): zlib's gzip mode, which checks each
 * member's header, CRC-32 and ISIZE, one member after another. Its error
 * strings are translated into messages that name the file, the member and
 * the compressed offset. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core-internal.h"
#include "gunzip-internal.h"

int profdb__is_gzip(const unsigned char *p, uint64_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>

/* What zlib's message means, in the terms of RFC 1952. */
static const char *explain(const char *zmsg)
{
	static const struct {
		const char *z, *says;
	} known[] = {
		{"incorrect data check", "the CRC-32 in its trailer does not match the inflated "
		                         "data (the compressed data or the trailer are damaged)"},
		{"incorrect length check", "the ISIZE in its trailer does not match the inflated "
		                           "size (the compressed data or the trailer are damaged)"},
		{"incorrect header check", "its header does not start with the gzip magic 1f 8b"},
		{"unknown compression method", "its header names a compression method other than "
		                               "deflate (damaged header)"},
		{"unknown header flags set", "its header sets reserved flag bits (damaged header)"},
		{"header crc mismatch", "the CRC-16 of its header does not match (damaged header)"},
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (zmsg && strcmp(zmsg, known[i].z) == 0)
			return known[i].says;
	return NULL;
}

static int member_error(const char *name, int zr, const z_stream *z, uint32_t member,
                        uint64_t start, uint64_t at)
{
	if (zr == Z_MEM_ERROR)
		return profdb__fail(-ENOMEM, "%s: out of memory inflating gzip member %" PRIu32, name,
		                    member);
	const char *says = explain(z->msg);
	if (says)
		return profdb__fail(-EBADMSG, "%s: gzip member %" PRIu32 " (at offset %" PRIu64
		                    "): %s", name, member, start, says);
	return profdb__fail(-EBADMSG, "%s: gzip member %" PRIu32 " (at offset %" PRIu64
	                    "): corrupt deflate data near compressed offset %" PRIu64 ": %s",
	                    name, member, start, at, z->msg ? z->msg : "zlib error");
}

int profdb__gunzip(const unsigned char *src, uint64_t n, const char *name,
                   profdb__gunzip_room room, void *ud, uint64_t *total)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	*total = 0;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return profdb__fail(-ENOMEM, "%s: cannot start zlib", name);
	uint64_t done = 0, in_done = 0, start = 0;
	uint32_t member = 1;
	int r = 0;
	for (;;) {
		unsigned char *out = NULL;
		size_t space = 0;   /* set by room(); -O3 cannot see it through the callback */
		if ((r = room(ud, done, &out, &space)) < 0)
			break;
		uint64_t in_left = n - in_done;
		z.next_in = (Bytef *)(uintptr_t)(src + in_done);
		z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
		z.next_out = out;
		z.avail_out = space > UINT32_MAX ? UINT32_MAX : (uInt)space;
		uInt ai = z.avail_in, ao = z.avail_out;
		int zr = inflate(&z, Z_NO_FLUSH);
		in_done += ai - z.avail_in;
		done += ao - z.avail_out;
		if (zr == Z_STREAM_END) {
			/* Bytes after the last member that do not start another one
			 * are not gzip data (gzip(1) warns and ignores them too). */
			if (!profdb__is_gzip(src + in_done, n - in_done))
				break;
			inflateReset(&z);
			start = in_done;
			member++;
			continue;
		}
		if (zr == Z_BUF_ERROR && in_done == n && z.avail_out != 0) {
			r = profdb__fail(-ENODATA, "%s: gzip member %" PRIu32 " (at offset %" PRIu64
			                 ") is cut short: the file ends at %" PRIu64 " bytes before "
			                 "the member's %s", name, member, start, n,
			                 done ? "end and its CRC-32/ISIZE trailer" : "header ends");
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			r = member_error(name, zr, &z, member, start, in_done);
			break;
		}
	}
	inflateEnd(&z);
	*total = done;
	return r < 0 ? r : 0;
}

#else

int profdb__gunzip(const unsigned char *src, uint64_t n, const char *name,
                   profdb__gunzip_room room, void *ud, uint64_t *total)
{
	(void)src;
	(void)n;
	(void)room;
	(void)ud;
	*total = 0;
	return profdb__fail(-ENOTSUP, "%s: gzip-compressed, and this build of profdb has no zlib "
	                    "to decompress it (rebuild with zlib, or decompress it with "
	                    "gunzip first)", name);
}

#endif

/* ---- into one growing buffer ---------------------------------------------- */

typedef struct grow {
	const char *name;
	unsigned char *buf;
	uint64_t cap, limit, first;
	const char *limit_why;
} grow;

static int grow_room(void *ud, uint64_t done, unsigned char **out, size_t *space)
{
	grow *g = ud;
	if (done > g->limit)
		return profdb__fail(-EFBIG, "%s: inflates to more than %" PRIu64 " bytes (%s)",
		                    g->name, g->limit, g->limit_why);
	if (done == g->cap && g->cap >= g->limit) {
		/* The spare byte past the limit: anything written there is one
		 * byte too many, and a text of exactly the limit still ends. */
		*out = g->buf + done;
		*space = 1;
		return 0;
	}
	if (done == g->cap) {
		uint64_t nc = !g->cap ? g->first : g->cap * 2 > g->limit ? g->limit : g->cap * 2;
		unsigned char *q = realloc(g->buf, (size_t)nc + 1);
		if (!q)
			return profdb__fail(-ENOMEM, "%s: cannot allocate %" PRIu64 " bytes to inflate "
			                    "into", g->name, nc);
		g->buf = q;
		g->cap = nc;
	}
	*out = g->buf + done;
	*space = (size_t)(g->cap - done);
	return 0;
}

int profdb__gunzip_alloc(const unsigned char *src, uint64_t n, const char *name,
                         uint64_t limit, const char *limit_why, unsigned char **out,
                         uint64_t *len)
{
	grow g = {name, NULL, 0, limit ? limit : 1, 0, limit_why};
	/* a first guess of 4:1, grown by doubling */
	g.first = n < g.limit / 4 ? n * 4 + 4096 : g.limit;
	if (g.first > g.limit)
		g.first = g.limit;
	*out = NULL;
	*len = 0;
	uint64_t total;
	int r = profdb__gunzip(src, n, name, grow_room, &g, &total);
	if (r == 0 && total > g.limit)   /* the spare byte was used, and the data ended */
		r = grow_room(&g, total, NULL, NULL);
	if (r < 0) {
		free(g.buf);
		return r;
	}
	if (!g.buf && !(g.buf = malloc(1)))
		return profdb__fail(-ENOMEM, "%s: out of memory", name);
	g.buf[total] = 0;   /* room for it is always there: cap + 1 */
	*out = g.buf;
	*len = total;
	return 0;
}
