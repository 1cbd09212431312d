/* Pre-release HPCToolkit databases (HPCPROF-profdb__, HPCPROF-cctdb___,
 * HPCPROF-tracedb_ + experiment.xml) and the draft HPCTOOLKIT_expmt meta.db:
 * internal structures shared by the files of lib/hpctkpre.
 *
 * The binary files are mapped and decoded field by field on access (all
 * big-endian, doc/FORMATS.md). The metadata (experiment.xml or the draft
 * meta.db) is decoded once at open into the small tables below: the XML has
 * to be parsed anyway, and both describe only names and the tree, so the
 * tables are bounded by the metadata's size. */
#ifndef PROFDB_HPCTKPRE_INTERNAL_H
#define PROFDB_HPCTKPRE_INTERNAL_H

#include <stdbool.h>

#include "../core/core-internal.h"
#include "../core/table-internal.h"
#include "layout-internal.h"
#include "profdb/hpctkpre.h"

enum { PRE_PROFILE = PROFDB_HPCTKPRE_PROFILE, PRE_CCT = PROFDB_HPCTKPRE_CCT,
       PRE_TRACE = PROFDB_HPCTKPRE_TRACE, PRE_META = PROFDB_HPCTKPRE_META,
       PRE_NFILES = PROFDB_HPCTKPRE_NFILES };

/* A metric as the metadata decoders (xml.c, draft.c) fill it: NUL-terminated
 * strings in the arena or the mapping. The getters hand out the public
 * profdb_hpctkpre_metric (profdb_str fields). */
typedef struct pre_metric {
	uint32_t id;
	int is_summary;            /* 1: a summary-profile id */
	const char *name;
	int inclusive;             /* 1 inclusive, 0 exclusive, -1 unknown */
	uint32_t partner;          /* id in the other scope, or PROFDB_NONE */
	const char *formula, *formula_type, *units;
	uint8_t combine, show;
	int64_t db_id;             /* <MetricDB db-id>: its column in a .metric-db row; -1 */
} pre_metric;

/* A sorted search key: the record of the id indexes (metric_keys,
 * node_keys), searched through a profdb_view in host byte order. */
typedef struct pre_key {
	uint64_t key;
	uint32_t index;
	uint32_t pad;
} pre_key;

/* A name table entry (load module, file, procedure, identifier kind). */
typedef struct pre_name {
	int64_t id;
	const char *name;
} pre_name;

/* A context node, in document (pre-)order. Indices, not ids, link nodes. */
typedef struct pre_node {
	int64_t id;                /* stored id (negative on some XML call sites) */
	uint32_t parent, first_child, next_sibling, last_child;
	uint32_t depth;
	uint8_t type;              /* PROFDB_HPCTKPRE_CTX_* */
	uint8_t has_address;
	uint8_t inlined;           /* XML <Pr>: 1 alien (a="1", inlined code), 2 not alien */
	uint32_t proc, file, module;  /* indices into the tables or PROFDB_NONE */
	uint32_t line;
	uint64_t address;
	int64_t trace_id;          /* XML "it"; -1 when absent */
	uint32_t call_file, call_line;  /* draft: caller source line of a call */
} pre_node;

/* A value experiment.xml prints in an <M n= v=/> element: the summary
 * profile of an old database. ctx is the enclosing node's id (1, the
 * experiment root, for the values directly inside the data section). */
typedef struct pre_sval {
	uint32_t ctx, metric;
	double value;
} pre_sval;

/* The values of one thread in an old database: a .metric-db record, dense
 * rows of n_metrics big-endian f64 (row r is context r + 1), inside
 * old_in[file] at rows. */
typedef struct pre_mdb {
	const unsigned char *rows;
	uint32_t n_rows, n_metrics;
	uint32_t file;             /* index into old_in */
	uint64_t offset;           /* of the record's header in its file */
	int has_id;                /* rank and thread known (file name or packed table) */
	uint32_t rank, thread;
	const char *name;          /* the file's name */
	char label[48];            /* "rank R thread T", the profile's name */
	uint32_t trace;            /* index into pre_old.tr, or PROFDB_NONE */
	int trace_only;            /* no record: a profile for a trace alone (no values) */
} pre_mdb;

