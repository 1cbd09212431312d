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

#include "gzip-out-internal.h"
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

/* Bytes gather into chunks of PROFDB__PBZ_CHUNK; full chunks are
 * compressed on a thread of its own while the next ones fill. PBZ_QUEUE
 * chunks can wait for it, so that when the machine's cores are shared
 * with more busy threads (a decoder too), the writer goes on filling
 * while the compressor waits for a core, and the other way round. */
#define PBZ_QUEUE 8u

struct profdb__pbz {
#ifdef PROFDB_HAVE_ZLIB
	profdb__gzo *gz;
	/* A call of the deflater per piece costs more than the compression
	 * of a piece of a few bytes: pieces gather in a chunk first. */
	unsigned char *chunk[PBZ_QUEUE];   /* PROFDB__PBZ_CHUNK each: a ring, allocated as reached */
	size_t len[PBZ_QUEUE];
	unsigned char *in;           /* the chunk being filled, chunk[queued % PBZ_QUEUE] */
	size_t in_len;
	/* What deflate wrote (the compressing thread's, or the converting
	 * thread's without one). */
	unsigned char *out;
	size_t out_len, out_cap;
	/* The compressing thread, started at the first full chunk (a small
	 * output never starts it) when the stream may and is not held. Chunks done < queued
	 * wait for it; the one that ends the stream is chunk final - 1. The
	 * compressed bytes go to @c ready, which the converting thread takes
	 * and writes (profdb_write_fn is called on that thread only). The
	 * lock guards done, queued, final, quit, werr and ready. */
	int threaded, may_thread, held;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint64_t done, queued, final;
	int quit, werr;
	unsigned char *ready;
	size_t ready_len, ready_cap;
#endif
	int on;
};

#ifdef PROFDB_HAVE_ZLIB
/* Compress @p len bytes into z->out (grown as needed): 0, -ENOMEM, -EIO.
 * Sets no message (it may run on the compressing thread). */
static int compress_chunk(struct profdb__pbz *z, const unsigned char *data, size_t len, int fin)
{
	return profdb__gzo_put(z->gz, data, len, fin, &z->out, &z->out_len, &z->out_cap);
}

static void *compressor(void *arg)
{
	struct profdb__pbz *z = arg;
	pthread_mutex_lock(&z->lock);
	for (;;) {
		while (z->done == z->queued && !z->quit)
			pthread_cond_wait(&z->cv, &z->lock);
		if (z->done == z->queued)
			break;
		uint64_t j = z->done;
		int fin = j + 1 == z->final, werr = z->werr;
		pthread_mutex_unlock(&z->lock);
		z->out_len = 0;
		int r = werr ? 0 : compress_chunk(z, z->chunk[j % PBZ_QUEUE], z->len[j % PBZ_QUEUE], fin);
		pthread_mutex_lock(&z->lock);
		if (r >= 0 && z->out_len &&
		    profdb__grow((void **)&z->ready, &z->ready_cap, z->ready_len + z->out_len, 1) < 0)
			r = -ENOMEM;
		if (r >= 0 && z->out_len) {
			memcpy(z->ready + z->ready_len, z->out, z->out_len);
			z->ready_len += z->out_len;
		}
		z->werr = z->werr ? z->werr : r;
		z->done++;
		pthread_cond_broadcast(&z->cv);
	}
	pthread_mutex_unlock(&z->lock);
	return NULL;
}

static int stream_error(int werr)
{
	if (werr == -ENOMEM)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (gzip)");
	return profdb__fail(-EIO, "profdb_convert: deflate failed");
}

/* Queue the filled chunk (@p fin: the last) and take the next one to
 * fill, waiting while every other chunk still waits for the compressor
 * (@p fin: until it is done); write what it compressed meanwhile. */
static int queue_chunk(profdb__pbs *s, int fin)
{
	struct profdb__pbz *z = s->z;
	pthread_mutex_lock(&z->lock);
	z->len[z->queued % PBZ_QUEUE] = z->in_len;
	z->queued++;
	if (fin)
		z->final = z->queued;
	pthread_cond_broadcast(&z->cv);
	while (fin ? z->done < z->queued : z->queued - z->done >= PBZ_QUEUE)
		pthread_cond_wait(&z->cv, &z->lock);
	int werr = z->werr;
	/* the compressor appends to another buffer from here */
	unsigned char *bytes = z->ready;
	size_t n = z->ready_len;
	z->ready = NULL;
	z->ready_len = z->ready_cap = 0;
	pthread_mutex_unlock(&z->lock);
	unsigned char **next = &z->chunk[z->queued % PBZ_QUEUE];
	if (!*next && !(*next = malloc(PROFDB__PBZ_CHUNK)))
		werr = werr ? werr : -ENOMEM;   /* (s->err set: nothing more is put) */
	z->in = *next;
	z->in_len = 0;
	if (!werr)
		profdb__cv_put(s->o, bytes, n);
	free(bytes);
	return werr ? stream_error(werr) : s->o->err;
}

/* Compress the gathered chunk (@p fin: the last), on the compressing
 * thread when one runs or can start, else here. */
