/* Growable little-endian output buffer, in memory or in front of a file descriptor (see
 * tw-internal.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tw-internal.h"

/* File mode keeps this much unflushed data: large enough that write() calls are cheap, small enough
 * that a multi-GiB synthetic database never sits in memory. */
#define TW_FD_CHUNK ((size_t)4 << 20)

void tw_blob_free(tw_blob *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->size = 0;
}

void tw__buf_init_mem(tw__buf *b)
{
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

void tw__buf_init_fd(tw__buf *b, int fd)
{
    memset(b, 0, sizeof *b);
    b->fd = fd;
}

static void fail(tw__buf *b, int err)
{
    if (!b->err)
        b->err = err;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int pwrite_all(int fd, const unsigned char *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

static void flush(tw__buf *b)
{
    if (b->err || b->fd < 0 || b->len == 0)
        return;
    int r = write_all(b->fd, b->data, b->len);
    if (r < 0) {
        fail(b, r);
        return;
    }
    b->base += b->len;
    b->len = 0;
}

/* Makes room for n more bytes at data[len]. */
static int reserve(tw__buf *b, size_t n)
{
    if (b->err)
        return b->err;
    if (n <= b->cap - b->len)
        return 0;
    if (b->fd >= 0) {
        flush(b);
        if (b->err)
            return b->err;
        if (n <= b->cap)
            return 0;
    }
    size_t want = b->cap ? b->cap : (b->fd >= 0 ? TW_FD_CHUNK : 4096);
    while (want - b->len < n) {
        if (want > SIZE_MAX / 2) {
            fail(b, -ENOMEM);
            return b->err;
        }
        want *= 2;
    }
    unsigned char *p = realloc(b->data, want);
    if (!p) {
        fail(b, -ENOMEM);
        return b->err;
    }
    b->data = p;
    b->cap = want;
    return 0;
}

unsigned char *tw__buf_grow(tw__buf *b, size_t n)
{
    if (reserve(b, n) < 0)
        return NULL;
    unsigned char *p = b->data + b->len;
    memset(p, 0, n);
    b->len += n;
    return p;
}

void tw__buf_put(tw__buf *b, const void *p, size_t n)
{
    if (b->err || n == 0)
        return;
    if (b->fd >= 0 && n > TW_FD_CHUNK / 2) {
        /* Big block to a file: bypass the buffer instead of growing it. */
        flush(b);
        if (b->err)
            return;
        int r = write_all(b->fd, p, n);
        if (r < 0)
            fail(b, r);
        else
            b->base += n;
        return;
    }
    unsigned char *d = tw__buf_grow(b, n);
    if (d)
        memcpy(d, p, n);
}

void tw__buf_zero(tw__buf *b, size_t n)
{
    while (!b->err && n > 0) {
        size_t k = n < TW_FD_CHUNK ? n : TW_FD_CHUNK;
        tw__buf_grow(b, k);
        n -= k;
    }
}

void tw__buf_pad_mod(tw__buf *b, unsigned a, unsigned r)
{
    uint64_t pos = tw__buf_pos(b);
    uint64_t pad = (r + a - pos % a) % a;
    tw__buf_zero(b, (size_t)pad);
}

void tw__buf_u8(tw__buf *b, uint8_t v)
{
    unsigned char *p = tw__buf_grow(b, 1);
    if (p)
        p[0] = v;
}

void tw__buf_u16(tw__buf *b, uint16_t v)
{
    unsigned char *p = tw__buf_grow(b, 2);
    if (p)
        tw__le16(p, v);
}

void tw__buf_u32(tw__buf *b, uint32_t v)
{
    unsigned char *p = tw__buf_grow(b, 4);
    if (p)
        tw__le32(p, v);
}

void tw__buf_u64(tw__buf *b, uint64_t v)
{
    unsigned char *p = tw__buf_grow(b, 8);
    if (p)
        tw__le64(p, v);
}

uint64_t tw__buf_str(tw__buf *b, const char *s)
{
    uint64_t off = tw__buf_pos(b);
    if (!s)
        s = "";
    tw__buf_put(b, s, strlen(s) + 1);
    return off;
}

void tw__buf_patch(tw__buf *b, uint64_t off, const void *src, size_t n)
{
    const unsigned char *p = src;
    if (b->err)
        return;
    if (off > tw__buf_pos(b) || n > tw__buf_pos(b) - off) {
        fail(b, -EINVAL); /* a writer bug: patching bytes that were never written */
        return;
    }
    if (off < b->base) {
        /* Already flushed (file mode only: memory mode has base 0). */
        size_t k = (size_t)(b->base - off < n ? b->base - off : n);
        int r = pwrite_all(b->fd, p, k, off);
        if (r < 0) {
            fail(b, r);
            return;
        }
        p += k;
        off += k;
        n -= k;
    }
    if (n > 0)
        memcpy(b->data + (off - b->base), p, n);
}

void tw__buf_set_u8(tw__buf *b, uint64_t off, uint8_t v)
{
    tw__buf_patch(b, off, &v, 1);
}

void tw__buf_set_u16(tw__buf *b, uint64_t off, uint16_t v)
{
    unsigned char t[2];
    tw__le16(t, v);
    tw__buf_patch(b, off, t, sizeof t);
}

void tw__buf_set_u32(tw__buf *b, uint64_t off, uint32_t v)
{
    unsigned char t[4];
    tw__le32(t, v);
    tw__buf_patch(b, off, t, sizeof t);
}

void tw__buf_set_u64(tw__buf *b, uint64_t off, uint64_t v)
{
    unsigned char t[8];
    tw__le64(t, v);
    tw__buf_patch(b, off, t, sizeof t);
}

int tw__buf_finish(tw__buf *b, tw_blob *out)
{
    int err;
    if (b->fd >= 0) {
        flush(b);
        err = b->err;
        free(b->data);
    } else if (b->err || !out) {
        err = b->err ? b->err : -EINVAL;
        free(b->data);
    } else {
        /* Hand over the allocation, trimmed so callers do not carry the doubling slack around. */
        unsigned char *p = b->len ? realloc(b->data, b->len) : NULL;
        if (b->len && !p)
            p = b->data; /* shrinking failed; the original block is still valid */
        else if (!b->len)
            free(b->data);
        out->data = p;
        out->size = b->len;
        err = 0;
    }
    b->data = NULL;
    b->len = b->cap = 0;
    return err;
}

void tw__buf_discard(tw__buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void tw__file_magic(tw__buf *b, const char fmt[4], uint8_t minor)
{
    tw__buf_put(b, "HPCTOOLKIT", 10);
    tw__buf_put(b, fmt, 4);
    tw__buf_u8(b, 4);
    tw__buf_u8(b, minor);
}

void tw__block_start(tw__buf *b, const tw__opts *o)
{
    tw__buf_pad_mod(b, 8, o->unaligned ? 1 : 0);
}
