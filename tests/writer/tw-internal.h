/* Internal interfaces of the test-data writer: little-endian stores, the output buffer, and the
 * streaming writers for the three value-carrying files. The streaming writers are shared by
 * tw_hpctk4_write() (values from a description) and tw_hpctk4_synth_dir() (values computed on the
 * fly), so both paths produce byte-identical layouts. */
#ifndef PROFDB_TESTS_TW_INTERNAL_H
#define PROFDB_TESTS_TW_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "writer.h"

/* ---- little-endian stores: byte shifts, so no host byte order or alignment assumption ---- */

static inline void tw__le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void tw__le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void tw__le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void tw__lef64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u); /* IEEE 754 bits; the only way to get them without aliasing UB */
    tw__le64(p, u);
}

/* ---- output buffer ----
 * One type for both destinations: in memory (fd < 0) the whole file stays in data[]; on a file
 * descriptor data[] holds only the unflushed tail starting at file offset `base`. Errors are
 * sticky: after the first failure every call is a no-op and tw__buf_finish() reports it, so writers
 * need not check each append. */
typedef struct tw__buf {
    unsigned char *data;
    size_t len, cap;
    uint64_t base; /* file offset of data[0] */
    int fd;        /* < 0: memory */
    int err;       /* 0 or -errno */
} tw__buf;

void tw__buf_init_mem(tw__buf *b);
void tw__buf_init_fd(tw__buf *b, int fd);
static inline uint64_t tw__buf_pos(const tw__buf *b) { return b->base + b->len; }
/* Returns a pointer to n fresh zeroed bytes at the end (valid until the next call), NULL on
 * error. */
unsigned char *tw__buf_grow(tw__buf *b, size_t n);
void tw__buf_put(tw__buf *b, const void *p, size_t n);
void tw__buf_zero(tw__buf *b, size_t n);
/* Pads with zeros until pos % a == r. */
void tw__buf_pad_mod(tw__buf *b, unsigned a, unsigned r);
static inline void tw__buf_align(tw__buf *b, unsigned a) { tw__buf_pad_mod(b, a, 0); }
void tw__buf_u8(tw__buf *b, uint8_t v);
void tw__buf_u16(tw__buf *b, uint16_t v);
void tw__buf_u32(tw__buf *b, uint32_t v);
void tw__buf_u64(tw__buf *b, uint64_t v);
/* Appends s and its NUL (NULL => ""); returns its offset. */
uint64_t tw__buf_str(tw__buf *b, const char *s);
/* Overwrites already-written bytes (in memory, or by pwrite for flushed file bytes). */
void tw__buf_patch(tw__buf *b, uint64_t off, const void *p, size_t n);
void tw__buf_set_u8(tw__buf *b, uint64_t off, uint8_t v);
void tw__buf_set_u16(tw__buf *b, uint64_t off, uint16_t v);
void tw__buf_set_u32(tw__buf *b, uint64_t off, uint32_t v);
void tw__buf_set_u64(tw__buf *b, uint64_t off, uint64_t v);
/* Memory: hands the bytes to *out (out may be NULL only for fd buffers).  File: flushes.  Always
 * releases the buffer; returns the sticky error. */
int tw__buf_finish(tw__buf *b, tw_blob *out);
void tw__buf_discard(tw__buf *b);

/* ---- shared layout parameters ---- */
typedef struct tw__opts {
    uint8_t minor, extra;
    int devstage, unaligned;
} tw__opts;

/* 16-byte file header prefix: "HPCTOOLKIT" + 4-char format + major 4 + minor. */
void tw__file_magic(tw__buf *b, const char fmt[4], uint8_t minor);
/* Places a value block's first array: 8-aligned, or ≡ 1 mod 8 when unaligned. */
void tw__block_start(tw__buf *b, const tw__opts *o);

/* ---- meta.db ---- */
/* Validates d and writes a complete meta.db into b. */
int tw__meta_write(const tw_hpctk4 *d, tw__buf *b);
/* Structural checks of the description shared by tw_hpctk4_write() and the synthetic generator. */
int tw__check_desc(const tw_hpctk4 *d);

