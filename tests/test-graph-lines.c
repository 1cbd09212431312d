/* The bulk path over a call graph's line contexts: the graph table's
 * lines entry (lib/core/backend-internal.h) gives, per function, the same
 * contexts in the same order as profdb_context_get's child links, with
 * their positions and the values profdb_value gives; the pprof writer
 * that reads through it combines the chosen profiles only; the call
 * edges that find their sites through it name the same line contexts.
 * Callgrind text needs no writer. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "profdb/analysis.h"
#include "profdb/convert.h"
#include "query/query-internal.h"

/* Two parts (profiles); main has rows at lines 3, 4 and an inlined file's
 * line 4 (same line, another file: two contexts); work has a row of zero
 * cost (no context) and one only part 2 stores. */
static const char text[] =
	"# callgrind format\nversion: 1\npart: 1\npositions: line\nevents: Ir Dr\n"
	"ob=(1) /bin/app\nfl=(1) app.c\nfn=(1) main\n"
	"3 10 2\n4 5\n"
	"fi=(3) inl.h\n4 7 1\n"
	"fe=(1)\ncfi=(2) lib.c\ncfn=(2) work\ncalls=2 20\n4 100 30\n"
	"fl=(2)\nfn=(2)\n20 100 30\n21 0 0\n"
	"totals: 122 33\n"
	"part: 2\n"
	"ob=(1)\nfl=(1)\nfn=(1)\n3 1\n"
	"fl=(2)\nfn=(2)\n22 9 4\n";

static profdb *open_text(const char *t, size_t n)
{
	profdb_input in = {"callgrind.out.1", t, n};
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, &in, 1, NULL);
	cr_assert_eq(r, 0, "open: %d %s", r, profdb_error_message());
	return db;
}

typedef struct seen {
	const profdb *db;
	uint32_t expect;      /* the next context of the child links */
	uint32_t fn_ctx;
	size_t rows;
	int64_t n_metrics;
} seen;

static int check_row(void *ud, const profdb__graph_row *row)
{
	seen *s = ud;
	profdb_context c;
	cr_assert_eq(row->context, s->expect, "rows follow the child links");
	cr_assert_eq(profdb_context_get(s->db, row->context, &c), 0);
	cr_assert_eq(c.parent, s->fn_ctx);
	cr_assert_eq(row->line, c.line);
	cr_assert_eq(row->instr, c.offset);
	cr_assert_eq(row->instruction, c.type == PROFDB_CTX_INSTRUCTION);
	cr_assert(row->file.len == c.file.len && memcmp(row->file.ptr, c.file.ptr, c.file.len) == 0,
	          "file of context %u", row->context);
	int64_t np = profdb_profile_count(s->db);
	for (uint32_t p = 0; p < np; p++)
		for (uint32_t m = 0; m < s->n_metrics; m++) {
			profdb_number v;
			uint64_t want = 0, got = 0;
			cr_assert_geq(profdb_value(s->db, p, row->context, m, &v), 0);
			if (v.type == PROFDB_TYPE_U64)
				want = v.as.u64;
			for (uint32_t j = 0; j < row->n; j++)
				if (row->profiles[j] == p)
					got = row->costs[(size_t)j * s->n_metrics + m];
			cr_assert_eq(got, want, "context %u profile %u metric %u", row->context, p, m);
		}
	for (uint32_t j = 1; j < row->n; j++)
		cr_assert_gt(row->profiles[j], row->profiles[j - 1], "profiles ascending");
	s->expect = c.next_sibling;
	s->rows++;
	return 0;
}

Test(graph_lines, rows_are_the_line_contexts)
{
	profdb *db = open_text(text, sizeof text - 1);
	const profdb__graph_table *g = db->be->graph;
	cr_assert(g && g->lines);
	int64_t nf = g->function_count(db->impl);
	cr_assert_eq(nf, 2);
	size_t rows = 0;
	for (uint32_t fn = 0; fn < nf; fn++) {
		profdb_context f;
		cr_assert_eq(profdb_context_get(db, fn + 1, &f), 0);
		seen s = {db, f.first_child, fn + 1, 0, profdb_metric_count(db)};
		cr_assert_eq(g->lines(db->impl, fn, check_row, &s), 0, "%s", profdb_error_message());
		cr_assert_eq(s.expect, PROFDB_NONE, "every child visited");
		rows += s.rows;
	}
	/* main: 3, 4 (app.c), 4 (inl.h); work: 20, 22 (21 costs nothing) */
	cr_assert_eq(rows, 5);
	cr_assert_eq(g->lines(db->impl, 2, check_row, NULL), -ENOENT);
	profdb_close(db);
}

static int stop_at_first(void *ud, const profdb__graph_row *row)
{
	(void)row;
	++*(int *)ud;
	return -ECANCELED;
}

Test(graph_lines, a_visit_stops_the_walk)
{
	profdb *db = open_text(text, sizeof text - 1);
	int calls = 0;
	cr_assert_eq(db->be->graph->lines(db->impl, 0, stop_at_first, &calls), -ECANCELED);
	cr_assert_eq(calls, 1);
	profdb_close(db);
}

