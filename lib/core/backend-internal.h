/* The contract between the common query interface (lib/query) and a format
 * module. Each format implements one profdb__backend in lib/<format>/query.c
 * and registers it in lib/query/registry.c. The public functions in
 * lib/query/ check arguments, then call through the table; a backend only
 * answers for its own format.
 *
 * Rules for backends:
 *  - impl is the format's own handle (profdb_hpctk *, profdb_cube *, ...);
 *    it is read-only after open and every entry point may be called from
 *    many threads at once (build lazy tables with profdb__once).
 *  - Return codes and messages follow include/profdb/profdb.h; fill every
 *    field of an out struct (strings {"", 0} when absent).
 *  - Optional entries may be NULL: lib/query then answers -ENOTSUP (or, for
 *    metric_get, scans metric_at).
 *  - lib/query has checked what every format checks the same way: the
 *    outputs are not NULL, a profile index is below profile_count (for
 *    profile_get, profile_identity, value, scoped, a SCAN_PROFILE cursor,
 *    the traces and the views), an identity entry below the n_identity
 *    that profile_get gave, and a cursor's scan is one of the three.
 *    A backend checks only its own ids (metrics, contexts, samples).
 */
#ifndef PROFDB_QUERY_BACKEND_H
#define PROFDB_QUERY_BACKEND_H

#include <string.h>

#include "core/core-internal.h"
#include "profdb/query.h"

/* Per-cursor state a backend may use freely; zeroed by profdb_values_new. */
typedef struct profdb__cursor {
	profdb_scan scan;
	uint32_t key;
	uint64_t pos[4];          /* backend-defined positions */
	void *priv;               /* backend-owned, freed by cursor_free */
} profdb__cursor;

/* One statistic a summary profile stores (summary_stats). */
typedef struct profdb__summary_stat {
	uint32_t id;             /* its metric id in the summary profile */
	uint32_t of;             /* the metric id whose values over the other profiles
	                          * it combines */
	uint32_t quantity;       /* the quantity @p of is a scope of (summary_scope) */
	profdb_combine combine;  /* NONE: a rule the format does not name */
	profdb_str formula;      /* applied to each value first: "$$" (the value),
	                          * "($$^2)", "1", ... */
	/* The scope's value at a loop context is the loop's own body, which
	 * the other profiles' values at that loop do not give (hpcprof's
	 * lex_aware). */
	int loop_own_body;
} profdb__summary_stat;

/* A function of a format's own call graph (native_records), its names
 * with their keys (name_keys). */
typedef struct profdb__native_fn {
	profdb_str object, file, name;
	uint32_t object_key, file_key, name_key;
} profdb__native_fn;

/* The records of a function (native_records), each as the input stores it. */
enum { PROFDB__NATIVE_LINE, PROFDB__NATIVE_CALL, PROFDB__NATIVE_JUMP };
typedef struct profdb__native_row {
	profdb_str file;          /* LINE, CALL: the current file; JUMP: the target's */
	uint64_t line, instr;     /* the position (JUMP: the source); instr 0 when none */
	const uint64_t *costs;    /* LINE: self costs, CALL: the calls' inclusive costs,
	                           * one per metric id; JUMP: NULL */
	uint32_t callee;          /* CALL: the function called */
	uint32_t profile;         /* CALL: the profile of the calls (records of
	                           * PROFDB_NONE: each call's own) */
	uint64_t count;           /* CALL: calls; JUMP: times taken */
	/* JUMP only: the target, whether conditional, and (conditional) the
	 * times executed */
	profdb_str to_function;
	uint64_t to_line, to_instr;
	int conditional;
	uint64_t executed;
	uint32_t file_key, to_function_key;   /* the keys of file and to_function */
} profdb__native_row;

/* A LINE record as the bulk accessor (lines) gives it; nonzero: bit m
 * set when costs[m] is not 0, for the first 32 metrics (the others: not
 * told), so that a writer that leaves out trailing zero costs need not
 * read the costs to find them. */
