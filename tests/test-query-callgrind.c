/* The Callgrind backend of the common query interface (lib/callgrind/query.c):
 * the primary-caller tree on a hand-written profile, values and scopes,
 * parts as profiles, detection (plain, gzip, by name), and the generic
 * invariants (tests/query-check.h) plus the root = total rule on every real
 * Callgrind sample. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profdb-config.h"   /* PROFDB_HAVE_ZLIB */
#include "common.h"
#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif
#include "query-check.h"

/* main calls a (90) and b (45); a and b both call c, b more heavily; c
 * calls b back (a cycle, at no cost). Self Ir: main 10, a 60, b 5, c 70. */
static const char cycle_text[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: profdb-test\n"
	"cmd: ./prog arg\n"
	"positions: line\n"
	"events: Ir Dr\n"
	"event: Dr : Data reads\n"
	"fl=(1) prog.c\n"
	"fn=(1) main\n"
	"1 10 1\n"
	"cfn=(2) a\n"
	"calls=1 5\n"
	"2 90 9\n"
	"cfn=(3) b\n"
	"calls=2 6\n"
	"3 45 4\n"
	"\n"
	"fn=(2)\n"
	"5 60 6\n"
	"cfn=(4) c\n"
	"calls=1 11\n"
	"6 30 3\n"
	"\n"
	"fn=(3)\n"
	"10 5\n"
	"cfn=(4)\n"
	"calls=3 11\n"
	"11 40 4\n"
	"\n"
	"fn=(4)\n"
	"20 70 7\n"
	"cfn=(3)\n"
	"calls=1 10\n"
	"21 0\n";

static profdb *open_text(const char *name, const void *text, size_t n)
{
	profdb_input in = {name, text, n};
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, &in, 1, NULL);
	cr_assert_eq(r, 0, "open %s: %d %s", name ? name : "(unnamed)", r, profdb_error_message());
	return db;
}

/* Pre-order successor of @p c in the tree: 1 and *c, or 0 at the end. */
static int next_node(const profdb *db, profdb_context *c)
{
	if (c->first_child != PROFDB_NONE) {
		cr_assert_eq(profdb_context_get(db, c->first_child, c), 0);
		return 1;
	}
	while (c->next_sibling == PROFDB_NONE && c->parent != PROFDB_NONE)
		cr_assert_eq(profdb_context_get(db, c->parent, c), 0);
	if (c->next_sibling == PROFDB_NONE)
		return 0;
	cr_assert_eq(profdb_context_get(db, c->next_sibling, c), 0);
	return 1;
}

static profdb_context first_node(const profdb *db)
{
	uint32_t id;
	profdb_context c;
	cr_assert_eq(profdb_context_root(db, &id), 0);
	cr_assert_eq(profdb_context_get(db, id, &c), 0);
	return c;
}

/* The function context called @p name. */
static profdb_context by_name(const profdb *db, const char *name)
{
	profdb_context c = first_node(db);
	do
		if (c.type == PROFDB_CTX_FUNCTION && qc_str_is(c.function, name))
			return c;
	while (next_node(db, &c));
	cr_assert_fail("no function %s", name);
	return c;
}

static uint64_t scoped(const profdb *db, uint32_t p, uint32_t ctx, uint32_t m, int inclusive)
{
	profdb_number v;
	int r = inclusive ? profdb_inclusive(db, p, ctx, m, &v) : profdb_exclusive(db, p, ctx, m, &v);
	cr_assert_geq(r, 0, "%s", profdb_error_message());
	if (r == 0) {   /* nothing there: cleared, reads as 0 */
		cr_assert_eq(v.type, PROFDB_TYPE_NONE);
		return 0;
	}
	cr_assert_eq(v.type, PROFDB_TYPE_U64);
	return v.as.u64;
}