static int hand_over(profdb__pbs *s, int fin)
{
	struct profdb__pbz *z = s->z;
	if (z->may_thread && !z->held && !fin) {
		z->may_thread = 0;   /* one attempt: a thread that cannot start now will not later */
		z->threaded = pthread_create(&z->th, NULL, compressor, z) == 0;
	}
	if (z->threaded)
		return queue_chunk(s, fin);
	z->out_len = 0;
	int r = compress_chunk(z, z->in, z->in_len, fin);
	z->in_len = 0;
	if (r < 0)
		return stream_error(r);
	profdb__cv_put(s->o, z->out, z->out_len);
	return s->o->err;
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
	/* The first chunk only: the others are allocated as the ring reaches
	 * them (queue_chunk), so a small output holds one. */
	struct profdb__pbz *z = s->z = calloc(1, sizeof *s->z);
	if (!z || !(z->chunk[0] = malloc(PROFDB__PBZ_CHUNK)))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (gzip)");
	z->in = z->chunk[0];
	if (!(z->gz = profdb__gzo_new()))
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (gzip)");
	pthread_mutex_init(&z->lock, NULL);
	pthread_cond_init(&z->cv, NULL);
	z->may_thread = threaded;
	z->on = 1;
#else
	(void)threaded;
#endif
	return 0;
}

void profdb__pbs_hold_thread(profdb__pbs *s, int hold)
{
#ifdef PROFDB_HAVE_ZLIB
	if (s->z)
		s->z->held = hold;
#else
	(void)s, (void)hold;
#endif
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
			size_t n = PROFDB__PBZ_CHUNK - z->in_len;
			n = n < len ? n : len;
			memcpy(z->in + z->in_len, p, n);
			z->in_len += n;
			p += n;
			len -= n;
			if (z->in_len == PROFDB__PBZ_CHUNK) {
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
	if (!s->err && z && z->on && PROFDB__PBZ_CHUNK - z->in_len > n + m->len) {
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

#ifdef PROFDB_HAVE_ZLIB
/* Move the @p len bytes at @p body so that the varint of @p len fits
 * before them in the one byte left at body - 1; past their end. */
static unsigned char *put_length(unsigned char *body, size_t len)
{
	if (len < 0x80) {
		body[-1] = (unsigned char)len;
		return body + len;
	}
	size_t k = profdb__pb_varint_size(len);
	memmove(body + k - 1, body, len);
	profdb__leb128_put(body - 1, len);
	return body + k - 1 + len;
}

/* Packed field @p field of @p n varints at @p at, encoded in one pass: a
 * length of one byte assumed, the values moved on the rare time it takes
 * more; past its end. */
static unsigned char *put_packed(unsigned char *at, uint32_t field, const uint64_t *v, size_t n)
{
	if (!n)
		return at;
	at += profdb__leb128_put(at, (uint64_t)field << 3 | 2);
	unsigned char *body = at + 1, *e = body;
	for (size_t i = 0; i < n; i++)
		e += profdb__leb128_put(e, v[i]);
	return put_length(body, (size_t)(e - body));
}
#endif

void profdb__pbs_packed2(profdb__pbs *s, uint32_t field, const uint64_t *a, size_t na,
                         const uint64_t *b, size_t nb, profdb__pbm *scratch)
{
#ifdef PROFDB_HAVE_ZLIB
	/* The usual case, a message whose longest encoding fits in the
	 * chunk's room (ten bytes a value; each tag and length at most five,
	 * as no field reaches 2^28 bytes): encoded in place in one pass (no
	 * message buffer, no copy). More values than the chunk has bytes
	 * never fit (and cannot overflow the bound). */
	struct profdb__pbz *z = s->z;
	if (!s->err && z && z->on && na < PROFDB__PBZ_CHUNK && nb < PROFDB__PBZ_CHUNK &&
	    PROFDB__PBZ_CHUNK - z->in_len > 10 * (na + nb) + 32) {
		unsigned char *at = z->in + z->in_len;
		at += profdb__leb128_put(at, (uint64_t)field << 3 | 2);
		unsigned char *body = at + 1;
		at = put_packed(body, 1, a, na);
		at = put_packed(at, 2, b, nb);
		at = put_length(body, (size_t)(at - body));
		z->in_len = (size_t)(at - z->in);
		return;
	}
#endif
	profdb__pbm_reset(scratch);
	profdb__pbm_packed(scratch, 1, a, na);
	profdb__pbm_packed(scratch, 2, b, nb);
	profdb__pbs_msg(s, field, scratch);
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
	struct profdb__pbz *z = s->z;
	if (z) {
		if (z->on) {   /* set up whole */
			stop(z);
			pthread_cond_destroy(&z->cv);
			pthread_mutex_destroy(&z->lock);
			profdb__gzo_free(z->gz);
		}
		for (unsigned k = 0; k < PBZ_QUEUE; k++)
			free(z->chunk[k]);
		free(z->out);
		free(z->ready);
		free(z);
	}
#endif
	s->z = NULL;
}
