/* One gzip member written piece by piece (gzip-out-internal.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "core/table-internal.h"
#include "gzip-out-internal.h"

/* Room for the deflater at the end of *out, grown by 64 KiB when less
 * than 4 KiB is left: the bytes free (at most 1 GiB, which the
 * deflater's 32-bit counts hold), or 0 when out of memory. */
static uint32_t out_room(unsigned char **out, size_t len, size_t *cap)
{
	if (*cap - len < 4096 && profdb__grow((void **)out, cap, len + 65536, 1) < 0)
		return 0;
	return *cap - len > 1u << 30 ? 1u << 30 : (uint32_t)(*cap - len);
}

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