Test(query_callgrind, primary_caller_tree)
{
	profdb *db = open_text("prog.callgrind", cycle_text, sizeof cycle_text - 1);
	profdb_counts c = qc_check_all(db, "cycle_text");
	cr_assert_eq(c.profiles, 1);
	cr_assert_eq(c.contexts, 9);   /* the root, four functions, a line of each */
	cr_assert_eq(c.metrics, 2);
	cr_assert_eq(c.values, 7);     /* the lines' costs, each once; b's line has no Dr */
	cr_assert_eq(c.traces, 0);

	profdb_about about;
	cr_assert_eq(profdb_get_about(db, &about), 0);
	cr_assert_eq(about.format, PROFDB_FORMAT_CALLGRIND);
	cr_assert(qc_str_is(about.title, "./prog arg"));

	uint32_t root, total_root = 7;
	profdb_context r0, m, a, b, cc;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	/* The synthetic root of the call graph holds every total. */
	cr_assert_eq(profdb_total_root(db, &total_root), 1);
	cr_assert_eq(total_root, root);
	cr_assert_eq(profdb_has_names(db), 1);
	cr_assert_eq(profdb_context_get(db, root, &r0), 0);
	cr_assert_eq(r0.type, PROFDB_CTX_ROOT);
	m = by_name(db, "main");
	a = by_name(db, "a");
	b = by_name(db, "b");
	cc = by_name(db, "c");
	/* Every function under the root, heaviest first (self + calls to other
	 * functions: main 145, a 90, c 70, b 45), its lines under it; calls
	 * are edges, not links. */
	profdb_context ml, al, bl;
	cr_assert_eq(r0.first_child, m.id);
	cr_assert_eq(m.next_sibling, a.id);
	cr_assert_eq(a.next_sibling, cc.id);
	cr_assert_eq(cc.next_sibling, b.id);
	cr_assert_eq(b.next_sibling, PROFDB_NONE);
	const profdb_context *fns[] = {&m, &a, &b, &cc};
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(fns[i]->parent, root);
		cr_assert_eq(fns[i]->depth, 1);
	}
	cr_assert_eq(profdb_context_get(db, m.first_child, &ml), 0);
	cr_assert_eq(ml.type, PROFDB_CTX_LINE);
	cr_assert_eq(ml.relation, PROFDB_RELATION_LEXICAL);
	cr_assert_eq(ml.parent, m.id);
	cr_assert_eq(ml.depth, 2);
	cr_assert_eq(ml.line, 1);
	cr_assert_eq(ml.has_offset, 0);
	cr_assert(qc_str_is(ml.function, "main"));
	cr_assert(qc_str_is(ml.file, "prog.c"));
	cr_assert_eq(ml.first_child, PROFDB_NONE);
	cr_assert_eq(ml.next_sibling, PROFDB_NONE);   /* its callees are not below it */
	cr_assert_eq(profdb_context_get(db, b.first_child, &bl), 0);
	cr_assert_eq(bl.line, 10);
	cr_assert_eq(bl.next_sibling, PROFDB_NONE);
	cr_assert_eq(profdb_context_get(db, a.first_child, &al), 0);
	cr_assert_eq(al.line, 5);
	cr_assert_eq(al.next_sibling, PROFDB_NONE);
	cr_assert_eq(m.type, PROFDB_CTX_FUNCTION);
	cr_assert_eq(m.relation, PROFDB_RELATION_CALL);
	cr_assert(qc_str_is(m.file, "prog.c"));

	/* metrics: events, Dr with its long name */
	profdb_metric met;
	cr_assert_eq(profdb_metric_find(db, "Dr", &met), 0);
	cr_assert_eq(met.id, 1);
	cr_assert(qc_str_is(met.description, "Data reads"));
	cr_assert_eq(met.kind, PROFDB_METRIC_EXCLUSIVE);
	cr_assert_eq(met.type, PROFDB_TYPE_U64);

	/* values: the lines' self costs; nothing stored at the root, at a
	 * function (its self cost is computed from its lines) or for b's Dr */
	profdb_number v;
	cr_assert_eq(profdb_value(db, 0, a.id, 0, &v), 0);
	cr_assert_eq(v.type, PROFDB_TYPE_NONE);
	cr_assert_eq(profdb_value(db, 0, b.id, 1, &v), 0);
	cr_assert_eq(v.type, PROFDB_TYPE_NONE);
	cr_assert_eq(profdb_value(db, 0, root, 0, &v), 0);
	cr_assert_eq(profdb_value(db, 0, al.id, 0, &v), 1);
	cr_assert_eq(v.as.u64, 60);
	cr_assert_eq(profdb_value(db, 0, bl.id, 1, &v), 0);
	cr_assert_eq(profdb_value(db, 0, 99, 0, &v), -ENOENT);
	cr_assert_eq(profdb_value(db, 1, a.id, 0, &v), -ENOENT);

	/* scopes: exclusive = self; inclusive = profdb_cg_inclusive; the root
	 * holds the total */
	cr_assert_eq(scoped(db, 0, a.id, 0, 0), 60);
	cr_assert_eq(scoped(db, 0, a.id, 0, 1), 90);
	cr_assert_eq(scoped(db, 0, m.id, 0, 1), 145);
	cr_assert_eq(scoped(db, 0, root, 0, 1), 145);
	cr_assert_eq(scoped(db, 0, root, 0, 0), 0);
	cr_assert_eq(scoped(db, 0, ml.id, 0, 0), 10);   /* a line: inclusive = self */
	cr_assert_eq(scoped(db, 0, ml.id, 0, 1), 10);
	const profdb_cg *cg = profdb_get_cg(db);
	cr_assert(cg);
	for (uint32_t id = 1; id < 5; id++) {
		const uint64_t *inc;
		cr_assert_eq(profdb_cg_inclusive(cg, 0, id - 1, &inc), 1);
		cr_assert_eq(scoped(db, 0, id, 0, 1), inc[0]);
		cr_assert_leq(inc[0], 145);
	}
	profdb_close(db);
}

