/* One program, two formats, the same answers: the profile of a small
 * program (main calls work and compute, work calls helper) written once as
 * an HPCToolkit 4.0 database by the test-data writer and once as a Callgrind
 * file, both opened through the common query interface. A tool that asks
 * for a function's exclusive and inclusive cost, its caller, the program
 * total and the ranking of functions must not see which profiler wrote the
 * data. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "query-check.h"
#include "writer.h"

/* The program: name, caller (index or -1), self cost, inclusive cost. */
static const struct fn {
	const char *name;
	int caller;
	double self, incl;
	uint32_t line;
} prog[] = {
	{"main", -1, 5, 465, 10},
	{"work", 0, 300, 360, 20},
	{"helper", 1, 60, 60, 30},
	{"compute", 0, 100, 100, 40},
};
enum { NFN = sizeof prog / sizeof prog[0], TOTAL = 465 };

static const char callgrind_text[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: profdb tests\n"
	"cmd: ./prog\n"
	"positions: line\n"
	"events: Ir\n"
	"fl=(1) prog.c\n"
	"fn=(1) main\n"
	"10 5\n"
	"cfn=(2) work\n"
	"calls=3 20\n"
	"11 360\n"
	"cfn=(3) compute\n"
	"calls=1 40\n"
	"12 100\n"
	"fn=(2)\n"
	"20 300\n"
	"cfn=(4) helper\n"
	"calls=3 30\n"
	"21 60\n"
	"fn=(3)\n"
	"40 100\n"
	"fn=(4)\n"
	"30 60\n";

/* The same program as an HPCToolkit 4.0 database: an entry point, one
 * function context per function, metric Ir in the point, function
 * (exclusive) and execution (inclusive) scopes; a summary profile and one
 * thread with the same values. */
static void write_hpctk(tw_blob out[TW_NFILES])
{
	static const tw_scope scopes[] = {{"point", 1, 255}, {"function", 3, 0}, {"execution", 2, 255}};
	static const tw_propagation props[] = {{0, 0}, {1, 1}, {2, 2}};
	static const tw_summary sums[] = {{0, "$$", 0, 0}, {1, "$$", 0, 1}, {2, "$$", 0, 2}};
	static const tw_metric metrics[] = {{"Ir", 3, props, 3, sums}};
	static const tw_file files[] = {{"prog.c", 0}};
	tw_function fns[NFN];
	tw_context ctx[NFN + 1];
	tw_value vals[NFN * 3 + 2];
	size_t nv = 0;
	memset(ctx, 0, sizeof ctx);
	ctx[0] = (tw_context){.id = 1, .parent = -1, .function = -1, .file = -1, .module = -1,
	                      .entry_point = 1};
	vals[nv++] = (tw_value){1, 2, TOTAL};   /* the entry point: inclusive only */
	vals[nv++] = (tw_value){0, 2, TOTAL};   /* the global context */
	for (int i = 0; i < NFN; i++) {
		fns[i] = (tw_function){prog[i].name, -1, 0, 0, prog[i].line};
		ctx[i + 1] = (tw_context){.id = (uint32_t)i + 2,
		                          .parent = prog[i].caller < 0 ? 0 : prog[i].caller + 1,
		                          .relation = 1, .lexical_type = 0, .function = i, .file = 0,
		                          .line = prog[i].line, .module = -1};
		vals[nv++] = (tw_value){(uint32_t)i + 2, 0, prog[i].self};
		vals[nv++] = (tw_value){(uint32_t)i + 2, 1, prog[i].self};
		vals[nv++] = (tw_value){(uint32_t)i + 2, 2, prog[i].incl};
	}
	static const tw_id ids[] = {{1, 0, 0, 0}, {3, 0, 0, 0}};   /* NODE 0, THREAD 0 */
	tw_profile profiles[2] = {{1, 0, NULL, nv, vals}, {0, 2, ids, nv, vals}};
	tw_hpctk4 d = {0};
	d.title = "prog";
	d.n_scopes = 3;
	d.scopes = scopes;
	d.n_metrics = 1;
	d.metrics = metrics;
	d.n_files = 1;
	d.files = files;
	d.n_functions = NFN;
	d.functions = fns;
	d.n_contexts = NFN + 1;
	d.contexts = ctx;
	d.n_profiles = 2;
	d.profiles = profiles;
	d.no_trace = 1;
	cr_assert_eq(tw_hpctk4_write(&d, out), 0);
}

/* What a tool asks, in format-neutral terms. */
typedef struct answers {
	double self[NFN], incl[NFN], total;
	int caller[NFN];          /* index into prog, -1 for a top-level function */
	int ranking[NFN];         /* functions by exclusive cost, heaviest first */
} answers;

static int prog_index(profdb_str name)
{
	for (int i = 0; i < NFN; i++)
		if (qc_str_is(name, prog[i].name))
			return i;
	return -1;
}

static double number(profdb_number n)
{
	return n.type == PROFDB_TYPE_NONE ? 0 : profdb_number_to_double(n);
}

/* Ask @p db. @p profile: the thread; the metric is found by name. */
static answers ask(const profdb *db, uint32_t profile, const char *what)
{
	answers a;
	memset(&a, 0, sizeof a);
	qc_check_all(db, what);
	profdb_metric m;
	cr_assert_eq(profdb_metric_find(db, "Ir", &m), 0, "%s", what);
	int64_t n = profdb_context_count(db);
	uint32_t root;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	profdb_number v;
	cr_assert_eq(profdb_inclusive(db, profile, root, m.id, &v), 1, "%s: root", what);
	a.total = number(v);
	int seen = 0;
	/* every context by id: ids are dense enough in both formats */
	for (uint32_t id = 0; seen < NFN && id < (uint32_t)n + 8; id++) {
		profdb_context c;
		if (profdb_context_get(db, id, &c) != 0 || c.type != PROFDB_CTX_FUNCTION)
			continue;
		int i = prog_index(c.function);
		cr_assert_geq(i, 0, "%s: unexpected function", what);
		seen++;
		cr_assert_geq(profdb_exclusive(db, profile, id, m.id, &v), 0, "%s", what);
		a.self[i] = number(v);
		cr_assert_geq(profdb_inclusive(db, profile, id, m.id, &v), 0, "%s", what);
		a.incl[i] = number(v);
		a.caller[i] = -1;
	}
	cr_assert_eq(seen, NFN, "%s: %d functions found", what, seen);
	/* callers from the call edges, not the context tree: a Callgrind
	 * function context hangs under the root whoever calls it */
	int64_t ne = profdb_edge_count(db);
	cr_assert_geq(ne, 0, "%s: edges", what);
	for (int64_t e = 0; e < ne; e++) {
		profdb_edge ed;
		profdb_context callee, caller;
		cr_assert_eq(profdb_edge_at(db, (uint64_t)e, &ed), 0, "%s", what);
		cr_assert_eq(profdb_context_get(db, ed.callee, &callee), 0, "%s", what);
		if (ed.caller == root || profdb_context_get(db, ed.caller, &caller) != 0 ||
		    caller.type != PROFDB_CTX_FUNCTION)
			continue;
		int i = prog_index(callee.function);
		cr_assert_geq(i, 0, "%s: unexpected callee", what);
		a.caller[i] = prog_index(caller.function);
	}
	for (int i = 0; i < NFN; i++)
		a.ranking[i] = i;
	for (int i = 0; i < NFN; i++)   /* insertion sort, heaviest first */
		for (int j = i; j > 0 && a.self[a.ranking[j]] > a.self[a.ranking[j - 1]]; j--) {
			int t = a.ranking[j];
			a.ranking[j] = a.ranking[j - 1];
			a.ranking[j - 1] = t;
		}
	return a;
}

Test(equivalence, hpctoolkit_and_callgrind_give_the_same_answers)
{
	tw_blob f[TW_NFILES];
	write_hpctk(f);
	profdb_input hin[] = {{"meta.db", f[TW_META].data, f[TW_META].size},
	                      {"profile.db", f[TW_PROFILE].data, f[TW_PROFILE].size},
	                      {"cct.db", f[TW_CCT].data, f[TW_CCT].size}};
	profdb *h, *g;
	cr_assert_eq(profdb_open_inputs(&h, hin, 3, NULL), 0, "%s", profdb_error_message());
	profdb_input gin = {"callgrind.out.1", callgrind_text, sizeof callgrind_text - 1};
	cr_assert_eq(profdb_open_inputs(&g, &gin, 1, NULL), 0, "%s", profdb_error_message());

	answers ah = ask(h, 1, "hpctoolkit"), ag = ask(g, 0, "callgrind");
	cr_assert_eq(ah.total, TOTAL);
	cr_assert_eq(ag.total, TOTAL);
	for (int i = 0; i < NFN; i++) {
		cr_assert_eq(ah.self[i], prog[i].self, "hpctoolkit: %s", prog[i].name);
		cr_assert_eq(ag.self[i], prog[i].self, "callgrind: %s", prog[i].name);
		cr_assert_eq(ah.incl[i], prog[i].incl, "hpctoolkit: %s", prog[i].name);
		cr_assert_eq(ag.incl[i], prog[i].incl, "callgrind: %s", prog[i].name);
		cr_assert_eq(ah.caller[i], prog[i].caller, "hpctoolkit: caller of %s", prog[i].name);
		cr_assert_eq(ag.caller[i], prog[i].caller, "callgrind: caller of %s", prog[i].name);
		cr_assert_eq(ah.ranking[i], ag.ranking[i], "rank %d", i);
	}
	profdb_close(h);
	profdb_close(g);
	for (int i = 0; i < TW_NFILES; i++)
		tw_blob_free(&f[i]);
}
