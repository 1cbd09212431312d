/* HPCToolkit 4.0 database reader: internal structures shared by its files.
 * Layout facts and their sources are in doc/FORMATS.md. */
#ifndef PROFDB_HPCTK4_INTERNAL_H
#define PROFDB_HPCTK4_INTERNAL_H

#include <string.h>

#include "../core/core-internal.h"
#include "../core/view-internal.h"
#include "../core/table-internal.h"
#include "profdb/hpctk.h"
#include "layout-internal.h"

/* A section of a file: [off, off + size), checked inside the file at open. */
typedef struct hpctk_section {
	uint64_t off, size;
} hpctk_section;

/* One decoded metric (pointers into meta.db). The metric table is small, so
 * it is decoded once, lazily, into these. */
typedef struct hpctk_metric {
	profdb_str name;
	uint32_t first_prop, n_props;   /* into props[] */
	uint32_t first_sum, n_sums;     /* into sums[] */
} hpctk_metric;

/* Context index entry, sorted by id. */
typedef struct hpctk_node {
	uint32_t id;
	uint32_t parent;   /* parent id; PROFDB_NONE only for the root */
	uint64_t pos;      /* record offset in meta.db; 0 for the root */
	uint32_t kind;     /* NODE_ROOT, NODE_ENTRY or NODE_CTX */
} hpctk_node;

enum { NODE_ROOT = 0, NODE_ENTRY = 1, NODE_CTX = 2 };

struct profdb_hpctk {
	profdb_options opts;
	profdb__input in[PROFDB_HPCTK_NFILES];
	int present[PROFDB_HPCTK_NFILES];
	char *names[PROFDB_HPCTK_NFILES];   /* file names used in messages */
	profdb_hpctk_layout layout;

	/* meta.db, validated at open */
	hpctk_section general, idnames, metrics_sec, context, strings, modules_sec,
		files_sec, functions_sec;
	uint64_t p_modules, p_files, p_functions;
	uint32_t n_modules, n_files, n_functions;
	uint32_t sz_module, sz_file, sz_function;
	uint64_t p_entries;        /* final: entry-point array; dev-stage: roots */
	uint64_t sz_entries;       /* dev-stage: szRoots in bytes */
	uint32_t n_entries, sz_entry;

	/* meta.db metrics, lazily */
	profdb__once metrics_once;
	hpctk_metric *metric_tab;
	profdb_hpctk_prop *props;
	profdb_hpctk_summary *sums;
	uint32_t n_metrics;
	/* metric ids meta.db defines: bit i of prop_ids / stat_ids */
	uint8_t prop_ids[65536 / 8], stat_ids[65536 / 8];

	/* meta.db context tree index, lazily */
	profdb__once tree_once;
	hpctk_node *nodes;         /* sorted by id; nodes[0] is the root (id 0) */
	uint64_t n_nodes;

	/* profile.db */
	uint64_t p_profiles;
	uint32_t n_profiles, sz_profile;
	hpctk_section idtuples;

	/* cct.db */
	uint64_t p_ctxs;
	uint32_t n_ctxs, sz_ctx;

	/* trace.db */
	uint64_t p_traces;
	uint32_t n_traces, sz_trace;
	uint64_t min_time, max_time;

	/* lazily validated blocks: 1 = checked and good (atomic bytes) */
	profdb__once checked_once;
	profdb__block_state ok;
	/* tolerant mode: a profile block that disagrees with the other files
	 * was reported (cross.c) */
	atomic_bool block_warned;
};

/* open.c */
int profdb__hpctk_require(const profdb_hpctk *db, profdb_hpctk_file f);
/* meta.c */
int profdb__hpctk_meta_open(profdb_hpctk *db);
/* Run @p build once per handle (a lazily decoded meta.db table); -ENOENT
 * without meta.db. The handle is logically const: the once object
 * serialises the build. */
int profdb__hpctk_meta_once(const profdb_hpctk *db, const profdb__once *once,
                            int (*build)(void *));