/* An inclusive value of one event reads the event's own column, or the
 * whole table once a caller had that built: the same numbers either way,
 * for every function and event, those in the cycle too. */
Test(query_callgrind, one_event_from_either_table)
{
	profdb *col = open_text("callgrind.out", cycle_text, sizeof cycle_text - 1);
	profdb *all = open_text("callgrind.out", cycle_text, sizeof cycle_text - 1);
	const uint64_t *inc;
	cr_assert_eq(profdb_cg_inclusive(profdb_get_cg(all), PROFDB_CG_ALL, 0, &inc), 1);
	for (uint32_t id = 1; id < 5; id++) {
		cr_assert_eq(profdb_cg_inclusive(profdb_get_cg(all), PROFDB_CG_ALL, id - 1, &inc), 1);
		for (uint32_t m = 0; m < 2; m++) {
			cr_assert_eq(scoped(col, 0, id, m, 1), inc[m], "function %" PRIu32 " event %" PRIu32,
			             id, m);
			cr_assert_eq(scoped(all, 0, id, m, 1), inc[m], "function %" PRIu32 " event %" PRIu32,
			             id, m);
		}
	}
	cr_assert_eq(scoped(all, 0, 1, 1, 1), 14);   /* main, Dr: 1 + 9 + 4 */
	profdb_close(col);
	profdb_close(all);
}

static const char parts_text[] =
	"version: 1\n"
	"pid: 42\n"
	"part: 1\n"
	"events: Ir\n"
	"fn=(1) main\n"
	"1 7\n"
	"totals: 7\n"
	"part: 2\n"
	"events: Ir\n"
	"fn=(1)\n"
	"1 3\n"
	"fn=(2) other\n"
	"2 4\n"
	"totals: 7\n";

Test(query_callgrind, parts_are_profiles)
{
	profdb *db = open_text("callgrind.out.42", parts_text, sizeof parts_text - 1);
	profdb_counts c = qc_check_all(db, "parts_text");
	cr_assert_eq(c.profiles, 2);
	cr_assert_eq(c.contexts, 5);   /* root, main, other, main:1 (both parts), other:2 */
	cr_assert_eq(c.values, 3);     /* main:1 in each part, other:2 */
	profdb_profile p;
	cr_assert_eq(profdb_profile_at(db, 1, &p), 0);
	/* callgrind.out.42 ends in a pid, not a dump number */
	cr_assert(qc_str_is(p.name, "part 2"), "%.*s", (int)p.name.len, p.name.ptr);
	profdb_str kind;
	uint64_t value;
	int found_pid = 0;
	for (uint32_t i = 0; i < p.n_identity; i++) {
		cr_assert_eq(profdb_profile_identity(db, 1, i, &kind, &value), 0);
		if (qc_str_is(kind, "pid"))
			found_pid = value == 42;
	}
	cr_assert(found_pid);
	profdb_context mn = by_name(db, "main");
	cr_assert_eq(scoped(db, 0, mn.id, 0, 0), 7);
	cr_assert_eq(scoped(db, 1, mn.id, 0, 0), 3);
	size_t n;
	profdb_entry *e = qc_scan(db, PROFDB_SCAN_CONTEXT, mn.id, &n);
	cr_assert_eq(n, 0);   /* a function stores nothing: its lines hold its costs */
	free(e);
	/* main's line 1 merges both parts: one context, a value in each */
	profdb_context ln;
	cr_assert_eq(profdb_context_get(db, mn.first_child, &ln), 0);
	cr_assert_eq(ln.line, 1);
	e = qc_scan(db, PROFDB_SCAN_CONTEXT, ln.id, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(e[0].value.as.u64 + e[1].value.as.u64, 10);
	free(e);
	uint32_t root;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	cr_assert_eq(scoped(db, 1, root, 0, 1), 7);
	profdb_close(db);
}

/* The cursor's orders, which lib/query relies on to materialise the common
 * views: SCAN_PROFILE by (context, metric), SCAN_CONTEXT by (metric,
 * profile), for function and line contexts alike. */
Test(query_callgrind, scan_orders)
{
	static const char text[] = "events: Ir Dr\npart: 1\nfl=a.c\nfn=main\n1 3 4\n2 5 6\n"
	                           "cfn=f\ncalls=1 9\n2 7 8\nfn=f\n9 7 8\n"
	                           "part: 2\nfl=a.c\nfn=main\n1 1 2\nfn=f\n9 1 1\n";
	profdb *db = open_text("callgrind.out.42", text, sizeof text - 1);
	size_t total = 0;
	uint32_t root;
	profdb_context c;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	cr_assert_eq(profdb_context_get(db, root, &c), 0);
	for (int more = 1; more; more = next_node(db, &c)) {   /* ids are sparse: walk the tree */
		uint32_t id = c.id;
		size_t n;
		profdb_entry *e = qc_scan(db, PROFDB_SCAN_CONTEXT, id, &n);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(e[i].context, id);
			if (i > 0)
				cr_assert(e[i - 1].metric < e[i].metric ||
				          (e[i - 1].metric == e[i].metric && e[i - 1].profile < e[i].profile),
				          "context %u: entry %zu out of (metric, profile) order", id, i);
		}
		total += n;
		free(e);
	}
	size_t by_profile = 0;
	int64_t np = profdb_profile_count(db);
	cr_assert_geq(np, 2);
	for (uint32_t p = 0; p < (uint32_t)np; p++) {
		size_t n;
		profdb_entry *e = qc_scan(db, PROFDB_SCAN_PROFILE, p, &n);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(e[i].profile, p);
			if (i > 0)
				cr_assert(e[i - 1].context < e[i].context ||
				          (e[i - 1].context == e[i].context && e[i - 1].metric < e[i].metric),
				          "profile %u: entry %zu out of (context, metric) order", p, i);
		}
		by_profile += n;
		free(e);
	}
	cr_assert_eq(total, by_profile);
	cr_assert_gt(total, 0);
	profdb_close(db);
}