/* A trace line of an old database: an hpcrun trace (HPCRUN-trace______
 * 01.0x), a *.hpctrace file or a record packed into experiment.mt. Its
 * samples are (u64 time, u32 `it` id of experiment.xml's tree[, u32
 * metric]) at in[file] + rec_off. Checked on first use: sorted times,
 * every id a node's (checked: 0 not yet, 1 good, 2 damaged and tolerated,
 * read as empty). */
typedef struct pre_xtrace {
	uint32_t file;
	uint64_t offset;           /* of its header in the file */
	uint64_t rec_off, count;
	uint32_t rec_size;         /* 12, or 16 with the DATA_CENTRIC flag */
	int has_id;
	uint32_t rank, thread;
	atomic_uchar checked;
} pre_xtrace;

/* experiment.xml's trace ids: node @p node has it="it". */
typedef struct pre_itmap {
	uint32_t it, node;
} pre_itmap;

/* The old experiment.xml + *.metric-db (or packed experiment-N.mdb)
 * database: the files, the thread records and the XML's printed values. */
typedef struct pre_old {
	profdb__input *in;
	char **names;
	uint32_t n_in;
	pre_mdb *mdb;              /* sorted by rank, thread, name */
	uint32_t n_mdb;
	pre_sval *svals;           /* sorted by context, metric */
	uint64_t n_svals;
	uint32_t n_columns;        /* metrics per row (the <MetricDB> entries) */
	uint32_t *column_metric;   /* column -> <MetricDB i> */
	uint32_t *metric_columns;  /* columns in increasing metric id order */
	uint32_t n_rows;           /* rows per record: the most of a record with metrics (0 without) */
	pre_xtrace *tr;            /* the traces, in input order */
	uint32_t n_tr;
	size_t tr_cap;
	pre_itmap *its;            /* sorted by it (built when there are traces) */
	uint32_t n_its;
	uint64_t time_scale;       /* ns per stored time unit (<TraceDB u>) */
	int64_t trace_unit;        /* <TraceDB u>: units per second, 0 absent */
} pre_old;

struct profdb_hpctkpre {
	profdb_options opts;
	profdb__input in[PRE_NFILES];
	int present[PRE_NFILES];
	char *names[PRE_NFILES];
	int meta_kind;             /* PROFDB_HPCTKPRE_META_* */

	/* profile.db */
	uint32_t n_profiles;
	uint64_t pi_off, idt_off, idt_size;
	/* cct.db */
	uint32_t n_ctx;
	uint64_t ci_off;
	/* trace.db */
	uint32_t n_traces;
	uint64_t th_off, min_time, max_time;

	/* metadata tables (owned; strings in arena or in the mapping) */
	char *arena;               /* XML strings, NUL-separated */
	const char *title, *meta_version;
	pre_metric *metrics;
	uint32_t n_metrics;
	pre_name *tab[PROFDB_HPCTKPRE_NTABLES];
	uint32_t n_tab[PROFDB_HPCTKPRE_NTABLES];
	pre_node *nodes;
	uint32_t n_nodes;
	/* id indexes: nodes keyed by id + 2^63, metrics by is_summary << 32 | id */
	pre_key *node_keys, *metric_keys;
	profdb_view node_view, metric_view;

	/* an old experiment.xml database (mdb.c): values from .metric-db
	 * records and the XML's <M> elements, no .db file */
	int old;
	pre_old o;

	/* lazily validated blocks: 1 = checked and good */
	profdb__block_state ok;
	atomic_bool warned_zero_cct;
};

/* open.c */
int profdb__hpctkpre_require(const profdb_hpctkpre *db, int f);
const char *profdb__hpctkpre_file_name(int f);
/* As require, for the calls that read profiles, values and traces: an old
 * experiment.xml database answers -ENOTSUP, saying where they are read. */
int profdb__hpctkpre_require_data(const profdb_hpctkpre *db, int f);
/* xml.c: parse experiment.xml into the tables. */
int profdb__hpctkpre_xml_parse(profdb_hpctkpre *db);
/* mdb.c: the old experiment.xml + .metric-db databases. open: find and
 * check the records of directory @p dir; finish: check them against the
 * parsed XML. */
int profdb__hpctkpre_old_open(profdb_hpctkpre *db, const char *dir);
/* What an old database's file is by its name: a .metric-db record, a
 * packed .mdb, an .hpctrace trace or a packed .mt; PRE_FILE_NONE for any
 * other name (and a NULL one). */