/* sparse.c / trace.c open-time checks */
int profdb__hpctk_profile_open(profdb_hpctk *db);
int profdb__hpctk_cct_open(profdb_hpctk *db);
int profdb__hpctk_trace_open(profdb_hpctk *db);
/* cross.c: whether the files agree with each other: at open, from the
 * headers; at the first use of profile @p p's value block (validated,
 * @p index and @p values its views), from the block's edges. 0 or
 * -EBADMSG naming both files (0 and a warning in tolerant mode). */
int profdb__hpctk_cross_check(const profdb_hpctk *db);
int profdb__hpctk_cross_block(const profdb_hpctk *db, uint32_t p, const profdb_view *index,
                              const profdb_view *values);
/* The profiles context @p ctx's validated cct.db values (@p values, the
 * array at file offset @p at) name: profile.db's thread profiles only
 * (the format keeps the summary profiles out of cct.db). 0, or -EBADMSG
 * naming the value's offset, in tolerant mode too (the query layer then
 * reads the block as absent): a view never names a profile the model
 * does not have, nor a summary one. 0 without profile.db. */
int profdb__hpctk_cross_context(const profdb_hpctk *db, uint32_t ctx, uint64_t at,
                                const profdb_view *values);
/* Pointer to a struct of @p size bytes at @p ptr inside section @p s, and
 * its index in the array starting at @p base with @p stride. */
int profdb__hpctk_index_of(const profdb_hpctk *db, profdb_hpctk_file f, uint64_t base,
                   uint32_t count, uint32_t stride, uint64_t ptr, const char *what,
                   uint32_t *index);


/* meta.c helpers shared with the other files */
int profdb__hpctk_section_read(const profdb__input *in, uint64_t at, uint64_t header_end,
                       unsigned align, const char *what, hpctk_section *out);
int profdb__hpctk_array(const profdb__input *in, const hpctk_section *s, uint64_t ptr,
                uint64_t count, uint64_t stride, const char *what);
int profdb__hpctk_module_index(const profdb_hpctk *db, uint64_t ptr, uint32_t *out);
int profdb__hpctk_file_index(const profdb_hpctk *db, uint64_t ptr, uint32_t *out);
int profdb__hpctk_function_index(const profdb_hpctk *db, uint64_t ptr, uint32_t *out);

/* metrics.c: decode the metric table (and the id sets) once */
int profdb__hpctk_metric_ids(const profdb_hpctk *db);
static inline int profdb__hpctk_bit(const uint8_t *set, uint32_t id)
{
	return id < 65536 && (set[id >> 3] >> (id & 7) & 1);
}

/* A NUL-terminated string of the mapping as a profdb_str. */
static inline profdb_str profdb__hpctk_str(const char *s)
{
	profdb_str r = {s ? s : "", s ? strlen(s) : 0};
	return r;
}

/* A view over an in-memory table whose records start with a native-endian
 * uint32_t key, sorted: the tables this module builds (tree index, context
 * lists) are searched through the core view search like the file's. */
static inline profdb_view profdb__hpctk_u32_table(const void *base, uint64_t count,
                                                  size_t stride)
{
	const uint16_t one = 1;
	profdb_view v;
	memset(&v, 0, sizeof v);
	v.base = count ? (const unsigned char *)base : NULL;
	v.count = count;
	v.stride = (uint32_t)stride;
	v.key_type = PROFDB_FIELD_U32;
	v.big_endian = *(const unsigned char *)&one == 0;
	return v;
}

/* Fill a view field by field, never through a whole-struct copy: on the
 * lookup path a view is written and read back at once, and a wide load of
 * bytes just stored one by one stalls on store forwarding (it made a
 * cached point lookup 2.5 times slower). Reserved bytes are zero. */
static inline void profdb__hpctk_view(profdb_view *v, const unsigned char *base, uint64_t count,
                                      uint32_t stride, uint8_t key_type, uint8_t value_offset,
                                      uint8_t value_type)
{
	v->base = count ? base : NULL;
	v->count = count;
	v->stride = stride;
	v->key_offset = 0;
	v->key_type = key_type;
	v->value_offset = value_offset;
	v->value_type = value_type;
	v->tag_offset = 0;
	v->big_endian = 0;
	memset(v->reserved, 0, sizeof v->reserved);
}

