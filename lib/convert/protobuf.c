/* A small protobuf encoder (varints and length-delimited fields) and the
 * gzip stream behind it, for the pprof writer. Messages are built one at
 * a time in a growable buffer, so each length prefix is known when it is
 * written; the top-level message is never held whole. */
#include <stdlib.h>
#include <string.h>

#include "profdb-config.h"
#include "pb-internal.h"

#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif

/* ---- messages ------------------------------------------------------------- */

void profdb__pbm_reset(profdb__pbm *m) { m->len = 0; }

void profdb__pbm_free(profdb__pbm *m)
{
	free(m->p);
	memset(m, 0, sizeof *m);
}

static void put(profdb__pbm *m, const void *data, size_t len)
{
	if (m->err)
		return;
	if (m->cap - m->len < len && profdb__grow((void **)&m->p, &m->cap, m->len + len, 1) < 0) {
		m->err = -ENOMEM;
		return;
	}
	if (len)
		memcpy(m->p + m->len, data, len);
	m->len += len;
}

size_t profdb__pb_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

static size_t encode_varint(unsigned char *b, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		b[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (unsigned char)v;
	return n;
}

void profdb__pbm_varint(profdb__pbm *m, uint64_t v)
{
	unsigned char b[10];
	put(m, b, encode_varint(b, v));
}

void profdb__pbm_uint(profdb__pbm *m, uint32_t field, uint64_t v)
{
	profdb__pbm_varint(m, (uint64_t)field << 3 | 0);
	profdb__pbm_varint(m, v);
}

void profdb__pbm_bytes(profdb__pbm *m, uint32_t field, const void *data, size_t len)
{
	profdb__pbm_varint(m, (uint64_t)field << 3 | 2);
	profdb__pbm_varint(m, len);
	put(m, data, len);
}

void profdb__pbm_packed(profdb__pbm *m, uint32_t field, const uint64_t *v, size_t n)
{
	if (!n)
		return;
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += profdb__pb_varint_size(v[i]);
	profdb__pbm_varint(m, (uint64_t)field << 3 | 2);
	profdb__pbm_varint(m, len);
	if (m->err || (m->cap - m->len < len &&
	               profdb__grow((void **)&m->p, &m->cap, m->len + len, 1) < 0)) {
		m->err = m->err ? m->err : -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++)     /* room made once: the hot loop of samples */
		m->len += encode_varint(m->p + m->len, v[i]);
}

/* ---- the stream ------------------------------------------------------------ */

struct profdb__pbz {
#ifdef PROFDB_HAVE_ZLIB
	z_stream z;
	/* deflate() costs a call per piece (and a crc32 setup), more than the
	 * compression of a piece of a few bytes: pieces gather here first.
	 * Under Z_NO_FLUSH deflate waits for enough input to decide, so the
	 * bytes do not depend on how it comes (checked: every real sample's
	 * pprof is byte-identical to the piece-by-piece stream's). */
	size_t in_len;
	unsigned char in[64 * 1024];
	unsigned char out[64 * 1024];
#endif
	int on;
};

int profdb__pbs_init(profdb__pbs *s, profdb__cv_out *o)
{
	memset(s, 0, sizeof *s);
	s->o = o;
#ifdef PROFDB_HAVE_ZLIB
	s->z = calloc(1, sizeof *s->z);
	if (!s->z)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (gzip)");
	/* 15 + 16: a gzip wrapper, as go tool pprof expects of a .pb.gz; level
	 * 1: the conversion's time goes to compression above that */
	if (deflateInit2(&s->z->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s->z);
		s->z = NULL;
		return profdb__fail(-ENOMEM, "profdb_convert: zlib's deflateInit2 failed");
	}
	s->z->on = 1;
#endif
	return 0;
}

#ifdef PROFDB_HAVE_ZLIB
static int deflate_some(profdb__pbs *s, const void *data, size_t len, int flush)
{
	z_stream *z = &s->z->z;
	z->next_in = (unsigned char *)(uintptr_t)data;
	do {
		uInt in = len > 1u << 30 ? 1u << 30 : (uInt)len;
		z->avail_in = in;
		do {
			z->next_out = s->z->out;
			z->avail_out = sizeof s->z->out;
			int r = deflate(z, flush && in == len ? Z_FINISH : Z_NO_FLUSH);
			if (r == Z_STREAM_ERROR)
				return profdb__fail(-EIO, "profdb_convert: zlib's deflate failed");
			profdb__cv_put(s->o, s->z->out, sizeof s->z->out - z->avail_out);
		} while (z->avail_out == 0);
		len -= in;
	} while (len);
	return s->o->err;
}
#endif

void profdb__pbs_put(profdb__pbs *s, const void *data, size_t len)
{
	if (s->err)
		return;
#ifdef PROFDB_HAVE_ZLIB
	if (s->z && s->z->on) {
		struct profdb__pbz *z = s->z;
		int r = 0;
		if (len > sizeof z->in - z->in_len) {
			r = z->in_len ? deflate_some(s, z->in, z->in_len, 0) : 0;
			z->in_len = 0;
			if (r >= 0 && len >= sizeof z->in) {
				r = deflate_some(s, data, len, 0);
				len = 0;
			}
		}
		if (len && r >= 0) {
			memcpy(z->in + z->in_len, data, len);
			z->in_len += len;
		}
		if (r < 0)
			s->err = r;
		return;
	}
#endif
	profdb__cv_put(s->o, data, len);
}

void profdb__pbs_msg(profdb__pbs *s, uint32_t field, const profdb__pbm *m)
{
	unsigned char b[20];
	size_t n = encode_varint(b, (uint64_t)field << 3 | 2);
	n += encode_varint(b + n, m->len);
	profdb__pbs_put(s, b, n);
	profdb__pbs_put(s, m->p, m->len);
}

void profdb__pbs_raw(profdb__pbs *s, const profdb__pbm *m) { profdb__pbs_put(s, m->p, m->len); }

int profdb__pbs_finish(profdb__pbs *s)
{
#ifdef PROFDB_HAVE_ZLIB
	if (!s->err && s->z && s->z->on) {
		int r = deflate_some(s, s->z->in, s->z->in_len, 1);
		s->z->in_len = 0;
		if (r < 0)
			s->err = r;
	}
#endif
	return s->err ? s->err : s->o->err;
}

void profdb__pbs_free(profdb__pbs *s)
{
#ifdef PROFDB_HAVE_ZLIB
	if (s->z) {
		deflateEnd(&s->z->z);
		free(s->z);
	}
#endif
	s->z = NULL;
}

int profdb__pbs_gzip(void)
{
#ifdef PROFDB_HAVE_ZLIB
	return 1;
#else
	return 0;
#endif
}
