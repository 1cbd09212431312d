/* Golden and invariant tests over every real HPCToolkit 4.0 database under
 * $PROFDB_SAMPLE_DATA/hpctoolkit/{v4,v4-devstage}. The golden numbers were
 * computed with an independent throwaway parser, not with profdb. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hpctk-views.h"

typedef struct facts {
	const char *name;
	int64_t contexts;      /* profdb_hpctk_context_count (entry points in, root out) */
	uint32_t max_id;       /* largest context id in the tree */
	uint32_t max_depth;    /* walk depth; top-level nodes are at 1 */
	int metrics, modules, files, functions;
	int64_t profiles;
	uint64_t values;       /* stored over all profile planes, summary included */
	uint64_t cct_values;   /* stored over all cct.db planes = non-summary values */
	int64_t slots;         /* cct.db nCtxs */
	int64_t traces;        /* -1: no trace.db */
	int64_t empty_traces;
	uint64_t samples;
	int entries;           /* entry points (0 in dev-stage) */
} facts;

static const facts golden[] = {
	{"cuda-sample-out.d", 306, 393, 60, 82, 8, 15, 62, 2, 1856, 928, 394, -1, 0, 0, 1},
	{"hatchet-cpi", 205, 290, 62, 1, 12, 11, 62, 17, 1348, 873, 291, -1, 0, 0, 2},
	{"hpctoolkit-formats-small_v4.0", 14, 22, 8, 2, 1, 1, 3, 2, 204, 30, 23, 1, 0, 3, 2},
	{"hpctoolkit-tests-loops-cputime-t", 118, 252, 17, 1, 4, 4, 13, 5, 2073, 1306, 254, 4, 0, 668, 2},
	{"hpctoolkit-tests-loops-cputime-t.nostruct", 138, 139, 8, 1, 4, 0, 1, 5, 1277, 803, 140, 4, 0, 668, 2},
	{"hpctoolkit-tests-loops-cuda-nvidia-t", 18, 23, 15, 53, 2, 4, 8, 3, 378, 189, 24, 2, 1, 200, 1},
	{"hpctoolkit-tests-loops-cuda-nvidia-t.nostruct", 8, 8, 6, 53, 2, 0, 2, 3, 180, 90, 9, 2, 1, 200, 1},
	{"hpctoolkit-tests-loops-cuda-nvidiapc-t", 26, 162, 18, 81, 2, 4, 9, 3, 3428, 1714, 163, 2, 1, 200, 1},
	{"hpctoolkit-tests-loops-cuda-nvidiapc-t.nostruct", 140, 140, 7, 81, 2, 0, 2, 3, 2750, 1375, 141, 2, 1, 200, 1},
	{"hpctoolkit-tests-loops-hip-amd-t", 8, 10, 7, 43, 2, 2, 4, 3, 52, 26, 11, 2, 1, 200, 1},
	{"hpctoolkit-tests-loops-hip-amd-t.nostruct", 5, 5, 4, 43, 2, 0, 2, 3, 32, 16, 6, 2, 1, 200, 1},
	{"hpctoolkit-tests-loops-perf", 120, 243, 17, 2, 5, 4, 18, 5, 2489, 1527, 244, -1, 0, 0, 2},
	{"hpctoolkit-tests-loops-perf.nostruct", 126, 140, 10, 2, 5, 0, 7, 5, 1401, 837, 141, -1, 0, 0, 2},
	{"hpctoolkit-tests-recursion-cuda-nvidiapc-t", 58, 282, 21, 81, 2, 4, 14, 3, 6896, 3448, 283, 2, 1, 200, 1},
	{"hpctoolkit-tests-recursion-cuda-nvidiapc-t.nostruct", 170, 170, 7, 81, 2, 0, 2, 3, 3976, 1988, 171, 2, 1, 200, 1},
	{"hpctoolkit-tests-small", 13, 22, 8, 1, 1, 1, 3, 2, 94, 47, 24, 1, 0, 13, 1},
	{"hpctoolkit-tests-small.nostruct", 11, 11, 4, 1, 1, 0, 0, 2, 50, 25, 12, 1, 0, 13, 1},
	{"hpcviewer-acc_f3", 949, 1423, 57, 54, 13, 37, 144, 3, 4682, 2344, 1425, 2, 0, 192, 2},
	{"hpcviewer-d.foo", 51, 89, 20, 1, 3, 2, 21, 2, 266, 133, 90, 1, 0, 44, 2},
	{"hpcviewer-d.x", 19, 39, 14, 2, 2, 1, 2, 2, 128, 64, 40, 1, 1, 0, 2},
	{"hpcviewer-derived-metrics.db", 225, 291, 28, 78, 11, 13, 31, 41, 9739, 9160, 292, 40, 4, 416, 3},
	{"hpcviewer-inline.meta.db", 78, 147, 19, 2, 5, 11, 22, 9, 1953, 1488, 150, 8, 0, 9845, 3},
	{"hpcviewer-issue-233", 7477, 14997, 55, 1, 16, 58, 472, 136, 231963, 205466, 15003, 135, 54, 106197, 2},
	{"hpcviewer-lmp-openmp", 1908, 3687, 45, 1, 15, 66, 251, 25, 33202, 25733, 3691, 24, 24, 0, 3},
	{"hpcviewer-loop-fork-cycles", 39, 64, 19, 1, 2, 3, 9, 3, 194, 100, 66, 2, 0, 183, 2},
	{"hpcviewer-vectorAdd", 656, 1023, 51, 54, 11, 9, 65, 3, 2958, 1479, 1024, 2, 0, 283, 2},
	{"pipit-ping-pong", 117, 187, 32, 1, 6, 12, 20, 3, 610, 317, 189, 2, 0, 46, 1},
	{"hpcviewer-loop-inline", 38, 69, 11, 1, 5, 5, 11, 2, 268, 134, 71, 1, 0, 838, 0},
	{"hpcviewer-multithread", 220, 446, 25, 2, 3, 3, 9, 4, 608, 307, 448, 3, 0, 1281, 0},
	{"hpcviewer-quicksilver", 1580, 1982, 41, 54, 12, 49, 174, 3, 4626, 2313, 1983, 2, 0, 1235, 0},
};

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static profdb_hpctk *open_db(const char *dir)
{
	profdb_hpctk *db = NULL;
	int r = profdb_hpctk_open(&db, dir, NULL);
	cr_assert_eq(r, 0, "%s: open failed (%d): %s", dir, r, profdb_error_message());
	cr_assert(db);
	return db;
}

