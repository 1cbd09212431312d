/* One gzip member written piece by piece (gzip-out.c), for the pprof
 * writer's stream (protobuf.c): deflate at its fastest level, by ISA-L's
 * igzip where the build has it (PROFDB_HAVE_ISAL: about three times
 * zlib's speed at level 1, doc/PERFORMANCE.md), else by zlib. Compiled
 * when the build has zlib. The bytes depend on the backend and, with
 * ISA-L, on where the input is cut into pieces. Not thread-safe: one
 * thread at a time. */
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
