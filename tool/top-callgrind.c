/* `profdb top` by function on a Callgrind profile (rank_callgrind, top.h).
 *
 * cmd-top.c's walk asks for every context of the tree in tree order and
 * for each value through the common interface (a binary search per
 * function and profile), and builds each key with snprintf: on 80,000
 * functions mostly cache misses. Callgrind's function contexts are its functions, id =
 * function index + 1 (doc/model.md, "Callgrind"), all below the root; the
 * exclusive value is the self cost (PROFDB_CG_ALL's row when there is one
 * profile); and a group's
 * contexts add up in any order to the same double (integer costs, exact
 * while a sum stays below 2^53, far above any real count). So functions
 * are taken in index order, straight from the arrays, and a name that
 * names_function() would not rewrite is its own key, a view into the file.
 * The tree is not even built. By inclusive value the walk ranks (a
 * group's inclusive value is profdb_group_inclusive's).
 * tests/top-fast-check.sh compares the rows with the walk's (--focus 0
 * takes the walk) on every Callgrind sample. */
#include <stdlib.h>
#include <string.h>

#include <profdb/callgrind.h>

#include "names.h"
#include "top.h"

/* The exclusive values of every metric of function @p fn into k->tmp, as
 * report_value() computes them (@p all: the costs over every profile,
 * which are profile 0's when @p one_profile). 0 or < 0. */
static int cg_values(ranking *k, const profdb_cg *cg, uint32_t fn, const uint64_t *all,
                     int one_profile)
{
	int (*get)(const profdb_cg *, uint32_t, uint32_t, const uint64_t **) = profdb_cg_self;
	int e = 0;
	for (size_t m = 0; m < k->rep.n && e >= 0; m++) {
		const report_metric *rm = &k->rep.m[m];
		const uint64_t *c = all;
		uint32_t ev = rm->metric.id;
		if (rm->mode == REPORT_ONE) {
			if (!one_profile)
				e = get(cg, rm->profile, fn, &c);
			k->tmp[m] = e >= 0 && c[ev] ? (double)c[ev] * rm->scale : 0;
			continue;
		}
		double acc = 0;   /* REPORT_SEL: the profiles with a value, in order */
		int any = 0;
		for (size_t i = 0; i < k->rep.n_sel && e >= 0; i++) {
			if (!one_profile)
				e = get(cg, k->rep.sel[i], fn, &c);
			if (e >= 0 && c[ev]) {
				acc = any ? acc + (double)c[ev] : (double)c[ev];
				any = 1;
			}
		}
		k->tmp[m] = acc * rm->scale;
	}
	return e < 0 ? e : 0;
}

/* Can rank_callgrind() stand for the walk? */
static int callgrind_ranks(const ranking *k, const profdb_cg *cg)
{
	if (!cg || k->by != BY_FUNCTION || k->o.focus >= 0 || k->o.inclusive ||
	    k->rep.format != PROFDB_FORMAT_CALLGRIND)
		return 0;
	for (size_t m = 0; m < k->rep.n; m++) {
		const report_metric *rm = &k->rep.m[m];
		if ((rm->mode != REPORT_ONE && rm->mode != REPORT_SEL) ||
		    !rm->has_exc ||
		    rm->metric.id >= (uint64_t)profdb_cg_event_count(cg))
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

static void prefetch_name(const profdb_cg *cg, int64_t fn, int64_t nf)
{
#if defined(__GNUC__) || defined(__clang__)
	profdb_cg_function ahead;
	if (fn < nf && profdb_cg_function_get(cg, (uint32_t)fn, &ahead) == 0 && ahead.name.len) {
		__builtin_prefetch(ahead.name.ptr);
		__builtin_prefetch(ahead.name.ptr + (ahead.name.len < 64 ? ahead.name.len - 1 : 63));
	}
#else
	(void)cg, (void)fn, (void)nf;
#endif
}

/* The walk must rank: a nameless function (the walk labels it), a tree
 * that is not the root and the functions. */
#define NOT_HERE (-2)

/* The group of function @p f: its index, TOP_OOM, or NOT_HERE (nameless). */
static ptrdiff_t function_group(ranking *k, const profdb_cg_function *f)
{
	char local[1024];
	int created;
	if (!f->name.len)
		return NOT_HERE;
	profdb_str name = profdb_function_fold(k->rep.db, f->name);
	/* a key is never cut: a long name gets a buffer of its size */
	size_t need = name.len + f->object.len + 8;
	char *key = need <= sizeof local ? local : malloc(need);
	if (!key)
		return TOP_OOM;
	int lasting = names_function_unchanged(name, need);
	if (!lasting) {
		names_key_of(name, f->object, key, need);
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

/* The groups of every function. 1 (done), 0 (a nameless function: the
 * walk takes over; nothing kept) or < 0. */
int rank_callgrind(ranking *k)
{
	const profdb_cg *cg = profdb_get_cg(k->rep.db);
	if (!callgrind_ranks(k, cg))
		return 0;
	int64_t nf = profdb_cg_function_count(cg);
	int one_profile = profdb_profile_count(k->rep.db) == 1, r = 0;
	for (int64_t fn = 0; r == 0 && fn < nf; fn++) {
		profdb_cg_function f;
		if ((r = profdb_cg_function_get(cg, (uint32_t)fn, &f)) < 0)
			break;
		prefetch_name(cg, fn + NAME_PREFETCH, nf);
		ptrdiff_t g = function_group(k, &f);
		if (g < 0) {
			r = (int)g;
			break;
		}
		if ((r = cg_values(k, cg, (uint32_t)fn, f.self, one_profile)) == 0)
			group_add(&k->groups, (size_t)g, &k->rep, k->tmp, (uint32_t)fn + 1);
	}
	if (r == NOT_HERE) {
		group_free(&k->groups);
		k->groups.nv = k->rep.n;
		return 0;
	}
	return r < 0 ? r : 1;
}