/* ---- the invariants, collecting the facts on the way ---------------------------- */

typedef struct node {
	profdb_hpctk_context c;
	size_t parent, first_child, next_sibling, last_child;
	uint32_t depth;
} node;

#define NONE ((size_t)-1)

static void check_tree(const char *name, const profdb_hpctk *db, profdb_hpctk_layout layout,
                       facts *f)
{
	f->contexts = profdb_hpctk_context_count(db);
	cr_assert(f->contexts >= 0, "%s: %s", name, profdb_error_message());
	size_t n = (size_t)f->contexts + 1, count = 0, *at_depth = calloc(4096, sizeof(size_t));
	node *nodes = calloc(n, sizeof *nodes);
	cr_assert(nodes && at_depth);

	profdb_hpctk_walk *w;
	profdb_hpctk_context c;
	uint32_t depth;
	int r;
	cr_assert_eq(profdb_hpctk_walk_new(&w, db), 0);
	while ((r = profdb_hpctk_walk_next(w, &c, &depth)) == 1) {
		cr_assert(count < n && depth < 4096, "%s: walk overruns context_count", name);
		node *x = &nodes[count];
		x->c = c;
		x->depth = depth;
		x->first_child = x->next_sibling = x->last_child = NONE;
		x->parent = depth ? at_depth[depth - 1] : NONE;
		if (count == 0)
			cr_assert(depth == 0 && c.id == 0 && c.lexical_type == PROFDB_LEX_ROOT &&
			          c.relation == PROFDB_REL_NONE && c.pos == 0);
		else
			cr_assert(depth >= 1 && depth <= nodes[count - 1].depth + 1);
		if (x->parent != NONE) {
			node *p = &nodes[x->parent];
			if (p->last_child == NONE)
				p->first_child = count;
			else
				nodes[p->last_child].next_sibling = count;
			p->last_child = count;
		}
		at_depth[depth] = count++;
		if (depth > f->max_depth)
			f->max_depth = depth;
		if (count > 1 && c.id > f->max_id)
			f->max_id = c.id;
	}
	cr_assert_eq(r, 0, "%s: walk failed: %s", name, profdb_error_message());
	cr_assert_eq(count, n, "%s: walked %zu nodes, context_count says %zu + root", name, count,
	             n - 1);
	profdb_hpctk_walk_free(w);

	int nfunc = profdb_hpctk_function_count(db), nfile = profdb_hpctk_file_count(db),
	    nmod = profdb_hpctk_module_count(db);
	for (size_t i = 0; i < count; i++) {
		node *x = &nodes[i];
		profdb_hpctk_context by;
		uint32_t parent;
		cr_assert_eq(profdb_hpctk_context_get(db, x->c.id, &by), 0);
		cr_assert(by.id == x->c.id && by.relation == x->c.relation &&
		          by.lexical_type == x->c.lexical_type && by.propagation == x->c.propagation &&
		          by.function == x->c.function && by.file == x->c.file &&
		          by.line == x->c.line && by.module == x->c.module &&
		          by.offset == x->c.offset && by.entry_point == x->c.entry_point &&
		          by.entry_name.ptr == x->c.entry_name.ptr && by.pos == x->c.pos,
		          "%s: context %u differs between walk and lookup", name, x->c.id);
		cr_assert_eq(profdb_hpctk_context_parent(db, x->c.id, &parent), 0);
		cr_assert_eq(parent, x->parent == NONE ? PROFDB_NONE : nodes[x->parent].c.id,
		             "%s: parent of %u", name, x->c.id);

		/* Children iteration yields exactly the walked children, in order. */
		profdb_hpctk_children it;
		cr_assert_eq(profdb_hpctk_children_begin(db, &x->c, &it), 0);
		size_t k = x->first_child;
		while ((r = profdb_hpctk_children_next(&it, &c)) == 1) {
			cr_assert(k != NONE, "%s: extra child %u of %u", name, c.id, x->c.id);
			cr_assert(c.id == nodes[k].c.id && c.pos == nodes[k].c.pos);
			k = nodes[k].next_sibling;
		}
		cr_assert_eq(r, 0);
		cr_assert(k == NONE, "%s: child %u of %u not iterated", name, nodes[k].c.id, x->c.id);

		if (i == 0)
			continue;
		cr_assert(x->c.id > 0, "%s: context id 0 below the root", name);
		int entry = x->c.relation == PROFDB_REL_ENTRY;
		if (layout == PROFDB_HPCTK_FINAL) {
			/* Entry points are exactly the top-level nodes. */
			cr_assert_eq(entry, x->depth == 1);
			if (entry) {
				cr_assert(x->c.lexical_type == PROFDB_LEX_ENTRY && x->c.entry_name.len &&
				          x->c.entry_point <= PROFDB_ENTRY_APP_THREAD);
				f->entries++;
			} else {
				/* Real files: bit 0 set exactly on lexical-nesting edges. */
				cr_assert_eq((x->c.propagation & 1) != 0, x->c.relation == PROFDB_REL_LEXICAL,
				             "%s: context %u relation %u propagation %u", name, x->c.id,
				             x->c.relation, x->c.propagation);
			}
		} else {
			cr_assert(!entry && x->c.lexical_type != PROFDB_LEX_ENTRY && x->c.propagation == 0 &&
			          x->c.entry_name.len == 0);
		}
		if (!entry)
			cr_assert(x->c.relation <= PROFDB_REL_INLINED_CALL &&
			          x->c.lexical_type <= PROFDB_LEX_INSTRUCTION);

		/* References resolve. */
		profdb_str s;
		int copied_ = 0;
		if (x->c.function != PROFDB_NONE) {
			profdb_hpctk_function fn;
			cr_assert(x->c.function < (uint32_t)nfunc);
			cr_assert_eq(profdb_hpctk_function_at(db, x->c.function, &fn), 0);
		}
		if (x->c.file != PROFDB_NONE) {
			cr_assert(x->c.file < (uint32_t)nfile);
			cr_assert_eq(profdb_hpctk_file_at(db, x->c.file, &s, &copied_), 0);
			cr_assert(s.ptr);
		}
		if (x->c.module != PROFDB_NONE) {
			cr_assert(x->c.module < (uint32_t)nmod);
			cr_assert_eq(profdb_hpctk_module_at(db, x->c.module, &s), 0);
			cr_assert(s.len);
		}
	}
	/* Lookups of absent ids. */
	cr_assert_eq(profdb_hpctk_context_get(db, f->max_id + 1, &c), -ENOENT);
	cr_assert_eq(profdb_hpctk_context_get(db, UINT32_MAX, &c), -ENOENT);
	free(nodes);
	free(at_depth);
}

