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
 * file. The tree is not even built. By inclusive value the walk ranks (a
 * group's inclusive value is profdb_group_inclusive's).
 * tests/top_fast_check.py compares the rows with the walk's (--focus 0
 * takes the walk) on every Callgrind sample. */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "top.h"

/* Function @p fn's cost of metric @p m in @p profile as a double, 0 when it
 * has none (*e: what the call returned). */
static double self_of(const profdb *db, uint32_t fn, uint32_t profile, uint32_t m, int *e)
{
	profdb_number x;
	*e = profdb_graph_exclusive(db, profile, fn, m, &x);
	return *e > 0 ? profdb_number_to_double(x) : 0;
}

/* The exclusive values of every metric of function @p fn into k->tmp, as
 * report_value() computes them (@p one_profile: profile 0's are the
 * costs over every profile). 0 or < 0. */
static int fn_values(ranking *k, uint32_t fn, int one_profile)
{
	const profdb *db = k->rep.db;
	int e = 0;
	for (size_t m = 0; m < k->rep.n && e >= 0; m++) {
		const report_metric *rm = &k->rep.m[m];
		uint32_t ev = rm->metric.id;
		if (rm->mode == REPORT_ONE) {
			double v = self_of(db, fn, one_profile ? PROFDB_NONE : rm->profile, ev, &e);
			k->tmp[m] = e > 0 ? v * rm->scale : 0;
			continue;
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
		k->tmp[m] = acc * rm->scale;
	}
	return e < 0 ? e : 0;
}

/* Can rank_graph() stand for the walk? */
static int graph_ranks(const ranking *k, int64_t nf)
{
	profdb_number x;
	if (nf < 0 || k->by != BY_FUNCTION || k->o.focus >= 0 || k->o.inclusive)
		return 0;
	for (size_t m = 0; m < k->rep.n; m++) {
		const report_metric *rm = &k->rep.m[m];
		if ((rm->mode != REPORT_ONE && rm->mode != REPORT_SEL) || !rm->has_exc ||
		    (nf > 0 && profdb_graph_exclusive(k->rep.db, PROFDB_NONE, 0,
		                                          (uint32_t)rm->metric.id, &x) < 0))
			return 0;
		if (rm->mode == REPORT_ONE && rm->profile >= profdb_profile_count(k->rep.db))
			return 0;
	}
	return 1;
}

/* The names lie all over the mapped text (tens of MB): each is a cache
 * and TLB miss that stalls the fold. Asking for the name of a function
 * this far ahead, both cache lines its first 64 bytes may span, lets
 * those misses overlap (10 ms -> 3 ms on 80,000 functions). */
#define NAME_PREFETCH 16

static void prefetch_name(const profdb *db, int64_t fn, int64_t nf)
{
#if defined(__GNUC__) || defined(__clang__)
	profdb_graph_function ahead;
	if (fn < nf && profdb_graph_function_at(db, (uint32_t)fn, &ahead) == 0 && ahead.name.len) {
		__builtin_prefetch(ahead.name.ptr);
		__builtin_prefetch(ahead.name.ptr + (ahead.name.len < 64 ? ahead.name.len - 1 : 63));
	}
#else
	(void)db, (void)fn, (void)nf;
#endif
}

/* The walk must rank: a nameless function (the walk labels it), a tree
 * that is not the root and the functions. */
#define NOT_HERE (-2)

/* The group of function @p f: its index, TOP_OOM, or NOT_HERE (nameless). */
static ptrdiff_t function_group(ranking *k, const profdb_graph_function *f)
{
	char local[1024];
	int created;
	if (!f->name.len)
		return NOT_HERE;
	profdb_str name = profdb_function_fold(k->rep.db, f->name);
	/* a key is never cut: a long name gets a buffer of its size */
	size_t need = name.len + f->module.len + 8;
	char *key = need <= sizeof local ? local : malloc(need);
	if (!key)
		return TOP_OOM;
	int lasting = names_function_unchanged(name, need);
	if (!lasting) {
		names_key_of(name, f->module, key, need);
		name = str_of(key);
	}
	ptrdiff_t g = group_lookup(&k->groups, name.ptr, name.len, lasting, &created);
	if (g >= 0 && created && filter_any(&k->o.names)) {
		if (lasting) {   /* the view, NUL-terminated for the filter */
			memcpy(key, name.ptr, name.len);
			key[name.len] = '\0';
		}
		k->groups.rows[g].pass = filter_pass(&k->o.names, key);
	}
	if (key != local)
		free(key);
	return g < 0 ? TOP_OOM : g;
}

/* The groups of every function. 1 (done), 0 (no call graph, an option the
 * walk serves, a nameless function: the walk takes over; nothing kept) or
 * < 0. */
int rank_graph(ranking *k)
{
	const profdb *db = k->rep.db;
	int64_t nf = profdb_graph_function_count(db);
	if (!graph_ranks(k, nf))
		return 0;
	int one_profile = profdb_profile_count(db) == 1, r = 0;
	for (int64_t fn = 0; r == 0 && fn < nf; fn++) {
		profdb_graph_function f;
		if ((r = profdb_graph_function_at(db, (uint32_t)fn, &f)) < 0)
			break;
		prefetch_name(db, fn + NAME_PREFETCH, nf);
		ptrdiff_t g = function_group(k, &f);
		if (g < 0) {
			r = (int)g;
			break;
		}
		if ((r = fn_values(k, (uint32_t)fn, one_profile)) == 0)
			group_add(&k->groups, (size_t)g, &k->rep, k->tmp, f.context);
	}
	if (r == NOT_HERE) {
		group_free(&k->groups);
		k->groups.nv = k->rep.n;
		return 0;
	}
	return r < 0 ? r : 1;
}
