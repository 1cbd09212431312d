/* hpcrun measurement files (.hpcrun 02.00/03.00/04.00, .hpctrace 01.01):
 * internal structures shared by the files of lib/hpcrun. Layout facts and
 * where the real files differ from the published grammar are in
 * doc/FORMATS.md ("hpcrun and hpctrace").
 *
 * Memory model: every file is mapped (or borrowed) whole; the descriptor is
 * closed right after mmap (lib/core/input.c), so a directory of thousands of
 * files holds no descriptors. What is decoded at open is small and bounded
 * by the bytes it comes from: name/value pairs, metric descriptors, load
 * modules (one entry each). CCT records, values and trace records stay in
 * the mapping and are decoded on access; the per-node index (parents,
 * children, id lookup, sparse runs) is built lazily per profile. */
#ifndef PROFDB_HPCRUN_INTERNAL_H
#define PROFDB_HPCRUN_INTERNAL_H

#include "../core/core-internal.h"
#include "profdb/hpcrun.h"
#include "layout-internal.h"

/* A string view into the mapping (hpcrun strings carry no NUL). */
typedef struct hr_str {
	const char *p;
	uint32_t len;
} hr_str;

typedef struct hr_nv {
	hr_str name, value;
} hr_nv;

typedef struct hr_metric {
	hr_str name, desc, formula, format;
	const unsigned char *flags;   /* the 16 stored flag bytes */
	uint64_t period;
	uint8_t type, val_type, val_fmt, move2proc, show, show_percent;
	uint16_t partner;
	uint8_t packed;               /* decoded from the old packed bitfield */
	uint8_t has_trailer;
	uint16_t is_frequency, is_multiplexed;
	uint64_t threshold_bits, num_samples;
} hr_metric;

typedef struct hr_module {
	uint16_t id;
	hr_str name;
	uint64_t flags;
} hr_module;

/* One .hpcrun or .hpctrace input. */
typedef struct hr_file {
	profdb__input in;
	char *name;          /* file name (messages, grouping) */
	int is_trace;
	uint8_t major, minor;
	hr_nv *attrs;        /* .hpcrun header pairs */
	uint32_t n_attrs;
} hr_file;

/* A trace: records [rec_off, rec_off + count * rec_size) of its file. */
typedef struct hr_trace {
	hr_file *file;
	uint64_t flags;
	uint64_t rec_off, count;
	uint8_t rec_size;
	_Atomic unsigned char checked;  /* 1 = sortedness verified */
} hr_trace;

/* The lazily built node index of one profile. */
typedef struct hr_tree {
	uint32_t *parent;       /* node index of the parent, PROFDB_NONE for roots */
	uint32_t *first_child, *next_sibling;
	uint32_t *module;       /* module index or PROFDB_NONE */
	uint64_t *by_id;        /* (id << 32 | index), sorted */
	uint32_t *run;          /* 04.00: sparse index entry of the node, or NONE */
	uint32_t first_root;
} hr_tree;

/* A profile: one epoch of one .hpcrun file (04.00 files have one), or a
 * trace without its .hpcrun. */
typedef struct hr_profile {
	hr_file *file;          /* NULL for a trace-only profile */
	hr_trace *trace;        /* NULL when none */
	char *stem;             /* file name without extension */
	int64_t rank, thread, host_id, pid, generation;
	uint32_t epoch, n_epochs;

	hr_nv *epoch_attrs;     /* 02.00/03.00 epoch pairs */
	uint32_t n_epoch_attrs;
	uint64_t epoch_flags, granularity;
	uint32_t ra_offset;
	int has_trailer;

	hr_metric *metrics;
	uint32_t n_metrics;
	hr_module *modules;
	uint32_t n_modules;
	uint64_t *mod_sorted;   /* (id << 32 | index), sorted by id */

	/* CCT: n_nodes records of node_size bytes at cct_off */
	uint64_t cct_off, n_nodes;
	uint32_t node_size, val_at;  /* val_at: dense values inside a record */
	int lush;

	/* 04.00 */
	uint64_t tuple_off;     /* id tuple elements (18 bytes each) */
	uint16_t n_ids;
	uint64_t dict_off;      /* id-tuple dictionary entries */
	uint16_t n_dict;
	uint64_t dict_end;
	uint64_t vals_off, n_vals;   /* sparse values, 10 bytes each */
	uint64_t sidx_off;           /* sparse index, 12 bytes each */
	uint32_t n_nz;

	profdb__once tree_once;
	hr_tree tree;
	profdb__once incl_once;
	uint64_t *incl;         /* n_nodes x n_metrics, lazily */
	profdb__once dense_once;
	unsigned char *dense;   /* 02.00/03.00 value views: n_nodes x n_metrics x 12 B, lazily */
} hr_profile;