static void check_meta(const char *name, const profdb_hpctk *db, profdb_hpctk_layout layout,
                       facts *f, uint8_t *is_stat, uint8_t *is_prop)
{
	profdb_str title, desc, s;
	int copied_ = 0;
	cr_assert_eq(profdb_hpctk_title(db, &title, &desc), 0, "%s: %s", name, profdb_error_message());
	cr_assert(title.len && desc.ptr);
	int nk = profdb_hpctk_id_kind_count(db);
	cr_assert_eq(nk, 8, "%s: %d identifier kinds", name, nk);
	static const char *const kinds[8] = {"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE",
	                                     "GPUCONTEXT", "GPUSTREAM", "CORE"};
	for (int k = 0; k < nk; k++) {
		cr_assert_eq(profdb_hpctk_id_kind_at(db, (uint32_t)k, &s), 0);
		cr_assert_str_eq(s.ptr, kinds[k]);
	}
	cr_assert_eq(profdb_hpctk_id_kind_at(db, 8, &s), -ENOENT);

	f->modules = profdb_hpctk_module_count(db);
	f->files = profdb_hpctk_file_count(db);
	f->functions = profdb_hpctk_function_count(db);
	for (int i = 0; i < f->modules; i++) {
		cr_assert_eq(profdb_hpctk_module_at(db, (uint32_t)i, &s), 0);
		cr_assert(s.len);
	}
	for (int i = 0; i < f->files; i++) {
		int copied = -1;
		cr_assert_eq(profdb_hpctk_file_at(db, (uint32_t)i, &s, &copied), 0);
		cr_assert(s.len && (copied == 0 || copied == 1));
	}
	for (int i = 0; i < f->functions; i++) {
		profdb_hpctk_function fn;
		cr_assert_eq(profdb_hpctk_function_at(db, (uint32_t)i, &fn), 0, "%s: function %d: %s",
		             name, i, profdb_error_message());
		cr_assert(fn.module == PROFDB_NONE || fn.module < (uint32_t)f->modules);
		cr_assert(fn.file == PROFDB_NONE || fn.file < (uint32_t)f->files);
	}
	cr_assert_eq(profdb_hpctk_module_at(db, (uint32_t)f->modules, &s), -ENOENT);
	cr_assert_eq(profdb_hpctk_file_at(db, (uint32_t)f->files, &s, &copied_), -ENOENT);

	f->metrics = profdb_hpctk_metric_count(db);
	cr_assert(f->metrics > 0, "%s: %s", name, profdb_error_message());
	for (int m = 0; m < f->metrics; m++) {
		profdb_hpctk_metric md;
		cr_assert_eq(profdb_hpctk_metric_at(db, (uint32_t)m, &md), 0);
		cr_assert(md.name.len && md.n_props > 0 && md.n_summaries > 0);
		for (uint32_t i = 0; i < md.n_props; i++) {
			profdb_hpctk_prop p;
			cr_assert_eq(profdb_hpctk_metric_prop_at(db, (uint32_t)m, i, &p), 0);
			cr_assert(p.scope.len);
			if (layout == PROFDB_HPCTK_DEVSTAGE)
				cr_assert(p.scope_type != PROFDB_SCOPE_UNKNOWN, "%s: scope %s", name, p.scope.ptr);
			else
				cr_assert(p.scope_type <= PROFDB_SCOPE_TRANSITIVE);
			cr_assert_eq(p.prop_index == 255, p.scope_type != PROFDB_SCOPE_TRANSITIVE);
			is_prop[p.prop_metric_id] = 1;
		}
		cr_assert_eq(profdb_hpctk_metric_prop_at(db, (uint32_t)m, md.n_props, &(profdb_hpctk_prop){0}),
		             -ENOENT);
		for (uint32_t i = 0; i < md.n_summaries; i++) {
			profdb_hpctk_summary su;
			cr_assert_eq(profdb_hpctk_metric_summary_at(db, (uint32_t)m, i, &su), 0);
			cr_assert(su.scope.len && su.formula.len &&
			          su.combine <= PROFDB_HPCTK_COMBINE_MAX);
			is_stat[su.stat_metric_id] = 1;
		}
	}
	cr_assert_eq(profdb_hpctk_metric_at(db, (uint32_t)f->metrics, &(profdb_hpctk_metric){0}),
	             -ENOENT);
}

