/* `profdb top` by function on a Callgrind profile (rank_callgrind, top.h).
 *
 * cmd-top.c's walk asks for every context of the tree in tree order and
 * for each value through the common interface (a binary search per
 * function and profile), and builds each key with snprintf: on 80,000
 * functions mostly cache misses. Callgrind's function contexts are its functions, id =
 * function index + 1 (doc/model.md, "Callgrind"), all below the root; the
 * exclusive value is the self cost (PROFDB_CG_ALL's row when there is one
 * profile), the inclusive one profdb_cg_inclusive's; and a group's
 * contexts add up in any order to the same double (integer costs, exact
 * while a sum stays below 2^53, far above any real count). So functions
 * are taken in index order, straight from the arrays, and a name that
 * names_function() would not rewrite is its own key, a view into the file.
 * By exclusive value the tree is not even built; by inclusive value one
 * walk only marks the contexts below another of their group (the
 * recursion rule of cmd-top.c's add_to_group). tests/top-fast-check.sh compares the
 * rows with the walk's (--focus 0 takes the walk) on every Callgrind
 * sample. */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "top.h"

/* The values of every metric of function @p fn into k->tmp, as
 * report_value() computes them: inclusive, or exclusive (@p all: the costs
 * over every profile, which are profile 0's when @p one_profile). 0 or
 * < 0. */
static int cg_values(ranking *k, const profdb_cg *cg, uint32_t fn, const uint64_t *all,
                     int one_profile)
{
	int (*get)(const profdb_cg *, uint32_t, uint32_t, const uint64_t **) =
		k->o.inclusive ? profdb_cg_inclusive : profdb_cg_self;
	int e = 0;
	for (size_t m = 0; m < k->rep.n && e >= 0; m++) {
		const report_metric *rm = &k->rep.m[m];
		const uint64_t *c = all;
		uint32_t ev = rm->metric.id;
		if (rm->mode == REPORT_ONE) {
			if (k->o.inclusive || !one_profile)
				e = get(cg, rm->profile, fn, &c);
			k->tmp[m] = e >= 0 && c[ev] ? (double)c[ev] * rm->scale : 0;
			continue;
		}
		double acc = 0;   /* REPORT_SEL: the profiles with a value, in order */
		int any = 0;
		for (size_t i = 0; i < k->rep.n_sel && e >= 0; i++) {
			if (k->o.inclusive || !one_profile)
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
	if (!cg || k->by != BY_FUNCTION || k->o.focus >= 0 ||
	    k->rep.format != PROFDB_FORMAT_CALLGRIND)
		return 0;
	for (size_t m = 0; m < k->rep.n; m++) {
		const report_metric *rm = &k->rep.m[m];
		if ((rm->mode != REPORT_ONE && rm->mode != REPORT_SEL) ||
		    !(k->o.inclusive ? rm->has_inc : rm->has_exc) ||
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

#define NAMELESS (-2)

/* The group of function @p f: its index, TOP_OOM, or NAMELESS (the walk
 * labels such a function). */
static ptrdiff_t function_group(ranking *k, const profdb_cg_function *f)
{
	char key[1024];
	int created;
	if (!f->name.len)
		return NAMELESS;
	profdb_str name = names_fold(PROFDB_FORMAT_CALLGRIND, f->name);
	int lasting = names_function_unchanged(name, sizeof key);
	if (!lasting) {
		names_key_of(name, f->object, key, sizeof key);
		name = str_of(key);
	}
	ptrdiff_t g = group_lookup(&k->groups, name.ptr, name.len, lasting, &created);
	if (g < 0)
		return TOP_OOM;
	if (created && filter_any(&k->o.names)) {
		memcpy(key, name.ptr, name.len);   /* NUL-terminated for the filter */
		key[name.len] = '\0';
		k->groups.rows[g].pass = filter_pass(&k->o.names, key);
	}
	return g;
}

/* By inclusive value: which functions count, in @p counted (one byte per
 * function). A function context below another of its group counts
 * nothing (cmd-top.c, add_to_group); one walk keeps the groups of the path and how
 * often each is on it. 0 or < 0. */
static int mark_outermost(ranking *k, const uint32_t *group_of, unsigned char *counted)
{
	tool_walk w;
	profdb_context c;
	uint32_t *on_path = calloc(k->groups.n + 1, sizeof *on_path), *path = NULL;
	size_t depth = 0, cap = 0;   /* path[0 .. depth): the groups of the path */
	int r = on_path ? walk_begin(&w, k->rep.db) : TOP_OOM;
	while (r >= 0 && (r = walk_next(&w, &c, 0)) > 0) {
		for (; depth > c.depth; depth--)
			on_path[path[depth - 1]]--;
		if (c.depth >= cap) {
			size_t nc = cap ? 2 * cap : 256;
			while (nc <= c.depth)
				nc *= 2;
			uint32_t *np = realloc(path, nc * sizeof *np);
			if (!np) {
				r = TOP_OOM;
				break;
			}
			path = np;
			cap = nc;
		}
		/* slot 0: the root, any context that is no function, a level a
		 * pre-order walk never skips */
		for (; depth < c.depth; depth++)
			on_path[path[depth] = 0]++;
		uint32_t g = c.type == PROFDB_CTX_FUNCTION && c.id > 0 ? group_of[c.id - 1] + 1 : 0;
		if (g)
			counted[c.id - 1] = on_path[g] == 0;
		on_path[g]++;
		path[depth++] = g;
	}
	free(on_path);
	free(path);
	return r;
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
	uint32_t *group_of = k->o.inclusive ? malloc((size_t)nf * sizeof *group_of + 1) : NULL;
	unsigned char *counted = k->o.inclusive ? calloc((size_t)nf + 1, 1) : NULL;
	if (k->o.inclusive && (!group_of || !counted))
		r = TOP_OOM;
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
		if (group_of)
			group_of[fn] = (uint32_t)g;
		else if ((r = cg_values(k, cg, (uint32_t)fn, f.self, one_profile)) == 0)
			group_add(&k->groups, (size_t)g, &k->rep, k->tmp, (uint32_t)fn + 1);
	}
	if (r == 0 && group_of)
		r = mark_outermost(k, group_of, counted);
	for (int64_t fn = 0; r >= 0 && group_of && fn < nf; fn++)
		if (counted[fn] && (r = cg_values(k, cg, (uint32_t)fn, NULL, one_profile)) == 0)
			group_add(&k->groups, group_of[fn], &k->rep, k->tmp, (uint32_t)fn + 1);
	free(group_of);
	free(counted);
	if (r == NAMELESS) {
		group_free(&k->groups);
		k->groups.nv = k->rep.n;
		return 0;
	}
	return r < 0 ? r : 1;
}

/* One walk over the tree (or --focus's subtree). 0 or < 0. */