typedef struct profdb__native_line {
	profdb_str file;
	uint32_t file_key;
	uint32_t nonzero;
	uint64_t line, instr;
	const uint64_t *costs;
} profdb__native_line;

/* Lines of an input's text to be copied as they stand (native_table.copy):
 * [text, text + len), each ended by its '\n', the first line's position
 * in its first pos_len bytes and the rest relative to the line before.
 * Positions (instr 0 when none): the one in effect before the first line
 * (from_*), the first line's and the last line's. */
typedef struct profdb__native_lines {
	profdb_str file;          /* the file in effect */
	uint32_t file_key;
	uint64_t from_instr, from_line, instr, line, last_instr, last_line;
	const char *text;
	size_t pos_len, len;
} profdb__native_lines;

/* Where native_table.copy gives a function's records, in the input's
 * text order: cost lines outside calls, a call site (a CALL record
 * without its costs) with its cost line, a JUMP record. 0, or < 0 to
 * stop. */
typedef struct profdb__native_sink {
	int (*lines)(void *ctx, const profdb__native_lines *lines);
	int (*call)(void *ctx, const profdb__native_row *call, const profdb__native_lines *cost);
	int (*jump)(void *ctx, const profdb__native_row *jump);
	void *ctx;
} profdb__native_sink;

/* A format's own records of a call graph (Callgrind's cost lines, calls=
 * and jumps), for a writer of the same format to keep them. Function ids
 * are 0 .. function_count-1, the table's own; profile PROFDB_NONE is every
 * profile summed. The strings it gives (names, files) live as long as the
 * handle and are never rewritten, so their address stands for their bytes.
 * Thread rules as for the backend, except a records object: one thread at
 * a time. */
typedef struct profdb__native_table {
	/* Metric @p id as the input declares it (Callgrind: its event line):
	 * 0, -ENOENT. Strings live until close. */
	int (*event)(const void *impl, uint32_t id, profdb_str *name, profdb_str *long_name,
	             profdb_str *formula);
	int64_t (*function_count)(const void *impl);
	int (*function)(const void *impl, uint32_t fn, profdb__native_fn *out);
	/* The keys function() gives (object, file, name), without reading the
	 * strings: a writer that has named them already needs no more. */
	int (*function_keys)(const void *impl, uint32_t fn, uint32_t keys[3]);
	/* Function @p fn's records in @p profile, decoded into *out (free it
	 * with records_free, before close). */
	int (*records_new)(const void *impl, uint32_t profile, uint32_t fn, void **out);
	/* records_new() in the memory of @p old (records of this table that
	 * the caller gives up, freed if need be; NULL: none). */
	int (*records_renew)(const void *impl, uint32_t profile, uint32_t fn, void *old, void **out);
	void (*records_free)(void *records);
	/* The bytes @p records hold (for a cache of them to bound itself). */
	size_t (*records_room)(const void *records);
	/* The records of one PROFDB__NATIVE_* kind, in the input's order (LINE:
	 * by line, instruction, file); a row lives until records_free. */
	int64_t (*record_count)(const void *records, int kind);
	int (*record_at)(const void *records, int kind, uint32_t i, profdb__native_row *out);
	/* LINE records @p first, first + 1, ... into @p out, at most @p n (and
	 * no further than record_count): how many. As record_at gives them,
	 * without a call per record (a function has thousands). */
	uint32_t (*lines)(const void *records, uint32_t first, uint32_t n, profdb__native_line *out);
	/* The sum of the LINE records' costs per metric id, and how many
	 * times each sum wrapped past 2^64 - 1: a writer's totals without an
	 * add per record. They live until records_free. */
	void (*line_sums)(const void *records, const uint64_t **sum, const uint64_t **wraps);
	/* Every name the table gives (a function's, a record's file and
	 * to_function) comes with a key below name_keys(): equal keys, equal
	 * strings, and distinct keys, distinct strings, so that a writer can
	 * number the names by key. */
	int64_t (*name_keys)(const void *impl);
	/* records_renew() for a writer of the same format, where the
	 * function's text can be copied as it stands into an output whose
	 * cost columns are metrics @p cols[0 .. n_cols) and whose positions
	 * are "instr line" (@p instr) or "line": its records go to @p sink in
	 * the text's order, and *out keeps only the line records' sums
	 * (line_sums). 0; 1 when some of the text cannot be copied (what the
	 * sink was given is to be dropped; *out is records to renew); < 0.
	 * NULL: the format has no such text. */
	int (*copy)(const void *impl, uint32_t profile, uint32_t fn, const uint32_t *cols,
	            size_t n_cols, int instr, const profdb__native_sink *sink, void *old,
	            void **out);
} profdb__native_table;