static void check_planes(const char *name, const profdb_hpctk *db, facts *f,
                         const uint8_t *is_stat, const uint8_t *is_prop)
{
	f->profiles = profdb_hpctk_profile_count(db);
	cr_assert(f->profiles >= 2, "%s: %s", name, profdb_error_message());
	int nk = profdb_hpctk_id_kind_count(db);
	uint64_t nonsummary = 0;
	for (int64_t i = 0; i < f->profiles; i++) {
		profdb_hpctk_profile p;
		tv_plane pl;
		cr_assert_eq(profdb_hpctk_profile_at(db, (uint32_t)i, &p), 0);
		cr_assert_eq(p.index, (uint32_t)i);
		/* Real databases: exactly profile 0 is the summary, without tuple. */
		cr_assert_eq(p.is_summary, i == 0, "%s: profile %lld", name, (long long)i);
		cr_assert(i == 0 ? p.n_ids == 0 : p.n_ids >= 1);
		for (uint32_t k = 0; k < p.n_ids; k++) {
			profdb_hpctk_id id;
			cr_assert_eq(profdb_hpctk_profile_id_at(db, (uint32_t)i, k, &id), 0);
			cr_assert(id.kind < nk);
		}
		cr_assert_eq(profdb_hpctk_profile_id_at(db, (uint32_t)i, p.n_ids, &(profdb_hpctk_id){0}), -ENOENT);
		cr_assert_eq(tv_profile_plane(db, (uint32_t)i, &pl), 0, "%s: profile %lld: %s",
		             name, (long long)i, profdb_error_message());
		cr_assert_eq(pl.index.count, p.n_contexts);
		cr_assert_eq(pl.values.count, p.n_values);
		uint64_t seen = 0;
		for (uint64_t j = 0; j < pl.index.count; j++) {
			uint32_t ctx, metric;
			profdb_view run;
			double v, w;
			cr_assert_eq(tv_plane_at(&pl, j, &ctx, &run), 0);
			cr_assert(run.count > 0);
			seen += run.count;
			for (uint64_t k = 0; k < run.count; k++) {
				cr_assert_eq(tv_run_at(&run, k, &metric, &v), 0);
				cr_assert(metric < 65536 && (p.is_summary ? is_stat : is_prop)[metric],
				          "%s: profile %lld uses metric id %u outside its id space", name,
				          (long long)i, metric);
				cr_assert_eq(profdb_hpctk_value(db, (uint32_t)i, ctx, metric, &w), 1);
				cr_assert(same_bits(v, w));
				if (p.is_summary)
					continue;
				/* The same value through cct.db, bit for bit. */
				cr_assert_eq(profdb_hpctk_value_cct(db, (uint32_t)i, ctx, metric, &w), 1,
				             "%s: (profile %lld, ctx %u, metric %u) missing in cct.db", name,
				             (long long)i, ctx, metric);
				cr_assert(same_bits(v, w));
				nonsummary++;
			}
		}
		cr_assert_eq(seen, pl.values.count);
		f->values += seen;
	}
	cr_assert_eq(profdb_hpctk_profile_at(db, (uint32_t)f->profiles, &(profdb_hpctk_profile){0}),
	             -ENOENT);

	f->slots = profdb_hpctk_cct_slot_count(db);
	cr_assert(f->slots > 0);
	for (int64_t c = 0; c < f->slots; c++) {
		tv_plane pl;
		cr_assert_eq(tv_context_plane(db, (uint32_t)c, &pl), 0, "%s: ctx %lld: %s",
		             name, (long long)c, profdb_error_message());
		for (uint64_t j = 0; j < pl.index.count; j++) {
			uint32_t metric, prof;
			profdb_view run;
			double v, w;
			cr_assert_eq(tv_plane_at(&pl, j, &metric, &run), 0);
			cr_assert(is_prop[metric]);
			for (uint64_t k = 0; k < run.count; k++) {
				cr_assert_eq(tv_run_at(&run, k, &prof, &v), 0);
				cr_assert(prof >= 1 && prof < f->profiles, "%s: cct.db profile %u", name, prof);
				cr_assert_eq(profdb_hpctk_value(db, prof, (uint32_t)c, metric, &w), 1);
				cr_assert(same_bits(v, w));
				f->cct_values++;
			}
		}
	}
	cr_assert_eq(f->cct_values, nonsummary, "%s: cct.db has %llu values, profile.db %llu", name,
	             (unsigned long long)f->cct_values, (unsigned long long)nonsummary);
}

/* Reference answers by linear scan. */
static uint64_t count_below(const profdb_hpctk_trace *t, uint64_t time, int inclusive)
{
	uint64_t n = 0, tm;
	for (uint64_t i = 0; i < t->samples.count; i++) {
		tv_sample(t, i, &tm, NULL);
		n += inclusive ? tm <= time : tm < time;
	}
	return n;
}

static void probe(const profdb_hpctk_trace *t, uint64_t time)
{
	uint64_t idx = UINT64_MAX, first, last;
	uint64_t upto = count_below(t, time, 1);
	int r = profdb_view_in_effect(&t->samples, time, &idx);
	cr_assert_eq(r, upto > 0, "seek(%llu)", (unsigned long long)time);
	if (r)
		cr_assert_eq(idx, upto - 1, "seek(%llu)", (unsigned long long)time);
	static const uint64_t widths[] = {0, 1, 1000, 1000000, UINT64_MAX};
	for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
		uint64_t to = time > UINT64_MAX - widths[k] ? UINT64_MAX : time + widths[k];
		cr_assert_eq(profdb_view_window(&t->samples, time, to, &first, &last), 0);
		uint64_t ef = count_below(t, time, 0), el = to <= time ? ef : count_below(t, to, 0);
		cr_assert(first == ef && last == el, "window [%llu, %llu)", (unsigned long long)time,
		          (unsigned long long)to);
	}
}

