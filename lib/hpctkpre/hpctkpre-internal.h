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

#include "../core/core-internal.h"
#include "profdb/hpctkpre.h"

enum { PRE_PROFILE = PROFDB_HPCTKPRE_PROFILE, PRE_CCT = PROFDB_HPCTKPRE_CCT,
       PRE_TRACE = PROFDB_HPCTKPRE_TRACE, PRE_META = PROFDB_HPCTKPRE_META,
       PRE_NFILES = PROFDB_HPCTKPRE_NFILES };

/* Fixed layout facts (doc/FORMATS.md, "Pre-release databases"). */
#define PRE_PI_SIZE 52u        /* profile.db ProfileInfo */
#define PRE_CI_SIZE 22u        /* cct.db CtxInfo */
#define PRE_TH_SIZE 22u        /* trace.db TraceHeader */
#define PRE_PVAL 10u           /* profile.db {f64, u16 metric} */
#define PRE_PIDX 12u           /* profile.db {u32 ctx, u64 index} */
#define PRE_CVAL 12u           /* cct.db {f64, u32 profile} */
#define PRE_CIDX 10u           /* cct.db {u16 metric, u64 index} */
#define PRE_SAMPLE 12u         /* trace.db {u64 time, u32 ctx} */
#define PRE_PEND 0x656E6421u   /* "end!" */
#define PRE_CEND 0x6564u       /* "ed" */

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
	uint32_t proc, file, module;  /* indices into the tables or PROFDB_NONE */
	uint32_t line;
	uint64_t address;
	int64_t trace_id;          /* XML "it"; -1 when absent */
	uint32_t call_file, call_line;  /* draft: caller source line of a call */
} pre_node;

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
	profdb_hpctkpre_metric *metrics;
	uint32_t n_metrics;
	pre_name *tab[PROFDB_HPCTKPRE_NTABLES];
	uint32_t n_tab[PROFDB_HPCTKPRE_NTABLES];
	pre_node *nodes;
	uint32_t n_nodes;
	uint32_t *by_id;           /* node indices sorted by id */
	uint32_t *metric_by_id;    /* metric indices sorted by (is_summary, id) */

	/* lazily validated blocks: 1 = checked and good */
	_Atomic unsigned char *profile_ok, *ctx_ok, *trace_ok;
	atomic_int warned_zero_cct;
};

/* open.c */
int profdb__hpctkpre_require(const profdb_hpctkpre *db, int f);
const char *profdb__hpctkpre_file_name(int f);
/* xml.c: parse experiment.xml into the tables. */
int profdb__hpctkpre_xml_parse(profdb_hpctkpre *db);
/* draft.c: decode a draft meta.db into the tables. */
int profdb__hpctkpre_draft_parse(profdb_hpctkpre *db);
/* meta.c: sort indexes, cross-check the metadata against the .db files. */
int profdb__hpctkpre_meta_finish(profdb_hpctkpre *db);
int profdb__hpctkpre_metric_index(const profdb_hpctkpre *db, int is_summary, uint32_t id,
                                  uint32_t *index);
/* values.c / trace.c: open-time header checks */
int profdb__hpctkpre_profile_open(profdb_hpctkpre *db);
int profdb__hpctkpre_cct_open(profdb_hpctkpre *db);
int profdb__hpctkpre_trace_open(profdb_hpctkpre *db);

/* Section [off, off + size) of file @p in after a header of @p header bytes. */
int profdb__hpctkpre_section(const profdb__input *in, uint64_t header, uint64_t off,
                             uint64_t size, const char *what);

#endif