/* ---- profile.db ---- */
typedef struct tw__pdb {
    tw__buf *b;
    tw__opts o;
    uint32_t n_profiles;
    unsigned szpi;
    unsigned char *pis;      /* PI records, patched in at finish */
    uint64_t pi_array;
    /* current profile */
    int64_t cur;             /* -1: none open */
    uint64_t n_values, p_values;
    unsigned char *idx;      /* encoded {Idx} records of the open profile */
    size_t idx_len, idx_cap; /* bytes */
    uint32_t n_ctxs, last_ctx;
    uint16_t last_metric;
    int err;
} tw__pdb;

/* Writes the header, reserves the PI array and writes the id tuples of profiles[0..n-1]
 * (only is_summary and ids are used). */
int tw__pdb_begin(tw__pdb *w, tw__buf *b, const tw__opts *o, uint32_t n,
                  const tw_profile *profiles);
int tw__pdb_profile_begin(tw__pdb *w, uint32_t index);
/* Values of the open profile in strictly increasing (ctx, metric) order, else -EINVAL. */
int tw__pdb_value(tw__pdb *w, uint32_t ctx, uint16_t metric, double v);
int tw__pdb_profile_end(tw__pdb *w);
/* Patches the PI array, writes the footer.  Frees w's memory (also on error). */
int tw__pdb_finish(tw__pdb *w);
void tw__pdb_free(tw__pdb *w);

/* ---- cct.db ---- */
typedef struct tw__cdb {
    tw__buf *b;
    tw__opts o;
    uint32_t n_ctxs;
    unsigned szci;
    unsigned char *cis;      /* CI records, patched in at finish */
    uint64_t ci_array;
    uint32_t next_slot;      /* first CI slot not yet filled */
    int open;
    uint32_t cur;
    uint64_t n_values, p_values;
    unsigned char *midx;
    size_t midx_len, midx_cap;
    uint32_t n_metrics, last_prof;
    uint16_t last_metric;
    int err;
} tw__cdb;

int tw__cdb_begin(tw__cdb *w, tw__buf *b, const tw__opts *o, uint32_t n_ctxs);
/* Contexts in strictly increasing id order (< n_ctxs); skipped ids become empty slots. */
int tw__cdb_ctx_begin(tw__cdb *w, uint32_t ctx);
/* Values of the open context in strictly increasing (metric, profIndex) order. */
int tw__cdb_value(tw__cdb *w, uint16_t metric, uint32_t prof, double v);
int tw__cdb_ctx_end(tw__cdb *w);
int tw__cdb_finish(tw__cdb *w);
void tw__cdb_free(tw__cdb *w);

/* ---- trace.db ---- */
typedef struct tw__tdb {
    tw__buf *b;
    tw__opts o;
    uint32_t n_traces;
    unsigned szth;
    unsigned char *ths;
    uint64_t sec_hdr, th_array;
    int open;
    uint32_t cur;
    uint64_t p_start, last_time, min, max;
    int any;
    int err;
} tw__tdb;

int tw__tdb_begin(tw__tdb *w, tw__buf *b, const tw__opts *o, uint32_t n_traces);
int tw__tdb_trace_begin(tw__tdb *w, uint32_t index, uint32_t prof);
/* Samples of the open trace with non-decreasing times, else -EINVAL. */
int tw__tdb_sample(tw__tdb *w, uint64_t time, uint32_t ctx);
int tw__tdb_trace_end(tw__tdb *w);
/* min/max 0,0: use the observed range, or the hpcprof sentinels when no trace has samples. */
int tw__tdb_finish(tw__tdb *w, uint64_t min, uint64_t max);
void tw__tdb_free(tw__tdb *w);

/* ---- files ---- */
/* mkdir -p */
int tw__mkdirs(const char *dir);
/* Opens dir/name for writing (create, truncate); returns fd or -errno. */
int tw__open_out(const char *dir, const char *name);
/* Writes a whole blob to dir/name. */
int tw__write_file(const char *dir, const char *name, const tw_blob *blob);

#endif