static void check_traces(const char *name, const profdb_hpctk *db, facts *f)
{
	if (!profdb_hpctk_has(db, PROFDB_HPCTK_TRACE)) {
		profdb_hpctk_trace t;
		f->traces = -1;
		/* No trace.db: no lines (trace_count was -ENOENT before 0.9). */
		cr_assert_eq(profdb_hpctk_trace_count(db), 0);
		cr_assert_eq(profdb_hpctk_trace_line_at(db, 0, &t), -ENOENT);
		cr_assert(strstr(profdb_error_message(), "trace.db"));
		cr_assert_eq(profdb_hpctk_trace_bounds(db, NULL, NULL), -ENOENT);
		return;
	}
	uint64_t lo = 0, hi = 0;
	int bounded = profdb_hpctk_trace_bounds(db, &lo, &hi);
	cr_assert(bounded == 0 || bounded == 1);
	if (!bounded) /* "no samples": min > max, signed (hpcprof) or unsigned */
		cr_assert(lo > hi || (int64_t)lo > (int64_t)hi);
	f->traces = profdb_hpctk_trace_count(db);
	cr_assert(f->traces >= 0);
	/* Real databases: one line per non-summary profile, in order. */
	cr_assert_eq(f->traces, f->profiles - 1, "%s", name);
	for (int64_t i = 0; i < f->traces; i++) {
		profdb_hpctk_trace t;
		cr_assert_eq(profdb_hpctk_trace_line_at(db, (uint32_t)i, &t), 0, "%s: trace %lld: %s", name,
		             (long long)i, profdb_error_message());
		cr_assert_eq(t.profile, (uint32_t)i + 1);
		cr_assert_eq(t.samples.base == NULL, t.samples.count == 0);
		if (!t.samples.count)
			f->empty_traces++;
		uint64_t prev = 0, tm;
		uint32_t ctx;
		for (uint64_t k = 0; k < t.samples.count; k++) {
			profdb_hpctk_context c;
			cr_assert_eq(tv_sample(&t, k, &tm, &ctx), 0);
			cr_assert(k == 0 || tm >= prev, "%s: trace %lld unsorted at %llu", name, (long long)i,
			          (unsigned long long)k);
			cr_assert(bounded && tm >= lo && tm <= hi, "%s: sample outside the header bounds",
			          name);
			/* Real files: samples name tree nodes (or 0, not running). */
			cr_assert(ctx == 0 || profdb_hpctk_context_get(db, ctx, &c) == 0);
			prev = tm;
		}
		cr_assert_eq(tv_sample(&t, t.samples.count, &tm, &ctx), -ENOENT);
		f->samples += t.samples.count;

		probe(&t, 0);
		probe(&t, UINT64_MAX);
		probe(&t, lo);
		probe(&t, hi);
		if (t.samples.count) {
			uint64_t picks[3] = {0, t.samples.count / 2, t.samples.count - 1};
			for (int k = 0; k < 3; k++) {
				tv_sample(&t, picks[k], &tm, NULL);
				probe(&t, tm);
				probe(&t, tm - 1);
				probe(&t, tm + 1);
			}
			/* A deterministic handful in between. */
			tc_rng rng = {(uint64_t)i};
			uint64_t first, last;
			tv_sample(&t, 0, &first, NULL);
			tv_sample(&t, t.samples.count - 1, &last, NULL);
			for (int k = 0; k < 4; k++)
				probe(&t, first + tc_below(&rng, last - first + 2));
		}
	}
	cr_assert_eq(profdb_hpctk_trace_line_at(db, (uint32_t)f->traces, &(profdb_hpctk_trace){0}),
	             -ENOENT);
	if (!bounded)
		cr_assert_eq(f->samples, 0);
}

static void check_db(const char *dir, profdb_hpctk_layout layout, facts *f)
{
	const char *name = tc_basename(dir);
	memset(f, 0, sizeof *f);
	f->name = name;
	profdb_hpctk *db = open_db(dir);
	cr_assert_eq(profdb_hpctk_get_layout(db), layout, "%s: layout %d", name,
	             profdb_hpctk_get_layout(db));
	for (int k = 0; k < PROFDB_HPCTK_NFILES; k++) {
		uint8_t major, minor;
		if (!profdb_hpctk_has(db, (profdb_hpctk_file)k))
			continue;
		cr_assert_eq(profdb_hpctk_version(db, (profdb_hpctk_file)k, &major, &minor), 0);
		cr_assert(major == 4 && minor == 0);
	}
	cr_assert(profdb_hpctk_has(db, PROFDB_HPCTK_META) && profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE) &&
	          profdb_hpctk_has(db, PROFDB_HPCTK_CCT), "%s: a file is missing", name);

	uint8_t *is_stat = calloc(65536, 1), *is_prop = calloc(65536, 1);
	cr_assert(is_stat && is_prop);
	check_meta(name, db, layout, f, is_stat, is_prop);
	check_tree(name, db, layout, f);
	check_planes(name, db, f, is_stat, is_prop);
	check_traces(name, db, f);
	free(is_stat);
	free(is_prop);
	profdb_hpctk_close(db);
}