/* A call edge of a format's call graph (profdb__graph_table.call). */
typedef struct profdb__graph_call {
	uint32_t caller, callee;  /* function ids */
	const uint64_t *costs;    /* the calls' inclusive cost, one per metric id */
	uint64_t count;           /* the calls' count (summed over their lines) */
} profdb__graph_call;

/* A format's call graph of functions (Callgrind's fn= blocks and calls=
 * lines), for the analyses that build views, call edges and function
 * rankings from it (lib/analysis: tree-cg.c, edges.c, graph.c). Function
 * ids are 0 .. function_count-1, and function fn is FUNCTION context
 * fn + 1 of the common interface (the root is context 0). A cost row holds
 * one value per metric id (0 .. metric_count-1) and lives until close;
 * profile PROFDB_NONE is every profile summed. The call sites, with their
 * positions, are the CALL records of native_records (records of profile
 * PROFDB_NONE carry each call's profile). Thread rules as for the
 * backend. */
/* A line or instruction context of a function, with its self costs
 * (profdb__graph_table.lines). */
typedef struct profdb__graph_row {
	uint32_t context;          /* its context id */
	profdb_str file;           /* file, line and offset (0: none) as
	                            * profdb_context_get gives them */
	uint64_t line, instr;
	int instruction;           /* type INSTRUCTION, else LINE */
	uint32_t n;                /* profiles with a stored self cost here */
	const uint32_t *profiles;  /* n profile indices, ascending */
	const uint64_t *costs;     /* n x metric_count: costs[j * metric_count + m]
	                            * is the self cost in profiles[j] */
} profdb__graph_row;

/* Called per row; a negative return stops the walk and is returned. */
typedef int (*profdb__graph_row_fn)(void *ud, const profdb__graph_row *row);

typedef struct profdb__graph_table {
	int64_t (*function_count)(const void *impl);
	int (*function)(const void *impl, uint32_t fn, profdb__native_fn *out);
	/* The profile's total (the sum of every self cost). */
	int (*totals)(const void *impl, uint32_t profile, const uint64_t **out);
	/* Function @p fn's self cost and its inclusive cost (the format's own
	 * rule: Callgrind's is KCachegrind's, cycles included). */
	int (*self)(const void *impl, uint32_t profile, uint32_t fn, const uint64_t **out);
	int (*inclusive)(const void *impl, uint32_t profile, uint32_t fn, const uint64_t **out);
	/* When @p fn belongs to a cycle of the graph (functions that call each
	 * other): 1 and the cycle's inclusive cost; 0 when it belongs to none. */
	int (*cycle_inclusive)(const void *impl, uint32_t profile, uint32_t fn,
	                       const uint64_t **out);
	/* Both of the above for one metric @p m summed over every profile
	 * (profile PROFDB_NONE), as the whole rows would give them: *inc, and
	 * when @p fn belongs to a cycle (return 1) the cycle's in *cycle
	 * (return 0: none), < 0. For a reader that asks for a few metrics
	 * only (the views), it spares the rows of every metric. Optional:
	 * NULL, read the rows. */
	int (*inclusive_metric)(const void *impl, uint32_t fn, uint32_t m, uint64_t *inc,
	                        uint64_t *cycle);
	int64_t (*call_count)(const void *impl);
	/* Edge @p i (0 .. call_count-1): caller, callee, and the calls' count
	 * and cost in @p profile. @return 1, or 0 when it has no calls there
	 * (count 0, costs zeros), < 0. */
	int (*call)(const void *impl, uint32_t profile, uint32_t i, profdb__graph_call *out);
	/* The bulk path of the writers that walk every line context: the
	 * children of function context fn + 1, which are all its line or
	 * instruction contexts (a function has no other children; the root's
	 * children are the functions), in the tree's order, each with the
	 * self costs every profile stores there (the values the cursor
	 * gives). The function is decoded for this call and the rows live
	 * until @p visit returns; memory is the one function's rows. 0 when
	 * walked (also when it has no rows), -ENOTSUP when the functions have
	 * no line contexts (their own values are the stored ones), < 0.
	 * Optional: NULL is -ENOTSUP. */
	int (*lines)(const void *impl, uint32_t fn, profdb__graph_row_fn visit, void *ud);
} profdb__graph_table;

