/* One gzip member written piece by piece (gzip-out.c), for the pprof
 * writer's stream (protobuf.c): zlib's deflate at its fastest level,
 * level 1. Compiled when the build has zlib. Not thread-safe: one thread
 * at a time. */
#ifndef PROFDB_CONVERT_GZIP_OUT_INTERNAL_H
#define PROFDB_CONVERT_GZIP_OUT_INTERNAL_H

#include <stddef.h>

typedef struct profdb__gzo profdb__gzo;

/* A new stream, or NULL (out of memory). */
profdb__gzo *profdb__gzo_new(void);
/* Compress @p len bytes at @p data (@p fin: the last piece, which ends
 * the member) and append what comes out to *out (grown with
 * profdb__grow; *out_len bytes used of *out_cap): 0, -ENOMEM or -EIO.
 * Sets no message (it may run on a thread of its own). */
int profdb__gzo_put(profdb__gzo *g, const unsigned char *data, size_t len, int fin,
                    unsigned char **out, size_t *out_len, size_t *out_cap);
void profdb__gzo_free(profdb__gzo *g);

#endif