static void compare(const facts *got, const facts *want)
{
	const char *n = want->name;
	cr_expect_eq(got->contexts, want->contexts, "%s: contexts", n);
	cr_expect_eq(got->max_id, want->max_id, "%s: max id", n);
	cr_expect_eq(got->max_depth, want->max_depth, "%s: max depth", n);
	cr_expect_eq(got->metrics, want->metrics, "%s: metrics", n);
	cr_expect_eq(got->modules, want->modules, "%s: modules", n);
	cr_expect_eq(got->files, want->files, "%s: files", n);
	cr_expect_eq(got->functions, want->functions, "%s: functions", n);
	cr_expect_eq(got->profiles, want->profiles, "%s: profiles", n);
	cr_expect_eq(got->values, want->values, "%s: values", n);
	cr_expect_eq(got->cct_values, want->cct_values, "%s: cct values", n);
	cr_expect_eq(got->slots, want->slots, "%s: cct slots", n);
	cr_expect_eq(got->traces, want->traces, "%s: traces", n);
	cr_expect_eq(got->empty_traces, want->empty_traces, "%s: empty traces", n);
	cr_expect_eq(got->samples, want->samples, "%s: samples", n);
	cr_expect_eq(got->entries, want->entries, "%s: entry points", n);
}

static const facts *golden_for(const char *name)
{
	for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++)
		if (strcmp(golden[i].name, name) == 0)
			return &golden[i];
	return NULL;
}

static void check_family(const char *rel, profdb_hpctk_layout layout)
{
	size_t n;
	char *root = tc_sample_path(rel); /* skips when absent */
	char **list = tc_list_dbs(rel, &n);
	if (n == 0)
		cr_skip_test("%s holds no database", root);
	size_t with_golden = 0;
	for (size_t i = 0; i < n; i++) {
		facts f;
		check_db(list[i], layout, &f);
		/* what hpcprof wrote is consistent across its files */
		profdb_hpctk *db;
		cr_assert_eq(profdb_hpctk_open(&db, list[i], NULL), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_hpctk_check(db), 0, "%s: %s", list[i], profdb_error_message());
		profdb_hpctk_close(db);
		const facts *g = golden_for(f.name);
		if (g) {
			compare(&f, g);
			with_golden++;
		} else {
			cr_log_warn("%s: no golden numbers (invariants checked only)", f.name);
		}
	}
	cr_log_info("%s: %zu databases, %zu with golden numbers", rel, n, with_golden);
	tc_free_list(list);
	free(root);
}

Test(hpctk4_real, every_final_database, .timeout = 240)
{
	check_family("hpctoolkit/v4", PROFDB_HPCTK_FINAL);
}

Test(hpctk4_real, every_devstage_database, .timeout = 120)
{
	check_family("hpctoolkit/v4-devstage", PROFDB_HPCTK_DEVSTAGE);
}

/* ---- specific golden facts -------------------------------------------------------- */

Test(hpctk4_real, issue_233, .timeout = 120)
{
	char *dir = tc_sample_path("hpctoolkit/v4/hpcviewer-issue-233");
	facts f;
	check_db(dir, PROFDB_HPCTK_FINAL, &f);
	cr_assert_eq(f.contexts, 7477);
	cr_assert_eq(f.profiles, 136);
	cr_assert_eq(f.values, 231963);
	cr_assert_eq(f.traces, 135);
	cr_assert_eq(f.empty_traces, 54);
	cr_assert_eq(f.samples, 106197);
	cr_assert_eq(f.slots, 15003);
	cr_assert_eq(f.metrics, 1);
	cr_assert_eq(f.max_id, 14997);

	profdb_hpctk *db = open_db(dir);
	profdb_str title, desc;
	cr_assert_eq(profdb_hpctk_title(db, &title, &desc), 0);
	cr_assert_str_eq(title.ptr, "lulesh2.0");
	profdb_hpctk_metric m;
	cr_assert_eq(profdb_hpctk_metric_at(db, 0, &m), 0);
	cr_assert_str_eq(m.name.ptr, "CPUTIME (sec)");
	cr_assert(m.n_props == 3 && m.n_summaries == 3);
	static const char *const scopes[3] = {"point", "function", "execution"};
	static const uint8_t types[3] = {PROFDB_SCOPE_POINT, PROFDB_SCOPE_TRANSITIVE,
	                                 PROFDB_SCOPE_EXECUTION};
	for (uint32_t i = 0; i < 3; i++) {
		profdb_hpctk_prop p;
		profdb_hpctk_summary s;
		cr_assert_eq(profdb_hpctk_metric_prop_at(db, 0, i, &p), 0);
		cr_assert_str_eq(p.scope.ptr, scopes[i]);
		cr_assert(p.scope_type == types[i] && p.prop_metric_id == i &&
		          p.prop_index == (i == 1 ? 0 : 255));
		cr_assert_eq(profdb_hpctk_metric_summary_at(db, 0, i, &s), 0);
		cr_assert_str_eq(s.scope.ptr, scopes[i]);
		cr_assert_str_eq(s.formula.ptr, "$$");
		cr_assert(s.combine == PROFDB_HPCTK_COMBINE_SUM && s.stat_metric_id == i);
	}
	/* Entry points: id 4 main thread, id 1 unknown entry. */
	profdb_hpctk_context root, c;
	profdb_hpctk_children it;
	cr_assert_eq(profdb_hpctk_root(db, &root), 0);
	cr_assert_eq(profdb_hpctk_children_begin(db, &root, &it), 0);
	cr_assert_eq(profdb_hpctk_children_next(&it, &c), 1);
	cr_assert(c.id == 4 && c.entry_point == PROFDB_ENTRY_MAIN_THREAD);
	cr_assert_eq(profdb_hpctk_children_next(&it, &c), 1);
	cr_assert(c.id == 1 && c.entry_point == PROFDB_ENTRY_UNKNOWN);
	cr_assert_eq(profdb_hpctk_children_next(&it, &c), 0);

	uint64_t lo, hi;
	cr_assert_eq(profdb_hpctk_trace_bounds(db, &lo, &hi), 1);
	cr_assert_eq(lo, UINT64_C(0x17145fc711faf268));
	cr_assert_eq(hi, UINT64_C(0x17145fc8fdb79b10));

	/* Profile 1: (NODE physical host, RANK 16, THREAD 4). */
	profdb_hpctk_profile p;
	profdb_hpctk_id id;
	cr_assert_eq(profdb_hpctk_profile_at(db, 1, &p), 0);
	cr_assert_eq(p.n_ids, 3);
	cr_assert_eq(profdb_hpctk_profile_id_at(db, 1, 0, &id), 0);
	cr_assert(id.kind == 1 && id.flags == 1 && id.logical_id == 0 && id.physical_id == 713047168);
	cr_assert_eq(profdb_hpctk_profile_id_at(db, 1, 1, &id), 0);
	cr_assert(id.kind == 2 && id.flags == 0 && id.logical_id == 16 && id.physical_id == 16);
	cr_assert_eq(profdb_hpctk_profile_id_at(db, 1, 2, &id), 0);
	cr_assert(id.kind == 3 && id.flags == 0 && id.logical_id == 4 && id.physical_id == 4);

	/* Ids past the cct.db table have no values; ids that carry values need
	 * not be tree nodes. */
	tv_plane pl;
	cr_assert_eq(tv_context_plane(db, 15003, &pl), 0);
	cr_assert_eq(pl.index.count, 0);
	cr_assert_eq(tv_context_plane(db, UINT32_MAX, &pl), 0);
	cr_assert_eq(pl.index.count, 0);
	profdb_hpctk_close(db);
	free(dir);
}

