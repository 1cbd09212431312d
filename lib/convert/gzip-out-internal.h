/* One gzip member written piece by piece (gzip-out.c), for the pprof
 * writer's stream (protobuf.c): profdb's own deflate, made for speed
 * (about 1.4 times zlib's level 1, for 3 % fewer bytes on pprof's
 * protobuf: doc/PERFORMANCE.md), its bytes a function of the input
 * alone, not of how it is cut into pieces. About 128 KiB, and up to
 * 512 KiB more while a segment is compressed. Compiled when the build
 * has zlib (its CRC-32). Not thread-safe: one thread at a time. */
#ifndef PROFDB_CONVERT_GZIP_OUT_INTERNAL_H
#define PROFDB_CONVERT_GZIP_OUT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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

/* Code lengths for the @p n (at most 286) symbols of counts @p freq into
 * @p len (0: a count of 0), none longer than @p limit (room for @p n
 * symbols of equal counts):
 * Huffman's, and where they pass it, Huffman's of the counts halved (a
 * used count stays at least 1) until they fit. At least two symbols get
 * a length (one of count 0 if needed), so the code is complete. */
void profdb__gzo_code_lengths(const uint32_t *freq, unsigned n, unsigned limit, uint8_t *len);

#endif
