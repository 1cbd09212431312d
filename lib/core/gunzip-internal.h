/* gzip decoding shared by the readers (gunzip.c): every member's CRC-32
 * and ISIZE verified, messages naming the file, the member and the
 * compressed offset. Without zlib every call fails with -ENOTSUP and a
 * message saying so. */
#ifndef PROFDB_CORE_GUNZIP_H
#define PROFDB_CORE_GUNZIP_H

#include <stddef.h>
#include <stdint.h>

/* 1 when [p, p + n) starts with the gzip magic 1f 8b. */
int profdb__is_gzip(const unsigned char *p, uint64_t n);

/* Where to inflate next: called before every step with the number of
 * bytes inflated so far (@p done); sets *out and *space (> 0), or returns
 * a negative errno with a message set, which ends the inflation. */
typedef int (*profdb__gunzip_room)(void *ud, uint64_t done, unsigned char **out,
                                   size_t *space);

/* Inflate every gzip member of [src, src + n) in order, into the room
 * @p room gives; bytes after a member that do not start another member are
 * ignored. *total: the bytes inflated (also on failure). -EBADMSG for a
 * damaged header, deflate stream, CRC-32 or ISIZE, -ENODATA for a member
 * cut short, -ENOTSUP without zlib; @p name starts every message. */
int profdb__gunzip(const unsigned char *src, uint64_t n, const char *name,
                   profdb__gunzip_room room, void *ud, uint64_t *total);

/* The same into one malloc'ed buffer of at most @p limit bytes (plus a NUL
 * after them); more is -EFBIG, whose message gives @p limit_why as the
 * reason for the limit. *out is the caller's to free. */
int profdb__gunzip_alloc(const unsigned char *src, uint64_t n, const char *name,
                         uint64_t limit, const char *limit_why, unsigned char **out,
                         uint64_t *len);

#endif