Test(hpctk4_real, trace_sentinels)
{
	static const char *const names[] = {"hpctoolkit/v4/hpcviewer-d.x",
	                                    "hpctoolkit/v4/hpcviewer-lmp-openmp"};
	for (int i = 0; i < 2; i++) {
		char *dir = tc_sample_path(names[i]);
		profdb_hpctk *db = open_db(dir);
		uint64_t lo = 0, hi = 0;
		cr_assert_eq(profdb_hpctk_trace_bounds(db, &lo, &hi), 0, "%s", names[i]);
		cr_assert_eq(lo, UINT64_C(0x7fffffffffffffff));
		cr_assert_eq(hi, UINT64_C(0x8000000000000000));
		int64_t n = profdb_hpctk_trace_count(db);
		cr_assert(n > 0);
		for (int64_t k = 0; k < n; k++) {
			profdb_hpctk_trace t;
			uint64_t idx, first, last;
			cr_assert_eq(profdb_hpctk_trace_line_at(db, (uint32_t)k, &t), 0);
			cr_assert(t.samples.count == 0 && t.samples.base == NULL);
			cr_assert_eq(profdb_view_in_effect(&t.samples, UINT64_MAX, &idx), 0);
			cr_assert_eq(profdb_view_window(&t.samples, 0, UINT64_MAX, &first, &last), 0);
			cr_assert(first == 0 && last == 0);
		}
		profdb_hpctk_close(db);
		free(dir);
	}
}

Test(hpctk4_real, no_trace_db)
{
	char *dir = tc_sample_path("hpctoolkit/v4/hpctoolkit-tests-loops-perf");
	profdb_hpctk *db = open_db(dir);
	cr_assert_eq(profdb_hpctk_has(db, PROFDB_HPCTK_TRACE), 0);
	cr_assert_eq(profdb_hpctk_has(db, PROFDB_HPCTK_META), 1);
	cr_assert_eq(profdb_hpctk_trace_count(db), 0);   /* was -ENOENT before 0.9 */
	uint8_t major, minor;
	cr_assert_eq(profdb_hpctk_version(db, PROFDB_HPCTK_TRACE, &major, &minor), -ENOENT);
	cr_assert_eq(profdb_hpctk_metric_count(db), 2);
	profdb_hpctk_close(db);
	free(dir);
}