/* Many parts and more functions than a handful: the scans go through the
 * functions once per profile, and each function's line rows come from all
 * profiles. Decoding a function walked its whole segment list once per
 * profile (O(profiles^2)), and a cache of 8 functions decoded every function
 * again for each profile: O(functions x profiles^3) in all, 6 s for these
 * 43 KB at 400 parts (fuzz-callgrind, timeout-9969f98e…). Now each function is
 * decoded in one pass over its segments and, while the rows fit the cache,
 * once per scan. */
Test(query_callgrind, many_parts_scan_once, .timeout = 20)
{
	enum { P = 600, F = 9 };
	size_t cap = 64 + (size_t)P * (16 + F * 16), n = 0;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	for (int p = 0; p < P; p++) {
		n += (size_t)snprintf(text + n, cap - n, p ? "part: %d\n" : "part: %d\nevents: A\n",
		                      p + 1);
		for (int f = 0; f < F; f++)
			n += (size_t)snprintf(text + n, cap - n, p ? "fn=(%d)\n%d 1\n" : "fn=(%d) f%d\n%d 1\n",
			                      f + 1, p ? 10 + f : f, 10 + f);
	}
	cr_assert_lt(n, cap);
	profdb *db = open_text("callgrind.out", text, n);
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert_eq(c.profiles, P);
	cr_assert_eq(c.contexts, 1 + 2 * F);   /* root, functions, one line each */
	cr_assert_eq(c.values, P * F);         /* each function's line, per part */
	size_t ne;
	profdb_entry *e = qc_scan(db, PROFDB_SCAN_ALL, 0, &ne);
	cr_assert_eq(ne, (size_t)c.values);
	for (size_t i = 0; i < ne; i++)
		cr_assert_eq(e[i].value.as.u64, 1);
	free(e);
	for (uint32_t p = 0; p < P; p += 7) {
		e = qc_scan(db, PROFDB_SCAN_PROFILE, p, &ne);
		cr_assert_eq(ne, F);
		free(e);
	}
	profdb_close(db);
	free(text);
}

/* Instructions (positions: instr line), inlined code in another file (fi=),
 * a zero-cost line that is no context, and the functions-only open. */
static const char instr_text[] =
	"positions: instr line\n"
	"events: Ir\n"
	"ob=(1) /lib/x.so\n"
	"fl=(1) x.c\n"
	"fn=(1) f\n"
	"0x10 3 4\n"
	"+4 * 0\n"
	"fi=(2) x.h\n"
	"+2 90 6\n"
	"fe=(1)\n"
	"+2 3 1\n"
	"0x10 3 1\n";