/* profdb_view_run() for the planes this module hands out, whose starts are
 * little-endian U64s (layout-internal.h): the same slice, read without
 * the generic field loader and without copying the values view whole. The
 * starts are clamped as profdb_view_run() clamps them: the plane was
 * validated, but the mapped file may have been rewritten since. */
static inline void profdb__hpctk_run(const profdb_view *index, uint64_t i,
                                     const profdb_view *values, profdb_view *run)
{
	const unsigned char *e = index->base + i * index->stride + index->value_offset;
	uint64_t first = profdb__le64(e);
	uint64_t end = i + 1 < index->count ? profdb__le64(e + index->stride) : values->count;
	end = end < values->count ? end : values->count;
	first = first < end ? first : end;
	profdb__hpctk_view(run, values->base + first * values->stride, end - first,
	                   values->stride, values->key_type, values->value_offset,
	                   values->value_type);
}

/* profdb_view_find() on a plane view (U16 or U32 little-endian key at 0):
 * the core lower bound, then the equality test with the plane's own key
 * loader instead of the generic one (a sixth of a cached lookup). 1 and
 * *i when @p key is stored, else 0. */
static inline int profdb__hpctk_find(const profdb_view *v, uint32_t key, uint64_t *i)
{
	/* A plane's keys are little-endian u16 (metric ids) or u32 (context
	 * ids, profile indices) at offset 0: core's search, inlined. */
	int u16 = v->key_type == PROFDB_FIELD_U16;
	*i = u16 ? profdb__lb_le16(v->base, v->count, v->stride, key)
	         : profdb__lb_le32(v->base, v->count, v->stride, key);
	if (*i >= v->count)
		return 0;
	const unsigned char *k = v->base + *i * v->stride;
	return (u16 ? profdb__le16(k) : profdb__le32(k)) == key;
}

/* The F64 of record @p i of a plane's values view, bit-for-bit. */
static inline double profdb__hpctk_f64(const profdb_view *v, uint64_t i)
{
	return profdb__f64_bits(profdb__le64(v->base + i * v->stride + v->value_offset));
}

/* sparse.c: lazily validated blocks */
int profdb__hpctk_checked_slow(const profdb_hpctk *db, _Atomic unsigned char *const *which,
                               uint64_t i, int *ok);
/* Whether block @p i of @p which was validated: *ok. The bytes are
 * allocated on first use; after that (the lookups' steady state) this is
 * two atomic loads, inline. */
static inline int profdb__hpctk_checked(const profdb_hpctk *db,
                                        _Atomic unsigned char *const *which, uint64_t i, int *ok)
{
	if (!atomic_load_explicit(&db->checked_once.done, memory_order_acquire) ||
	    db->checked_once.result < 0)
		return profdb__hpctk_checked_slow(db, which, i, ok);
	*ok = atomic_load_explicit(&(*which)[i], memory_order_acquire);
	return 0;
}
/* profdb_hpctk_profile_plane() without the exported symbol's PLT hop, for
 * the lookups inside the library. */
int profdb__hpctk_profile_plane(const profdb_hpctk *db, uint32_t i, profdb_view *index,
                                profdb_view *values);
/* The value count profile @p i's record declares, its arrays checked to
 * lie inside profile.db; no byte of the block itself is read (their order
 * is checked by profdb__hpctk_profile_plane). 0 or < 0. */
int profdb__hpctk_profile_declared(const profdb_hpctk *db, uint32_t i, uint64_t *n_values);
/* The number of values cct.db's context table declares for context @p ctx
 * (0 beyond the table), its arrays located in the file but not read: whether a
 * context carries values, without checking its whole block. */
int profdb__hpctk_context_declared(const profdb_hpctk *db, uint32_t ctx, uint64_t *n_values);
/* The sample count trace line @p i's header declares, the line checked to
 * lie inside trace.db; its samples are not read (their order is checked by
 * profdb_hpctk_trace_line_at). 0 or < 0. */
int profdb__hpctk_trace_declared(const profdb_hpctk *db, uint32_t i, uint64_t *n_samples);
void profdb__hpctk_mark_checked(_Atomic unsigned char *const *which, uint64_t i);

#endif
