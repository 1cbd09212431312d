/* `profdb top`'s rows and groups (top-groups.c), the ranking state the
 * command (cmd-top.c) and its call-graph path (top-graph.c) share. */
#ifndef PROFDB_TOOL_TOP_H
#define PROFDB_TOOL_TOP_H

#include <stddef.h>
#include <string.h>

#include "report.h"

typedef struct row {
	double key;         /* v[0], kept here for sorting without a pointer chase */
	double *v;          /* one value per metric: a context row's own (malloc'ed),
	                       a group's in the group table's pool */
	uint32_t ctx;       /* the context; a group's first context */
	uint32_t n_ctx;     /* contexts in a group (1 for a context row) */
	const char *name;   /* group key (function, file, module), not NUL-terminated,
	                       in the group table or the mapped file; NULL for contexts */
	size_t name_len;
	int pass;           /* a group's name passes --match/--exclude */
	uint32_t label;     /* a context row: its row_label (index + 1), or 0 */
} row;

/* A line or instruction context row: what its name is made of, kept from
 * the walk (the strings stay valid until the handle closes), so that
 * printing rows in value order reads no context again (on Callgrind that
 * would decode a function per row). 8 bytes a row: the text and what
 * rarely changes from row to row are a label_text, shared. */
typedef struct row_label {
	uint32_t text;      /* index + 1 into the ranking's texts; 0: no label (the
	                       printer reads the context again) */
	uint32_t num_lo;    /* the low 32 bits of the line or the offset */
} row_label;

typedef struct label_text {
	const char *ptr;    /* line: the file; instruction: the module (with an
	                       offset), else the function */
	uint32_t len;       /* (a longer text gets no label) */
	unsigned char type; /* PROFDB_CTX_LINE or PROFDB_CTX_INSTRUCTION */
	unsigned char has_offset;
	uint32_t num_hi;    /* the high 32 bits of the line or the offset */
} label_text;

/* The label texts, each once: a hash of (text, type, high bits). */
typedef struct label_texts {
	label_text *t;
	size_t n, cap;
	uint32_t *slots;    /* index + 1 into t, 0 empty */
	size_t nslots;
	uint32_t last;      /* the text found last (index + 1): the lines of a
	                       function mostly share it */
} label_texts;

/* The index + 1 of text @p x in @p s, added if new; 0 when out of memory. */
uint32_t label_text_find(label_texts *s, const label_text *x);
void label_texts_free(label_texts *s);

/* Rows by descending v[0], then by name (byte order), then by context. */
int cmp_row(const void *a, const void *b);
/* @p rows in cmp_row's order (context rows without a call per comparison). */
void sort_rows(row *rows, size_t n);

/* A context row as sorting needs it: cmp_row's order is the ascending
 * order of (key, ctx). */
typedef struct sort_key {
	uint64_t key;    /* descending_bits() of the value */
	uint32_t ctx, at;
} sort_key;

/* The bits of @p v that sort as -v does (-0 as 0; a NaN keeps its bits). */
uint64_t descending_bits(double v);
/* The value whose descending_bits() are @p u. */
double from_descending_bits(uint64_t u);
/* @p k by ascending (key, ctx), in place, by a radix sort; with a NaN
 * value, which has no place in that order, by qsort() with cmp_row's rule
 * (as sort_rows does rows). */
void sort_keys(sort_key *k, size_t n);

/* Offer @p r to the heap rows[0..*n) of at most @p cap rows, the worst
 * kept row at its root. @return the values of the row that did not make it
 * (for a context row to free), or NULL. */
double *heap_offer(row *rows, size_t *n, size_t cap, row r);

/* ---- groups: an open-addressing table of names ---------------------------
 * A key is a byte string: a view into the mapped file when the name needs
 * no rewriting (most Callgrind functions: rank_graph), else a copy the
 * table owns. By function a group is a function's identity, (module, file,
 * folded name) as profdb_function_identity() gives it: the key is the
 * name written for it (names_function, its bytes) and the rest is its
 * group_ident; functions whose keys print alike (names_show: keys equal
 * but for control bytes, or keys equal in other objects or files) are
 * groups of their own, namesakes (group_tell_namesakes names them apart).
 * Other groups have an empty identity: their key alone. The values live
 * in one pool, nv per group; the rows point into it once no group is
 * added any more (group_rows). */

