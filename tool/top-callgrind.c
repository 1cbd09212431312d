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

#include <profdb/callgrind.h>

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

/* The walk must rank: a nameless function (the walk labels it), a tree
 * that is not the root and the functions. */
#define NOT_HERE (-2)

/* The group of function @p f: its index, TOP_OOM, or NOT_HERE (nameless). */
static ptrdiff_t function_group(ranking *k, const profdb_cg_function *f)
{
	char key[1024];
	int created;
	if (!f->name.len)
		return NOT_HERE;
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
		if (lasting) {   /* the view, NUL-terminated for the filter */
			memcpy(key, name.ptr, name.len);
			key[name.len] = '\0';
		}
		k->groups.rows[g].pass = filter_pass(&k->o.names, key);
	}
	return g;
}

/* By inclusive value: which functions count, in @p counted (one byte per
 * function). A function context below another of its group counts
 * nothing (cmd-top.c, add_to_group); a pre-order pass keeps the groups of
 * the path, path[0 .. depth), and how often each is on it (on_path; slot
 * 0: the root, any context that is no function). */
typedef struct path_marks {
	const uint32_t *group_of;
	unsigned char *counted;
	uint32_t *on_path, *path;
	size_t depth, cap;
} path_marks;

/* Context @p id at depth @p d (a function when 0 < id <= nf). 0 or TOP_OOM. */
static int mark(path_marks *pm, uint32_t id, uint32_t d, uint32_t nf)
{
	for (; pm->depth > d; pm->depth--)
		pm->on_path[pm->path[pm->depth - 1]]--;
	if (d >= pm->cap) {
		size_t nc = pm->cap ? 2 * pm->cap : 256;
		while (nc <= d)
			nc *= 2;
		uint32_t *np = realloc(pm->path, nc * sizeof *np);
		if (!np)
			return TOP_OOM;
		pm->path = np;
		pm->cap = nc;
	}
	for (; pm->depth < d; pm->depth++)   /* a level a pre-order walk never skips */
		pm->on_path[pm->path[pm->depth] = 0]++;
	uint32_t g = id > 0 && id <= nf ? pm->group_of[id - 1] + 1 : 0;
	if (g)
		pm->counted[id - 1] = pm->on_path[g] == 0;
	pm->on_path[g]++;
	pm->path[pm->depth++] = g;
	return 0;
}

/* The pass over the tree's links, read in id order: profdb_context_get in
 * tree order is a cache miss or more per context (the links, the function,
 * its names), in id order mostly not (6 ms -> 1 ms on 80,000 functions).
 * 1 (done), 0 (the contexts are not the root and the functions, or their
 * links loop: the walk ranks, and reports what is wrong) or < 0. */
static int mark_by_links(ranking *k, path_marks *pm, uint32_t nf)
{
	size_t n = (size_t)nf + 1;
	uint32_t *first = malloc(n * sizeof *first), *next = malloc(n * sizeof *next);
	uint32_t *parent = malloc(n * sizeof *parent), root;
	int r = first && next && parent ? 0 : TOP_OOM;
	if (r == 0 && (profdb_context_root(k->rep.db, &root) < 0 || root != 0 ||
	               profdb_context_count(k->rep.db) != (int64_t)n))
		r = 1;   /* no tree, or not the root and the functions */
	for (uint32_t id = 0; r == 0 && id < n; id++) {
		profdb_context c;
		if ((r = profdb_context_get(k->rep.db, id, &c)) < 0)
			break;
		if ((c.first_child != PROFDB_NONE && c.first_child >= n) ||
		    (c.next_sibling != PROFDB_NONE && c.next_sibling >= n) ||
		    (c.parent != PROFDB_NONE && c.parent >= n) ||
		    (id > 0) != (c.type == PROFDB_CTX_FUNCTION))
			r = 1;
		first[id] = c.first_child;
		next[id] = c.next_sibling;
		parent[id] = c.parent;
	}
	/* pre-order, as tool/walk.c goes, with the same guard against loops */
	size_t steps = 0, limit = 2 * n + 16;
	for (uint32_t id = 0, d = 0; r == 0;) {
		if ((r = mark(pm, id, d, nf)) < 0)
			break;
		if (first[id] != PROFDB_NONE) {
			id = first[id];
			d++;
		} else {
			while (next[id] == PROFDB_NONE && parent[id] != PROFDB_NONE && ++steps < limit) {
				id = parent[id];
				d--;
			}
			if (next[id] == PROFDB_NONE && parent[id] == PROFDB_NONE)
				r = 2;   /* done */
			id = next[id];
		}
		if (++steps >= limit)
			r = 1;   /* looping links: the walk reports them */
	}
	free(first);
	free(next);
	free(parent);
	return r < 0 ? r : r == 2;
}

/* 1 (marked), 0 (the walk must rank: see mark_by_links) or < 0. */
static int mark_outermost(ranking *k, uint32_t nf, const uint32_t *group_of,
                          unsigned char *counted)
{
	path_marks pm = {group_of, counted, calloc(k->groups.n + 1, sizeof *pm.on_path), NULL, 0, 0};
	int r = pm.on_path ? mark_by_links(k, &pm, nf) : TOP_OOM;
	free(pm.on_path);
	free(pm.path);
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
	if (r == 0 && group_of) {
		r = mark_outermost(k, (uint32_t)nf, group_of, counted);
		r = r == 0 ? NOT_HERE : r < 0 ? r : 0;
	}
	for (int64_t fn = 0; r >= 0 && group_of && fn < nf; fn++)
		if (counted[fn] && (r = cg_values(k, cg, (uint32_t)fn, NULL, one_profile)) == 0)
			group_add(&k->groups, group_of[fn], &k->rep, k->tmp, (uint32_t)fn + 1);
	free(group_of);
	free(counted);
	if (r == NOT_HERE) {
		group_free(&k->groups);
		k->groups.nv = k->rep.n;
		return 0;
	}
	return r < 0 ? r : 1;
}