Test(graph_lines, functions_only_has_no_lines)
{
	profdb_input in = {"callgrind.out.1", text, sizeof text - 1};
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = PROFDB_OPEN_FUNCTIONS_ONLY;
	profdb *db = NULL;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, &o), 0);
	int calls = 0;
	cr_assert_eq(db->be->graph->lines(db->impl, 0, stop_at_first, &calls), -ENOTSUP);
	cr_assert_eq(calls, 0);
	profdb_close(db);
}

typedef struct buf {
	unsigned char *p;
	size_t len;
} buf;

static int to_buf(const void *data, size_t len, void *ud)
{
	buf *b = ud;
	b->p = realloc(b->p, b->len + len + 1);
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static buf pprof_of(const profdb *db, const uint32_t *profiles, size_t n)
{
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = PROFDB_CONVERT_PPROF;
	o.profiles = profiles;
	o.n_profiles = n;
	buf b = {0};
	int r = profdb_convert(db, &o, to_buf, &b);
	cr_assert_eq(r, 0, "%d %s", r, profdb_error_message());
	return b;
}

/* Part 2 as a file of its own (a call line, which pprof does not show,
 * keeps main the heavier function, so the functions come in the same
 * order): its pprof output is that of part 2 of the two, byte for byte,
 * so the bulk path leaves part 1 out entirely. */
Test(graph_lines, pprof_combines_the_chosen_profiles)
{
	static const char part2[] =
		"# callgrind format\nversion: 1\npart: 2\npositions: line\nevents: Ir Dr\n"
		"ob=(1) /bin/app\nfl=(1) app.c\nfn=(1) main\n3 1\n"
		"cfi=(2) lib.c\ncfn=(2) work\ncalls=1 22\n3 50 0\n"
		"fl=(2)\nfn=(2)\n22 9 4\n";
	profdb *db = open_text(text, sizeof text - 1), *one = open_text(part2, sizeof part2 - 1);
	uint32_t second = 1, first = 0;
	buf a = pprof_of(db, &second, 1), b = pprof_of(one, &first, 1);
	cr_assert_eq(a.len, b.len);
	cr_assert_eq(memcmp(a.p, b.p, a.len), 0, "part 2 alone");
	buf all = pprof_of(db, NULL, 0);
	cr_assert_neq(all.len, a.len, "both parts differ from one");
	free(a.p);
	free(b.p);
	free(all.p);
	profdb_close(db);
	profdb_close(one);
}

/* main calls work at line 4 of app.c (after fe= back from inl.h): the
 * edge's site is that line context, not inl.h's line 4. */
Test(graph_lines, call_sites_are_line_contexts)
{
	profdb *db = open_text(text, sizeof text - 1);
	cr_assert_eq(profdb_edge_count(db), 1, "%s", profdb_error_message());
	profdb_edge e;
	cr_assert_eq(profdb_edge_at(db, 0, &e), 0);
	cr_assert_eq(e.caller, 1);
	cr_assert_eq(e.callee, 2);
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, e.site, &c), 0);
	cr_assert_eq(c.parent, 1);
	cr_assert_eq(c.line, 4);
	cr_assert_eq(c.file.len, 5);
	cr_assert_eq(memcmp(c.file.ptr, "app.c", 5), 0);
	profdb_close(db);
}

/* With an instr column the rows are instructions, at their addresses. */
Test(graph_lines, instruction_rows)
{
	static const char instr[] =
		"# callgrind format\nversion: 1\npositions: instr line\nevents: Ir\n"
		"fl=a.c\nfn=f\n0x10 3 5\n0x14 3 2\n+8 4 1\n";
	profdb *db = open_text(instr, sizeof instr - 1);
	profdb_context f;
	cr_assert_eq(profdb_context_get(db, 1, &f), 0);
	seen s = {db, f.first_child, 1, 0, profdb_metric_count(db)};
	cr_assert_eq(db->be->graph->lines(db->impl, 0, check_row, &s), 0);
	cr_assert_eq(s.rows, 3);
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, f.first_child, &c), 0);
	cr_assert_eq(c.type, PROFDB_CTX_INSTRUCTION);
	cr_assert_eq(c.offset, 0x10);
	profdb_close(db);
}

/* The graph table's inclusive_metric: one metric's inclusive cost summed
 * over the profiles, and the cycle's, as the whole rows give them, for
 * every function and metric, whichever is asked for first. main -> a ->
 * b -> a is the cycle {a, b}; b also calls itself, a calls c; two parts,
 * two events, so a column of the wrong event or part shows. */
static const char cycle_text[] =
	"# callgrind format\nversion: 1\npart: 1\nevents: Ir Dr\n"
	"fn=(1) main\n1 1 2\ncfn=(2) a\ncalls=1 1\n1 79 30\n"
	"fn=(2)\n1 10 3\ncfn=(3) b\ncalls=5 1\n1 80 20\ncfn=(4) c\ncalls=1 1\n1 9 4\n"
	"fn=(3)\n1 60 11\ncfn=(2)\ncalls=4 1\n1 70 13\ncfn=(3)\ncalls=3 1\n1 50 7\n"
	"fn=(4)\n1 9 4\n"
	"part: 2\nevents: Ir Dr\n"
	"fn=(1) main\n1 2 1\ncfn=(2) a\ncalls=1 1\n1 5 6\n"
	"fn=(2)\n1 5 6\n";