enum { PRE_FILE_RECORD, PRE_FILE_PACKED, PRE_FILE_TRACE, PRE_FILE_PACKED_TRACE, PRE_FILE_NONE };
int profdb__hpctkpre_old_file(const char *name);
/* Rank and thread from "<program>-<rank>-<thread>-<host>-<pid>-<n><suffix>"
 * (*has_id 0 when the name is not of that form). */
void profdb__hpctkpre_old_identity(const char *name, const char *suffix, int *has_id,
                                   uint32_t *rank, uint32_t *thread);
/* The same from caller buffers (each a record file or a packed file). */
int profdb__hpctkpre_old_open_mem(profdb_hpctkpre *db, const profdb_input *records, size_t n);
/* open.c: an old database from experiment.xml @p xml and @p n record
 * buffers (the names guide identity and messages). */
int profdb__hpctkpre_open_old_mem(profdb_hpctkpre **ret, const profdb_input *xml,
                                  const profdb_input *records, size_t n,
                                  const profdb_options *opts);
int profdb__hpctkpre_old_finish(profdb_hpctkpre *db);
void profdb__hpctkpre_old_free(profdb_hpctkpre *db);
/* The value of (profile p, context c, metric column or summary id): 1 and
 * *v, 0 (not stored: a dense zero), < 0. */
int profdb__hpctkpre_old_value(const profdb_hpctkpre *db, uint32_t p, uint32_t c,
                               uint32_t metric, double *v);
/* xtrace.c: the traces of an old database. read_trace: a loose trace
 * (@p packed 0) or an experiment.mt (1) among the inputs (mdb.c then joins
 * each to the profile of its rank and thread); finish_traces: once the XML
 * is parsed, the time unit and the map from trace ids to nodes. */
int profdb__hpctkpre_old_read_trace(profdb_hpctkpre *db, uint32_t file, int packed);
int profdb__hpctkpre_old_finish_traces(profdb_hpctkpre *db);
/* The checked trace of model profile @p p: 1 and *out, 0 (no trace, or a
 * damaged one in tolerant mode), < 0. */
int profdb__hpctkpre_old_trace(const profdb_hpctkpre *db, uint32_t p, const pre_xtrace **out);
/* Sample @p i of a checked trace: time in ns and the stored node id. */
void profdb__hpctkpre_old_sample(const profdb_hpctkpre *db, const pre_xtrace *t, uint64_t i,
                                 uint64_t *time_ns, int64_t *node_id);
/* draft.c: decode a draft meta.db into the tables. */
int profdb__hpctkpre_draft_parse(profdb_hpctkpre *db);
/* meta.c: sort indexes, cross-check the metadata against the .db files. */
int profdb__hpctkpre_meta_finish(profdb_hpctkpre *db);
/* cross.c: whether the files agree with each other (counts and ids) */
int profdb__hpctkpre_cross_check(const profdb_hpctkpre *db);
/* Index of a metric (1) or 0; of a tree node by stored id (1) or 0. */
int profdb__hpctkpre_metric_index(const profdb_hpctkpre *db, int is_summary, uint32_t id,
                                  uint32_t *index);
int profdb__hpctkpre_node_index(const profdb_hpctkpre *db, int64_t id, uint32_t *index);
/* The value of (key1, key2) in a validated plane: 1 and *value, or 0. */
int profdb__hpctkpre_plane_lookup(const profdb_view *index, const profdb_view *values,
                                  uint32_t key1, uint32_t key2, double *value);
/* A big-endian view of @p count records (base NULL when count is 0). */
profdb_view profdb__hpctkpre_view(const unsigned char *base, uint64_t count, unsigned stride,
                                  unsigned key_offset, unsigned key_size, unsigned value_offset,
                                  profdb_field value_type);
/* The view of @p n trace samples from @p e (empty, with its layout, for 0). */
static inline profdb_view profdb__hpctkpre_samples(const unsigned char *e, uint64_t n)
{
	return profdb__hpctkpre_view(e, n, PRE_SAMPLE, PRE_SAMPLE_TIME, 8, PRE_SAMPLE_CTX,
	                             PROFDB_FIELD_U32);
}
/* Strings handed out: {"", 0} for NULL. */
profdb_str profdb__hpctkpre_str(const char *s);

/* Section [off, off + size) of file @p in after a header of @p header bytes. */
int profdb__hpctkpre_section(const profdb__input *in, uint64_t header, uint64_t off,
                             uint64_t size, const char *what);

#endif
