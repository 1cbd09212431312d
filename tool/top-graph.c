/* `profdb top` by function on a format that stores a call graph of
 * functions (Callgrind; rank_graph, top.h).
 *
 * cmd-top.c's walk asks for every context of the tree in tree order and
 * for each value through the common interface (a search per function and
 * profile), and builds each key with snprintf: on 80,000 functions mostly
 * cache misses. A call graph's functions are a table
 * (profdb_graph_function_at: each function one FUNCTION context, all below
 * the root) whose self costs, the functions' exclusive values, are read
 * by index (profdb_graph_exclusive, over every profile when there is
 * one); and a group's contexts add up in any order to the same double
 * (integer costs, exact while a sum stays below 2^53, far above any real
 * count). So functions are taken in table order, and a name that
 * names_function() would not rewrite is its own key, a view into the
 * file; the function's file and module, strings of the reader's name
 * table, complete its identity (group_ident: a name in two objects is
 * two groups). The tree is not even built. By inclusive value the walk
 * ranks (a group's inclusive value is profdb_group_inclusive's).
 * On a large table the functions are cut into consecutive parts, one per
 * thread (PROFDB_THREADS, else one per core), each grouped into a table of
 * its own; the parts' tables are then merged in order, so every group has
 * the name, members, first context and (when the sums are exact in any
 * order) the values the single pass gives.
 * tests/top_fast_check.py compares the rows with the walk's (--focus 0
 * takes the walk) on every Callgrind sample and on generated ones, on
 * several thread counts. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "tool.h"
#include "top.h"

/* Function @p fn's cost of metric @p m in @p profile as a double, 0 when it
 * has none (*e: what the call returned). */
static double self_of(const profdb *db, uint32_t fn, uint32_t profile, uint32_t m, int *e)
{
	profdb_number x;
	*e = profdb_graph_exclusive(db, profile, fn, m, &x);
	return *e > 0 ? profdb_number_to_double(x) : 0;
}

int graph_value(const ranking *k, uint32_t fn, size_t m, int one_profile, double *out)
{
	const profdb *db = k->rep.db;
	const report_metric *rm = &k->rep.m[m];
	uint32_t ev = rm->metric.id;
	int e = 0;
	if (rm->mode == REPORT_ONE) {
		double v = self_of(db, fn, one_profile ? PROFDB_NONE : rm->profile, ev, &e);
		*out = e > 0 ? v * rm->scale : 0;
		return e < 0 ? e : 0;
	}
	double acc = 0;   /* REPORT_SEL: the profiles with a value, in order */
	int any = 0;
	for (size_t i = 0; i < k->rep.n_sel && e >= 0; i++) {
		double v = self_of(db, fn, one_profile ? PROFDB_NONE : k->rep.sel[i], ev, &e);
		if (e > 0) {
			acc = any ? acc + v : v;
			any = 1;
		}
	}
	*out = acc * rm->scale;
	return e < 0 ? e : 0;
}

/* The exclusive values of every metric of function @p fn into @p out. 0
 * or < 0. */
static int fn_values(const ranking *k, uint32_t fn, int one_profile, double *out)
{
	int r = 0;
	for (size_t m = 0; m < k->rep.n && r == 0; m++)
		r = graph_value(k, fn, m, one_profile, &out[m]);
	return r;
}

int graph_metric_ok(const ranking *k, size_t m, int64_t nf)
{
	const report_metric *rm = &k->rep.m[m];
	profdb_number x;
	if ((rm->mode != REPORT_ONE && rm->mode != REPORT_SEL) || !rm->has_exc ||
	    (nf > 0 && profdb_graph_exclusive(k->rep.db, PROFDB_NONE, 0, (uint32_t)rm->metric.id,
	                                      &x) < 0))
		return 0;
	return rm->mode != REPORT_ONE || rm->profile < profdb_profile_count(k->rep.db);
}

/* Can rank_graph() stand for the walk? */
static int graph_ranks(const ranking *k, int64_t nf)
{
	if (nf < 0 || k->by != BY_FUNCTION || k->o.focus >= 0 || k->o.inclusive)
		return 0;
	for (size_t m = 0; m < k->rep.n; m++)
		if (!graph_metric_ok(k, m, nf))
			return 0;
	return 1;
}

/* The names lie all over the mapped text (tens of MB): each is a cache
 * and TLB miss that stalls the fold. The functions are read this far
 * ahead of their grouping, and each one's name asked for as it is read,
 * both cache lines its first 64 bytes may span, so those misses overlap
 * (10 ms -> 3 ms on 80,000 functions). */
#define NAME_PREFETCH 16

/* Functions read ahead: function fn at [fn % NAME_PREFETCH], with what
 * profdb_graph_function_at() returned. */
typedef struct ahead {
	profdb_graph_function f[NAME_PREFETCH];
	int r[NAME_PREFETCH];
} ahead;