Test(query_callgrind, instructions)
{
	profdb *db = open_text("x.out", instr_text, sizeof instr_text - 1);
	/* the headers' counts: the line contexts and values need every
	 * function's lines, so they are unknown; the rest is the open's */
	profdb_counts c;
	cr_assert_eq(profdb_get_header_counts(db, &c), 0);
	cr_assert_eq(c.profiles, 1);
	cr_assert_eq(c.metrics, 1);
	cr_assert_eq(c.contexts, -1);
	cr_assert_eq(c.values, -1);
	c = qc_check_all(db, "instr_text");
	cr_assert_eq(c.contexts, 5);   /* root, f, 0x10, 0x16, 0x18 (0x14 costs nothing) */
	cr_assert_eq(c.values, 3);     /* the three instructions; f's own cost is their sum */
	profdb_context f = by_name(db, "f"), i0, i1, i2;
	cr_assert_eq(profdb_context_get(db, f.first_child, &i0), 0);
	cr_assert_eq(i0.type, PROFDB_CTX_INSTRUCTION);
	cr_assert_eq(i0.has_offset, 1);
	cr_assert_eq(i0.offset, 0x10);
	cr_assert_eq(i0.line, 3);
	cr_assert(qc_str_is(i0.module, "/lib/x.so"));
	cr_assert_eq(scoped(db, 0, i0.id, 0, 0), 5);   /* two cost lines at 0x10 */
	cr_assert_eq(profdb_context_get(db, i0.next_sibling, &i1), 0);
	cr_assert_eq(i1.offset, 0x18);   /* sorted by line, then address */
	cr_assert_eq(i1.line, 3);
	cr_assert(qc_str_is(i1.file, "x.c"));
	cr_assert_eq(profdb_context_get(db, i1.next_sibling, &i2), 0);
	cr_assert_eq(i2.offset, 0x16);
	cr_assert_eq(i2.line, 90);
	cr_assert(qc_str_is(i2.file, "x.h"));
	cr_assert_eq(i2.next_sibling, PROFDB_NONE);
	/* f has five cost lines, so five ids; the last two are unused */
	profdb_number v;
	cr_assert_eq(profdb_value(db, 0, i2.id + 1, 0, &v), -ENOENT);
	cr_assert_eq(profdb_context_get(db, i2.id + 2, &i0), -ENOENT);
	cr_assert_eq(profdb_context_get(db, i2.id + 3, &i0), -ENOENT);
	/* the backend's values answer for unknown ids themselves (lib/query
	 * does not look them up again): unused ids and ids past the end,
	 * after the rows of their function were read and before */
	for (uint32_t id = i2.id + 1; id <= i2.id + 5; id++) {
		cr_assert_eq(profdb_value(db, 0, id, 0, &v), -ENOENT, "value of %" PRIu32, id);
		cr_assert_eq(profdb_exclusive(db, 0, id, 0, &v), -ENOENT, "exclusive of %" PRIu32, id);
		cr_assert_eq(profdb_inclusive(db, 0, id, 0, &v), -ENOENT, "inclusive of %" PRIu32, id);
	}
	profdb_close(db);
	db = open_text("x.out", instr_text, sizeof instr_text - 1);
	for (uint32_t id = i2.id + 1; id <= i2.id + 5; id++) {
		cr_assert_eq(profdb_exclusive(db, 0, id, 0, &v), -ENOENT, "exclusive of %" PRIu32, id);
		cr_assert_eq(profdb_value(db, 0, id, 0, &v), -ENOENT, "value of %" PRIu32, id);
	}
	profdb_close(db);

	/* functions only: the root and f */
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = PROFDB_OPEN_FUNCTIONS_ONLY;
	profdb_input in = {"x.out", instr_text, sizeof instr_text - 1};
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, &o), 0);
	c = qc_check_all(db, "instr_text, functions only");   /* header counts known, equal */
	cr_assert_eq(c.contexts, 2);
	cr_assert_eq(c.values, 1);     /* no lines: f's self cost is the stored value */
	profdb_number fv;
	cr_assert_eq(profdb_value(db, 0, by_name(db, "f").id, 0, &fv), 1);
	cr_assert_eq(fv.as.u64, 12);   /* 4 + 0 + 6 + 1 + 1 */
	f = by_name(db, "f");
	cr_assert_eq(f.first_child, PROFDB_NONE);
	cr_assert_eq(profdb_context_get(db, f.id + 1, &i0), -ENOENT);
	cr_assert_eq(profdb_value(db, 0, f.id + 1, 0, &fv), -ENOENT);
	cr_assert_eq(profdb_exclusive(db, 0, f.id + 1, 0, &fv), -ENOENT);
	profdb_close(db);
}

#ifdef PROFDB_HAVE_ZLIB
/* gzip of @p text, malloc'ed. */
static unsigned char *gzip(const char *text, size_t n, size_t *out_n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	unsigned char *out = malloc(cap);
	cr_assert(out);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}
#endif

/* The counts of line contexts and values are made by several threads
 * (options.threads), each counting a range of functions: every thread
 * count gives the one-thread answer. Function f has f + 1 line rows, one
 * of them given twice (one row), and two events with Dr zero on odd
 * lines; 3 parts. */
/* A line's context has the same links whether or not the tree (the order
 * of the functions, which needs every call edge) was built first: a
 * handle that only ever reads lines gives what a walk gives. */
static void lines_alike(const char *text, size_t n)
{
	profdb *walked = open_text("x.out", text, n), *fresh = open_text("x.out", text, n);
	profdb_context c = first_node(walked), got;
	int lines = 0;
	while (next_node(walked, &c)) {
		if (c.type != PROFDB_CTX_LINE && c.type != PROFDB_CTX_INSTRUCTION)
			continue;
		lines++;
		cr_assert_eq(profdb_context_get(fresh, c.id, &got), 0, "%s", profdb_error_message());
		cr_assert_eq(got.parent, c.parent);
		cr_assert_eq(got.first_child, c.first_child);
		cr_assert_eq(got.next_sibling, c.next_sibling, "line %" PRIu32, c.id);
		cr_assert_eq(got.depth, c.depth);
		cr_assert_eq(got.relation, c.relation);
		cr_assert_eq(got.type, c.type);
		cr_assert_eq(got.line, c.line);
		cr_assert_eq(got.offset, c.offset);
		cr_assert(got.file.len == c.file.len && !memcmp(got.file.ptr, c.file.ptr, c.file.len));
	}
	cr_assert_gt(lines, 0);
	profdb_close(walked);
	profdb_close(fresh);
}

