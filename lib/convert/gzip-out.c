/* One gzip member written piece by piece (gzip-out-internal.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "profdb-config.h"
#include "core/table-internal.h"
#include "gzip-out-internal.h"

/* Room for the deflater at the end of *out, grown by 64 KiB when less
 * than 4 KiB is left: the bytes free (at most 1 GiB, which the
 * deflaters' 32-bit counts hold), or 0 when out of memory. */
static uint32_t out_room(unsigned char **out, size_t len, size_t *cap)
{
	if (*cap - len < 4096 && profdb__grow((void **)out, cap, len + 65536, 1) < 0)
		return 0;
	return *cap - len > 1u << 30 ? 1u << 30 : (uint32_t)(*cap - len);
}

#ifdef PROFDB_HAVE_ISAL
#include <isa-l/igzip_lib.h>

struct profdb__gzo {
	struct isal_zstream s;
	unsigned char level_buf[ISAL_DEF_LVL1_DEFAULT];   /* level 1's hash tables */
};

profdb__gzo *profdb__gzo_new(void)
{
	profdb__gzo *g = malloc(sizeof *g);
	if (!g)
		return NULL;
	isal_deflate_init(&g->s);
	g->s.level = 1;
	g->s.level_buf = g->level_buf;
	g->s.level_buf_size = sizeof g->level_buf;
	g->s.gzip_flag = IGZIP_GZIP;   /* header and trailer, as go tool pprof expects */
	return g;
}

int profdb__gzo_put(profdb__gzo *g, const unsigned char *data, size_t len, int fin,
                    unsigned char **out, size_t *out_len, size_t *out_cap)
{
	struct isal_zstream *s = &g->s;
	s->next_in = (uint8_t *)(uintptr_t)data;
	s->avail_in = (uint32_t)len;   /* a chunk of the stream: far below 4 GiB */
	s->end_of_stream = (uint16_t)(fin != 0);
	s->flush = NO_FLUSH;
	for (;;) {
		uint32_t before = out_room(out, *out_len, out_cap);
		if (!before)
			return -ENOMEM;
		s->next_out = *out + *out_len;
		s->avail_out = before;
		if (isal_deflate(s) != COMP_OK)
			return -EIO;
		*out_len += before - s->avail_out;
		if (s->avail_out != 0 && (fin ? s->internal_state.state == ZSTATE_END : s->avail_in == 0))
			return 0;
	}
}

void profdb__gzo_free(profdb__gzo *g) { free(g); }

#else   /* zlib: the file is compiled only with it (lib/meson.build) */
#include <zlib.h>

struct profdb__gzo {
	z_stream z;
};

profdb__gzo *profdb__gzo_new(void)
{
	profdb__gzo *g = calloc(1, sizeof *g);
	/* 15 + 16: a gzip wrapper; level 1: above it the conversion's time
	 * goes to compression */
	if (g && deflateInit2(&g->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	return g;
}

int profdb__gzo_put(profdb__gzo *g, const unsigned char *data, size_t len, int fin,
                    unsigned char **out, size_t *out_len, size_t *out_cap)
{
	z_stream *zs = &g->z;
	zs->next_in = (unsigned char *)(uintptr_t)data;
	zs->avail_in = (uInt)len;   /* a chunk of the stream: far below 4 GiB */
	for (;;) {
		uInt before = out_room(out, *out_len, out_cap);
		if (!before)
			return -ENOMEM;
		zs->next_out = *out + *out_len;
		zs->avail_out = before;
		int r = deflate(zs, fin ? Z_FINISH : Z_NO_FLUSH);
		if (r == Z_STREAM_ERROR)
			return -EIO;
		*out_len += before - zs->avail_out;
		if (zs->avail_out != 0 && (fin ? r == Z_STREAM_END : zs->avail_in == 0))
			return 0;
	}
}

void profdb__gzo_free(profdb__gzo *g)
{
	if (g)
		deflateEnd(&g->z);
	free(g);
}
#endif