/* Function @p fn (below @p nf) into @p a, its name asked for. */
static void read_ahead(const profdb *db, int64_t fn, int64_t nf, ahead *a)
{
	size_t i = (size_t)(fn % NAME_PREFETCH);
	if (fn >= nf)
		return;
	a->r[i] = profdb_graph_function_at(db, (uint32_t)fn, &a->f[i]);
#if defined(__GNUC__) || defined(__clang__)
	const profdb_str *name = &a->f[i].name;
	if (a->r[i] == 0 && name->len) {
		__builtin_prefetch(name->ptr);
		__builtin_prefetch(name->ptr + (name->len < 64 ? name->len - 1 : 63));
	}
#endif
}

/* The walk must rank: a nameless function (the walk labels it), a tree
 * that is not the root and the functions. */
#define NOT_HERE (-2)
/* Parts whose sums another order could round otherwise: one part must
 * rank. */
#define INEXACT (-0x7ffe)

/* The key, file, module and group of the function before, when the key
 * was a view into the file (p NULL: none). The functions come in the
 * order the text first names them, and a third of them (py_full_sc5) fold
 * to the same name as the one before: a comparison with its key and
 * place, in cache, finds their group without hashing and probing the
 * table. */
typedef struct last_key {
	const char *p;
	size_t len;
	profdb_str file, module;
	ptrdiff_t g;
} last_key;

/* The group of function @p f in @p t: its index, TOOL_OOM, or NOT_HERE
 * (nameless). */
static ptrdiff_t function_group(const ranking *k, group_table *t, const profdb_graph_function *f,
                                last_key *last)
{
	char local[1024];
	int created;
	if (!f->name.len)
		return NOT_HERE;
	profdb_str name = profdb_function_fold(k->rep.db, f->name);
	/* (the same bytes: a view too, names_function_unchanged() is about the
	 * bytes alone) */
	if (last->p && name.len == last->len && memcmp(name.ptr, last->p, name.len) == 0 &&
	    same_str(f->file, last->file) && same_str(f->module, last->module))
		return last->g;
	/* a key is never cut: a long name gets a buffer of its size */
	size_t need = name.len + f->module.len + 8;
	char *key = need <= sizeof local ? local : malloc(need);
	if (!key)
		return TOOL_OOM;
	group_ident id = {{NULL, 0}, f->file, f->module, 1, 0};
	int lasting = names_function_unchanged(name, need);
	if (!lasting) {
		size_t len = names_function(name, f->module, key, need);
		if (len != name.len || memcmp(key, name.ptr, name.len) != 0)
			id.fold = name;
		name = (profdb_str){key, len};
	}
	ptrdiff_t g = group_lookup(t, name.ptr, name.len, &id, lasting, &created);
	if (g >= 0 && created && filter_any(&k->o.names)) {
		if (lasting) {   /* the view, NUL-terminated for the filter */
			memcpy(key, name.ptr, name.len);
			key[name.len] = '\0';
		}
		names_show(key, name.len);   /* (the table has its copy) */
		t->rows[g].pass = filter_pass(&k->o.names, key);
	}
	if (key != local)
		free(key);
	if (g < 0)
		return TOOL_OOM;
	*last = lasting ? (last_key){name.ptr, name.len, f->file, f->module, g}
	                : (last_key){NULL, 0, {NULL, 0}, {NULL, 0}, 0};
	return g;
}

/* Functions [from, to) grouped into a table of their own. */
typedef struct part {
	const ranking *k;
	int64_t from, to;
	int one_profile;
	group_table groups;
	int exact;            /* every value whole() */
	int r;                /* 0, NOT_HERE or < 0 */
} part;

/* Is @p v an integer from 0 to 2^52? Sums of such values are exact in
 * any order while the whole sum stays that small (merge_parts checks). */
static int whole(double v)
{
	return v >= 0 && v <= 0x1p52 && v == (double)(int64_t)v;
}

/* Values of this many metrics a function are held on the stack. */
#define TMP_LOCAL 16

static void *rank_part(void *arg)
{
	part *p = arg;
	const ranking *k = p->k;
	const profdb *db = k->rep.db;
	int64_t nf = profdb_graph_function_count(db);
	int r = 0;
	ahead a;
	last_key last = {NULL, 0, {NULL, 0}, {NULL, 0}, 0};
	/* What changes with every function is kept on this thread's stack
	 * (and a long row of values in this thread's own allocation): the
	 * parts lie side by side, and memory that a part wrote next to its
	 * neighbour's table or values would take their cache line from the
	 * other thread at every function. */
	group_table groups = p->groups;
	double local[TMP_LOCAL];
	double *tmp = k->rep.n <= TMP_LOCAL ? local : malloc(k->rep.n * sizeof *tmp);
	int exact = 1, one_profile = p->one_profile;
	if (!tmp) {
		p->r = TOOL_OOM;
		return NULL;
	}
	for (int64_t fn = p->from; fn < p->from + NAME_PREFETCH; fn++)
		read_ahead(db, fn, nf, &a);
	for (int64_t fn = p->from; r == 0 && fn < p->to; fn++) {
		size_t i = (size_t)(fn % NAME_PREFETCH);
		profdb_graph_function f = a.f[i];
		if ((r = a.r[i]) < 0)
			break;
		read_ahead(db, fn + NAME_PREFETCH, nf, &a);
		ptrdiff_t g = function_group(k, &groups, &f, &last);
		if (g < 0) {
			r = (int)g;
			break;
		}
		if ((r = fn_values(k, (uint32_t)fn, one_profile, tmp)) == 0) {
			group_add(&groups, (size_t)g, &k->rep, tmp, f.context);
			for (size_t m = 0; m < k->rep.n; m++)
				exact &= whole(tmp[m]);
		}
	}
	if (tmp != local)
		free(tmp);
	p->groups = groups;
	p->exact = exact;
	p->r = r;
	return NULL;
}