Test(query_callgrind, line_before_tree)
{
	lines_alike(cycle_text, sizeof cycle_text - 1);
	lines_alike(instr_text, sizeof instr_text - 1);
}

Test(query_callgrind, counts_on_threads)
{
	enum { P = 3, F = 40 };
	size_t cap = 256 + (size_t)P * F * (24 + (F + 2) * 16), n = 0;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	int64_t rows = 0, values = 0;
	for (int p = 0; p < P; p++) {
		n += (size_t)snprintf(text + n, cap - n, p ? "part: %d\n" : "part: %d\nevents: Ir Dr\n",
		                      p + 1);
		for (int f = 0; f < F; f++) {
			n += (size_t)snprintf(text + n, cap - n, p ? "fn=(%d)\n" : "fn=(%d) f%d\n", f + 1, f);
			for (int k = 0; k <= f; k++) {
				n += (size_t)snprintf(text + n, cap - n, "%d 1 %d\n", 100 + k, k % 2 ? 0 : 2);
				values += k % 2 ? 1 : 2;
			}
			n += (size_t)snprintf(text + n, cap - n, "100 1 0\n");   /* row 100 again */
			rows += p == 0 ? f + 1 : 0;
		}
	}
	cr_assert_lt(n, cap);
	for (uint32_t threads = 1; threads <= 3; threads++) {
		profdb_options o = PROFDB_OPTIONS_INIT;
		o.threads = threads;
		profdb_input in = {"callgrind.out", text, n};
		profdb *db = NULL;
		cr_assert_eq(profdb_open_inputs(&db, &in, 1, &o), 0, "%s", profdb_error_message());
		profdb_counts c;
		cr_assert_eq(profdb_get_counts(db, &c), 0);
		cr_assert_eq(c.contexts, 1 + F + rows, "%u threads: %" PRId64, threads, c.contexts);
		cr_assert_eq(c.values, values, "%u threads: %" PRId64, threads, c.values);
		profdb_close(db);
	}
	free(text);
}

/* The counts of `info` come from the scan (each block counts its distinct
 * positions with a non-zero cost, and their non-zero costs) where a
 * function is one block, and from decoding it otherwise (main is two
 * blocks; a derived event is decoded too). The same position in two files,
 * a position again with another column, zero costs, a position-only line
 * and a call's cost line; in k, ids 2 and 7 name the same file: a piece of
 * the parallel scan that starts at k sees two placeholder files where the
 * merge sees one (lib/callgrind/parallel.c). */
Test(query_callgrind, counts_from_blocks)
{
	static const char body[] = "fl=(1) a.c\n"
	                           "fn=(1) main\n"
	                           "1 1 0\n"
	                           "2 0 0\n"
	                           "fi=(2) a.h\n"
	                           "1 0 3\n"
	                           "fi=(7) a.h\n"
	                           "6 1 0\n"
	                           "fe=(1)\n"
	                           "1 0 2\n"
	                           "3\n"
	                           "cfn=(3) g\n"
	                           "calls=1 5\n"
	                           "5 7 7\n"
	                           "4 2 2\n"
	                           "fn=(3)\n"
	                           "7 1 1\n"
	                           "fn=(1)\n"
	                           "1 1 0\n"
	                           "9 0 1\n"
	                           "fl=(4) b.c\n"
	                           "fn=(5) k\n"
	                           "1 5 5\n"
	                           "fi=(2)\n"
	                           "1 1 0\n"
	                           "fe=(7)\n"
	                           "1 0 1\n";
	/* main: a.c:1 a.h:1 a.h:6 a.c:4 a.c:9, 7 values; g: 1 row, 2 values;
	 * k: b.c:1 a.h:1, 4 values */
	for (int derived = 0; derived < 2; derived++) {
		char text[1024];
		snprintf(text, sizeof text, "events: Ir Dr\n%s%s", derived ? "event: S = Ir + Dr\n" : "",
		         body);
		for (uint32_t threads = 1; threads <= 4; threads++) {
			profdb_options o = PROFDB_OPTIONS_INIT;
			o.threads = threads;
			profdb_input in = {"callgrind.out", text, strlen(text)};
			profdb *db = NULL;
			cr_assert_eq(profdb_open_inputs(&db, &in, 1, &o), 0, "%s", profdb_error_message());
			profdb_counts c;
			cr_assert_eq(profdb_get_counts(db, &c), 0, "%s", profdb_error_message());
			cr_assert_eq(c.contexts, 1 + 3 + 8, "%u threads: %" PRId64, threads, c.contexts);
			cr_assert_eq(c.values, derived ? 13 + 8 : 13, "%u threads: %" PRId64, threads,
			             c.values);
			profdb_close(db);
		}
	}
}

