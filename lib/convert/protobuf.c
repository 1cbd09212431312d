/* A small protobuf encoder (varints and length-delimited fields) and the
 * gzip stream behind it, for the pprof writer. Messages are built one at
 * a time in a growable buffer, so each length prefix is known when it is
 * written; the top-level message is never held whole. */
#include <stdlib.h>
#include <string.h>

#include "profdb-config.h"
#include "core/bytes-internal.h"
#include "pb-internal.h"

#ifdef PROFDB_HAVE_ZLIB
#include <pthread.h>
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
#if defined(__GNUC__) || defined(__clang__)
	/* 7 bits a byte, without a loop: (bits * 9 + 64) / 64 */
	return (size_t)((64 - __builtin_clzll(v | 1)) * 9 + 64) / 64;
#else
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
#endif
}

void profdb__pbm_varint(profdb__pbm *m, uint64_t v)
{
	/* room for the longest varint, then encoded in place (a copy per
	 * varint would cost a library call each) */
	if (m->err ||
	    (m->cap - m->len < 10 && profdb__grow((void **)&m->p, &m->cap, m->len + 10, 1) < 0)) {
		m->err = m->err ? m->err : -ENOMEM;
		return;
	}
	m->len += profdb__leb128_put(m->p + m->len, v);
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
	size_t tag = profdb__pb_varint_size((uint64_t)field << 3 | 2);
	size_t most = n > (SIZE_MAX - 32) / 10 ? SIZE_MAX : 10 * n, len = 0;
	if (m->err || most == SIZE_MAX ||
	    (m->cap - m->len < tag + 10 + most &&
	     profdb__grow((void **)&m->p, &m->cap, m->len + tag + 10 + most, 1) < 0)) {
		m->err = m->err ? m->err : -ENOMEM;
		return;
	}
	unsigned char *at = m->p + m->len;
	at += profdb__leb128_put(at, (uint64_t)field << 3 | 2);
	if (most < 0x80) {
		/* a length of one byte whatever the values (a sample's locations,
		 * its values up to 12 events): read once, encoded after it */
		for (size_t i = 0; i < n; i++)
			len += profdb__leb128_put(at + 1 + len, v[i]);
		*at = (unsigned char)len;
		m->len += tag + 1 + len;
		return;
	}
	for (size_t i = 0; i < n; i++)
		len += profdb__pb_varint_size(v[i]);
	at += profdb__leb128_put(at, len);
	for (size_t i = 0; i < n; i++)
		at += profdb__leb128_put(at, v[i]);
	m->len = (size_t)(at - m->p);
}

/* ---- the stream ------------------------------------------------------------ */

/* Bytes gather into chunks of this size; each full chunk is compressed
 * while the next one fills (deflate takes about as long as making the
 * messages of a large profile). */
#define PBZ_CHUNK ((size_t)256 * 1024)

struct profdb__pbz {
#ifdef PROFDB_HAVE_ZLIB
	z_stream z;
	/* deflate() costs a call per piece (and a crc32 setup), more than the
	 * compression of a piece of a few bytes: pieces gather in @c in first.
	 * Under Z_NO_FLUSH deflate waits for enough input to decide, so the
	 * bytes do not depend on how it comes (checked: every real sample's
	 * pprof is byte-identical to the piece-by-piece stream's). */
	unsigned char *in, *spare;   /* PBZ_CHUNK each */
	size_t in_len;
	/* The compressed bytes of the last chunk, for the converting thread
	 * to write (profdb_write_fn is called on that thread only). */
	unsigned char *out;
	size_t out_len, out_cap;
	/* The compressing thread, started at the first full chunk (a small
	 * output never starts it) when the stream may; without one, each
	 * chunk is compressed on the converting thread. The lock guards job,
	 * job_len, job_finish, quit and werr; while job is set the thread
	 * owns z and out. */
	int threaded, may_thread;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	const unsigned char *job;
	size_t job_len;
	int job_finish, quit, werr;
#endif
	int on;
};

#ifdef PROFDB_HAVE_ZLIB
/* Compress @p len bytes into z->out (grown as needed): 0, -ENOMEM, -EIO.
 * Sets no message (it may run on the compressing thread). */
static int compress_chunk(struct profdb__pbz *z, const unsigned char *data, size_t len, int fin)
{
	z_stream *zs = &z->z;
	zs->next_in = (unsigned char *)(uintptr_t)data;
	zs->avail_in = (uInt)len;   /* at most PBZ_CHUNK */
	for (;;) {
		if (z->out_cap - z->out_len < 4096 &&
		    profdb__grow((void **)&z->out, &z->out_cap, z->out_len + 65536, 1) < 0)
			return -ENOMEM;
		size_t room = z->out_cap - z->out_len;
		zs->next_out = z->out + z->out_len;
		zs->avail_out = room > 1u << 30 ? 1u << 30 : (uInt)room;
		uInt before = zs->avail_out;
		int r = deflate(zs, fin ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_ERROR)
			return -EIO;
		z->out_len += before - zs->avail_out;
		if (zs->avail_out != 0 && (fin ? r == Z_STREAM_END : zs->avail_in == 0))
			return 0;
	}
}

static void *compressor(void *arg)
{
	struct profdb__pbz *z = arg;
	pthread_mutex_lock(&z->lock);
	for (;;) {
		while (!z->job && !z->quit)
			pthread_cond_wait(&z->cv, &z->lock);
		if (!z->job)
			break;
		const unsigned char *data = z->job;
		size_t len = z->job_len;
		int fin = z->job_finish;
		pthread_mutex_unlock(&z->lock);
		int r = z->werr ? 0 : compress_chunk(z, data, len, fin);
		pthread_mutex_lock(&z->lock);
		z->werr = z->werr ? z->werr : r;
		z->job = NULL;
		pthread_cond_broadcast(&z->cv);
	}
	pthread_mutex_unlock(&z->lock);
	return NULL;
}