struct profdb_hpcrun {
	profdb_options opts;
	hr_file *files;
	size_t n_files;
	hr_trace *traces;
	size_t n_traces;
	hr_profile *profiles;
	size_t n_profiles, cap_profiles;
	uint8_t major, minor;   /* of the first .hpcrun profile */
	int mixed;              /* .hpcrun files of several versions */
	int any_profile;
	int ready;              /* build finished: the profiles' once objects exist */
};

/* read.c: a bounded big-endian cursor over [lo, end) of an input */
typedef struct hr_cur {
	const profdb__input *in;
	uint64_t lo, off, end;
} hr_cur;

int profdb__hpcrun_take(hr_cur *c, uint64_t n, const char *what, const unsigned char **p);
int profdb__hpcrun_u16(hr_cur *c, const char *what, uint16_t *v);
int profdb__hpcrun_u32(hr_cur *c, const char *what, uint32_t *v);
int profdb__hpcrun_u64(hr_cur *c, const char *what, uint64_t *v);
int profdb__hpcrun_str(hr_cur *c, const char *what, hr_str *s);
int profdb__hpcrun_nvpairs(hr_cur *c, const char *what, hr_nv **out, uint32_t *n);
int profdb__hpcrun_metrics(hr_cur *c, int trailer, hr_metric **out, uint32_t *n);
int profdb__hpcrun_loadmap(hr_cur *c, hr_module **out, uint32_t *n, uint64_t **sorted);
/* Allocate n elements of size sz, refusing counts the remaining bytes of
 * the cursor cannot hold (min_bytes each): memory stays bounded by input. */
int profdb__hpcrun_alloc(const hr_cur *c, uint64_t n, uint64_t min_bytes, size_t sz,
                         const char *what, void **out);

/* v2.c / v4.c: parse a .hpcrun file into profiles (appended to *out) */
/* (h->profiles, h->n_profiles, h->cap_profiles) */
int profdb__hpcrun_parse_v2(profdb_hpcrun *h, hr_file *f);
int profdb__hpcrun_parse_v4(profdb_hpcrun *h, hr_file *f);
/* Append one zeroed profile to *out (*n used, *cap allocated, grown by
 * profdb__grow); NULL on ENOMEM (message set). Earlier pointers into *out
 * are stale afterwards. */
hr_profile *profdb__hpcrun_new_profile(hr_profile **out, size_t *n, size_t *cap, hr_file *f);

/* trace.c */
int profdb__hpcrun_trace_open(profdb_hpcrun *h, hr_file *f, hr_trace *t);

/* tree.c */
int profdb__hpcrun_tree(const profdb_hpcrun *h, const hr_profile *p);
int profdb__hpcrun_node_at(const hr_profile *p, uint64_t i, const unsigned char **rec);
int32_t profdb__hpcrun_node_sid(const hr_profile *p, const unsigned char *rec);
int profdb__hpcrun_inclusive_table(const profdb_hpcrun *h, const hr_profile *p);
/* Bytes of a per-profile n_nodes x n_metrics table of @p elem-byte cells:
 * 0, -EBADMSG (overflow) or -EFBIG (above max_memory), with a message. */
int profdb__hpcrun_table_bytes(const profdb_hpcrun *h, const hr_profile *p, uint64_t elem,
                               const char *what, uint64_t *bytes);
uint32_t profdb__hpcrun_find_id(const hr_profile *p, uint32_t id);
/* Sorted (key << 32 | index) pairs: qsort order, and the index of the
 * entry whose key (high 32 bits) is @p key, or PROFDB_NONE. */
int profdb__hpcrun_cmp_u64(const void *a, const void *b);
uint32_t profdb__hpcrun_search(const uint64_t *v, uint64_t n, uint32_t key);
void profdb__hpcrun_profile_free(hr_profile *p);

/* api.c */
int profdb__hpcrun_profile(const profdb_hpcrun *h, uint32_t i, const hr_profile **out);
int profdb__hpcrun_is_real(const hr_metric *m);
/* Profile + validated tree + node index in range. */
int profdb__hpcrun_node_ready(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                              const hr_profile **out);

/* values.c: a node's values as a view (see profdb_hpcrun_values) */
#define HR_DENSE_REC 12u     /* owned dense records: u64 value, u32 metric, big-endian */
int profdb__hpcrun_node_values(const profdb_hpcrun *h, const hr_profile *p, uint32_t index,
                               profdb_view *out);
/* The raw values of a node into row[0 .. n_metrics) (cells not stored are
 * left alone); dense files are read from the mapping, not copied. */
int profdb__hpcrun_raw_row(const profdb_hpcrun *h, const hr_profile *p, uint32_t index,
                           uint64_t *row);

#define HR_END_MARK 0x656E6421u   /* "end!" */

#endif