/* A group's identity besides its key. The strings point into the
 * database (they live until it closes). */
typedef struct group_ident {
	profdb_str fold;        /* the folded name; {NULL, 0} when (and only when)
	                           the key is its bytes */
	profdb_str file, module;
	unsigned char function; /* a named function's (namesakes are named apart) */
	unsigned char namesake; /* another group has the same key */
} group_ident;

/* Is @p a the string @p b? Equal strings of a Callgrind reader's name
 * table are one string: the pointers mostly tell without the bytes. */
static inline int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.ptr == b.ptr || !a.len || memcmp(a.ptr, b.ptr, a.len) == 0);
}

typedef struct group_table {
	row *rows;          /* the groups, in first-seen order */
	group_ident *ident; /* per group */
	uint64_t *hash;     /* per group (of the key alone) */
	size_t n, cap;
	double *vals;       /* nv per group */
	size_t nv;
	uint32_t *slots;    /* index + 1 into rows, 0 empty */
	size_t nslots;
	char **owned;       /* the key copies */
	size_t n_owned, cap_owned;
} group_table;

/* The index of the group @p name (len bytes) of identity @p id (NULL: an
 * empty one), created (values 0, n_ctx 0) if new, with a copy of the key
 * unless @p lasting (the bytes stay valid while the table lives); -1 when
 * out of memory. *created tells a new group. A new group whose key prints
 * as another group's does is a namesake, and so is that one. t->nv
 * must be set before the first call. */
ptrdiff_t group_lookup(group_table *t, const char *name, size_t len, const group_ident *id,
                       int lasting, int *created);
/* group_lookup() for a key whose hash @p h a table of groups holds (the
 * same for the same key in every table). */
ptrdiff_t group_lookup_hashed(group_table *t, const char *name, size_t len, uint64_t h,
                              const group_ident *id, int lasting, int *created);
/* Every function group that is a namesake gets the key "name (file)
 * [module]" (names_function_where), so that the rows of one key are told
 * apart; done over every group, whatever is shown of them. A group keeps
 * its filter verdict (pass), made on its name. 0 or TOOL_OOM. */
int group_tell_namesakes(group_table *t);
/* Add the values @p v of context @p ctx to group @p i by the metrics' rules. */
void group_add(group_table *t, size_t i, const report *rep, const double *v, uint32_t ctx);
/* Group @p j of @p from joins group @p i of @p t: its members come after
 * those @p t holds (the first context stays @p t's, when it has one), its
 * values combined by the metrics' rules. Both tables have rep->n values a
 * group. */
void group_take(group_table *t, size_t i, const report *rep, const group_table *from, size_t j);
/* The key copies @p from owns are @p t's from now on (groups of @p t may
 * point at them). 0, or -1 when out of memory (nothing moved). */
int group_adopt_keys(group_table *t, group_table *from);
/* Context @p ctx is a member of group @p i, whose values
 * group_inclusive() gives. */
void group_member(group_table *t, size_t i, uint32_t ctx);
/* The inclusive values of every group by the library's rule
 * (profdb_group_inclusive: the call graph collapsed to the groups), for
 * each metric over the report's profiles; @p group_of has one entry per
 * context. 0 or < 0. */
int group_inclusive(group_table *t, const report *rep, const uint32_t *group_of, size_t n);
/* By function, inclusive: one more group per cycle of the groups' call
 * graph (profdb_group_cycles, KCachegrind's `<cycle N>`) carrying the
 * cycle's inclusive value; none on a calling-context tree. 0 or < 0. */
int group_cycles(group_table *t, const report *rep, const uint32_t *group_of, size_t n);
/* Can group_inclusive() give the report's columns? */
int group_inclusive_possible(const report *rep);
/* The rows point at their values: no group is added any more. */
void group_rows(group_table *t);
void group_free(group_table *t);

enum by { BY_FUNCTION, BY_CONTEXT, BY_FILE, BY_MODULE, BY_LINE, BY_LOOP, BY_COUNT };
/* The walk met a value that makes it start again (ranking.keep_every). */
#define TOP_AGAIN (-0x7ffe)