/* Parts of at least this many functions: below, a thread costs more than
 * it saves (unless PROFDB_THREADS asks for threads). */
#define PART_MIN 16384

/* How many parts for @p nf functions. */
static unsigned parts_for(int64_t nf)
{
	const char *env = getenv("PROFDB_THREADS");
	uint32_t t = 0;
	if (nf < 2)
		return 1;
	if (env && *env && parse_u32(env, &t) == 0 && t > 0)
		return (int64_t)t > nf ? (unsigned)nf : t > 64 ? 64 : t;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t by_size = nf / PART_MIN;
	int64_t n = cores < 1 ? 1 : cores > 64 ? 64 : cores;
	return (unsigned)(n < by_size ? n : by_size < 1 ? 1 : by_size);
}

/* The groups of parts 1.. into part 0's, in order: 0, INEXACT or
 * TOOL_OOM. */
static int merge_parts(part *ps, unsigned n, const report *rep)
{
	group_table *t = &ps[0].groups;
	int exact = 1;
	for (unsigned i = 0; i < n; i++)
		exact &= ps[i].exact;
	for (unsigned i = 1; i < n; i++) {
		group_table *from = &ps[i].groups;
		for (size_t j = 0; j < from->n; j++) {
			const row *fr = &from->rows[j];
			int created;
			/* (a key from->owned holds stays alive: moved below) */
			ptrdiff_t g = group_lookup_hashed(t, fr->name, fr->name_len, from->hash[j],
			                                  &from->ident[j], 1, &created);
			if (g < 0)
				return TOOL_OOM;
			if (created)
				t->rows[g].pass = fr->pass;
			t->ident[g].namesake |= from->ident[j].namesake;
			group_take(t, (size_t)g, rep, from, j);
		}
		if (group_adopt_keys(t, from) < 0)
			return TOOL_OOM;
	}
	for (size_t g = 0; exact && g < t->n; g++)
		for (size_t m = 0; m < t->nv; m++)
			exact &= whole(t->vals[g * t->nv + m]);
	return exact ? 0 : INEXACT;
}

/* Functions ranked in @p n parts into k->groups: 0, NOT_HERE, INEXACT or
 * < 0 (what the first part that stopped met: where one pass stops). */
static int rank_parts(ranking *k, int64_t nf, unsigned n)
{
	part *ps = calloc(n, sizeof *ps);
	pthread_t *th = calloc(n, sizeof *th);
	unsigned *started = calloc(n, sizeof *started);
	int r = ps && th && started ? 0 : TOOL_OOM;
	int one_profile = profdb_profile_count(k->rep.db) == 1;
	for (unsigned i = 0; r == 0 && i < n; i++) {
		ps[i] = (part){k, nf * i / n, nf * (i + 1) / n, one_profile, {0}, 1, 0};
		ps[i].groups.nv = k->rep.n;
	}
	/* part 0 on this thread; a part whose thread cannot start too */
	for (unsigned i = 1; r == 0 && i < n; i++)
		started[i] = pthread_create(&th[i], NULL, rank_part, &ps[i]) == 0;
	if (r == 0)
		rank_part(&ps[0]);
	for (unsigned i = 1; r == 0 && i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			rank_part(&ps[i]);
	}
	for (unsigned i = 0; r == 0 && i < n; i++)
		r = ps[i].r;
	if (r == 0)
		r = n > 1 ? merge_parts(ps, n, &k->rep) : 0;
	if (r == 0) {
		group_free(&k->groups);
		k->groups = ps[0].groups;
		ps[0].groups = (group_table){0};
	}
	for (unsigned i = 0; ps && i < n; i++)
		group_free(&ps[i].groups);
	free(ps);
	free(th);
	free(started);
	return r;
}

/* The groups of every function. 1 (done), 0 (no call graph, an option the
 * walk serves, a nameless function: the walk takes over; nothing kept) or
 * < 0. */
int rank_graph(ranking *k)
{
	int64_t nf = profdb_graph_function_count(k->rep.db);
	if (!graph_ranks(k, nf))
		return 0;
	int r = rank_parts(k, nf, parts_for(nf));
	if (r == INEXACT)
		r = rank_parts(k, nf, 1);
	if (r == NOT_HERE) {
		group_free(&k->groups);
		k->groups.nv = k->rep.n;
		return 0;
	}
	return r < 0 ? r : 1;
}