Test(query_callgrind, detection)
{
	/* by content, whatever the name */
	profdb *db = open_text("whatever.txt", cycle_text, sizeof cycle_text - 1);
	profdb_close(db);
	db = open_text(NULL, parts_text, sizeof parts_text - 1);
	profdb_close(db);
#ifdef PROFDB_HAVE_ZLIB
	/* gzip, detected from the inflated head */
	size_t gn;
	unsigned char *gz = gzip(cycle_text, sizeof cycle_text - 1, &gn);
	db = open_text("profile.gz", gz, gn);
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert_eq(c.values, 7);
	profdb_close(db);
	free(gz);
#endif
	/* text that is not Callgrind */
	static const char junk[] = "hello world\nthis is not a profile\n";
	profdb_input in = {"notes.txt", junk, sizeof junk - 1};
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "Callgrind"), "%s", profdb_error_message());
}

/* ---- thread sets and dump series ---------------------------------------------- */

#ifdef HAVE_TEST_WRITER
#include "writer.h"   /* tw_chain_callgrind */

/* @p dir/@p name as a chain @p depth frames deep with cost 1 per frame (its
 * total is @p depth), or an empty file for depth 0. */
static void put_chain(const char *dir, const char *name, uint32_t depth)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (depth) {
		cr_assert_eq(tw_chain_callgrind(path, depth, 1), 0, "%s", path);
		return;
	}
	FILE *f = fopen(path, "w");
	cr_assert(f && fclose(f) == 0, "%s", path);
}

/* profdb_open of @p dir/@p name: its profiles' Ir totals (the root's
 * inclusive values) summed, and the files it read joined by spaces. */
static uint64_t open_total(const char *dir, const char *name, int64_t profiles, char *files,
                           size_t cap)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	profdb *db;
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s: %s", path, profdb_error_message());
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert_eq(c.profiles, profiles, "%s: %" PRId64 " profiles", path, c.profiles);
	uint32_t root;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	uint64_t sum = 0;
	for (uint32_t p = 0; p < (uint32_t)c.profiles; p++)
		sum += scoped(db, p, root, 0, 1);
	files[0] = 0;
	profdb_str f;
	size_t k = 0;
	for (size_t i = 0; profdb_file_name(db, i, &f) == 0; i++)
		k += (size_t)snprintf(files + k, cap - k, "%s%.*s", i ? " " : "", (int)f.len, f.ptr);
	profdb_close(db);
	return sum;
}

/* The base name opens every file of the set or series; a member's own
 * name opens that file alone; profdb_file_name lists what was read. */
Test(query_callgrind, sets_base_and_members)
{
	char dir[] = "/tmp/profdb-qcg-set-XXXXXX";
	cr_assert(mkdtemp(dir));
	static const struct {
		const char *name;
		uint32_t depth;
	} files[] = {
		{"thr.out", 0}, {"thr.out-01", 3}, {"thr.out-02", 5}, {"thr.out-03", 7},
		{"run.out", 2}, {"run.out.1", 4}, {"run.out.2", 6},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		put_chain(dir, files[i].name, files[i].depth);
	char got[512];
	/* the empty base file of --separate-threads: recognised by its members */
	cr_assert_eq(open_total(dir, "thr.out", 3, got, sizeof got), 15);
	cr_assert_str_eq(got, "thr.out thr.out-01 thr.out-02 thr.out-03");
	cr_assert_eq(open_total(dir, "thr.out-02", 1, got, sizeof got), 5);
	cr_assert_str_eq(got, "thr.out-02");
	cr_assert_eq(open_total(dir, "thr.out-01", 1, got, sizeof got), 3);
	cr_assert_str_eq(got, "thr.out-01");
	/* a dump series: the base file holds the last dump */
	cr_assert_eq(open_total(dir, "run.out", 3, got, sizeof got), 12);
	cr_assert_str_eq(got, "run.out.1 run.out.2 run.out");
	cr_assert_eq(open_total(dir, "run.out.2", 1, got, sizeof got), 6);
	cr_assert_str_eq(got, "run.out.2");
	/* an empty file without NAME-01 (or NAME.1) beside it says nothing */
	char path[512];
	snprintf(path, sizeof path, "%s/thr.out-01", dir);
	cr_assert_eq(unlink(path), 0);
	snprintf(path, sizeof path, "%s/thr.out", dir);
	profdb *db;
	cr_assert_eq(profdb_open(&db, path, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "empty"), "%s", profdb_error_message());
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
		unlink(path);
	}
	cr_assert_eq(rmdir(dir), 0);
}
#else
Test(query_callgrind, sets_base_and_members)
{
	cr_skip_test("built without the test-data writer (tests/writer)");
}
#endif