Test(hpctk4_real, formats_small_summaries)
{
	char *dir = tc_sample_path("hpctoolkit/v4/hpctoolkit-formats-small_v4.0");
	profdb_hpctk *db = open_db(dir);
	static const char *const names[2] = {"cycles", "instructions"};
	static const uint16_t prop_base[2] = {15, 0};
	static const char *const scopes[3] = {"point", "function", "execution"};
	static const char *const formulas[5] = {"1", "$$", "($$^2)", "$$", "$$"};
	static const uint8_t combine[5] = {PROFDB_HPCTK_COMBINE_SUM, PROFDB_HPCTK_COMBINE_SUM, PROFDB_HPCTK_COMBINE_SUM,
	                                   PROFDB_HPCTK_COMBINE_MIN, PROFDB_HPCTK_COMBINE_MAX};
	cr_assert_eq(profdb_hpctk_metric_count(db), 2);
	for (uint32_t m = 0; m < 2; m++) {
		profdb_hpctk_metric md;
		cr_assert_eq(profdb_hpctk_metric_at(db, m, &md), 0);
		cr_assert_str_eq(md.name.ptr, names[m]);
		cr_assert(md.n_props == 3 && md.n_summaries == 15);
		for (uint32_t i = 0; i < 3; i++) {
			profdb_hpctk_prop p;
			cr_assert_eq(profdb_hpctk_metric_prop_at(db, m, i, &p), 0);
			cr_assert_str_eq(p.scope.ptr, scopes[i]);
			cr_assert_eq(p.prop_metric_id, prop_base[m] + i);
		}
		/* Five statistics per scope: count, sum, sum of squares, min, max;
		 * stat ids are base + scope + 3 * statistic. */
		for (uint32_t i = 0; i < 15; i++) {
			profdb_hpctk_summary s;
			cr_assert_eq(profdb_hpctk_metric_summary_at(db, m, i, &s), 0);
			cr_assert_str_eq(s.scope.ptr, scopes[i / 5]);
			cr_assert_str_eq(s.formula.ptr, formulas[i % 5]);
			cr_assert_eq(s.combine, combine[i % 5]);
			cr_assert_eq(s.stat_metric_id, prop_base[m] + i / 5 + 3 * (i % 5));
		}
	}
	profdb_hpctk_summary s;
	cr_assert_eq(profdb_hpctk_metric_summary_at(db, 0, 3, &s), 0);
	cr_assert(s.combine == PROFDB_HPCTK_COMBINE_MIN && s.stat_metric_id == 24);
	cr_assert_eq(profdb_hpctk_metric_summary_at(db, 0, 4, &s), 0);
	cr_assert(s.combine == PROFDB_HPCTK_COMBINE_MAX && s.stat_metric_id == 27);
	cr_assert_eq(profdb_hpctk_metric_summary_at(db, 0, 15, &s), -ENOENT);

	/* Entry points: id 22 "unknown entry", id 1 "main thread". */
	profdb_hpctk_context c;
	cr_assert_eq(profdb_hpctk_context_get(db, 22, &c), 0);
	cr_assert(c.relation == PROFDB_REL_ENTRY && c.entry_point == PROFDB_ENTRY_UNKNOWN);
	cr_assert_eq(profdb_hpctk_context_get(db, 1, &c), 0);
	cr_assert(c.relation == PROFDB_REL_ENTRY && c.entry_point == PROFDB_ENTRY_MAIN_THREAD);
	profdb_str title, desc;
	cr_assert_eq(profdb_hpctk_title(db, &title, &desc), 0);
	cr_assert_str_eq(title.ptr, "foo");
	profdb_hpctk_close(db);
	free(dir);
}

Test(hpctk4_real, single_file_and_copy_open)
{
	char *dir = tc_sample_path("hpctoolkit/v4/hpctoolkit-tests-small");
	char *meta, *prof;
	cr_assert(asprintf(&meta, "%s/meta.db", dir) > 0 && asprintf(&prof, "%s/profile.db", dir) > 0);
	profdb_hpctk *db;
	/* A single file, recognised by its magic. */
	cr_assert_eq(profdb_hpctk_open(&db, meta, NULL), 0);
	cr_assert(profdb_hpctk_has(db, PROFDB_HPCTK_META) && !profdb_hpctk_has(db, PROFDB_HPCTK_PROFILE));
	cr_assert_eq(profdb_hpctk_context_count(db), 13);
	cr_assert_eq(profdb_hpctk_profile_count(db), -ENOENT);
	cr_assert(strstr(profdb_error_message(), "profile.db"));
	profdb_hpctk_close(db);
	cr_assert_eq(profdb_hpctk_open(&db, prof, NULL), 0);
	cr_assert_eq(profdb_hpctk_profile_count(db), 2);
	cr_assert_eq(profdb_hpctk_context_count(db), -ENOENT);
	cr_assert_eq(profdb_hpctk_get_layout(db), PROFDB_HPCTK_FINAL);
	profdb_hpctk_close(db);

	/* Copy and populate modes read the same database. */
	uint32_t modes[2] = {PROFDB_OPEN_COPY, PROFDB_OPEN_POPULATE};
	for (int i = 0; i < 2; i++) {
		profdb_options o = {.size = sizeof o, .flags = modes[i]};
		tc_drive_stats st;
		cr_assert_eq(profdb_hpctk_open(&db, dir, &o), 0);
		tc_drive(db, 0, &st);
		cr_assert(st.failures == 0 && st.contexts == 13 && st.values == 94 &&
		          st.cct_values == 47 && st.samples == 13);
		profdb_hpctk_close(db);
	}
	/* Not a database. */
	cr_assert_eq(profdb_hpctk_open(&db, "/nonexistent/profdb", NULL), -ENOENT);
	cr_assert_null(db);
	free(meta);
	free(prof);
	free(dir);
}

Test(hpctk4_real, drive_every_database_cleanly, .timeout = 240)
{
	static const char *const fams[2] = {"hpctoolkit/v4", "hpctoolkit/v4-devstage"};
	char *root = tc_sample_path("hpctoolkit");
	size_t total = 0;
	for (int k = 0; k < 2; k++) {
		size_t n;
		char **list = tc_list_dbs(fams[k], &n);
		for (size_t i = 0; i < n; i++) {
			/* The same database through open_mem, driven by the shared driver. */
			unsigned char *data[PROFDB_HPCTK_NFILES];
			size_t size[PROFDB_HPCTK_NFILES];
			profdb_input blobs[PROFDB_HPCTK_NFILES];
			tc_slurp_db(list[i], data, size);
			for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
				blobs[f] = (profdb_input){NULL, data[f], size[f]};
			profdb_hpctk *db;
			cr_assert_eq(profdb_hpctk_open_mem(&db, blobs, NULL), 0, "%s: %s", list[i],
			             profdb_error_message());
			tc_drive_stats st;
			tc_drive(db, 0, &st);
			cr_assert_eq(st.failures, 0, "%s: %s", list[i], profdb_error_message());
			const facts *g = golden_for(tc_basename(list[i]));
			if (g)
				cr_assert(st.contexts == g->contexts && st.values == g->values &&
				          st.cct_values == g->cct_values && st.samples == g->samples,
				          "%s: drive counts differ from the golden numbers", list[i]);
			profdb_hpctk_close(db);
			tc_free_files(data);
			total++;
		}
		tc_free_list(list);
	}
	cr_assert(total > 0);
	free(root);
}

TC_MAIN