typedef struct ranking {
	report rep;
	report_opts o;
	enum by by;
	int unknown_lines;    /* --unknown-lines */
	/* By line, without --unknown-lines: the "???:0" rows hidden, as the
	 * rows are kept (the best `count` in a heap, or all), for the note
	 * that counts those --unknown-lines would show (hidden_shown) */
	sort_key *hidden;
	size_t n_hidden, cap_hidden;
	group_table groups;
	/* By function, inclusive: each context's group (PROFDB_NONE for none),
	 * the values then profdb_group_inclusive's */
	uint32_t *group_of;
	size_t n_contexts;
	int grouped;          /* the rows are the groups' (in the group table) */
	row *rows;            /* with a heap (-n N) or grouped */
	size_t nrows, cap;
	/* --min-percent over a total above 0: a row below it is not kept, as
	 * it could never be shown (cmd-top.c, percent_cuts) */
	int cut;
	/* --min-percent met a NaN value, which has no place in the order the
	 * cut relies on: every context row is kept, and cut after sorting */
	int keep_every;
	/* Without a heap (-n 0, or keep_every) every context row is kept,
	 * compact (millions of lines): 16 bytes to sort (keys, nrows of
	 * them), its label (labels[at]) and, with several metrics, its values
	 * (vals + at * rep.n; the first is the key's) */
	int all;
	sort_key *keys;
	double *vals;
	row_label *labels;    /* of the context rows: all: [at]; else a row's
	                         label (index + 1) */
	size_t nlabels, cap_labels;
	label_texts texts;
	double *tmp;          /* one value per metric */
	/* at each depth of the path: the function's group (index + 1, 0 for
	 * none), inside a function's own code, the file and module in force */
	uint32_t *stack;
	unsigned char *in_fn;
	profdb_str *file_at, *module_at;
	size_t stack_cap;
	const tool_walk *walk;   /* the walk under way (its node read ahead), or NULL */
} ranking;

/* cmd-top.c: context @p c of the walk, whose parent the path holds (its
 * state per depth pushed, then a row kept when it is one). 0 or < 0
 * (TOP_AGAIN: a NaN value under --min-percent). */
int ranking_visit(ranking *k, profdb_context *c);
/* The state of the path at context @p c's depth (its parent's pushed
 * before, unless @p c names its file and module and is no lexical child).
 * 0 or TOOL_OOM. */
int ranking_push_path(ranking *k, const profdb_context *c);
/* Sorted row @p i: k->rows[i], or made from the compact rows (the value
 * of a single metric in @p one). */
row ranking_row_at(const ranking *k, size_t i, double *one);

/* top-lines.c: does a row of value @p v end the rows shown (a 0, or one
 * below --min-percent)? */
int ranking_ends_shown(const ranking *k, double v);
/* Keep hidden row @p ctx of value @p v. 0 or TOOL_OOM. */
int hidden_keep(ranking *k, uint32_t ctx, double v);
/* How many of the hidden rows (sorted) the rows shown would hold with
 * them: the sorted rows and the hidden ones merged in their order, ended
 * as shown_rows() ends them. */
size_t hidden_shown(const ranking *k);
/* By line on a call graph (Callgrind): the functions whose lines can
 * rank, in decreasing order of self cost, the others never decoded. 1
 * (done), 0 (the walk must rank) or < 0 (TOP_AGAIN as the walk). */
int rank_lines(ranking *k);
/* top-graph.c: function @p fn's exclusive value of metric @p m as
 * report_value() computes it (@p one_profile: profile 0's are the costs
 * over every profile) into *out. 0 or < 0. */
int graph_value(const ranking *k, uint32_t fn, size_t m, int one_profile, double *out);
/* Can graph_value() give metric @p m of a graph of @p nf functions? */
int graph_metric_ok(const ranking *k, size_t m, int64_t nf);

/* By function, the functions of a call graph (Callgrind) straight from its
 * table (top-graph.c, profdb_graph_function_at): 1 (the groups are made),
 * 0 (the tree walk must do it: a format that stores call paths, another
 * option, a nameless function) or < 0. */
int rank_graph(ranking *k);

#endif