static void check_inclusive_metric(int columns_first)
{
	profdb *db = open_text(cycle_text, sizeof cycle_text - 1);
	const profdb__graph_table *g = db->be->graph;
	cr_assert(g && g->inclusive_metric);
	int64_t nf = g->function_count(db->impl), nm = profdb_metric_count(db);
	cr_assert_eq(nf, 4);
	cr_assert_geq(nm, 2);
	uint64_t inc, cyc;
	if (columns_first) {   /* a (fn 1), Dr: 3 + 6 of part 2 + the call of c, 4 */
		cr_assert_eq(g->inclusive_metric(db->impl, 1, 1, &inc, &cyc), 1, "%s",
		             profdb_error_message());
		cr_assert_eq(inc, 13);
		cr_assert_eq(cyc, 3 + 6 + 4 + 11);   /* the cycle: a's and b's */
	}
	int in_cycle = 0;
	for (uint32_t f = 0; f < nf; f++)
		for (uint32_t m = 0; m < (uint32_t)nm; m++) {
			const uint64_t *row, *crow = NULL;
			cr_assert_eq(g->inclusive(db->impl, PROFDB_NONE, f, &row), 1);
			int r = g->cycle_inclusive(db->impl, PROFDB_NONE, f, &crow);
			cr_assert_geq(r, 0);
			cyc = 12345;
			cr_assert_eq(g->inclusive_metric(db->impl, f, m, &inc, &cyc), r, "fn %u", f);
			cr_assert_eq(inc, row[m], "fn %u metric %u: %lu, the row says %lu", f, m,
			             (unsigned long)inc, (unsigned long)row[m]);
			if (r) {
				cr_assert_eq(cyc, crow[m], "fn %u metric %u: cycle", f, m);
				in_cycle++;
			} else {
				cr_assert_eq(cyc, 12345, "no cycle: *cycle untouched");
			}
		}
	cr_assert_eq(in_cycle, 2 * (int)nm, "a and b in the cycle");
	cr_assert_eq(g->inclusive_metric(db->impl, 0, 0, &inc, &cyc), 0);
	cr_assert_eq(inc, 1 + 2 + 79 + 5);   /* main: its self costs and its calls of a */
	cr_assert_eq(g->inclusive_metric(db->impl, 4, 0, &inc, &cyc), -ENOENT);
	cr_assert_eq(g->inclusive_metric(db->impl, 0, (uint32_t)nm, &inc, &cyc), -ENOENT);
	profdb_close(db);
}

Test(graph_lines, inclusive_metric_is_the_rows_column)
{
	check_inclusive_metric(0);
}

Test(graph_lines, inclusive_metric_first_finds_the_cycles)
{
	check_inclusive_metric(1);
}

/* profdb_inclusive of a function is its row's value in every profile,
 * also where the reader answers from one event's column (the sum over
 * the profiles, and a single profile that holds every function), and the
 * column serves no profile of several. */
static void check_scoped_inclusive(const char *t, size_t n, int64_t n_profiles)
{
	profdb *db = open_text(t, n);
	const profdb__graph_table *g = db->be->graph;
	int64_t nf = g->function_count(db->impl), nm = profdb_metric_count(db);
	cr_assert_eq(profdb_profile_count(db), n_profiles);
	size_t differs = 0;
	for (uint32_t p = 0; p < (uint32_t)n_profiles; p++)
		for (uint32_t f = 0; f < nf; f++)
			for (uint32_t m = 0; m < (uint32_t)nm; m++) {
				const uint64_t *row, *all;
				profdb_number x;
				int r = profdb_inclusive(db, p, f + 1, m, &x);
				cr_assert_geq(r, 0, "%s", profdb_error_message());
				cr_assert_eq(g->inclusive(db->impl, p, f, &row) >= 0, 1);
				cr_assert_eq(g->inclusive(db->impl, PROFDB_NONE, f, &all), 1);
				uint64_t v = r ? x.as.u64 : 0;
				cr_assert_eq(v, row[m], "profile %u fn %u metric %u: %lu, the row %lu", p, f, m,
				             (unsigned long)v, (unsigned long)row[m]);
				differs += row[m] != all[m];
			}
	/* two parts: a profile's value is not the sum's (else this proves
	 * nothing about which table answered) */
	cr_assert(n_profiles == 1 ? differs == 0 : differs > 0);
	profdb_close(db);
}

Test(graph_lines, scoped_inclusive_is_the_rows)
{
	const char *part2 = strstr(cycle_text, "part: 2");
	cr_assert(part2);
	check_scoped_inclusive(cycle_text, (size_t)(part2 - cycle_text), 1);
	check_scoped_inclusive(cycle_text, sizeof cycle_text - 1, 2);
}