/* ---- every real Callgrind sample ------------------------------------------------ */

/* In profile @p p: no function's inclusive value below its self cost, and
 * the lines of every function add up to its self cost, event by event. */
static void check_lines(const profdb *db, uint32_t p, uint32_t nm, const char *what)
{
	profdb_context c = first_node(db);
	uint64_t *sum = calloc(nm, sizeof *sum), *self = calloc(nm, sizeof *self);
	uint32_t fn = PROFDB_NONE;
	int more;
	cr_assert(sum && self);
	do {
		more = next_node(db, &c);
		int is_line = more && (c.type == PROFDB_CTX_LINE || c.type == PROFDB_CTX_INSTRUCTION);
		if (is_line) {
			cr_assert_eq(c.parent, fn, "%s: line %" PRIu32 " outside its function", what, c.id);
			for (uint32_t m = 0; m < nm; m++)
				sum[m] += scoped(db, p, c.id, m, 0);
			continue;
		}
		if (fn != PROFDB_NONE)   /* the previous function's lines are done */
			for (uint32_t m = 0; m < nm; m++)
				cr_assert_eq(sum[m], self[m], "%s: lines of %" PRIu32 " event %" PRIu32, what,
				             fn, m);
		fn = PROFDB_NONE;
		if (more && c.type == PROFDB_CTX_FUNCTION) {
			fn = c.id;
			for (uint32_t m = 0; m < nm; m++) {
				sum[m] = 0;
				self[m] = scoped(db, p, c.id, m, 0);
			}
			/* Not bounded by the total: a writer's calls= costs may add
			 * up to more (doc/FORMATS.md "Callgrind"); tests/
			 * cg_cycles_check.py checks the exact values. */
			cr_assert_geq(scoped(db, p, c.id, 0, 1), self[0], "%s", what);
		}
	} while (more);
	free(sum);
	free(self);
}

static void check_real(const char *rel)
{
	if (!tc_sample_root())
		cr_skip_test("no sample data directory");
	char *full;
	cr_assert(asprintf(&full, "callgrind/%s", rel) >= 0);
	size_t n = 0, opened = 0, skipped = 0;
	char **list = tc_list_files(full, &n);
	free(full);
	if (n == 0)
		cr_skip_test("no Callgrind samples under %s/callgrind/%s", tc_sample_root(), rel);
	for (size_t i = 0; i < n; i++) {
		profdb_cg *cg;
		int r0 = profdb_cg_open(&cg, list[i], NULL);
#ifndef PROFDB_HAVE_ZLIB
		if (r0 == -ENOTSUP) {   /* a gzip file: skipped, visibly */
			cr_log_info("%s: skipped, built without zlib", list[i]);
			skipped++;
			continue;
		}
#endif
		/* what the decoder refuses on its own is its tests' business */
		if (r0 < 0)
			continue;
		profdb_cg_close(cg);
		profdb *db;
		int r = profdb_open(&db, list[i], NULL);
		struct stat st;
		if (r == -EPROTONOSUPPORT && stat(list[i], &st) == 0 && st.st_size == 0)
			continue;   /* an empty file without siblings says nothing of its format */
		cr_assert_eq(r, 0, "%s: %s", list[i], profdb_error_message());
		opened++;
		profdb_about about;
		cr_assert_eq(profdb_get_about(db, &about), 0);
		cr_assert_eq(about.format, PROFDB_FORMAT_CALLGRIND, "%s", list[i]);
		profdb_counts c = qc_check_all(db, list[i]);
		/* the root holds each profile's total */
		uint32_t rootid;
		if (c.contexts && c.metrics) {
			cr_assert_eq(profdb_context_root(db, &rootid), 0);
			const profdb_cg *g = profdb_get_cg(db);
			for (uint32_t p = 0; p < (uint32_t)c.profiles; p++) {
				const uint64_t *t;
				cr_assert_eq(profdb_cg_totals(g, p, &t), 0);
				uint64_t total = scoped(db, p, rootid, 0, 1);
				cr_assert_eq(total, t[0], "%s: profile %u", list[i], p);
				check_lines(db, p, (uint32_t)c.metrics, list[i]);
			}
		}
		profdb_close(db);
	}
	tc_free_list(list);
	if (opened == 0 && skipped > 0)
		cr_skip_test("callgrind/%s: all %zu samples are gzip files, built without zlib", rel,
		             skipped);
	cr_assert_gt(opened, 0);
}

Test(query_callgrind_real, valgrind, .timeout = 300)
{
	check_real("valgrind");
}

Test(query_callgrind_real, public, .timeout = 120)
{
	check_real("public");
}

Test(query_callgrind_real, edge, .timeout = 60)
{
	check_real("edge");
}

Test(query_callgrind_real, big, .timeout = 300)
{
	tc_skip_big_under_asan();
	check_real("big");
}
