/* The hpcrun backend of the common query interface, shared by its files:
 * query.c (the backend table, description, traces, opening), query-merge.c
 * (merged metrics and the merged context tree), query-ident.c (profile
 * names and identities) and query-values.c (values and the cursor). The
 * model is described at the top of query.c and in doc/model.md. */
#ifndef PROFDB_HPCRUN_QUERY_INTERNAL_H
#define PROFDB_HPCRUN_QUERY_INTERNAL_H

#include "hpcrun-internal.h"
#include "../core/backend-internal.h"

#define NONE PROFDB_NONE

/* A merged context; index = id, slot 0 unused. Links are ids, 0 = none. */
typedef struct hq_node {
	uint64_t offset;
	uint32_t parent, first_child, next_sibling, depth;
	uint32_t module;              /* index in hq.modules */
} hq_node;

/* A load module as the merge key sees it: by name when the load map has
 * the node's lm id, else by the id (0: hpcrun's placeholder nodes). */
typedef struct hq_module {
	profdb_str name;              /* into the mapping; empty when missing */
	uint32_t missing;             /* 0 named; 1 + lm id when not in the load map */
} hq_module;

/* The name of a placeholder tag outside hpcrun's table ("<TAG>" or
 * "<placeholder 0x...>"), made once after the tree build. */
typedef struct hq_tag_name {
	uint64_t tag;
	char name[36];
} hq_tag_name;

typedef struct hq_metric {
	profdb_str name, description;
	int is_real;
	/* The sampling period (hpcprof multiplies every value by it), 0 when
	 * the merged profiles disagree; a formula metric is hpcprof's derived
	 * "extra statistic" over other metrics, not a quantity that adds up. */
	uint64_t period;
	int has_formula;
} hq_metric;

typedef struct hq_ident {
	profdb_str kind;
	uint64_t value;
} hq_ident;

typedef struct hq_profile {
	int has_file, dense;
	uint32_t n_metrics;
	uint32_t *metric;             /* own metric index -> merged id */
	uint64_t *metric_sorted;      /* merged id << 32 | own index, ascending */
	int metric_monotone;          /* own order is merged order */
	size_t name_at, name_len, ident_at;
	uint32_t n_ident;
	/* set by the tree build */
	int broken;                   /* tolerant mode: tree rejected, reads as absent */
	uint32_t n_nodes;
	uint32_t *merged;             /* node index -> merged id */
	uint64_t *by_merged;          /* merged id << 32 | node index, ascending */
	/* inclusive table, n_nodes x n_metrics (own indices), built on first use */
	profdb__once incl_once;
	uint64_t *incl;
} hq_profile;

typedef struct hq {
	profdb_hpcrun *h;
	profdb_options opts;
	char version[8];
	profdb_str title;
	uint32_t n_profiles;
	hq_profile *prof;
	hq_metric *metrics;
	uint32_t n_metrics;
	uint32_t max_own_metrics;     /* cursor buffer size (profile scans) */
	uint64_t total_own_metrics;   /* cursor buffer size (context scans) */
	hq_ident *ident;
	char *names;
	profdb__once tree_once;
	hq_node *nodes;
	uint32_t n_nodes, first_root;
	hq_module *modules;
	uint32_t n_modules;
	hq_tag_name *tag_names;       /* sorted by tag; set by the tree build */
	uint32_t n_tag_names;
	profdb__once count_once;
	int64_t n_values;
} hq;


/* ---- shared helpers (query.c) ---- */
/* A string view, {"", 0} when empty. */
profdb_str profdb__hq_str(const char *p, size_t len);
int profdb__hq_str_eq(profdb_str a, profdb_str b);
uint64_t profdb__hq_max_memory(const hq *q);
/* Sorted (key << 32 | index) pairs: the index of key, or NONE. */
uint32_t profdb__hq_search(const uint64_t *v, uint64_t n, uint32_t key);
/* The one range check of a merged context id (ids 1 to n_nodes, the tree
 * built) and of a merged metric id: 0, or -ENOENT naming the id. */
int profdb__hq_check_context(const hq *q, uint32_t id);
int profdb__hq_check_metric(const hq *q, uint32_t id);

/* Names of the placeholder nodes (lm id 0), made at the end of the tree
 * build: 0 or -ENOMEM. */
int profdb__hq_name_placeholders(hq *q);

/* query-merge.c */
int profdb__hq_merge_metrics(hq *q);
/* The merged context tree, built once (thread-safe). */
int profdb__hq_tree_ready(const hq *q);

/* query-ident.c */
int profdb__hq_build_identities(hq *q);
void profdb__hq_describe(hq *q);

/* query-values.c */
int profdb__hq_usable(const hq_profile *pr);
profdb_number profdb__hq_number(const hq *q, uint32_t metric, uint64_t bits);
int profdb__hq_value(const void *impl, uint32_t p, uint32_t c, uint32_t m, profdb_number *out);
int profdb__hq_scoped(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
              profdb_number *out);
int profdb__hq_cursor_begin(const void *impl, profdb__cursor *cur);
int profdb__hq_cursor_next(const void *impl, profdb__cursor *cur, profdb_entry *out);
void profdb__hq_cursor_free(const void *impl, profdb__cursor *cur);

#endif