/* Wait for the compressing thread to be idle (when there is one), then
 * write what it compressed: the stream's error or 0. */
static int settle(profdb__pbs *s)
{
	struct profdb__pbz *z = s->z;
	int werr = z->threaded ? 0 : z->werr;
	if (z->threaded) {
		pthread_mutex_lock(&z->lock);
		while (z->job)
			pthread_cond_wait(&z->cv, &z->lock);
		werr = z->werr;
		pthread_mutex_unlock(&z->lock);
	}
	if (werr == -ENOMEM)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (gzip)");
	if (werr < 0)
		return profdb__fail(-EIO, "profdb_convert: zlib's deflate failed");
	profdb__cv_put(s->o, z->out, z->out_len);
	z->out_len = 0;
	return s->o->err;
}

/* Compress the gathered chunk (@p fin: the last), on the compressing
 * thread when one runs or can start, else here. */
static int hand_over(profdb__pbs *s, int fin)
{
	struct profdb__pbz *z = s->z;
	int r = settle(s);
	if (r < 0)
		return r;
	if (z->may_thread && !fin) {
		z->may_thread = 0;   /* one attempt: a thread that cannot start now will not later */
		z->threaded = pthread_create(&z->th, NULL, compressor, z) == 0;
	}
	if (!z->threaded) {
		int c = compress_chunk(z, z->in, z->in_len, fin);
		z->in_len = 0;
		z->werr = c;
		return settle(s);   /* written now: out holds one chunk's bytes */
	}
	pthread_mutex_lock(&z->lock);
	z->job = z->in;
	z->job_len = z->in_len;
	z->job_finish = fin;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->lock);
	/* the spare chunk is free: the thread was idle */
	unsigned char *t = z->in;
	z->in = z->spare;
	z->spare = t;
	z->in_len = 0;
	return fin ? settle(s) : 0;
}

/* End the compressing thread (idle or not). */
static void stop(struct profdb__pbz *z)
{
	if (!z->threaded)
		return;
	pthread_mutex_lock(&z->lock);
	z->quit = 1;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->lock);
	pthread_join(z->th, NULL);
	z->threaded = 0;
}
#endif

int profdb__pbs_init(profdb__pbs *s, profdb__cv_out *o, int threaded)
{
	memset(s, 0, sizeof *s);
	s->o = o;
#ifdef PROFDB_HAVE_ZLIB
	s->z = calloc(1, sizeof *s->z);
	if (s->z && (!(s->z->in = malloc(PBZ_CHUNK)) || !(s->z->spare = malloc(PBZ_CHUNK)))) {
		free(s->z->in);
		free(s->z);
		s->z = NULL;
	}
	if (!s->z)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (gzip)");
	/* 15 + 16: a gzip wrapper, as go tool pprof expects of a .pb.gz; level
	 * 1: the conversion's time goes to compression above that */
	if (deflateInit2(&s->z->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s->z->in);
		free(s->z->spare);
		free(s->z);
		s->z = NULL;
		return profdb__fail(-ENOMEM, "profdb_convert: zlib's deflateInit2 failed");
	}
	pthread_mutex_init(&s->z->lock, NULL);
	pthread_cond_init(&s->z->cv, NULL);
	s->z->may_thread = threaded;
	s->z->on = 1;
#else
	(void)threaded;
#endif
	return 0;
}

void profdb__pbs_put(profdb__pbs *s, const void *data, size_t len)
{
	if (s->err)
		return;
#ifdef PROFDB_HAVE_ZLIB
	if (s->z && s->z->on) {
		struct profdb__pbz *z = s->z;
		const unsigned char *p = data;
		while (len && !s->err) {
			size_t n = PBZ_CHUNK - z->in_len;
			n = n < len ? n : len;
			memcpy(z->in + z->in_len, p, n);
			z->in_len += n;
			p += n;
			len -= n;
			if (z->in_len == PBZ_CHUNK) {
				int r = hand_over(s, 0);
				if (r < 0)
					s->err = r;
			}
		}
		return;
	}
#endif
	profdb__cv_put(s->o, data, len);
}

void profdb__pbs_msg(profdb__pbs *s, uint32_t field, const profdb__pbm *m)
{
	unsigned char b[20];
	size_t n = profdb__leb128_put(b, (uint64_t)field << 3 | 2);
	n += profdb__leb128_put(b + n, m->len);
#ifdef PROFDB_HAVE_ZLIB
	/* the usual case, a small message that fits in the chunk: one copy,
	 * without pbs_put's loop */
	struct profdb__pbz *z = s->z;
	if (!s->err && z && z->on && PBZ_CHUNK - z->in_len > n + m->len) {
		memcpy(z->in + z->in_len, b, n);
		if (m->len)
			memcpy(z->in + z->in_len + n, m->p, m->len);
		z->in_len += n + m->len;
		return;
	}
#endif
	profdb__pbs_put(s, b, n);
	profdb__pbs_put(s, m->p, m->len);
}

void profdb__pbs_raw(profdb__pbs *s, const profdb__pbm *m) { profdb__pbs_put(s, m->p, m->len); }

int profdb__pbs_finish(profdb__pbs *s)
{
#ifdef PROFDB_HAVE_ZLIB
	if (!s->err && s->z && s->z->on) {
		int r = hand_over(s, 1);
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
		stop(s->z);
		pthread_cond_destroy(&s->z->cv);
		pthread_mutex_destroy(&s->z->lock);
		deflateEnd(&s->z->z);
		free(s->z->in);
		free(s->z->spare);
		free(s->z->out);
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