typedef struct profdb__backend {
	profdb_format format;
	/* How the stored scopes relate, for the converters (0 when unset).
	 * self_from_inclusive: a context's own cost is its stored inclusive
	 * value less its children's, because the point and exclusive scopes
	 * also hold costs of contexts the tree leaves out (HPCToolkit: those
	 * hpcprof elides). inclusive_stored: the top-down view of one profile
	 * reads each context's inclusive value as stored (HPCToolkit 4.0). */
	unsigned self_from_inclusive : 1, inclusive_stored : 1;
	/* Every metric is an event its writer declared, kept by a conversion
	 * whether or not it has values (Callgrind's events: line). */
	unsigned declared_events : 1;
	/* The function contexts' names may carry suffixes after the function's
	 * own name (Callgrind's "f'2", "f'caller"), which
	 * profdb_function_fold() removes (lib/analysis/functions.c). */
	unsigned name_suffixes : 1;
	/* The contexts carry no function or source names, only load module
	 * and offset (hpcrun measurements: hpcstruct and hpcprof name them). */
	unsigned unnamed_contexts : 1;
	/* value and scoped answer -ENOENT themselves for an id that
	 * context_get does not know, so that lib/query need not look the
	 * context up again when nothing is stored (Callgrind: millions of
	 * zero costs when a walk asks for every event of every line). */
	unsigned values_check_ids : 1;

	/* ---- detection and opening ---- */
	/* Does this input look like the format? @p head is the first bytes of
	 * the file (@p n of them, n may be small), @p name its file name.
	 * Returns 1 yes, 0 no. Must be cheap and must not fail. */
	int (*sniff)(const unsigned char *head, size_t n, const char *name);
	/* An empty file, which sniff() cannot judge: does this format own it
	 * because of the files beside it (Callgrind: the base file valgrind
	 * leaves empty beside NAME-01, NAME-02, ... under --separate-threads)?
	 * 1 yes (open_path then gets @p path), 0 no. Must not fail. Optional. */
	int (*sniff_empty)(const char *path);
	/* Open a path (file or directory) that sniffed as this format. */
	int (*open_path)(void **impl, const char *path, const profdb_options *opts);
	/* Open caller buffers (all belong to this format). */
	int (*open_inputs)(void **impl, const profdb_input *in, size_t n,
	                   const profdb_options *opts);
	void (*close)(void *impl);

	/* ---- description ---- */
	int (*about)(const void *impl, profdb_about *out);
	int (*counts)(const void *impl, profdb_counts *out);
	/* counts() from what the format's headers declare, reading no stored
	 * value or sample (profdb_get_header_counts); -1 for a count they do
	 * not give. Optional: counts(). */
	int (*header_counts)(const void *impl, profdb_counts *out);

	/* ---- metrics ---- */
	int64_t (*metric_count)(const void *impl);
	int (*metric_at)(const void *impl, uint32_t index, profdb_metric *out);
	int (*metric_get)(const void *impl, uint32_t id, profdb_metric *out); /* optional */
	/* profdb_metric_has_values() for a metric id the backend has checked,
	 * when the format knows it without the common pass over every stored
	 * value (Callgrind's totals). 1, 0, < 0; -ENOTSUP: do the pass.
	 * Optional. */
	int (*metric_has_values)(const void *impl, uint32_t id);
	/* The metric whose stored value at a context counts the calls into it
	 * (Cube's "visits"), for call edges and converters. 1 and *id, 0 when
	 * the input has none. Optional: none. */
	int (*call_count_metric)(const void *impl, uint32_t *id);

	/* ---- contexts ---- */
	int64_t (*context_count)(const void *impl);
	int (*context_root)(const void *impl, uint32_t *id);
	int (*context_get)(const void *impl, uint32_t id, profdb_context *out);
	/* Whether @p id is a context, as context_get would answer it (0 or
	 * -ENOENT with the message set), without what context_get builds to
	 * describe one. Optional: context_get is asked. */
	int (*context_known)(const void *impl, uint32_t id);

	/* ---- profiles ---- */
	int64_t (*profile_count)(const void *impl);
	int (*profile_get)(const void *impl, uint32_t index, profdb_profile *out);
	int (*profile_identity)(const void *impl, uint32_t index, uint32_t i,
	                        profdb_str *kind, uint64_t *value);

	/* The bytes profile @p index's stored values take in the input, when
	 * the format knows it without reading them (HPCToolkit 4.0's profile
	 * table), for dividing work. 0, -ENOTSUP, < 0. Optional. */
	int (*profile_bytes)(const void *impl, uint32_t index, uint64_t *bytes);

	/* ---- values ---- */
	int (*value)(const void *impl, uint32_t p, uint32_t c, uint32_t m, profdb_number *out);
	/* inclusive != 0: inclusive, else exclusive. Optional. */
	int (*scoped)(const void *impl, uint32_t p, uint32_t c, uint32_t m, int inclusive,
	              profdb_number *out);
	/* What scoped() answers for (profiles[j], c, m, inclusive), for every
	 * context id c below context_count and the np profiles at once, bit
	 * for bit: the number into out[c * np + j] (0 where scoped() says
	 * nothing), found[c * np + j] = 1 where scoped() returns 1. For a
	 * format that computes a scope along the tree (the views,
	 * lib/analysis/tree-ctx.c, then need one pass instead of one per
	 * context; so do the call edges' costs, lib/analysis/edges.c). Only
	 * for a backend whose scoped() answers f64 numbers: the callers hand
	 * these out as f64. Optional; on any error the caller falls back to
	 * scoped(). */
	int (*scoped_all)(const void *impl, uint32_t m, int inclusive, const uint32_t *profiles,
	                  size_t np, double *out, uint8_t *found);
	/* Cursor: begin checks a SCAN_CONTEXT key and may set state; next
	 * returns 1/0/<0. A SCAN_CONTEXT scan visits the profiles that are
	 * not summary profiles (profdb_profile.is_summary), only. */
	int (*cursor_begin)(const void *impl, profdb__cursor *cur);
	int (*cursor_next)(const void *impl, profdb__cursor *cur, profdb_entry *out);
	void (*cursor_free)(const void *impl, profdb__cursor *cur); /* optional */
	/* Up to @p n next entries at once (profdb_values_next_block), every
	 * field of each set (reserved ones zero): the count, 0 at the end, or
	 * < 0. Entries before an error are returned first, the error on the
	 * next call. Optional: else cursor_next one at a time. */
	int64_t (*cursor_block)(const void *impl, profdb__cursor *cur, profdb_entry *out,
	                        size_t n);

	/* ---- traces (all optional) ---- */
	int64_t (*trace_length)(const void *impl, uint32_t profile);
	int (*trace_at)(const void *impl, uint32_t profile, uint64_t i, profdb_sample *out);
	int (*trace_seek)(const void *impl, uint32_t profile, uint64_t t, uint64_t *index);

	/* ---- views (all optional) ---- */
	/* profdb_profile_view / profdb_context_view / profdb_trace_view
	 * (include/profdb/query.h gives the record layout each must have). A
	 * backend fills the views when it can point them into its input
	 * (zero-copy) or into memory it keeps until close, and returns 0; it
	 * returns PROFDB__VIEW_FALLBACK (or leaves the entry NULL) to have
	 * lib/query materialise them from the cursor and trace_at. The index
	 * and id are already checked against the counts. */
	int (*profile_view)(const void *impl, uint32_t profile, profdb_view *index,
	                    profdb_view *values);
	int (*context_view)(const void *impl, uint32_t context, profdb_view *index,
	                    profdb_view *values);
	int (*trace_view)(const void *impl, uint32_t profile, profdb_view *out);

	/* ---- what `profdb info` reports (optional) ---- */
	/* The name of file @p index the handle read, relative to the opened
	 * folder (for an opened file: to its folder); -ENOENT past the last.
	 * Absent: every file of the folder, or the file opened. */
	int (*file_name)(const void *impl, size_t index, profdb_str *out);
	/* The format's whole validation: every value read, files compared
	 * with each other. Absent: -ENOTSUP. */
	int (*check)(const void *impl);

	/* ---- a format's own records, for analyses and writers (optional) ---- */
	/* The statistics a summary profile stores (hpcprof's summary records),
	 * for profdb_summary_check_new(): at most @p cap of them into @p out, in
	 * the format's order, those whose scope has no metric id left out.
	 * Returns how many there are, or < 0. The strings live until close. */
	int64_t (*summary_stats)(const void *impl, profdb__summary_stat *out, size_t cap);
	/* Metric id number @p i of quantity @p quantity (a
	 * profdb__summary_stat.quantity), over all its scopes: 0, -ENOENT past
	 * the last, < 0. */
	int (*summary_scope)(const void *impl, uint32_t quantity, uint32_t i, uint32_t *id);
	/* The format's own records of a call graph (Callgrind: cost lines,
	 * call sites and jumps), for the writer of the same format
	 * (lib/convert/cg-native.c) to keep them; see profdb__native_table. */
	const profdb__native_table *native_records;
	/* The format stores a call graph of functions (Callgrind's calls=
	 * lines), not call paths: its views, call edges and function rankings
	 * are built from that graph (lib/analysis/tree-cg.c, edges.c,
	 * graph.c) and its Callgrind output from its own records
	 * (native_records, lib/convert/cg-native.c). NULL: the format stores
	 * call paths (a context tree). */
	const profdb__graph_table *graph;

	/* ---- the format's own handle (optional) ---- */
	/* For profdb_get_hpctk/cube/cg when impl is a wrapper around the
	 * format's handle (lazy tables of the common model); NULL means impl
	 * itself is that handle. */
	const void *(*native)(const void *impl);
} profdb__backend;

/* A view entry's answer "materialise it for me" (see profile_view). */
#define PROFDB__VIEW_FALLBACK 1

/* The backends, defined in lib/<format>/query.c. */
extern const profdb__backend profdb__hpctk4_backend;
extern const profdb__backend profdb__cube_backend;
extern const profdb__backend profdb__cg_backend;
extern const profdb__backend profdb__hpctkpre_backend;
extern const profdb__backend profdb__hpcrun_backend;

/* A view of a NUL-terminated string ({"", 0} for NULL). */
static inline profdb_str profdb__str(const char *s)
{
	profdb_str r = {s ? s : "", 0};
	while (r.ptr[r.len])
		r.len++;
	return r;
}

/* Context @p id with nothing known about it yet, where a backend's
 * context_get starts: every field zero, no parent, child or sibling
 * (PROFDB_NONE), empty names. */
static inline void profdb__blank_context(profdb_context *out, uint32_t id)
{
	memset(out, 0, sizeof *out);
	out->id = id;
	out->parent = out->first_child = out->next_sibling = PROFDB_NONE;
	out->function = out->file = out->module = profdb__str(NULL);
}

#endif
