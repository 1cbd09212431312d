/* Callgrind reader: hand-made inputs for every grammar feature and every
 * bad-input case, golden/invariant tests over the real samples under
 * $PROFDB_SAMPLE_DATA/callgrind, and a comparison with callgrind_annotate
 * when it is installed. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "profdb-config.h"

#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>
#endif

/* ---- helpers --------------------------------------------------------------- */

typedef struct warns {
	int n;
	char last[512];
	char all[4096];
} warns;

static void on_warn(const char *msg, void *ud)
{
	warns *w = ud;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", msg);
	size_t l = strlen(w->all);
	if (l + 2 < sizeof w->all)
		snprintf(w->all + l, sizeof w->all - l, "%s\n", msg);
}

static profdb_options opts_for(warns *w)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.warn = on_warn;
	o.warn_userdata = w;
	return o;
}

/* With PROFDB_CG_DUMP_CORPUS=DIR, every hand-made input is also written to
 * DIR/seed-<hash> (this is how fuzz/corpus/fuzz-callgrind/ was generated). */
static void corpus_dump(const void *data, size_t n)
{
	const char *dir = getenv("PROFDB_CG_DUMP_CORPUS");
	if (!dir || !*dir)
		return;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)data)[i]) * 0x100000001b3ULL;
	char *p;
	cr_assert(asprintf(&p, "%s/seed-%016llx", dir, (unsigned long long)h) >= 0);
	FILE *f = fopen(p, "wb");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
	free(p);
}

/* Open @p text (a C string) from memory; asserts success. */
/* Line rows of one function over all profiles, through a cached detail
 * object (tests read rows of one function at a time). */
static profdb_cg_detail *cached_detail;
static const profdb_cg *cached_cg;
static uint32_t cached_fn;

static void drop_cache(void)
{
	profdb_cg_detail_free(cached_detail);
	cached_detail = NULL;
	cached_cg = NULL;
}

static profdb_cg_detail *detail_of(const profdb_cg *cg, uint32_t fn)
{
	if (cached_detail && cached_cg == cg && cached_fn == fn)
		return cached_detail;
	drop_cache();
	cr_assert_eq(profdb_cg_detail_new(&cached_detail, cg, PROFDB_CG_ALL, fn), 0, "%s",
	             profdb_error_message());
	cached_cg = cg;
	cached_fn = fn;
	return cached_detail;
}

static uint32_t n_lines(const profdb_cg *cg, uint32_t fn)
{
	int64_t n = profdb_cg_detail_line_count(detail_of(cg, fn));
	cr_assert_geq(n, 0);
	return (uint32_t)n;
}

static int fn_line(const profdb_cg *cg, uint32_t fn, uint32_t k, profdb_cg_line *l)
{
	return profdb_cg_detail_line_at(detail_of(cg, fn), k, l);
}

static void cg_close(profdb_cg *cg)
{
	if (cached_cg == cg)
		drop_cache();
	profdb_cg_close(cg);
}

static const uint64_t *incl_of(const profdb_cg *cg, uint32_t fn)
{
	const uint64_t *c = NULL;
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, fn, &c), 1, "%s", profdb_error_message());
	return c;
}

static profdb_cg *open_ok(const char *text, warns *w)
{
	profdb_options o = opts_for(w);
	profdb_cg *cg = NULL;
	corpus_dump(text, strlen(text));
	int r = profdb_cg_open_mem(&cg, text, strlen(text), &o);
	cr_assert_eq(r, 0, "open failed: %d %s", r, profdb_error_message());
	cr_assert_not_null(cg);
	return cg;
}

static int open_fail(const char *text, size_t len, warns *w)
{
	profdb_options o = opts_for(w);
	profdb_cg *cg = (profdb_cg *)1;
	if (len < 4096)
		corpus_dump(text, len);
	int r = profdb_cg_open_mem(&cg, text, len, &o);
	cr_assert_lt(r, 0, "open should fail");
	cr_assert_null(cg);
	cr_assert(strstr(profdb_error_message(), "<memory>"), "message: %s",
	          profdb_error_message());
	return r;
}

static int name_is(const char *p, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

/* Index of the function named @p name (any object/file), or -1. */
static int find_fn(const profdb_cg *cg, const char *name)
{
	int64_t n = profdb_cg_function_count(cg);
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		if (name_is(f.name.ptr, f.name.len, name))
			return (int)i;
	}
	return -1;
}

static uint64_t self_of(const profdb_cg *cg, const char *name, uint32_t ev)
{
	int i = find_fn(cg, name);
	cr_assert_geq(i, 0, "no function %s", name);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
	return f.self[ev];
}

/* The call edge caller -> callee, asserted to exist. */
static profdb_cg_call edge_of(const profdb_cg *cg, const char *caller, const char *callee)
{
	int a = find_fn(cg, caller), b = find_fn(cg, callee);
	cr_assert(a >= 0 && b >= 0);
	int64_t n = profdb_cg_call_count(cg);
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_call c;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)i, &c), 1);
		if (c.caller == (uint32_t)a && c.callee == (uint32_t)b)
			return c;
	}
	cr_assert_fail("no edge %s -> %s", caller, callee);
	profdb_cg_call none = {0, 0, 0, NULL};
	return none;
}

typedef struct edge_ix {
	uint32_t caller, callee, i;
} edge_ix;

static int cmp_edge_ix(const void *a, const void *b)
{
	const edge_ix *x = a, *y = b;
	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* The call sites of every function, summed per (caller, callee), are the
 * call edges: counts and every event's inclusive cost. */
static void check_call_sites(const profdb_cg *cg, int ne, int64_t nf, const char *what)
{
	int64_t nc = profdb_cg_call_count(cg);
	edge_ix *ix = malloc((size_t)nc * sizeof *ix + 1);
	uint64_t *cnt = calloc((size_t)nc + 1, sizeof *cnt);
	uint64_t *inc = calloc((size_t)nc * (size_t)ne + 1, sizeof *inc);
	cr_assert(ix && cnt && inc);
	for (int64_t i = 0; i < nc; i++) {
		profdb_cg_call c;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)i, &c), 1);
		ix[i] = (edge_ix){c.caller, c.callee, (uint32_t)i};
	}
	qsort(ix, (size_t)nc, sizeof *ix, cmp_edge_ix);
	for (int64_t f = 0; f < nf; f++) {
		profdb_cg_detail *d = detail_of(cg, (uint32_t)f);
		int64_t ns = profdb_cg_detail_call_count(d);
		cr_assert_geq(ns, 0);
		for (int64_t k = 0; k < ns; k++) {
			profdb_cg_callsite s;
			cr_assert_eq(profdb_cg_detail_call_at(d, (uint32_t)k, &s), 0);
			edge_ix key = {(uint32_t)f, s.callee, 0};
			edge_ix *e = bsearch(&key, ix, (size_t)nc, sizeof *ix, cmp_edge_ix);
			cr_assert(e, "%s: a call site of function %" PRId64 " has no edge", what, f);
			cnt[e->i] += s.count;
			for (int m = 0; m < ne; m++)
				inc[(size_t)e->i * (size_t)ne + (size_t)m] += s.inclusive[m];
		}
		profdb_cg_callsite s;
		cr_assert_eq(profdb_cg_detail_call_at(d, (uint32_t)ns, &s), -ENOENT);
	}
	for (int64_t i = 0; i < nc; i++) {
		profdb_cg_call c;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)i, &c), 1);
		cr_assert_eq(cnt[i], c.count, "%s: call sites of edge %" PRId64 " count", what, i);
		for (int m = 0; m < ne; m++)
			cr_assert_eq(inc[(size_t)i * (size_t)ne + (size_t)m], c.inclusive[m],
			             "%s: call sites of edge %" PRId64 ", event %d", what, i, m);
	}
	free(ix);
	free(cnt);
	free(inc);
}

/* Invariants that hold for every successfully opened profile. */
static void check_invariants(const profdb_cg *cg, const char *what)
{
	int ne = (int)profdb_cg_event_count(cg);
	cr_assert_geq(ne, 0);
	int64_t nf = profdb_cg_function_count(cg);
	cr_assert_geq(nf, 0);
	const uint64_t *tot = NULL;
	cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &tot), 0);
	if (ne == 0) {
		cr_assert_eq(nf, 0);
		return;
	}
	uint64_t *sum = calloc((size_t)ne, sizeof *sum);
	cr_assert(sum);
	for (int64_t i = 0; i < nf; i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		const uint64_t *inc;
		cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)i, &inc), 1);
		for (int e = 0; e < ne; e++) {
			sum[e] += f.self[e];
			/* no bound by the total: a mutated file's call costs may
			 * exceed it, and the rule adds them as recorded */
			cr_assert_geq(inc[e], f.self[e], "%s: inclusive below self", what);
		}
		uint32_t nl = n_lines(cg, (uint32_t)i);
		if (nl) {
			uint64_t ls = 0;
			for (uint32_t k = 0; k < nl; k++) {
				profdb_cg_line l;
				cr_assert_eq(fn_line(cg, (uint32_t)i, k, &l), 0);
				ls += l.self[0];
			}
			cr_assert_eq(ls, f.self[0], "%s: line rows of %.*s do not add up", what,
			             (int)f.name.len, f.name.ptr);
		}
		profdb_cg_line l;
		cr_assert_eq(fn_line(cg, (uint32_t)i, nl, &l), -ENOENT);
	}
	for (int e = 0; e < ne; e++)
		cr_assert_eq(sum[e], tot[e], "%s: totals are not the sum of self costs", what);
	free(sum);
	int64_t nc = profdb_cg_call_count(cg);
	for (int64_t i = 0; i < nc; i++) {
		profdb_cg_call c;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)i, &c), 1);
		cr_assert_lt(c.caller, (uint64_t)nf);
		cr_assert_lt(c.callee, (uint64_t)nf);
	}
	check_call_sites(cg, ne, nf, what);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)nf, &f), -ENOENT);
	profdb_cg_event ev;
	cr_assert_eq(profdb_cg_event_get(cg, (uint32_t)ne, &ev), -ENOENT);
}

/* ---- grammar ---------------------------------------------------------------- */

Test(callgrind, minimal_and_header)
{
	warns w = {0};
	profdb_cg *cg = open_ok("# callgrind format\n"
	                        "version: 1\n"
	                        "creator: callgrind-3.19.0\n"
	                        "pid: 42\n"
	                        "cmd: ./a.out --x\n"
	                        "part: 1\n"
	                        "thread: 1\n"
	                        "desc: I1 cache: \n"
	                        "desc: Trigger: Program termination\n"
	                        "positions: line\n"
	                        "event: Ir : Instruction Fetches\n"
	                        "event: Sum = Ir + 2 * Dr : a derived one\n"
	                        "events: Ir Dr\n"
	                        "summary: 17 3\n"
	                        "\n"
	                        "ob=/bin/a\n"
	                        "fl=a.c\n"
	                        "fn=main\n"
	                        "3 10 1\n"
	                        "4 7 2\n"
	                        "\n"
	                        "totals: 17 3\n",
	                        &w);
	cr_assert_eq(w.n, 0, "warnings: %s", w.all);
	cr_assert_eq(profdb_cg_event_count(cg), 3);  /* Ir Dr and the derived Sum */
	cr_assert_eq((int)profdb_cg_profile_count(cg), 1);
	profdb_cg_event e;
	cr_assert_eq(profdb_cg_event_get(cg, 0, &e), 0);
	cr_assert(name_is(e.name.ptr, e.name.len, "Ir"));
	cr_assert(name_is(e.long_name.ptr, e.long_name.len, "Instruction Fetches"));
	cr_assert_eq(profdb_cg_event_get(cg, 1, &e), 0);
	cr_assert(name_is(e.name.ptr, e.name.len, "Dr"));
	cr_assert(name_is(e.long_name.ptr, e.long_name.len, ""));  /* absent: {"", 0} */
	cr_assert_eq(profdb_cg_function_count(cg), 1);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, 0, &f), 0);
	cr_assert(name_is(f.name.ptr, f.name.len, "main"));
	cr_assert(name_is(f.object.ptr, f.object.len, "/bin/a"));
	cr_assert(name_is(f.file.ptr, f.file.len, "a.c"));
	cr_assert_eq(f.self[0], 17);
	cr_assert_eq(f.self[1], 3);
	cr_assert_eq(n_lines(cg, 0), 2);
	profdb_cg_line l;
	cr_assert_eq(fn_line(cg, 0, 1, &l), 0);
	cr_assert_eq(l.line, 4);
	cr_assert_eq(l.self[0], 7);
	const uint64_t *s;
	cr_assert_eq(profdb_cg_summary(cg, PROFDB_CG_SUMMARY, &s), 1);
	cr_assert_eq(s[0], 17);
	cr_assert_eq(profdb_cg_summary(cg, PROFDB_CG_TOTALS, &s), 1);
	cr_assert_eq(s[1], 3);
	cr_assert_eq(profdb_cg_summary(cg, 7, &s), -EINVAL);
	check_invariants(cg, "minimal");
	cg_close(cg);
	profdb_cg_close(NULL);
}

Test(callgrind, name_compression)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\n"
	                        "ob=(1) /lib/x.so\n"
	                        "fl=(1) x.c\n"
	                        "fn=(0) 0x000000000001ab70\n"
	                        "1 5\n"
	                        "cfn=(2) (below main)\n"
	                        "calls=1 10\n"
	                        "1 20\n"
	                        "fn=(2)\n"
	                        "10 20\n"
	                        "fn=(3) fopen@@GLIBC_2.2.5\n"
	                        "ob=(1)\n"
	                        "fl=(1)\n"
	                        "fn=(3)\n"
	                        "2 1\n"
	                        "fn=(4) (5)'(3)\n"
	                        "3 1\n",
	                        &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	cr_assert_eq(self_of(cg, "0x000000000001ab70", 0), 5);
	cr_assert_eq(self_of(cg, "(below main)", 0), 20);
	cr_assert_eq(self_of(cg, "fopen@@GLIBC_2.2.5", 0), 1);
	cr_assert_eq(self_of(cg, "(5)'(3)", 0), 1);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)find_fn(cg, "(below main)"), &f), 0);
	cr_assert(name_is(f.object.ptr, f.object.len, "/lib/x.so"));
	cr_assert(name_is(f.file.ptr, f.file.len, "x.c"));
	profdb_cg_call c = edge_of(cg, "0x000000000001ab70", "(below main)");
	cr_assert_eq(c.count, 1);
	cr_assert_eq(c.inclusive[0], 20);
	check_invariants(cg, "names");
	cg_close(cg);
}

Test(callgrind, redefinition_replaces_and_undefined_id_warns)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\nfl=(1) a.c\nfn=(1) one\n1 1\nfn=(1) two\n1 2\n"
	                        "fn=(1)\n1 3\nfn=(7)\n1 4\n",
	                        &w);
	cr_assert_eq(self_of(cg, "one", 0), 1);
	cr_assert_eq(self_of(cg, "two", 0), 5);
	cr_assert_eq(self_of(cg, "(7)", 0), 4);
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "undefined function id 7"), "%s", w.last);
	cr_assert(strstr(w.last, "line 9"), "%s", w.last);
	cg_close(cg);
}

Test(callgrind, subposition_compression)
{
	warns w = {0};
	profdb_cg *cg = open_ok("positions: instr line\n"
	                        "events: Ir\n"
	                        "fl=a.c\n"
	                        "fn=f\n"
	                        "0x1000 10 1\n"
	                        "+4 +2 1\n"
	                        "* * 1\n"
	                        "-2 -1 1\n"
	                        "0x2000 100 1\n"
	                        "+0x10 -0x2 1\n"
	                        /* one digit, and 0X with one digit after it */
	                        "-0X8 +9 1\n"
	                        "+0 -0 2\n",
	                        &w);
	int i = find_fn(cg, "f");
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
	cr_assert_eq(f.self[0], 9);
	/* lines: 10:1, 12:2, 11:1, 100:1, 98:1, 107:3 */
	uint64_t want_line[] = {10, 11, 12, 98, 100, 107};
	uint64_t want_cost[] = {1, 1, 2, 1, 1, 3};
	cr_assert_eq(n_lines(cg, (uint32_t)i), 6);
	for (uint32_t k = 0; k < 6; k++) {
		profdb_cg_line l;
		cr_assert_eq(fn_line(cg, (uint32_t)i, k, &l), 0);
		cr_assert_eq(l.line, want_line[k]);
		cr_assert_eq(l.self[0], want_cost[k], "line %lu", (unsigned long)l.line);
	}
	cg_close(cg);
}

Test(callgrind, positions_any_combination)
{
	warns w = {0};
	profdb_cg *cg = open_ok("positions: bb instr\nevents: Ir\nfn=f\n0x10 0x20 3\n+1 * 4\n", &w);
	cr_assert_eq(self_of(cg, "f", 0), 7);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, 0, &f), 0);
	cr_assert_eq(n_lines(cg, 0), 1);  /* no line column: everything on line 0 */
	profdb_cg_line l;
	cr_assert_eq(fn_line(cg, 0, 0, &l), 0);
	cr_assert_eq(l.line, 0);
	cr_assert_eq(l.self[0], 7);
	cg_close(cg);
	cg = open_ok("positions: line instr\nevents: Ir\nfn=f\n5 0x20 3\n", &w);
	cr_assert_eq(self_of(cg, "f", 0), 3);
	cr_assert_eq(fn_line(cg, 0, 0, &l), 0);
	cr_assert_eq(l.line, 5);
	cr_assert_eq(l.instr, 0x20);
	cg_close(cg);
	/* the spec allows two columns (instr, line); three are refused */
	const char three[] = "positions: line instr bb\nevents: Ir\nfn=f\n5 0x20 1 3\n";
	cr_assert_eq(open_fail(three, sizeof three - 1, &w), -EBADMSG);
}

Test(callgrind, fewer_costs_than_events)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: A B C\nfn=f\n1 5\n2 1 2\n3\n4 1 1 1\n", &w);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, 0, &f), 0);
	cr_assert_eq(f.self[0], 7);
	cr_assert_eq(f.self[1], 3);
	cr_assert_eq(f.self[2], 1);
	cr_assert_eq(w.n, 0);
	cg_close(cg);
}

Test(callgrind, calls_and_duplicate_edges)
{
	warns w = {0};
	profdb_cg *cg = open_ok("positions: line\n"
	                        "events: Ir\n"
	                        "fl=a.c\n"
	                        "fn=main\n"
	                        "1 3\n"
	                        "cfi=b.c\n"
	                        "cfn=g\n"
	                        "calls=1 20\n"
	                        "2 50\n"
	                        "cfi=b.c\n"
	                        "cfn=g\n"
	                        "calls=99 *\n"
	                        "* 150\n"
	                        "cob=other.so\n"
	                        "cfn=h\n"
	                        "calls=0 5\n"
	                        "3 7\n"
	                        "fl=b.c\n"
	                        "fn=g\n"
	                        "20 200\n"
	                        "ob=other.so\n"
	                        "fl=a.c\n"
	                        "fn=h\n"
	                        "5 7\n",
	                        &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	cr_assert_eq(self_of(cg, "main", 0), 3);
	profdb_cg_call c = edge_of(cg, "main", "g");
	cr_assert_eq(c.count, 100);
	cr_assert_eq(c.inclusive[0], 200);
	c = edge_of(cg, "main", "h");
	cr_assert_eq(c.count, 0);
	cr_assert_eq(c.inclusive[0], 7);
	cr_assert_eq(profdb_cg_call_count(cg), 2);
	cr_assert_eq(profdb_cg_function_count(cg), 3);
	const uint64_t *inc;
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "main"), &inc), 1);
	cr_assert_eq(inc[0], 210);
	/* the call sites, as written */
	profdb_cg_detail *d = detail_of(cg, (uint32_t)find_fn(cg, "main"));
	cr_assert_eq(profdb_cg_detail_call_count(d), 3);
	profdb_cg_callsite s;
	static const struct {
		const char *callee;
		uint64_t line, count, incl;
	} want[3] = {{"g", 2, 1, 50}, {"g", 2, 99, 150}, {"h", 3, 0, 7}};
	for (uint32_t k = 0; k < 3; k++) {
		cr_assert_eq(profdb_cg_detail_call_at(d, k, &s), 0);
		cr_assert_eq(s.callee, (uint32_t)find_fn(cg, want[k].callee), "site %u", k);
		cr_assert_eq(s.line, want[k].line, "site %u", k);
		cr_assert_eq(s.instr, 0);
		cr_assert_eq(s.count, want[k].count, "site %u", k);
		cr_assert_eq(s.inclusive[0], want[k].incl, "site %u", k);
		cr_assert(name_is(s.file.ptr, s.file.len, "a.c"));
		cr_assert_eq(s.profile, 0);
	}
	cr_assert_eq(profdb_cg_detail_call_at(d, 3, &s), -ENOENT);
	cr_assert_eq(profdb_cg_detail_call_at(NULL, 0, &s), -EINVAL);
	cr_assert_eq(profdb_cg_detail_call_count(NULL), -EINVAL);
	check_invariants(cg, "calls");
	cg_close(cg);
}

Test(callgrind, call_target_does_not_move_position)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\nfn=f\n10 1\ncfn=g\ncalls=1 +90\n* 5\n+1 1\nfn=g\n100 5\n",
	                        &w);
	profdb_cg_function f;
	int i = find_fn(cg, "f");
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
	cr_assert_eq(n_lines(cg, (uint32_t)i), 2);
	profdb_cg_line l;
	cr_assert_eq(fn_line(cg, (uint32_t)i, 1, &l), 0);
	cr_assert_eq(l.line, 11);
	cg_close(cg);
}

Test(callgrind, jumps)
{
	warns w = {0};
	profdb_cg *cg = open_ok("positions: instr line\n"
	                        "events: Ir\n"
	                        "fl=(1) a.c\n"
	                        "fn=(1) main\n"
	                        "0x10 1 10\n"
	                        "jump=1 -0x4 -1 \n"
	                        "* * \n"
	                        "jfi=(2) b.c\n"
	                        "jcnd=3/7 +0x20 +4\n"
	                        "* *\n"
	                        "jcnd=3 7 +0x20 +4\n"
	                        "* *\n"
	                        "jfn=(2) other\n"
	                        "jump=1 0x50 5\n"
	                        "* *\n"
	                        "fn=(2)\n"
	                        "0x50 5 3\n",
	                        &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	cr_assert_eq(self_of(cg, "main", 0), 10);
	cr_assert_eq(self_of(cg, "other", 0), 3);
	/* the jumps of main, decoded on demand */
	profdb_cg_detail *d;
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "main")), 0);
	cr_assert_eq(profdb_cg_detail_jump_count(d), 4);
	profdb_cg_jump j;
	cr_assert_eq(profdb_cg_detail_jump_at(d, 0, &j), 0);
	cr_assert_eq(j.conditional, 0);
	cr_assert_eq(j.count, 1);
	cr_assert_eq(j.executed, 1);
	cr_assert_eq(j.from_instr, 0x10);
	cr_assert_eq(j.from_line, 1);
	cr_assert_eq(j.to_instr, 0xc);
	cr_assert_eq(j.to_line, 0);
	cr_assert(name_is(j.to_file.ptr, j.to_file.len, "a.c"));
	cr_assert(name_is(j.to_function.ptr, j.to_function.len, "main"));
	cr_assert_eq(profdb_cg_detail_jump_at(d, 1, &j), 0);
	cr_assert_eq(j.conditional, 1);
	cr_assert_eq(j.count, 3);
	cr_assert_eq(j.executed, 7);
	cr_assert_eq(j.to_instr, 0x30);
	cr_assert_eq(j.to_line, 5);
	cr_assert(name_is(j.to_file.ptr, j.to_file.len, "b.c"));  /* jfi= */
	cr_assert_eq(profdb_cg_detail_jump_at(d, 2, &j), 0);
	cr_assert_eq(j.count, 7);     /* spec form "exe-count jump-count" */
	cr_assert_eq(j.executed, 3);
	cr_assert(name_is(j.to_file.ptr, j.to_file.len, "a.c"));  /* jfi= named one jump */
	cr_assert_eq(profdb_cg_detail_jump_at(d, 3, &j), 0);
	cr_assert(name_is(j.to_function.ptr, j.to_function.len, "other"));  /* jfn= */
	cr_assert_eq(j.to_instr, 0x50);
	cr_assert_eq(j.to_line, 5);
	cr_assert_eq(profdb_cg_detail_jump_at(d, 4, &j), -ENOENT);
	cr_assert_eq(profdb_cg_detail_line_count(d), 1);
	profdb_cg_line l;
	cr_assert_eq(profdb_cg_detail_line_at(d, 0, &l), 0);
	cr_assert_eq(l.instr, 0x10);
	cr_assert_eq(l.line, 1);
	cr_assert_eq(l.self[0], 10);
	profdb_cg_detail_free(d);
	profdb_cg_detail_free(NULL);
	cg_close(cg);
}

Test(callgrind, derived_events)
{
	warns w = {0};
	profdb_cg *cg = open_ok("event: Sum = Ir + 2 Dr : Ir plus twice Dr\n"
	                        "event: Three=3*Ir\n"
	                        "event: Bad = Ir + Xx\n"
	                        "event: Ir : Instruction Fetches\n"
	                        "events: Ir Dr\n"
	                        "fn=a\n"
	                        "1 10 3\n"
	                        "cfn=b\n"
	                        "calls=1 5\n"
	                        "1 4 1\n"
	                        "fn=b\n"
	                        "5 4 1\n",
	                        &w);
	cr_assert_eq(profdb_cg_event_count(cg), 4);
	cr_assert_eq(w.n, 1, "%s", w.all);  /* Bad dropped */
	cr_assert(strstr(w.last, "Bad"));
	profdb_cg_event e;
	cr_assert_eq(profdb_cg_event_get(cg, 0, &e), 0);
	cr_assert(name_is(e.long_name.ptr, e.long_name.len, "Instruction Fetches"));
	cr_assert(name_is(e.formula.ptr, e.formula.len, ""));  /* a stored event: {"", 0} */
	cr_assert_eq(profdb_cg_event_get(cg, 2, &e), 0);
	cr_assert(name_is(e.name.ptr, e.name.len, "Sum"));
	cr_assert(name_is(e.formula.ptr, e.formula.len, "Ir + 2 Dr"));
	cr_assert(name_is(e.long_name.ptr, e.long_name.len, "Ir plus twice Dr"));
	cr_assert_eq(profdb_cg_event_get(cg, 3, &e), 0);
	cr_assert(name_is(e.name.ptr, e.name.len, "Three"));
	cr_assert_eq(self_of(cg, "a", 2), 16);
	cr_assert_eq(self_of(cg, "a", 3), 30);
	cr_assert_eq(self_of(cg, "b", 2), 6);
	cr_assert_eq(incl_of(cg, (uint32_t)find_fn(cg, "a"))[2], 22);
	cr_assert_eq(edge_of(cg, "a", "b").inclusive[3], 12);
	const uint64_t *t;
	cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &t), 0);
	cr_assert_eq(t[2], 22);
	check_invariants(cg, "derived");
	cg_close(cg);
}

/* A formula's warning names what is wrong with it: a coefficient that is
 * not a non-negative integer is not blamed on a missing event. */
Test(callgrind, derived_event_warnings)
{
	static const struct {
		const char *formula, *says;
	} cases[] = {
		{"3.5 Ir", "coefficient \"3.5\""},
		{"-2 Ir", "coefficient \"-2\""},
		{"2 * Xx", "names \"Xx\", an event that is not in any events: line"},
		{"Ir - Dr", "has \"-\" where '+' should join two terms"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, "event: Bad = %s\nevents: Ir Dr\nfn=a\n1 10 3\n",
		         cases[i].formula);
		warns w = {0};
		profdb_cg *cg = open_ok(text, &w);
		cr_assert_eq(w.n, 1, "%s: %s", cases[i].formula, w.all);
		cr_assert(strstr(w.last, cases[i].says), "%s: %s", cases[i].formula, w.last);
		if (strstr(cases[i].says, "coefficient"))
			cr_assert(!strstr(w.last, "not in any events"), "%s", w.last);
		cg_close(cg);
	}
}

/* Two parts in one file are two profiles; the sums are over both. */
/* A part that kept the previous part's columns (no events: of its own) and
 * then meets an events: line after body lines: the new columns start a new
 * part, so the lines before them are re-read (line detail) with the columns
 * they were parsed with, or the detail rows would disagree with the self
 * cost. */
Test(callgrind, events_after_body_start_a_part)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir Dr\n"
	                        "fn=(1) main\n"
	                        "1 2 1\n"
	                        "part: 2\n"
	                        "fn=(1)\n"
	                        "1 5 7\n"
	                        "events: Dr Ir\n"
	                        "fn=(1)\n"
	                        "2 3 4\n",
	                        &w);
	cr_assert_eq(profdb_cg_profile_count(cg), 3);
	const uint64_t *c;
	cr_assert_eq(profdb_cg_self(cg, 1, 0, &c), 1);
	cr_assert(c[0] == 5 && c[1] == 7, "part 2 keeps Ir Dr");
	cr_assert_eq(profdb_cg_self(cg, 2, 0, &c), 1);
	cr_assert(c[0] == 4 && c[1] == 3, "the third part reads Dr Ir");
	for (uint32_t p = 0; p < 3; p++) {
		profdb_cg_detail *d;
		cr_assert_eq(profdb_cg_detail_new(&d, cg, p, 0), 0, "%s", profdb_error_message());
		profdb_cg_line l;
		cr_assert_eq(profdb_cg_detail_line_at(d, 0, &l), 0);
		cr_assert_eq(profdb_cg_self(cg, p, 0, &c), 1);
		cr_assert(l.self[0] == c[0] && l.self[1] == c[1], "profile %u", p);
		profdb_cg_detail_free(d);
	}
	cg_close(cg);
}

/* A profile's self cost of a function, whether the profile holds every
 * function before it (its row is at the function's place) or misses
 * some (the row is searched for, or there is none). */
Test(callgrind, self_costs_of_profiles_missing_functions)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\n"
	                        "fn=a\n1 1\nfn=b\n1 2\nfn=c\n1 3\n"
	                        "part: 2\nfn=b\n1 20\nfn=c\n1 30\n"
	                        "part: 3\nfn=a\n1 100\nfn=c\n1 300\n",
	                        &w);
	cr_assert_eq(profdb_cg_profile_count(cg), 3);
	static const uint64_t want[3][3] = {{1, 2, 3}, {0, 20, 30}, {100, 0, 300}};
	for (uint32_t p = 0; p < 3; p++)
		for (uint32_t f = 0; f < 3; f++) {
			const uint64_t *c;
			cr_assert_eq(profdb_cg_self(cg, p, f, &c), want[p][f] != 0, "profile %u fn %u", p, f);
			cr_assert_eq(c[0], want[p][f], "profile %u fn %u: %" PRIu64, p, f, c[0]);
		}
	cg_close(cg);
	cr_assert_eq(w.n, 0);
}

/* Self costs are summed in 32-bit cells while the text is scanned, and a
 * function's row moves to 64-bit cells when a sum reaches 2^32 - 1
 * (lib/callgrind/self-rows.c): on the fast path, on the general one (CR,
 * hex, 20 digits), from one event to two, and the sums stay exact. */
Test(callgrind, self_costs_past_32_bits)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir Dr\n"
	                        "fn=f\n1 4294967294 1\n2 1 1\n"           /* 2^32 - 1 */
	                        "fn=g\n1 4000000000 0\n1 4000000000 5\n"  /* fast path */
	                        "fn=h\n1 3 4\n"
	                        "fn=k\n1 0x100000000 1\r\n2 1 1\n"       /* general path */
	                        "fn=m\n1 00000000000000000007 1\n2 4294967290 1\n"
	                        "fn=g\n3 1 1\n",
	                        &w);
	static const uint64_t want[][2] = {
		{4294967295u, 2}, {8000000001u, 6}, {3, 4}, {4294967297u, 2}, {4294967297u, 2},
	};
	const uint64_t *c;
	for (uint32_t f = 0; f < 5; f++) {
		cr_assert_eq(profdb_cg_self(cg, 0, f, &c), 1);
		cr_assert(c[0] == want[f][0] && c[1] == want[f][1], "function %u: %" PRIu64 " %" PRIu64,
		          f, c[0], c[1]);
	}
	cg_close(cg);
	/* a row moved to 64 bits, then a second event */
	cg = open_ok("events: Ir\nfn=f\n1 4294967295\n1 4294967295\nfn=g\n1 7\n"
	             "events: Ir Dr\nfn=f\n1 1 2\n",
	             &w);
	cr_assert_eq(profdb_cg_self(cg, 0, 0, &c), 1);
	cr_assert(c[0] == 8589934590u && c[1] == 0);
	cr_assert_eq(profdb_cg_self(cg, 0, 1, &c), 1);
	cr_assert(c[0] == 7 && c[1] == 0);
	cr_assert_eq(profdb_cg_self(cg, 1, 0, &c), 1);
	cr_assert(c[0] == 1 && c[1] == 2);
	cg_close(cg);
	cr_assert_eq(w.n, 0);
}

Test(callgrind, profiles_keep_parts_apart)
{
	warns w = {0};
	profdb_cg *cg = open_ok("# callgrind format\n"
	                        "part: 1\n"
	                        "thread: 7\n"
	                        "events: Ir\n"
	                        "summary: 99\n"
	                        "fn=(1) main\n"
	                        "1 5\n"
	                        "cfn=(2) work\n"
	                        "calls=2 10\n"
	                        "1 20\n"
	                        "fn=(2)\n"
	                        "10 20\n"
	                        "totals: 25\n"
	                        "part: 2\n"
	                        "events: Ir\n"
	                        "fn=(1) main\n"
	                        "1 1\n"
	                        "fn=(3) idle\n"
	                        "3 4\n"
	                        "totals: 6\n",
	                        &w);
	cr_assert_eq(profdb_cg_profile_count(cg), 2);
	cr_assert_eq(w.n, 1, "%s", w.all);  /* totals: 6 vs 5 in part 2 */
	cr_assert(strstr(w.last, "profile 1"), "%s", w.last);
	profdb_cg_profile p;
	cr_assert_eq(profdb_cg_profile_get(cg, 0, &p), 0);
	cr_assert(p.has_part && p.part == 1 && p.has_thread && p.thread == 7);
	cr_assert_eq(p.totals[0], 25);
	cr_assert_eq(p.summary[0], 99);
	cr_assert_eq(p.totals_line[0], 25);
	cr_assert_eq(profdb_cg_profile_get(cg, 1, &p), 0);
	/* thread: (like pid: and cmd:) holds for the later parts of the file */
	cr_assert(p.has_part && p.part == 2 && p.has_thread && p.thread == 7);
	cr_assert_eq(p.totals[0], 5);
	cr_assert_null(p.summary);
	cr_assert_eq(profdb_cg_profile_get(cg, 2, &p), -ENOENT);
	uint32_t main_fn = (uint32_t)find_fn(cg, "main"), work = (uint32_t)find_fn(cg, "work"),
	         idle = (uint32_t)find_fn(cg, "idle");
	const uint64_t *c;
	cr_assert_eq(profdb_cg_self(cg, 0, main_fn, &c), 1);
	cr_assert_eq(c[0], 5);
	cr_assert_eq(profdb_cg_self(cg, 1, main_fn, &c), 1);
	cr_assert_eq(c[0], 1);
	cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, main_fn, &c), 1);
	cr_assert_eq(c[0], 6);
	cr_assert_eq(profdb_cg_self(cg, 1, work, &c), 0);  /* not in part 2 */
	cr_assert_eq(c[0], 0);
	cr_assert_eq(profdb_cg_self(cg, 0, idle, &c), 0);
	cr_assert_eq(profdb_cg_self(cg, 2, idle, &c), -ENOENT);
	cr_assert_eq(profdb_cg_inclusive(cg, 0, main_fn, &c), 1);
	cr_assert_eq(c[0], 25);
	cr_assert_eq(profdb_cg_inclusive(cg, 1, main_fn, &c), 1);
	cr_assert_eq(c[0], 1);
	cr_assert_eq(profdb_cg_inclusive(cg, 1, work, &c), 0);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, main_fn, &c), 1);
	cr_assert_eq(c[0], 26);
	cr_assert_eq(profdb_cg_call_count(cg), 1);
	profdb_cg_call call;
	cr_assert_eq(profdb_cg_call_get(cg, 0, 0, &call), 1);
	cr_assert_eq(call.count, 2);
	cr_assert_eq(profdb_cg_call_get(cg, 1, 0, &call), 0);
	cr_assert_eq(call.count, 0);
	cr_assert_eq(call.inclusive[0], 0);
	cr_assert_eq(profdb_cg_totals(cg, 1, &c), 0);
	cr_assert_eq(c[0], 5);
	cr_assert_eq(profdb_cg_totals(cg, 5, &c), -ENOENT);
	/* details per profile */
	profdb_cg_detail *d;
	cr_assert_eq(profdb_cg_detail_new(&d, cg, 1, main_fn), 0);
	profdb_cg_line l;
	cr_assert_eq(profdb_cg_detail_line_count(d), 1);
	cr_assert_eq(profdb_cg_detail_line_at(d, 0, &l), 0);
	cr_assert_eq(l.self[0], 1);
	profdb_cg_detail_free(d);
	cr_assert_eq(profdb_cg_detail_new(&d, cg, 9, main_fn), -ENOENT);
	cr_assert_null(d);
	check_invariants(cg, "parts");
	cg_close(cg);
}

/* summary:/totals: against the parsed costs (doc/FORMATS.md, "summary: and
 * totals:"): a totals: that disagrees warns; valgrind's callgrind always
 * ends a part with totals:, so its file with summary: but no totals: was
 * cut short and warns with both numbers; other writers' summary: (Xdebug)
 * and files with neither line are quiet. */
Test(callgrind, summary_and_totals_checked)
{
	static const char body[] = "events: Ir Dr\n"
	                           "summary: 40 9\n"
	                           "fn=(1) main\n"
	                           "1 5 1\n"
	                           "fn=(2) work\n"
	                           "2 20 3\n";
	char text[512];
	struct {
		const char *head, *tail, *want[3];
	} cases[] = {
		/* cut short: summary: Ir 40, the costs 25 */
		{"creator: callgrind-3.19.0\n", "", {"<memory>", "no totals:", "is 40 but the self costs add up to 25"}},
		/* cut just before totals: (summary agrees): still warned, first event */
		{"creator: callgrind-3.19.0\n", "fn=(1)\n3 15 5\n", {"no totals:", "Ir is 40", "add up to 40"}},
		/* a totals: that disagrees, the second event */
		{"creator: callgrind-3.19.0\n", "totals: 25 9\n", {"totals: of event Dr is 9", "add up to 4", NULL}},
		/* totals: agrees: summary: (cache simulation: 2 more Ir) is not checked */
		{"creator: callgrind-3.19.0\n", "totals: 25 4\n", {NULL, NULL, NULL}},
		/* Xdebug: its own summary:, no totals: */
		{"creator: xdebug 3.1.2 (PHP 8.1.2)\n", "", {NULL, NULL, NULL}},
		/* no creator: (an old or hand-written file) */
		{"", "", {NULL, NULL, NULL}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, "# callgrind format\n%s%s%s", cases[i].head, body,
		         cases[i].tail);
		warns w = {0};
		profdb_cg *cg = open_ok(text, &w);
		cr_assert_eq(w.n, cases[i].want[0] ? 1 : 0, "case %zu: %s", i, w.all);
		for (int k = 0; k < 3 && cases[i].want[k]; k++)
			cr_assert(strstr(w.last, cases[i].want[k]), "case %zu: '%s' not in: %s", i,
			          cases[i].want[k], w.last);
		profdb_cg_close(cg);
	}
	/* neither line: never a warning, whoever wrote it */
	warns w = {0};
	profdb_cg *cg = open_ok("# callgrind format\ncreator: callgrind-3.19.0\nevents: Ir\n"
	                        "fn=(1) main\n1 5\n", &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	profdb_cg_close(cg);
}

static char *tmpdir_make(void)
{
	char *dir = strdup("/tmp/profdb-cg-XXXXXX");
	cr_assert(dir && mkdtemp(dir));
	return dir;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	fwrite(text, 1, strlen(text), f);
	fclose(f);
}

static void rm_dir(const char *dir, const char *const *names)
{
	char path[512];
	for (; *names; names++) {
		snprintf(path, sizeof path, "%s/%s", dir, *names);
		unlink(path);
	}
	rmdir(dir);
}

static const char thread_text[] = "# callgrind format\n"
                                  "thread: %d\n"
                                  "events: Ir\n"
                                  "fn=(1) worker\n"
                                  "1 %d\n";

/* --separate-threads: an empty base file and NAME-01, NAME-02. */
Test(callgrind, file_set_of_threads)
{
	char *dir = tmpdir_make();
	char t1[256], t2[256];
	snprintf(t1, sizeof t1, thread_text, 1, 10);
	snprintf(t2, sizeof t2, thread_text, 2, 32);
	put_file(dir, "cg.out", "");
	put_file(dir, "cg.out-02", t2);
	put_file(dir, "cg.out-01", t1);
	put_file(dir, "cg.outx", "not part of the set");
	char path[512];
	const char *const targets[] = {"cg.out", "cg.out-02"};
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, targets[k]);
		profdb_cg *cg;
		cr_assert_eq(profdb_cg_open_group(&cg, path, NULL), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_cg_profile_count(cg), 2);
		profdb_cg_profile p;
		cr_assert_eq(profdb_cg_profile_get(cg, 0, &p), 0);
		cr_assert(p.has_thread && p.thread == 1);
		cr_assert(strstr(p.file.ptr, "cg.out-01"));
		cr_assert_eq(p.totals[0], 10);
		cr_assert_eq(profdb_cg_profile_get(cg, 1, &p), 0);
		cr_assert(p.has_thread && p.thread == 2);
		cr_assert_eq(p.totals[0], 32);
		cr_assert_eq(profdb_cg_function_count(cg), 1);  /* one function, two threads */
		cr_assert_eq(self_of(cg, "worker", 0), 42);
		check_invariants(cg, "threads");
		cg_close(cg);
	}
	/* a single file stays single */
	snprintf(path, sizeof path, "%s/cg.out-01", dir);
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open(&cg, path, NULL), 0);
	cr_assert_eq(profdb_cg_profile_count(cg), 1);
	cg_close(cg);
	/* the same as named buffers, in any order */
	profdb_input in[3] = {{"x/cg.out-02", t2, strlen(t2)},
	                      {"x/cg.out", "", 0},
	                      {"x/cg.out-01", t1, strlen(t1)}};
	cr_assert_eq(profdb_cg_open_inputs(&cg, in, 3, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_profile_count(cg), 2);
	profdb_cg_profile p;
	cr_assert_eq(profdb_cg_profile_get(cg, 0, &p), 0);
	cr_assert_eq(p.thread, 1);
	cr_assert_str_eq(p.file.ptr, "x/cg.out-01");
	cr_assert_eq(p.file.len, strlen("x/cg.out-01"));
	cg_close(cg);
	cr_assert_eq(profdb_cg_open_inputs(&cg, NULL, 1, NULL), -EINVAL);
	const char *const names[] = {"cg.out", "cg.out-01", "cg.out-02", "cg.outx", NULL};
	rm_dir(dir, names);
	free(dir);
}

/* A dump series: NAME.1, NAME.2 hold the earlier dumps, NAME the last. */
Test(callgrind, dump_series_as_time_slices)
{
	char *dir = tmpdir_make();
	static const char fmt[] = "# callgrind format\n"
	                          "part: %d\n"
	                          "desc: Trigger: %s\n"
	                          "events: Ir\n"
	                          "fn=(1) main\n"
	                          "1 %d\n";
	char a[256], b[256], c[256];
	snprintf(a, sizeof a, fmt, 1, "Periodic dump", 100);
	snprintf(b, sizeof b, fmt, 2, "Periodic dump", 200);
	snprintf(c, sizeof c, fmt, 3, "Program termination", 3);
	put_file(dir, "run.out", c);
	put_file(dir, "run.out.2", b);
	put_file(dir, "run.out.1", a);
	char path[512];
	snprintf(path, sizeof path, "%s/run.out.2", dir);
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_group(&cg, path, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_profile_count(cg), 3);
	const uint64_t want[3] = {100, 200, 3};
	for (uint32_t i = 0; i < 3; i++) {
		profdb_cg_profile p;
		cr_assert_eq(profdb_cg_profile_get(cg, i, &p), 0);
		cr_assert_eq(p.part, i + 1);
		cr_assert_eq(p.totals[0], want[i]);
		cr_assert_eq(p.has_dump, i < 2);
		if (i < 2)
			cr_assert_eq(p.dump, i + 1);
		cr_assert(p.trigger.len);
	}
	cr_assert_eq(self_of(cg, "main", 0), 303);  /* slices add up to the run */
	cg_close(cg);
	const char *const names[] = {"run.out", "run.out.1", "run.out.2", NULL};
	rm_dir(dir, names);
	free(dir);
}

Test(callgrind, multiple_parts)
{
	warns w = {0};
#define PART_FMT "part: %d\n" \
	                   "positions: line\n" \
	                   "events: Ir Dr\n" \
	                   "summary: 3 1\n" \
	                   "fl=(1) a.c\n" \
	                   "fn=(1) main\n" \
	                   "1 2 1\n" \
	                   "cfn=(2) g\n" \
	                   "calls=1 5\n" \
	                   "1 1\n" \
	                   "fn=(2)\n" \
	                   "5 1\n" \
	                   "totals: 3 1\n"
	char buf[2048];
	int n = 0;
	for (int p = 1; p <= 3; p++)
		n += snprintf(buf + n, sizeof buf - (size_t)n, PART_FMT, p);
	/* a 4th part lists the events in the other order */
	n += snprintf(buf + n, sizeof buf - (size_t)n,
	              "part: 4\nevents: Dr Ir\nfl=(1) a.c\nfn=(1) main\n1 5 6\ntotals: 5 6\n");
	profdb_cg *cg = open_ok(buf, &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	cr_assert_eq((int)profdb_cg_profile_count(cg), 4);
	cr_assert_eq(self_of(cg, "main", 0), 12);
	cr_assert_eq(self_of(cg, "main", 1), 8);
	cr_assert_eq(edge_of(cg, "main", "g").count, 3);
	const uint64_t *t;
	cr_assert_eq(profdb_cg_summary(cg, PROFDB_CG_TOTALS, &t), 1);
	cr_assert_eq(t[0], 15);
	cr_assert_eq(t[1], 8);
	cr_assert_eq(profdb_cg_summary(cg, PROFDB_CG_SUMMARY, &t), 1);
	cr_assert_eq(t[0], 9);
	check_invariants(cg, "parts");
	cg_close(cg);
}

/* The blanks and digits of cost lines in their forms (the scanner reads
 * one blank and one digit at once), each event's sum checked. */
Test(callgrind, cost_line_forms)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: A B C D E F G H I J\n"
	                        "fn=f\n"
	                        "1 0 1 2 3 4 5 6 7 8 9\n"
	                        "2 9 8 7 6 5 4 3 2 1 0\n"
	                        "3  1\t2 \t3 45 6 78 9 10 11 12\n"
	                        "4 1 2 \n"
	                        "5 7\n",
	                        &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)find_fn(cg, "f"), &f), 0);
	const uint64_t want[] = {18, 13, 12, 54, 15, 87, 18, 19, 20, 21};
	for (uint32_t e = 0; e < 10; e++)
		cr_assert_eq(f.self[e], want[e], "event %u: %lu", e, (unsigned long)f.self[e]);
	cg_close(cg);
	/* a digit followed by anything but a blank or the line's end */
	const char bad[] = "events: A B\nfn=f\n1 5x 1\n";
	cr_assert_eq(open_fail(bad, sizeof bad - 1, &w), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "line 3"), "%s", profdb_error_message());
}

Test(callgrind, lexical_crlf_tabs_comments_trailing_spaces)
{
	warns w = {0};
	profdb_cg *cg = open_ok("# callgrind format\r\n"
	                        "# a comment\r\n"
	                        "events:\tIr  Dr \r\n"
	                        "\r\n"
	                        "fl=a.c \r\n"
	                        "fn=main  \r\n"
	                        "1\t10 \t 2  \r\n"
	                        "   \r\n"
	                        "2  5\r\n"
	                        "cfn=g\r\n"
	                        "calls=1 3 \r\n"
	                        "2 4 \r\n"
	                        "fn=g\r\n"
	                        "3 4",  /* no final newline */
	                        &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)find_fn(cg, "main"), &f), 0);
	cr_assert(name_is(f.file.ptr, f.file.len, "a.c"));
	cr_assert_eq(f.self[0], 15);
	cr_assert_eq(f.self[1], 2);
	cr_assert_eq(self_of(cg, "g", 0), 4);
	cg_close(cg);
}

/* @p text with each '\n' made "\r\n", in a buffer of its exact size (no
 * NUL after it: a read past the end is an ASan error); *len its size, the
 * last '\n' left out when @p no_final_lf. To free. */
static char *crlf_copy(const char *text, int no_final_lf, size_t *len)
{
	size_t n = strlen(text), m = 0;
	for (size_t i = 0; i < n; i++)
		m += 1 + (text[i] == '\n');
	char *out = malloc(m), *q = out;
	cr_assert_not_null(out);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '\n')
			*q++ = '\r';
		*q++ = text[i];
	}
	*len = m - (no_final_lf && n && text[n - 1] == '\n');
	return out;
}

static int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* @p a and @p b give the same functions, costs and call edges. */
static void same_answers(const profdb_cg *a, const profdb_cg *b)
{
	int64_t ne = profdb_cg_event_count(a), n = profdb_cg_function_count(a);
	cr_assert_eq(profdb_cg_event_count(b), ne);
	cr_assert_eq(profdb_cg_profile_count(b), profdb_cg_profile_count(a));
	cr_assert_eq(profdb_cg_function_count(b), n);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_function x, y;
		cr_assert_eq(profdb_cg_function_get(a, i, &x), 0);
		cr_assert_eq(profdb_cg_function_get(b, i, &y), 0);
		cr_assert(same_str(x.name, y.name) && same_str(x.file, y.file) &&
		          same_str(x.object, y.object), "function %u", i);
		const uint64_t *ix = incl_of(a, i), *iy = incl_of(b, i);
		for (int64_t e = 0; e < ne; e++)
			cr_assert(x.self[e] == y.self[e] && ix[e] == iy[e], "function %u event %d", i,
			          (int)e);
	}
	n = profdb_cg_call_count(a);
	cr_assert_eq(profdb_cg_call_count(b), n);
	for (uint32_t i = 0; i < n; i++) {
		profdb_cg_call x, y;
		cr_assert_eq(profdb_cg_call_get(a, PROFDB_CG_ALL, i, &x), 1);
		cr_assert_eq(profdb_cg_call_get(b, PROFDB_CG_ALL, i, &y), 1);
		cr_assert(x.caller == y.caller && x.callee == y.callee && x.count == y.count, "call %u",
		          i);
		for (int64_t e = 0; e < ne; e++)
			cr_assert_eq(x.inclusive[e], y.inclusive[e], "call %u event %d", i, (int)e);
	}
}

/* Every kind of line with "\r\n" line ends (which the scan's fast paths
 * read as they read a '\n'), with and without the last '\n': the answers
 * of the text with '\n' line ends, and no warning. */
Test(callgrind, crlf_every_line_kind)
{
	const char *text = "# callgrind format\nversion: 1\ncreator: test\ncmd: ./a.out\n"
	                   "part: 1\npositions: instr line\nevents: Ir Dr\n"
	                   "\n"
	                   "ob=(1) /lib/a.so\nfl=(1) a.c\nfn=(1) main\n"
	                   "0x10 3 1 2\n"
	                   "+2 +1 4 \t\n"
	                   "+2 * 1234567890123456789 0x20\n"
	                   "+2 -1 0 7  \n"
	                   "* *\n"
	                   "fi=(2) b.h\n+2 * 3 3\n"
	                   "fe=(1)\n+2 * 1\n"
	                   "cob=(1)\ncfi=(1)\ncfn=(2) g\n"
	                   "calls=2 0x40 9\n+2 +1 5 6\n"
	                   "cfl=(1)\ncfn=(2)\n"
	                   "calls=3 0x40 9 \n* * 1\n"
	                   "jump=5 0x10 3\n"
	                   "jcnd=2/9 +4 * \n"
	                   "jfi=(2)\njfn=(2)\njump=1 0x50 20\n"
	                   "# a comment\n"
	                   "\n"
	                   "fn=(2)\n0x40 9 8 8\n"
	                   "fl=(2)\nfn=(3) h\n0x50 20 0 0\n"
	                   "ob=(1)\nfl=(1)\nfn=(1)\n0x10 3 1 1\n"
	                   "part: 2\npositions: instr line\nevents: Ir Dr\nob=(1)\nfl=(1)\nfn=(1)\n0x10 3 2 2\n"
	                   "cfi=(2)\ncfn=(3)\ncalls=1 0x50 20\n0x10 3 4 4\n"
	                   "fn=(3)\n0x50 20 4 4\n";
	warns w = {0};
	profdb_cg *lf = open_ok(text, &w);
	cr_assert_eq(w.n, 0, "%s", w.all);
	cr_assert_eq(self_of(lf, "main", 0), 1234567890123456801ULL);
	for (int no_final_lf = 0; no_final_lf < 2; no_final_lf++) {
		size_t len;
		char *t = crlf_copy(text, no_final_lf, &len);
		profdb_options o = opts_for(&w);
		profdb_cg *cr = NULL;
		cr_assert_eq(profdb_cg_open_mem(&cr, t, len, &o), 0, "%s", profdb_error_message());
		cr_assert_eq(w.n, 0, "%s", w.all);
		same_answers(lf, cr);
		profdb_cg_close(cr);
		free(t);
	}
	cg_close(lf);
}

/* A CR anywhere but right before a '\n' is the general path's: a CR alone
 * in a cost line, two CRs before the '\n', a CR before blanks, in calls=,
 * jump= and blank lines (errors), in a name (part of it), and a last
 * line ended by a CR alone. */
Test(callgrind, crlf_other_carriage_returns)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"events: A B\r\nfn=f\r\n1 2\r3\r\n", "line 3 (offset 19): cost \"2\r3\" is not"},
		{"events: A B\r\nfn=f\r\n1 2\r\r\n", "line 3 (offset 19): cost \"2\r\" is not"},
		{"events: A B\r\nfn=f\r\n1 2\r 3\r\n", "line 3 (offset 19): cost \"2\r\" is not"},
		{"events: A B\r\nfn=f\r\n1 2 \r \r\n", "line 3 (offset 19): cost \"\r\" is not"},
		{"events: A B\r\nfn=f\r\n1 2\r\ncfn=g\r\ncalls=1 2\r\r\n2 4\r\n",
		 "line 5 (offset 31): target position \"2\r\" is not"},
		{"events: A B\r\nfn=f\r\n1 2\r\njump=3\r\r\n1 1\r\n", "line 4 (offset 24): jump= \"3\r\""},
		{"events: A B\r\nfn=f\r\n\r\r\n1 2\r\n", "line 3 (offset 19): binary data (byte 0x0d)"},
	};
	warns w = {0};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cr_assert_eq(open_fail(bad[i].text, strlen(bad[i].text), &w), -EBADMSG, "text %zu", i);
		cr_assert(strstr(profdb_error_message(), bad[i].msg), "text %zu: %s", i,
		          profdb_error_message());
	}
	profdb_cg *cg = open_ok("events: A\r\nfl=(1) a.c\r\nfn=(1) f\r\n1 2\r\nfn=(1)\r\r\n1 3\r\n"
	                        "fn=f\rx\r\n2 4\r\nfn=(1)\r\n2 1\r", &w);
	cr_assert_eq(profdb_cg_function_count(cg), 3);
	cr_assert_eq(self_of(cg, "f", 0), 2);
	cr_assert_eq(self_of(cg, "\r", 0), 4);   /* "fn=(1)\r": id 1 defined again */
	cr_assert_eq(self_of(cg, "f\rx", 0), 4);
	cg_close(cg);
}

/* The detail of a text without a final newline is read by the token
 * reader alone (lib/callgrind/detail.c; its fast paths need the '\n':
 * tests/test-cg-detail-forms.c), which must give the rows the scan summed.
 * Lines: CR LF, trailing blanks and CRs, a tab, two blanks, costs beyond
 * the columns, 20-digit numbers, a row met again out of order. */
Test(callgrind, detail_of_every_cost_line_form)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir Dr\n"
	                        "positions: instr line\n"
	                        "fn=f\n"
	                        "0x10 3 1 2\r\n"
	                        "+2 +1 4 \t\r\n"
	                        "+2  * 5 6\n"
	                        "+2\t-1 7 8 9\n"
	                        "00000000000000000024 5 1 1\n"
	                        "0x18 5 00000000000000000003 1\n"
	                        "* * 1 \r\n"
	                        "0x10 3 10 0\n"
	                        "0x20 6 2 3",
	                        &w);
	cr_assert_eq(w.n, 1, "%s", w.all);   /* the extra cost */
	uint32_t f = (uint32_t)find_fn(cg, "f");
	/* by line, then instruction: (line, instr, Ir, Dr) */
	static const uint64_t want[][4] = {
		{3, 0x10, 11, 2}, {3, 0x16, 7, 8}, {4, 0x12, 4, 0}, {4, 0x14, 5, 6}, {5, 24, 5, 2},
		{6, 0x20, 2, 3},
	};
	cr_assert_eq(n_lines(cg, f), 6);
	for (uint32_t k = 0; k < 6; k++) {
		profdb_cg_line l;
		cr_assert_eq(fn_line(cg, f, k, &l), 0);
		cr_assert(l.line == want[k][0] && l.instr == want[k][1] && l.self[0] == want[k][2] &&
		          l.self[1] == want[k][3],
		          "row %u: line %" PRIu64 " instr %" PRIu64 " costs %" PRIu64 " %" PRIu64, k,
		          l.line, l.instr, l.self[0], l.self[1]);
	}
	cg_close(cg);
}

/* A function's rows in line order whatever order the text gives them in
 * (lib/callgrind/detail.c, sort_rows): 40 rows at rising addresses on
 * lines that go up and down, more than one insertion run of the sort,
 * with two rows on one (instruction, line) in two files; with lines past
 * 2^32 (sorted by the three keys, not one integer per row), and with a
 * second block of the function that meets rows again out of order (a
 * map). Lines @p step apart: 1, near each other (placed by counting), or
 * far apart (sorted by comparison). Row k has the cost k + 1 (twice that
 * when met again). */
static void check_sorted_rows(uint64_t base, uint64_t step, int again)
{
	char text[8192];
	int n = snprintf(text, sizeof text, "events: Ir\npositions: instr line\nfl=(1) a.c\nfn=(1) f\n");
	for (uint32_t k = 0; k < 40; k++)
		n += snprintf(text + n, sizeof text - (size_t)n, "%#x %" PRIu64 " %u\n", 0x100 + 4 * k,
		              base + step * ((k * 7) % 13), k + 1);
	/* the same position as row 39 in another file */
	n += snprintf(text + n, sizeof text - (size_t)n, "fi=(2) b.h\n%#x %" PRIu64 " 41\n",
	              0x100 + 4 * 39, base + step * ((39 * 7) % 13));
	if (again)   /* a second block: rows 0 .. 9 again, after the last */
		for (uint32_t k = 0; k < 10; k++)
			n += snprintf(text + n, sizeof text - (size_t)n, "fl=(1)\nfn=(1)\n%#x %" PRIu64
			              " %u\n", 0x100 + 4 * k, base + step * ((k * 7) % 13), k + 1);
	cr_assert_lt((size_t)n, sizeof text);
	warns w = {0};
	profdb_cg *cg = open_ok(text, &w);
	uint32_t f = (uint32_t)find_fn(cg, "f");
	cr_assert_eq(n_lines(cg, f), 41);
	uint64_t seen = 0, total = 0;
	profdb_cg_line prev = {0};
	for (uint32_t i = 0; i < 41; i++) {
		profdb_cg_line l;
		cr_assert_eq(fn_line(cg, f, i, &l), 0);
		if (i > 0)
			cr_assert(l.line > prev.line || (l.line == prev.line && l.instr > prev.instr) ||
			          (l.line == prev.line && l.instr == prev.instr && l.file.ptr[0] == 'b'),
			          "row %u: line %" PRIu64 " instr %" PRIu64 " after %" PRIu64 " %" PRIu64,
			          i, l.line, l.instr, prev.line, prev.instr);
		cr_assert_geq(l.instr, 0x100);
		uint64_t k = (l.instr - 0x100) / 4;
		cr_assert_eq(l.line, base + step * ((k * 7) % 13), "row %u", i);
		if (l.file.ptr[0] == 'b') {   /* b.h */
			cr_assert(k == 39 && l.self[0] == 41, "row %u", i);
			continue;
		}
		cr_assert_eq(l.self[0], (k + 1) * (again && k < 10 ? 2 : 1), "row %u", i);
		seen |= 1ull << k;
		total += l.self[0];
		prev = l;
	}
	cr_assert_eq(seen, (1ull << 40) - 1);
	cr_assert_eq(total, 40 * 41 / 2 + (again ? 55 : 0));
	cg_close(cg);
}

Test(callgrind, detail_rows_in_line_order)
{
	for (uint64_t step = 1; step <= 1000; step += 999) {
		check_sorted_rows(1, step, 0);
		check_sorted_rows((uint64_t)1 << 32, step, 0);
		check_sorted_rows(1, step, 1);
		check_sorted_rows((uint64_t)1 << 32, step, 1);
	}
}

/* Rows that a later block of the function meets first at lower addresses
 * on lines it has rows on already: in line order, and on one line in
 * address order, not in the order they were met; with lines near each
 * other (placed by counting) and @p step apart (sorted by comparison). */
static void check_rows_met_late(uint64_t step)
{
	char text[512];
	int n = snprintf(text, sizeof text,
	                 "events: Ir\npositions: instr line\nfl=(1) a.c\nfn=(1) f\n"
	                 "0x200 %" PRIu64 " 1\n0x204 %" PRIu64 " 2\nfn=(2) g\n0x300 1 1\n"
	                 "fl=(1)\nfn=(1)\n0x100 %" PRIu64 " 3\n0x1f0 %" PRIu64 " 4\n"
	                 "0x204 %" PRIu64 " 5\n",
	                 5 * step, 6 * step, 5 * step, 6 * step, 6 * step);
	cr_assert_lt((size_t)n, sizeof text);
	warns w = {0};
	profdb_cg *cg = open_ok(text, &w);
	uint32_t f = (uint32_t)find_fn(cg, "f");
	cr_assert_eq(n_lines(cg, f), 4);
	static const uint64_t want[4][3] = {{5, 0x100, 3}, {5, 0x200, 1}, {6, 0x1f0, 4},
	                                    {6, 0x204, 7}};
	for (uint32_t i = 0; i < 4; i++) {
		profdb_cg_line l;
		cr_assert_eq(fn_line(cg, f, i, &l), 0);
		cr_assert(l.line == want[i][0] * step && l.instr == want[i][1] &&
		          l.self[0] == want[i][2], "step %" PRIu64 " row %u: line %" PRIu64 " instr %#"
		          PRIx64 " cost %" PRIu64, step, i, l.line, l.instr, l.self[0]);
	}
	cg_close(cg);
}

Test(callgrind, detail_rows_met_late_on_lines_met_before)
{
	check_rows_met_late(1);
	check_rows_met_late(1000);
}

Test(callgrind, inlined_files_and_fn_resets_file)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\n"
	                        "fl=(1) a.c\n"
	                        "fn=(1) main\n"
	                        "1 1\n"
	                        "fi=(2) h.h\n"
	                        "7 2\n"
	                        "fe=(1)\n"
	                        "2 3\n"
	                        "fi=(2)\n"
	                        "fn=(2) g\n"
	                        "4 5\n",
	                        &w);
	int i = find_fn(cg, "main");
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
	cr_assert_eq(f.self[0], 6);
	cr_assert_eq(n_lines(cg, (uint32_t)i), 3);
	profdb_cg_line l;
	cr_assert_eq(fn_line(cg, (uint32_t)i, 2, &l), 0);
	cr_assert_eq(l.line, 7);
	cr_assert(name_is(l.file.ptr, l.file.len, "h.h"));
	/* fn=g came after fi=(2): the file is back at a.c */
	i = find_fn(cg, "g");
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
	cr_assert(name_is(f.file.ptr, f.file.len, "a.c"));
	cr_assert_eq(fn_line(cg, (uint32_t)i, 0, &l), 0);
	cr_assert(name_is(l.file.ptr, l.file.len, "a.c"));
	cg_close(cg);
}

/* A function's detail is decoded from the blocks the open recorded
 * (lib/callgrind/blocks.c, detail.c). A buffer changed while open (against the
 * contract) is refused when a decoded block disagrees with the open's
 * self cost: never rows that contradict profdb_cg_self(). */
Test(callgrind, detail_of_a_changed_buffer_is_refused)
{
	warns w = {0};
	char text[] = "events: Ir\n"
	              "fn=(1) main\n"
	              "1 1\n"
	              "fn=(2) g\n"
	              "4 5\n";
	profdb_cg *cg = open_ok(text, &w);
	cr_assert_eq(profdb_cg_function_count(cg), 2);
	memcpy(strstr(text, "4 5"), "4 6", 3);
	profdb_cg_detail *d = NULL;
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 1), -EBADMSG);
	cr_assert_null(d);
	cr_assert(strstr(profdb_error_message(), "inconsistent"), "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 0), 0);   /* untouched */
	profdb_cg_detail_free(d);
	cg_close(cg);
	/* the sums per event, two lines of one row, a derived event */
	char text2[] = "events: Ir Dr\n"
	               "event: S = Ir + Dr\n"
	               "fn=(1) main\n"
	               "1 1 2\n"
	               "fn=(2) g\n"
	               "4 5 7\n"
	               "4 1 1\n";
	cg = open_ok(text2, &w);
	memcpy(strstr(text2, "4 5 7"), "4 5 8", 5);
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 1), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "line rows add up to 9 but the self cost of event 1 "
	                 "is 8"), "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 0), 0);
	profdb_cg_line l;
	cr_assert_eq(profdb_cg_detail_line_at(d, 0, &l), 0);
	cr_assert(l.self[0] == 1 && l.self[1] == 2 && l.self[2] == 3);
	profdb_cg_detail_free(d);
	cg_close(cg);
}

/* main in two blocks (fn= of another function between them), with fi=,
 * fe=, fl= and jfi= lines inside its blocks and a call; @p tail is
 * appended (it may change what an id means after main's blocks). */
static const char blocks_text[] = "events: Ir\n"
                                  "fl=(1) a.c\n"
                                  "fn=(1) main\n"
                                  "1 10\n"
                                  "fi=(2) a.h\n"
                                  "5 20\n"
                                  "fe=(1)\n"
                                  "2 1\n"
                                  "cfi=(3) b.c\n"
                                  "cfn=(2) g\n"
                                  "calls=3 40\n"
                                  "3 100\n"
                                  "jfi=(2)\n"
                                  "jump=1 7\n"
                                  "7 2\n"
                                  "fl=(3)\n"
                                  "fn=(2)\n"
                                  "40 100\n"
                                  "fl=(1)\n"
                                  "fn=(1)\n"
                                  "1 5\n"
                                  "fi=(2)\n"
                                  "5 1\n"
                                  "fl=(3)\n"
                                  "8 3\n";

/* The rows of function @p name as "file:line=cost" joined by spaces. */
static void rows_of(const profdb_cg *cg, const char *name, char *rows, size_t size)
{
	int fn = find_fn(cg, name);
	cr_assert_geq(fn, 0);
	rows[0] = 0;
	for (uint32_t k = 0; k < n_lines(cg, (uint32_t)fn); k++) {
		profdb_cg_line l;
		cr_assert_eq(fn_line(cg, (uint32_t)fn, k, &l), 0);
		size_t at = strlen(rows);
		snprintf(rows + at, size - at, "%s%.*s:%" PRIu64 "=%" PRIu64, k ? " " : "",
		         (int)l.file.len, l.file.ptr, l.line, l.self[0]);
	}
}

/* The rows of main, its call site and its jump; the rows of h (NULL: no
 * h), the function @p tail adds. */
static void check_blocks(const char *tail, int want_warnings, const char *h_rows)
{
	warns w = {0};
	char text[2048], rows[256];
	snprintf(text, sizeof text, "%s%s", blocks_text, tail);
	profdb_cg *cg = open_ok(text, &w);
	cr_assert_eq(w.n, want_warnings, "%s", w.all);
	int main_fn = find_fn(cg, "main");
	rows_of(cg, "main", rows, sizeof rows);
	/* every block of main, every file change inside one */
	cr_assert_str_eq(rows, "a.c:1=15 a.c:2=1 a.h:5=21 a.c:7=2 b.c:8=3");
	if (h_rows) {
		rows_of(cg, "h", rows, sizeof rows);
		cr_assert_str_eq(rows, h_rows);
	}
	profdb_cg_detail *d = detail_of(cg, (uint32_t)main_fn);
	cr_assert_eq(profdb_cg_detail_call_count(d), 1);
	profdb_cg_callsite cs;
	cr_assert_eq(profdb_cg_detail_call_at(d, 0, &cs), 0);
	cr_assert_eq(cs.callee, (uint32_t)find_fn(cg, "g"));
	cr_assert(name_is(cs.file.ptr, cs.file.len, "a.c"));
	cr_assert_eq(cs.line, 3);
	cr_assert_eq(cs.count, 3);
	cr_assert_eq(cs.inclusive[0], 100);
	cr_assert_eq(profdb_cg_detail_jump_count(d), 1);
	profdb_cg_jump j;
	cr_assert_eq(profdb_cg_detail_jump_at(d, 0, &j), 0);
	cr_assert(name_is(j.to_file.ptr, j.to_file.len, "a.h"));
	cr_assert_eq(j.from_line, 3);
	cr_assert_eq(j.to_line, 7);
	cg_close(cg);
}

Test(callgrind, detail_over_blocks_with_name_lines)
{
	check_blocks("", 0, NULL);
}

/* The same lines where an id is defined a second time afterwards, a file
 * is named literally in a function's lines, or an id is used before its
 * definition: the final names no longer tell what a block's lines meant,
 * and the open recorded what they did (the same rows). */
Test(callgrind, detail_when_names_change_meaning)
{
	check_blocks("fn=(4) h\nfi=(2) z.h\n9 1\n", 0, "z.h:9=1");
	check_blocks("fn=(4) h\nfi=a.h\n9 1\n", 0, "a.h:9=1");
	check_blocks("fn=(4) h\nfi=(9)\n9 1\nfi=(9) y.h\n", 1, "(9):9=1");
}

/* The rows of @p name in @p text must be @p want (opened with one
 * thread and with two). */
static void check_rows(const char *text, const char *name, const char *want)
{
	for (uint32_t threads = 1; threads <= 2; threads++) {
		warns w = {0};
		profdb_options o = opts_for(&w);
		o.threads = threads;
		profdb_cg *cg = NULL;
		cr_assert_eq(profdb_cg_open_mem(&cg, text, strlen(text), &o), 0, "%s",
		             profdb_error_message());
		char rows[512];
		rows_of(cg, name, rows, sizeof rows);
		cr_assert_str_eq(rows, want, "%s, %u threads", name, threads);
		cg_close(cg);
	}
}

/* File ids defined again, outside a block (before g's first line) and
 * inside one (in g's lines): each line reads the id as it was there. */
static const char redefined_text[] = "events: Ir\n"
                                     "fl=(1) a.c\n"
                                     "fn=(1) main\n"
                                     "1 1\n"
                                     "fi=(2) x.h\n"
                                     "2 2\n"
                                     "fi=(2)\n"
                                     "3 3\n"
                                     "fn=(2) g\n"
                                     "fi=(2) y.h\n"
                                     "4 4\n"
                                     "fe=(2) z.h\n"
                                     "5 5\n"
                                     "fe=(2)\n"
                                     "6 6\n"
                                     "fn=(1)\n"
                                     "7 7\n"
                                     "fi=(2)\n"
                                     "8 8\n";

Test(callgrind, detail_of_an_id_defined_again)
{
	check_rows(redefined_text, "main", "a.c:1=1 x.h:2=2 x.h:3=3 a.c:7=7 z.h:8=8");
	check_rows(redefined_text, "g", "y.h:4=4 z.h:5=5 z.h:6=6");
}

/* An id used inside a block before its definition names "(id)" there. */
Test(callgrind, detail_of_an_id_used_before_its_definition)
{
	const char text[] = "events: Ir\n"
	                    "fl=(1) a.c\n"
	                    "fn=(1) main\n"
	                    "1 1\n"
	                    "fi=(7)\n"
	                    "2 2\n"
	                    "fe=(7) late.h\n"
	                    "3 3\n"
	                    "fn=(2) g\n"
	                    "fi=(7)\n"
	                    "4 4\n";
	check_rows(text, "main", "a.c:1=1 (7):2=2 late.h:3=3");
	check_rows(text, "g", "late.h:4=4");
}

/* Xdebug's "====" line starts a new profile whose ids mean other names
 * (an id only the profile before defined is undefined after it); a
 * literal name line between it and the next function ends no block and
 * is not read as one of the block before. */
Test(callgrind, detail_across_xdebug_appended_profiles)
{
	const char text[] = "version: 1\n"
	                    "creator: xdebug 2.9.8\n"
	                    "events: Time\n"
	                    "\n"
	                    "fl=(1) a.php\n"
	                    "fn=(1) first\n"
	                    "1 10\n"
	                    "fi=(2) inc.php\n"
	                    "2 20\n"
	                    "fe=(1)\n"
	                    "3 30\n"
	                    "fi=(9) nine.php\n"
	                    "7 70\n"
	                    "\n"
	                    "==== NEW PROFILING FILE ==============================\n"
	                    "fl=c.php\n"
	                    "version: 1\n"
	                    "creator: xdebug 2.9.8\n"
	                    "events: Time\n"
	                    "\n"
	                    "fl=(1) b.php\n"
	                    "fn=(1) second\n"
	                    "4 40\n"
	                    "fi=(2) other.php\n"
	                    "5 50\n"
	                    "fe=(1)\n"
	                    "6 60\n"
	                    "fi=(9)\n"
	                    "8 80\n"
	                    "==== NEW PROFILING FILE ==============================\n"
	                    "events: Time\n"
	                    "fl=(1) c.php\n"
	                    "fn=(1) third\n"
	                    "9 90\n"
	                    "fi=(2)\n"
	                    "10 100\n";
	check_rows(text, "first", "a.php:1=10 inc.php:2=20 a.php:3=30 nine.php:7=70");
	check_rows(text, "second", "b.php:4=40 other.php:5=50 b.php:6=60 (9):8=80");
	check_rows(text, "third", "c.php:9=90 (2):10=100");
}

/* fi=, fe=, fl= and jfi= inside one block, literal and compressed mixed:
 * a literal name is the scan's record of its line. */
static const char mixed_text[] = "events: Ir\n"
                                 "# a comment the scan reads, detail does not\n"
                                 "fl=(1) a.c\n"
                                 "fn=(1) main\n"
                                 "1 1\n"
                                 "fi=b.h\n"
                                 "2 2\n"
                                 "fe=(1)\n"
                                 "3 3\n"
                                 "fi=(2) c.h\n"
                                 "4 4\n"
                                 "fl=d.c\n"
                                 "5 5\n"
                                 "fe=(2)\n"
                                 "6 6\n"
                                 "jfi=e.c\n"
                                 "jump=1 9\n"
                                 "7 7\n"
                                 "fn=(2) g\n"
                                 "fe=b.h\n"
                                 "1 1\n";

static void check_mixed(const profdb_cg *cg)
{
	char rows[512];
	rows_of(cg, "main", rows, sizeof rows);
	cr_assert_str_eq(rows, "a.c:1=1 b.h:2=2 a.c:3=3 c.h:4=4 d.c:5=5 c.h:6=6 c.h:7=7");
	rows_of(cg, "g", rows, sizeof rows);
	cr_assert_str_eq(rows, "b.h:1=1");
	profdb_cg_detail *d = detail_of(cg, (uint32_t)find_fn(cg, "main"));
	cr_assert_eq(profdb_cg_detail_jump_count(d), 1);
	profdb_cg_jump j;
	cr_assert_eq(profdb_cg_detail_jump_at(d, 0, &j), 0);
	cr_assert(name_is(j.to_file.ptr, j.to_file.len, "e.c"));
	cr_assert_eq(j.from_line, 6);
	cr_assert_eq(j.to_line, 9);
}

Test(callgrind, detail_of_literal_and_compressed_names_in_a_block)
{
	check_rows(mixed_text, "main", "a.c:1=1 b.h:2=2 a.c:3=3 c.h:4=4 d.c:5=5 c.h:6=6 c.h:7=7");
	warns w = {0};
	profdb_cg *cg = open_ok(mixed_text, &w);
	check_mixed(cg);
	cg_close(cg);
}

/* "(" and digits without the closing ")" are a literal name however many
 * digits follow, past 2^64 too: the scan and the detail agree. */
Test(callgrind, detail_of_a_literal_name_of_many_digits)
{
	check_rows("events: Ir\nfl=(1) a.c\nfn=(1) main\n1 1\nfe=(18446744073709551616\n4 5\n"
	           "fi=(99999999999999999999999g\n6 7\n",
	           "main", "a.c:1=1 (18446744073709551616:4=5 (99999999999999999999999g:6=7");
}

/* Detail reads the blocks it decodes and nothing else of the text, even
 * where names change meaning: after the open, a byte that no scan accepts
 * (a control byte in a header comment) changes nothing. */
Test(callgrind, detail_reads_only_its_blocks)
{
	char text[sizeof mixed_text];
	memcpy(text, mixed_text, sizeof text);
	warns w = {0};
	profdb_cg *cg = open_ok(text, &w);
	*strstr(text, "# a comment") = '\x01';
	check_mixed(cg);
	cg_close(cg);
	/* the same change before the open: the scan refuses the text */
	cr_assert_eq(open_fail(text, strlen(text), &w), -EBADMSG);
}

typedef struct hook {
	int calls, cancel;
} hook;

static int hook_progress(uint64_t done, uint64_t total, void *ud)
{
	(void)done;
	(void)total;
	hook *h = ud;
	h->calls++;
	return h->cancel;
}

/* Indexing the detail of a text whose names change meaning (here a file
 * id defined twice) reads no text: it calls no progress hook, so a hook
 * that cancels now cannot fail detail requests (the scan reports progress
 * every 16 MiB: the text is 17 MiB). */
Test(callgrind, detail_index_calls_no_progress_hook)
{
	const char head[] = "events: Ir\nfl=(1) a.c\nfl=(1) b.c\nfn=(1) main\n";
	size_t n = sizeof head - 1 + ((size_t)17 << 20);
	char *text = malloc(n);
	cr_assert_not_null(text);
	memcpy(text, head, sizeof head - 1);
	for (size_t i = sizeof head - 1; i + 4 <= n; i += 4)
		memcpy(text + i, "1 1\n", 4);
	n -= (n - (sizeof head - 1)) % 4;
	hook h = {0, 0};
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.progress = hook_progress;
	o.progress_userdata = &h;
	profdb_cg *cg = NULL;
	cr_assert_eq(profdb_cg_open_mem(&cg, text, n, &o), 0, "%s", profdb_error_message());
	cr_assert_gt(h.calls, 0, "the open reports progress");
	int after_open = h.calls;
	h.cancel = 1;
	profdb_cg_detail *d = NULL;
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, 0), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_detail_line_count(d), 1);
	cr_assert_eq(h.calls, after_open);
	profdb_cg_detail_free(d);
	profdb_cg_close(cg);
	free(text);
}

/* Index of the function (object, file, name) in @p cg, or -1. */
static int find_fn3(const profdb_cg *cg, const char *ob, const char *fl, const char *name)
{
	int64_t n = profdb_cg_function_count(cg);
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		if (name_is(f.name.ptr, f.name.len, name) && name_is(f.object.ptr, f.object.len, ob) &&
		    name_is(f.file.ptr, f.file.len, fl))
			return (int)i;
	}
	return -1;
}

/* A function is (object, fl= file, name), as KCachegrind (doc/FORMATS.md):
 * the same name in two objects is two functions, and so is the same name
 * in two fl= files of one object (C static functions, such as ld.so's two
 * check_match); fi=/fe= inside its block and a cfi= after cfn= do not split
 * it. */
/* A name is hashed 8 bytes a step and its last bytes on their own: the
 * same name at two places of the text, followed by other bytes there
 * (a blank the line drops, the line's end), is one name, whatever its
 * length around those 8 bytes. */
Test(callgrind, names_hashed_whatever_their_length)
{
	static const char *const names[] = {"a", "abcdefg", "abcdefgh", "abcdefghi",
	                                    "abcdefghijklmnop", "abcdefghijklmnopq"};
	const size_t nn = sizeof names / sizeof names[0];
	char text[1024];
	size_t at = (size_t)snprintf(text, sizeof text, "events: Ir\n");
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nn; i++)
			at += (size_t)snprintf(text + at, sizeof text - at, "fn=%s%s\n1 %zu\n", names[i],
			                       pass ? "  " : "", (i + 1) << (4 * pass));
	cr_assert_lt(at, sizeof text);
	warns w = {0};
	profdb_cg *cg = open_ok(text, &w);
	cr_assert_eq(profdb_cg_function_count(cg), (int64_t)nn, "%s", text);
	for (size_t i = 0; i < nn; i++)
		cr_assert_eq(self_of(cg, names[i], 0), (i + 1) * 17, "%s", names[i]);
	cg_close(cg);
}

Test(callgrind, function_identity_object_file_name)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\n"
	                        "ob=a\nfl=x.c\nfn=f\n1 1\n"
	                        "fl=y.c\nfn=f\n1 2\n"              /* static f of y.c */
	                        "ob=b\nfl=x.c\nfn=f\n1 4\n"        /* f of object b */
	                        "ob=a\nfl=x.c\nfn=f\n2 8\n"        /* back to a's x.c f */
	                        "fi=h.h\n3 16\nfe=z.h\n4 32\n"     /* inlined: still f */
	                        "fn=main\n1 64\n"
	                        "cfn=f\ncfi=y.c\ncalls=1 1\n1 128\n", /* cfi= after cfn= */
	                        &w);
	cr_assert_eq(profdb_cg_function_count(cg), 4, "%s", w.all);
	int ax = find_fn3(cg, "a", "x.c", "f"), ay = find_fn3(cg, "a", "y.c", "f");
	int bx = find_fn3(cg, "b", "x.c", "f");
	cr_assert(ax >= 0 && ay >= 0 && bx >= 0 && find_fn3(cg, "a", "x.c", "main") >= 0);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)ax, &f), 0);
	cr_assert_eq(f.self[0], 1 + 8 + 16 + 32);
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)ay, &f), 0);
	cr_assert_eq(f.self[0], 2);
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)bx, &f), 0);
	cr_assert_eq(f.self[0], 4);
	/* the callee was bound at cfn=, with main's fl= file x.c: the later
	 * cfi=y.c makes it neither a new function nor the static f of y.c */
	cr_assert_eq(profdb_cg_call_count(cg), 1);
	profdb_cg_call c;
	cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, 0, &c), 1);
	cr_assert_eq(c.callee, (uint32_t)ax);
	cr_assert_eq(c.count, 1);
	cg_close(cg);
}

/* The file of each line of a function stays the file current there, even
 * when the function's code spans several files (fi=/fe=, inlined code), and
 * a later fn= block of the same name and fl= file is the same function. */
Test(callgrind, function_over_several_files_keeps_line_files)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\nfl=x.c\nfn=f\n1 1\nfn=g\n2 0\nfn=f\nfi=y.h\n7 2\n", &w);
	cr_assert_eq(profdb_cg_function_count(cg), 2);
	profdb_cg_line l;
	cr_assert_eq(fn_line(cg, 0, 0, &l), 0);
	cr_assert(name_is(l.file.ptr, l.file.len, "x.c"));
	cr_assert_eq(fn_line(cg, 0, 1, &l), 0);
	cr_assert(name_is(l.file.ptr, l.file.len, "y.h"));
	cr_assert_eq(l.line, 7);
	cr_assert_eq(self_of(cg, "f", 0), 3);
	cg_close(cg);
}

/* gprof2dot's converters (bzr.callgrind) write fi= (never fl=) and cfn=
 * before cfi=: the callee, bound at cfn= with the file "" of a part without
 * fl=, is the function its fn= block defines, plain or
 * compressed, and a recursion through it is a cycle of the call graph. */
Test(callgrind, cfn_before_cfi)
{
	static const char *const texts[] = {
		"events: Ir\nfi=a.py\nfn=main\n1 1\ncfn=g\ncfi=b.py\ncalls=2 5\n1 30\n"
		"fi=b.py\nfn=g\n5 10\ncfn=main\ncfi=a.py\ncalls=1 1\n6 20\n",
		"events: Ir\nfi=(1) a.py\nfn=(1) main\n1 1\ncfn=(2) g\ncfi=(2) b.py\ncalls=2 5\n"
		"1 30\nfi=(2)\nfn=(2)\n5 10\ncfn=(1)\ncfl=(1)\ncalls=1 1\n6 20\n",
	};
	for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
		warns w = {0};
		profdb_cg *cg = open_ok(texts[t], &w);
		cr_assert_eq(profdb_cg_function_count(cg), 2, "text %zu", t);
		int g = find_fn(cg, "g");
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)g, &f), 0);
		cr_assert_eq(f.file.len, 0);  /* no fl=: KCachegrind's unknown file */
		cr_assert_eq(f.self[0], 10);
		profdb_cg_line l;  /* its lines keep the fi= file */
		cr_assert_eq(fn_line(cg, (uint32_t)g, 0, &l), 0);
		cr_assert(name_is(l.file.ptr, l.file.len, "b.py"));
		cr_assert_eq(self_of(cg, "main", 0), 1);
		cr_assert_eq(edge_of(cg, "main", "g").count, 2);
		cr_assert_eq(edge_of(cg, "g", "main").count, 1);
		/* main <-> g is one cycle: g's inclusive is its self cost, the
		 * cycle's the whole run (11) */
		const uint64_t *inc;
		uint32_t cyc;
		cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)g, &inc), 1);
		cr_assert_eq(inc[0], 10);
		cr_assert_eq(profdb_cg_function_cycle(cg, (uint32_t)g, &cyc), 1);
		cr_assert_eq(profdb_cg_cycle_inclusive(cg, PROFDB_CG_ALL, cyc, &inc), 1);
		cr_assert_eq(inc[0], 11);
		cg_close(cg);
	}
}

/* The callee is bound at cfn= (KCachegrind): a cob=/cfi= before it names
 * its object and file, else the caller's object and current file (the fl=
 * file, or an fi= file given since fn=: callgrind leaves cfi= out when the
 * callee is in the current file); a cob= after cfn= does not apply. The
 * same name in two objects is two functions (malloc in ld.so and libc). */
Test(callgrind, callee_object_and_file)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\nob=main\nfl=m.c\nfn=main\n1 1\n"
	                        "cob=libc\ncfi=malloc.c\ncfn=malloc\ncalls=1 1\n1 2\n"
	                        "cob=ld.so\ncfn=malloc\ncalls=1 1\n1 4\n"
	                        "cfn=free\ncob=libc\ncalls=1 1\n1 8\n"
	                        "fi=inl.h\ncfn=helper\ncalls=1 1\n9 16\n"
	                        "fl=inl.h\nfn=helper\n9 16\n"
	                        "ob=libc\nfl=malloc.c\nfn=malloc\n1 2\n", &w);
	cr_assert_eq(profdb_cg_function_count(cg), 5, "%s", w.all);
	int helper = find_fn3(cg, "main", "inl.h", "helper");  /* the fi= file */
	cr_assert_geq(helper, 0);
	int libc = find_fn3(cg, "libc", "malloc.c", "malloc");
	int ld = find_fn3(cg, "ld.so", "m.c", "malloc");  /* the caller's file */
	int fr = find_fn3(cg, "main", "m.c", "free");     /* cob= came after cfn= */
	cr_assert(libc >= 0 && ld >= 0 && fr >= 0);
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)libc, &f), 0);
	cr_assert_eq(f.self[0], 2);
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)helper, &f), 0);
	cr_assert_eq(f.self[0], 16);
	cr_assert_eq(profdb_cg_call_count(cg), 4);
	cg_close(cg);
}

Test(callgrind, hex_and_totals_mismatch_warns)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\nfn=f\n1 0x10\n2 16\ntotals: 30\n", &w);
	cr_assert_eq(self_of(cg, "f", 0), 32);
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "totals"), "%s", w.last);
	cg_close(cg);
}

Test(callgrind, recovery_warnings)
{
	warns w = {0};
	/* negative call count, negative cost, unknown lines, extra costs */
	profdb_cg *cg = open_ok("# format callgrind\nevents: Ir\nrec=1\nfrfn=(9) defined_here\n"
	                        "fn=f\n1 5 6\n1 -3\ncfn=(9)\ncalls=-1 -1\n2 7\n"
	                        "==== NEW PROFILING FILE ====\nfoo: bar\n",
	                        &w);
	cr_assert_eq(self_of(cg, "f", 0), 5);
	profdb_cg_call c = edge_of(cg, "f", "defined_here");
	cr_assert_eq(c.count, 0);
	cr_assert_eq(c.inclusive[0], 7);
	cr_assert_geq(w.n, 4, "%s", w.all);
	cg_close(cg);
}

Test(callgrind, nul_in_name_is_kept_with_warning)
{
	static const char text[] = "events: Ir\nfn=class@anonymous\0/x.php\n1 10\n";
	warns w = {0};
	profdb_options o = opts_for(&w);
	profdb_cg *cg;
	corpus_dump(text, sizeof text - 1);
	cr_assert_eq(profdb_cg_open_mem(&cg, text, sizeof text - 1, &o), 0, "%s",
	             profdb_error_message());
	profdb_cg_function f;
	cr_assert_eq(profdb_cg_function_get(cg, 0, &f), 0);
	cr_assert_eq(f.name.len, 22);
	cr_assert_eq(memcmp(f.name.ptr, "class@anonymous\0/x.php", 22), 0);
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "NUL"));
	cg_close(cg);
}

Test(callgrind, empty_inputs)
{
	warns w = {0};
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, NULL, 0, NULL), 0);
	cr_assert_eq(profdb_cg_function_count(cg), 0);
	cr_assert_eq(profdb_cg_event_count(cg), 0);
	const uint64_t *t;
	cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &t), 0);
	cr_assert_not_null(t);  /* a row of zero values, not NULL (0.9 conventions) */
	cg_close(cg);
	cg = open_ok("# callgrind format\npart: 2\nevents: Ir\nsummary: 0\ntotals: 0\n", &w);
	cr_assert_eq((int)profdb_cg_profile_count(cg), 1);
	cr_assert_eq(profdb_cg_function_count(cg), 0);
	check_invariants(cg, "header only");
	cg_close(cg);
}

Test(callgrind, part_without_events_keeps_columns)
{
	warns w = {0};
	/* found by fuzzing: a new part whose events: line never comes */
	profdb_cg *cg = open_ok("events: Ir\npart: 2\nsummary: 0\n", &w);
	check_invariants(cg, "part without events");
	cg_close(cg);
	cg = open_ok("events: Ir Dr\nfn=f\n1 1 2\npart: 2\nfn=f\n1 3 4\n", &w);
	cr_assert_eq((int)profdb_cg_profile_count(cg), 2);  /* part: after events: */
	cr_assert_eq(self_of(cg, "f", 1), 6);
	const uint64_t *c;
	cr_assert_eq(profdb_cg_self(cg, 1, 0, &c), 1);
	cr_assert_eq(c[1], 4);
	check_invariants(cg, "part without events");
	cg_close(cg);
	/* found by fuzzing: parts with and without a line column */
	cg = open_ok("events: Ir\nfn=f\n2 1\npositions: bb\nevents: Ir\nfn=f\n0x10 3\n", &w);
	check_invariants(cg, "mixed positions");
	cg_close(cg);
}

/* ---- bad inputs -------------------------------------------------------------- */

Test(callgrind, bad_arguments)
{
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open(NULL, "x", NULL), -EINVAL);
	cr_assert_eq(profdb_cg_open(&cg, NULL, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_open_mem(&cg, NULL, 5, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_open(&cg, "/nonexistent/cg.out", NULL), -ENOENT);
	cr_assert(strstr(profdb_error_message(), "/nonexistent/cg.out"));
	cr_assert_eq(profdb_cg_event_count(NULL), -EINVAL);
	cr_assert_eq(profdb_cg_function_count(NULL), -EINVAL);
	cr_assert_eq(profdb_cg_call_count(NULL), -EINVAL);
	cr_assert_eq(profdb_cg_profile_count(NULL), -EINVAL);
}

/* The 0.9 conventions: NULL outputs are -EINVAL, lookups that find nothing
 * return 0 with the output cleared (a row of zeros, {"", 0}), ids out of
 * range are -ENOENT, strings are profdb_str, detail rows are *_at. */
Test(callgrind, conventions)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir Dr\nevent: Ir : Instruction Fetches\n"
	                        "fl=a.c\nfn=main\n1 3 1\ncfn=f\ncalls=2 5\n2 7 0\n"
	                        "fn=f\n5 7\njump=1 6\n6 0\n"
	                        "fn=lonely\n9 1\n", &w);
	const uint64_t *c = NULL;
	profdb_cg_event e;
	profdb_cg_profile p;
	profdb_cg_function f;
	profdb_cg_call call;
	profdb_cg_detail *d = NULL;

	/* NULL outputs */
	cr_assert_eq(profdb_cg_event_get(cg, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_profile_get(cg, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_function_get(cg, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_self(cg, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_inclusive(cg, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_call_get(cg, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_totals(cg, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_summary(cg, PROFDB_CG_SUMMARY, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_detail_new(NULL, cg, 0, 0), -EINVAL);
	cr_assert_eq(profdb_cg_detail_new(&d, NULL, 0, 0), -EINVAL);
	cr_assert_null(d);
	cr_assert_eq(profdb_cg_detail_line_count(NULL), -EINVAL);
	cr_assert_eq(profdb_cg_detail_call_count(NULL), -EINVAL);
	cr_assert_eq(profdb_cg_detail_jump_count(NULL), -EINVAL);

	/* ids out of range */
	cr_assert_eq(profdb_cg_event_count(cg), 2);
	cr_assert_eq(profdb_cg_event_get(cg, 2, &e), -ENOENT);
	cr_assert_eq(profdb_cg_profile_get(cg, 1, &p), -ENOENT);
	cr_assert_eq(profdb_cg_function_get(cg, 3, &f), -ENOENT);
	cr_assert_eq(profdb_cg_self(cg, 0, 3, &c), -ENOENT);
	cr_assert_eq(profdb_cg_self(cg, 1, 0, &c), -ENOENT);
	cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, 1, &call), -ENOENT);
	cr_assert_eq(profdb_cg_totals(cg, 1, &c), -ENOENT);
	cr_assert_eq(profdb_cg_detail_new(&d, cg, 0, 3), -ENOENT);
	cr_assert_null(d);

	/* strings: profdb_str, absent = {"", 0} */
	cr_assert_eq(profdb_cg_event_get(cg, 0, &e), 0);
	cr_assert(name_is(e.long_name.ptr, e.long_name.len, "Instruction Fetches"));
	cr_assert_eq(profdb_cg_event_get(cg, 1, &e), 0);
	cr_assert(e.long_name.ptr && e.long_name.len == 0 && e.formula.ptr && e.formula.len == 0);
	cr_assert_eq(profdb_cg_profile_get(cg, 0, &p), 0);
	cr_assert_eq(p.file.len, strlen(p.file.ptr));
	cr_assert(p.trigger.ptr && p.trigger.len == 0 && p.cmd.ptr && p.cmd.len == 0);
	int main_fn = find_fn(cg, "main"), lonely = find_fn(cg, "lonely");
	cr_assert_geq(main_fn, 0);
	cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)main_fn, &f), 0);
	cr_assert(name_is(f.file.ptr, f.file.len, "a.c"));
	cr_assert(f.object.ptr && f.object.len == 0);

	/* "not stored" lookups: 0 and a row of zeros */
	cr_assert_eq(profdb_cg_summary(cg, PROFDB_CG_SUMMARY, &c), 0);
	cr_assert(c && c[0] == 0 && c[1] == 0);
	cr_assert_eq(profdb_cg_self(cg, 0, (uint32_t)lonely, &c), 1);
	cr_assert_eq(c[0], 1);  /* "9 1": line 9, Ir 1 */
	cr_assert_eq(profdb_cg_call_get(cg, 0, 0, &call), 1);
	cr_assert_eq(call.count, 2);
	cr_assert_eq(call.inclusive[0], 7);

	/* detail: constructor first, rows by index */
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)main_fn), 0);
	cr_assert_not_null(d);
	profdb_cg_line l;
	profdb_cg_callsite cs;
	profdb_cg_jump j;
	cr_assert_eq(profdb_cg_detail_line_count(d), 1);
	cr_assert_eq(profdb_cg_detail_line_at(d, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_detail_line_at(d, 1, &l), -ENOENT);
	cr_assert_eq(profdb_cg_detail_line_at(d, 0, &l), 0);
	cr_assert(name_is(l.file.ptr, l.file.len, "a.c"));
	cr_assert_eq(l.line, 1);
	cr_assert_eq(l.self[0], 3);
	cr_assert_eq(profdb_cg_detail_call_count(d), 1);
	cr_assert_eq(profdb_cg_detail_call_at(d, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_detail_call_at(d, 1, &cs), -ENOENT);
	cr_assert_eq(profdb_cg_detail_call_at(d, 0, &cs), 0);
	cr_assert(name_is(cs.file.ptr, cs.file.len, "a.c"));
	cr_assert_eq(cs.count, 2);
	cr_assert_eq(profdb_cg_detail_jump_count(d), 0);
	cr_assert_eq(profdb_cg_detail_jump_at(d, 0, &j), -ENOENT);
	profdb_cg_detail_free(d);
	cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "f")), 0);
	cr_assert_eq(profdb_cg_detail_jump_count(d), 1);
	cr_assert_eq(profdb_cg_detail_jump_at(d, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_cg_detail_jump_at(d, 0, &j), 0);
	cr_assert(name_is(j.to_function.ptr, j.to_function.len, "f"));
	cr_assert(name_is(j.to_file.ptr, j.to_file.len, "a.c"));
	cr_assert_eq(j.count, 1);
	profdb_cg_detail_free(d);
	cg_close(cg);
}

/* Ids beyond the dense tables (>= 64 Ki here) go through the hash index;
 * "====" (Xdebug's append mode) forgets every id, large or small. */
Test(callgrind, large_name_ids)
{
	warns w = {0};
	profdb_cg *cg = open_ok("events: Ir\n"
	                        "fn=(70000) big\n1 1\nfn=(3) small\n1 2\n"
	                        "fn=(4000000000) huge\n1 4\nfl=(123456789) f.c\n"
	                        "fn=(70000)\n2 8\ncfn=(4000000000)\ncalls=1 1\n1 16\n"
	                        "==== NEW PROFILING FILE ====\n"
	                        "events: Ir\nfn=(70000)\n1 32\n", &w);
	int big = find_fn(cg, "big"), huge = find_fn(cg, "huge");
	cr_assert_geq(big, 0);
	cr_assert_geq(huge, 0);
	cr_assert_geq(find_fn(cg, "small"), 0);
	/* (70000) after fl= is another function: (object, file, name) */
	cr_assert_eq(profdb_cg_function_count(cg), 6, "%s", w.all);
	int undef = find_fn(cg, "(70000)");  /* after "====", undefined: warned */
	cr_assert_geq(undef, 0);
	cr_assert(strstr(w.all, "undefined function id 70000"), "%s", w.all);
	const uint64_t *c;
	cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, (uint32_t)big, &c), 1);
	cr_assert_eq(c[0], 1);
	cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, (uint32_t)huge, &c), 1);
	cr_assert_eq(c[0], 4);
	cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, (uint32_t)undef, &c), 1);
	cr_assert_eq(c[0], 32);
	cr_assert_eq(profdb_cg_call_count(cg), 1);
	profdb_cg_call call;
	cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, 0, &call), 1);
	cr_assert_eq(call.count, 1);
	cr_assert_eq(call.inclusive[0], 16);
	cg_close(cg);
}

/* PROFDB_OPEN_TOLERANT does not apply (the text is scanned whole): a
 * malformed line fails the open in either mode. */
Test(callgrind, tolerant_flag_does_not_hide_errors)
{
	static const char text[] = "events: Ir\nfn=f\n1 x\n";
	profdb_options o = PROFDB_OPTIONS_INIT;
	o.flags = PROFDB_OPEN_TOLERANT;
	profdb_cg *cg = NULL;
	cr_assert_eq(profdb_cg_open_mem(&cg, text, sizeof text - 1, &o), -EBADMSG);
	cr_assert_null(cg);
	cr_assert(strstr(profdb_error_message(), "line 3"), "%s", profdb_error_message());
}

Test(callgrind, long_line)
{
	size_t n = (1u << 20) + 100;
	char *t = malloc(n + 64);
	cr_assert(t);
	int h = sprintf(t, "events: Ir\nfn=");
	memset(t + h, 'a', n);
	strcpy(t + h + n, "\n1 1\n");
	warns w = {0};
	int r = open_fail(t, strlen(t), &w);
	cr_assert_eq(r, -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "line 2 (offset 11)"), "%s",
	          profdb_error_message());
	cr_assert(strstr(profdb_error_message(), "longer than"));
	/* the same for a cost line of an open block (the scanner's fast path) */
	h = sprintf(t, "events: Ir\nfn=f\n1 1\n2");
	memset(t + h, ' ', n);
	strcpy(t + h + n, "1\n");
	r = open_fail(t, strlen(t), &w);
	cr_assert_eq(r, -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "line 4 (offset 20)"), "%s",
	          profdb_error_message());
	cr_assert(strstr(profdb_error_message(), "longer than"));
	free(t);
}

typedef struct bad_case {
	const char *text;
	int code;
	const char *where;  /* expected in the message */
} bad_case;

Test(callgrind, bad_inputs)
{
	static const bad_case cases[] = {
		/* calls= not followed by a cost line */
		{"events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=g\n1 1\n", -EBADMSG, "line 5 (offset 32)"},
		{"events: Ir\nfn=f\ncfn=g\ncalls=1 2\n\n1 1\n", -EBADMSG, "line 5"},
		/* calls= at the end of the file */
		{"events: Ir\nfn=f\ncfn=g\ncalls=1 2\n", -ENODATA, "calls="},
		{"events: Ir\nfn=f\ncalls=1 2\n1 1\n", -EBADMSG, "without a preceding cfn="},
		/* costs overflowing 64 bits */
		{"events: Ir\nfn=f\n1 18446744073709551616\n", -EBADMSG, "line 3"},
		{"events: Ir\nfn=f\n1 0x10000000000000000\n", -EBADMSG, "overflows"},
		{"events: Ir\nfn=f\n1 18446744073709551615\n2 1\n", -EBADMSG, "line 4"},
		{"events: Ir\nfn=f\n1 1\n+18446744073709551615 1\n", -EBADMSG, "line 4"},
		{"events: Ir\nfn=f\n1 1\n-2 1\n", -EBADMSG, "below 0"},
		/* one-digit subpositions: their values (the scanner's own
		 * positions show only in this error), then followed by anything
		 * but a blank */
		{"events: Ir\nfn=f\n1 1\n+9 1\n-7 1\n-4 1\n", -EBADMSG, "line 6"},
		{"positions: instr line\nevents: Ir\nfn=f\n0 5 1\n+9 -4 1\n* -2 1\n", -EBADMSG,
		 "line 6"},
		{"positions: instr line\nevents: Ir\nfn=f\n0 5 1\n+9 -4 1\n-9 -1 1\n-1 * 1\n",
		 -EBADMSG, "line 7"},
		{"events: Ir\nfn=f\n1 1\n+5x 1\n", -EBADMSG, "line 4"},
		{"events: Ir\nfn=f\n1 1\n-1X 1\n", -EBADMSG, "line 4"},
		{"events: Ir\nfn=f\n1 1\n+0x 1\n", -EBADMSG, "line 4"},
		/* a line the fast path leaves (CR) inside a run of cost lines
		 * starts from the positions of the run's last line */
		{"events: Ir\nfn=f\n16 1\n+1 1\n-17 1\r\n-1 1\n", -EBADMSG, "line 6 (offset 33)"},
		{"positions: instr line\nevents: Ir\nfn=f\n16 5 1\n+1 +1 1\n-17 -6 1\r\n* -1 1\n",
		 -EBADMSG, "line 7 (offset 63)"},
		{"events: Ir\nfn=(99999999999999999999) x\n", -EBADMSG, "line 2"},
		/* truncated: the last line has no newline and is incomplete */
		{"events: Ir\nfn=f\n1 1\ncf", -ENODATA, "truncated"},
		{"events: Ir\nfn=f\n1 1x", -ENODATA, "truncated"},
		/* binary garbage */
		{"\x7f" "ELF\x02\x01\x01\0\0\0\0\0", -EPROTONOSUPPORT, "not a callgrind file"},
		{"events: Ir\nfn=f\n\x01\x02\x03\x04\n1 1\n", -EBADMSG, "binary"},
		{"events: Ir\nfn=f\n1 \x01\n", -EBADMSG, "line 3"},
		/* structure */
		{"events: Ir\n1 1\n", -EBADMSG, "before any fn="},
		{"fn=f\nevents: Ir\ncreator: x\n", 0, NULL},
		{"creator: x\nfn=f\n1 1\n", -EBADMSG, "before any events:"},
		{"version: 2\nevents: Ir\n", -EPROTONOSUPPORT, "version"},
		{"events: Ir Ir\n", -EBADMSG, "twice"},
		{"positions: line foo\nevents: Ir\n", -EBADMSG, "position type"},
		{"events: Ir\nfn=f\n1 1\nevents: Ir Dr\n", 0, NULL},  /* a new part, a new column */
		{"events: Ir\nsummary: x\n", -EBADMSG, "summary"},
		{"positions: instr line\nevents: Ir\nfn=f\n1\n", -EBADMSG, "fewer than 2 positions"},
		{"events: Ir\nfn=f\n1 *\n", -EBADMSG, "cost"},
		/* two counts where only jcnd= has them (the fast path and the
		 * general one alike); "jump=3/7" read as 7 of 3 (fuzz-callgrind) */
		{"events: Ir\nfn=f\n1 1\njump=3/7 +2\n2 1\n", -EBADMSG, "line 4 (offset 20): jump="},
		{"events: Ir\nfn=f\n1 1\njump=3/7 +2\r\n2 1\n", -EBADMSG, "line 4 (offset 20): jump="},
		{"events: Ir\nfn=f\n1 1\ncfn=g\ncalls=1/2 1\n1 1\n", -EBADMSG, "line 5 (offset 26)"},
		{"events: Ir\nfn=f\n1 1\njcnd=3/7 +2\n2 1\n", 0, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		warns w = {0};
		profdb_options o = opts_for(&w);
		profdb_cg *cg = NULL;
		corpus_dump(cases[i].text, strlen(cases[i].text));
		int r = profdb_cg_open_mem(&cg, cases[i].text, strlen(cases[i].text), &o);
		if (cases[i].code == 0) {
			cr_assert_eq(r, 0, "case %zu: %s", i, profdb_error_message());
			cg_close(cg);
			continue;
		}
		cr_assert_eq(r, cases[i].code, "case %zu: got %d (%s)", i, r, profdb_error_message());
		cr_assert_null(cg);
		cr_assert(strstr(profdb_error_message(), "<memory>"), "case %zu: %s", i,
		          profdb_error_message());
		cr_assert(strstr(profdb_error_message(), cases[i].where), "case %zu: %s", i,
		          profdb_error_message());
	}
}

/* The call rows are read on first use (lib/callgrind/first-use.c): a call
 * count or call cost over 64 bits opens, and fails every query that needs
 * the calls, with the line, the same way each time. */
Test(callgrind, call_overflow_fails_the_call_queries)
{
	static const struct {
		const char *text, *where;
	} cases[] = {
		{"events: Ir\nfn=f\n1 1\ncfn=g\ncalls=18446744073709551615 1\n1 1\n"
		 "calls=1 1\n1 1\n",
		 "line 7 (offset 59): call count overflows"},
		{"events: Ir\nfn=f\n1 1\ncfn=g\ncalls=1 1\n1 18446744073709551615\n"
		 "calls=1 1\n1 1\n",
		 "line 8 (offset 69): inclusive call cost of event Ir overflows"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		warns w = {0};
		profdb_cg *cg = open_ok(cases[i].text, &w);
		for (int twice = 0; twice < 2; twice++) {
			cr_assert_eq(profdb_cg_call_count(cg), -EBADMSG, "case %zu", i);
			cr_assert(strstr(profdb_error_message(), cases[i].where), "case %zu: %s", i,
			          profdb_error_message());
			profdb_cg_call c;
			cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, 0, &c), -EBADMSG);
			const uint64_t *incl;
			cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, 0, &incl), -EBADMSG);
		}
		/* the self costs never needed the calls */
		const uint64_t *self;
		cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, 0, &self), 1, "%s", profdb_error_message());
		cr_assert_eq(self[0], 1);
		cg_close(cg);
	}
}

/* The open records each call's count and costs (lib/callgrind/call-costs.c)
 * and the call rows are summed from those records: values at the edges of
 * the record's number encoding (127, 128, 2^63, 2^64 - 1), costs with
 * trailing zeros left out, a hex and a negative count, an event added by a
 * later part (its calls before have no value of it), and two parts. */
Test(callgrind, call_rows_from_the_recorded_costs)
{
	warns w = {0};
	const char *text = "events: A B C\n"
	                   "fn=f\n1 1\n"
	                   "cfn=g\ncalls=127 1\n1 127 0 0\n"
	                   "calls=0x10 1\n1 128\n"
	                   "cfn=h\ncalls=-5 1\n1 0 9223372036854775808 1\n"
	                   "calls=1 1\n1 0 9223372036854775807 0\n"
	                   "fn=g\n1 2\n"
	                   "part: 2\n"
	                   "events: A B C D\n"
	                   "fn=f\n1 1\n"
	                   "cfn=g\ncalls=2 1\n1 1 2 3 18446744073709551615\n";
	profdb_cg *cg = open_ok(text, &w);
	cr_assert_eq(profdb_cg_call_count(cg), 2, "%s", profdb_error_message());
	/* count, then the events A B C D */
	uint64_t want[2][5] = {{145, 256, 2, 3, UINT64_MAX},   /* f -> g */
	                       {1, 0, UINT64_MAX, 1, 0}};      /* f -> h */
	for (uint32_t i = 0; i < 2; i++) {
		profdb_cg_call c;
		profdb_cg_function callee;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, i, &c), 1);
		cr_assert_eq(profdb_cg_function_get(cg, c.callee, &callee), 0);
		uint32_t k = callee.name.ptr[0] == 'g' ? 0 : 1;
		cr_assert_eq(c.count, want[k][0], "edge %u: count %" PRIu64, i, c.count);
		for (uint32_t e = 0; e < 4; e++)
			cr_assert_eq(c.inclusive[e], want[k][1 + e], "edge %u event %u: %" PRIu64, i, e,
			             c.inclusive[e]);
	}
	cg_close(cg);
}

/* ---- inclusive cost ------------------------------------------------------------ */

Test(callgrind, inclusive_with_recursion_and_cycles)
{
	warns w = {0};
	/* main -> a -> b -> a (cycle {a, b}), b -> b (self recursion), a -> c */
	profdb_cg *cg = open_ok("events: Ir\n"
	                        "fn=main\n1 1\n"
	                        "cfn=a\ncalls=1 1\n1 79\n"
	                        "fn=a\n1 10\n"
	                        "cfn=b\ncalls=5 1\n1 80\n"
	                        "cfn=c\ncalls=1 1\n1 9\n"
	                        "fn=b\n1 60\n"
	                        "cfn=a\ncalls=4 1\n1 70\n"
	                        "cfn=b\ncalls=3 1\n1 50\n"
	                        "fn=c\n1 9\n",
	                        &w);
	const uint64_t *t, *inc;
	cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &t), 0);
	cr_assert_eq(t[0], 80);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "main"), &inc), 1);
	cr_assert_eq(inc[0], 80);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "a"), &inc), 1);
	cr_assert_eq(inc[0], 19);  /* 10 + its call of c, which leaves the cycle */
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "b"), &inc), 1);
	cr_assert_eq(inc[0], 60);  /* its calls of a and of itself stay inside */
	uint32_t cyc;
	cr_assert_eq(profdb_cg_cycle_count(cg), 1);
	cr_assert_eq(profdb_cg_function_cycle(cg, (uint32_t)find_fn(cg, "a"), &cyc), 1);
	cr_assert_eq(profdb_cg_cycle_inclusive(cg, PROFDB_CG_ALL, cyc, &inc), 1);
	cr_assert_eq(inc[0], 79);  /* the cycle: 10 + 60 + 9 */
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "c"), &inc), 1);
	cr_assert_eq(inc[0], 9);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, 99, &inc), -ENOENT);
	check_invariants(cg, "cycles");
	cg_close(cg);
}

/* ---- mutations and threads -------------------------------------------------- */

static const char sample_text[] = "# callgrind format\n"
                                  "version: 1\n"
                                  "positions: instr line\n"
                                  "event: Ir : Instructions\n"
                                  "events: Ir Dr\n"
                                  "summary: 64 4\n"
                                  "ob=(1) /bin/x\n"
                                  "fl=(1) a.c\n"
                                  "fn=(1) main\n"
                                  "0x10 3 10 1\n"
                                  "+4 * 5\n"
                                  "cfi=(2) b.c\n"
                                  "cfn=(2) g\n"
                                  "calls=2 0x40 20\n"
                                  "+2 +1 40 2\n"
                                  "jcnd=1/2 -2 *\n"
                                  "* *\n"
                                  "fi=(2)\n"
                                  "0x30 21 2\n"
                                  "fl=(2)\n"
                                  "fn=(2)\n"
                                  "0x40 20 40 2\n"
                                  "cfn=(1)\n"
                                  "calls=1 0x10 3\n"
                                  "* * 7\n"
                                  "totals: 57 3\n";

static void mutant(const char *buf, size_t n)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	profdb_cg *cg = NULL;
	int r = profdb_cg_open_mem(&cg, buf, n, &o);
	if (r < 0) {
		cr_assert(r == -EBADMSG || r == -ENODATA || r == -EPROTONOSUPPORT, "%d %s", r,
		          profdb_error_message());
		cr_assert_null(cg);
		cr_assert(strstr(profdb_error_message(), "<memory>"));
		return;
	}
	check_invariants(cg, "mutant");
	cg_close(cg);
}

Test(callgrind, every_truncation_and_byte_mutation, .timeout = 120)
{
	size_t n = sizeof sample_text - 1;
	char *buf = malloc(n);
	cr_assert(buf);
	mutant(sample_text, n);
	for (size_t len = 0; len < n; len++) {
		memcpy(buf, sample_text, len);
		mutant(buf, len);
	}
	static const char subst[] = {0, '\n', ' ', '0', '9', '(', ')', '*', '+', '-', 'x', '=',
	                             ':', '\r', '\t', (char)0xff};
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof subst; k++) {
			memcpy(buf, sample_text, n);
			buf[i] = subst[k];
			mutant(buf, n);
		}
	}
	free(buf);
}

#define N_THREADS 8

static void *inclusive_thread(void *arg)
{
	const profdb_cg *cg = arg;
	int64_t nf = profdb_cg_function_count(cg);
	for (int64_t i = nf - 1; i >= 0; i--) {
		const uint64_t *c;
		if (profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)i, &c) != 1 || !c)
			return (void *)1;
	}
	return NULL;
}

Test(callgrind, concurrent_first_inclusive)
{
	warns w = {0};
	for (int round = 0; round < 20; round++) {
		profdb_cg *cg = open_ok(sample_text, &w);
		pthread_t t[N_THREADS];
		for (int i = 0; i < N_THREADS; i++)
			cr_assert_eq(pthread_create(&t[i], NULL, inclusive_thread, cg), 0);
		for (int i = 0; i < N_THREADS; i++) {
			void *res;
			pthread_join(t[i], &res);
			cr_assert_null(res);
		}
		const uint64_t *c;
		cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "main"), &c), 1);
		cr_assert_eq(c[0], 57);  /* main and g form a cycle: all the cost */
		cg_close(cg);
	}
}

/* ---- gzip ------------------------------------------------------------------- */

#ifdef PROFDB_HAVE_ZLIB
static unsigned char *gz(const char *text, size_t *n)
{
	size_t cap = strlen(text) + 256;
	unsigned char *out = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}
#endif

Test(callgrind, gzip)
{
#ifdef PROFDB_HAVE_ZLIB
	const char *text = "events: Ir\nfl=a.c\nfn=main\n1 10\n2 5\n";
	size_t n;
	unsigned char *g = gz(text, &n);
	corpus_dump(g, n);
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, g, n, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(self_of(cg, "main", 0), 15);
	cg_close(cg);
	/* two members concatenated */
	unsigned char *g2 = malloc(2 * n);
	memcpy(g2, g, n);
	memcpy(g2 + n, g, n);
	cr_assert_eq(profdb_cg_open_mem(&cg, g2, 2 * n, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(self_of(cg, "main", 0), 30);
	cr_assert_eq((int)profdb_cg_profile_count(cg), 2);
	cg_close(cg);
	/* truncated and corrupt streams */
	cr_assert_eq(profdb_cg_open_mem(&cg, g, n - 10, NULL), -ENODATA, "%s",
	             profdb_error_message());
	g[12] ^= 0xff;
	g[13] ^= 0x55;
	int r = profdb_cg_open_mem(&cg, g, n, NULL);
	cr_assert(r == -EBADMSG || r == -ENODATA, "%d %s", r, profdb_error_message());
	free(g);
	free(g2);
#else
	static const unsigned char g[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0};
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open_mem(&cg, g, sizeof g, NULL), -ENOTSUP);
#endif
}

/* ---- real files ------------------------------------------------------------------ */

/* Files meant to fail, and how. */
static const struct {
	const char *suffix;
	int code;
} expected_failures[] = {
	{"edge/truncated.out", -ENODATA},
	{"iai-callgrind/callgrind.invalid.version_too_high.out", -EPROTONOSUPPORT},
	/* relative +N, -N and * in cost columns, which the format does not allow */
	{"speedscope/callgrind.subposition-compression.log", -EBADMSG},
	{"valgrind/commands.log", -EPROTONOSUPPORT},
};

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static void golden_dir(const char *rel)
{
	const char *root = tc_sample_root();
	if (!root)
		cr_skip_test("no sample data directory");
	char *sub;
	cr_assert(asprintf(&sub, "callgrind/%s", rel) >= 0);
	size_t n = 0;
	char **list = tc_list_files(sub, &n);
	free(sub);
	if (n == 0)
		cr_skip_test("no callgrind samples under %s/callgrind/%s", root, rel);
	for (size_t i = 0; i < n; i++) {
		const char *path = list[i];
		int want = 0;
		for (size_t k = 0; k < sizeof expected_failures / sizeof expected_failures[0]; k++)
			if (ends_with(path, expected_failures[k].suffix))
				want = expected_failures[k].code;
#ifndef PROFDB_HAVE_ZLIB
		if (ends_with(path, ".gz"))
			want = -ENOTSUP;
#endif
		warns w = {0};
		profdb_options o = opts_for(&w);
		profdb_cg *cg = NULL;
		int r = profdb_cg_open(&cg, path, &o);
		if (want) {
			cr_assert_eq(r, want, "%s: expected %d, got %d (%s)", path, want, r,
			             r < 0 ? profdb_error_message() : "opened");
			cr_assert(strstr(profdb_error_message(), path));
			continue;
		}
		cr_assert_eq(r, 0, "%s: %s", path, profdb_error_message());
		check_invariants(cg, path);
		/* valgrind writes totals: = the sum of the self costs */
		const uint64_t *t, *ft;
		if (strstr(path, "/valgrind/") && profdb_cg_summary(cg, PROFDB_CG_TOTALS, &ft) == 1) {
			cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &t), 0);
			for (int e = 0; e < (int)profdb_cg_event_count(cg); e++)
				cr_assert_eq(t[e], ft[e], "%s: totals: differs", path);
			cr_assert(!strstr(w.all, "totals:"), "%s", w.all);
		}
		cg_close(cg);
	}
	tc_free_list(list);
}

Test(callgrind_real, valgrind_files, .timeout = 120)
{
	golden_dir("valgrind");
}

Test(callgrind_real, public_files, .timeout = 120)
{
	golden_dir("public");
}

Test(callgrind_real, edge_files, .timeout = 60)
{
	golden_dir("edge");
}

Test(callgrind_real, big_files, .timeout = 240)
{
	golden_dir("big");
}

/* File sets and dump series of the valgrind samples, opened as groups. */
Test(callgrind_real, groups)
{
	static const struct {
		const char *rel;
		int64_t profiles;
		int threads;  /* profiles carry thread: 1..n */
	} groups[] = {
		{"callgrind/valgrind/05_threads.out", 5, 1},
		{"callgrind/valgrind/06_dump_every_bb.out", 10, 0},
		{"callgrind/valgrind/07_dump_before.out.1", 3, 0},
		{"callgrind/valgrind/08_combine_dumps.out", 274, 0},
	};
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		char *path = tc_sample_path(groups[g].rel);
		if (!path)
			cr_skip_test("sample data absent");
		profdb_cg *cg;
		cr_assert_eq(profdb_cg_open_group(&cg, path, NULL), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_cg_profile_count(cg), groups[g].profiles, "%s", path);
		uint64_t sum = 0, last_part = 0;
		for (uint32_t i = 0; i < (uint32_t)groups[g].profiles; i++) {
			profdb_cg_profile p;
			cr_assert_eq(profdb_cg_profile_get(cg, i, &p), 0);
			if (groups[g].threads)
				cr_assert(p.has_thread && p.thread == i + 1, "%s: profile %u", path, i);
			else
				cr_assert(p.has_part && p.part > last_part, "%s: parts in order", path);
			last_part = p.part;
			/* each profile's totals: line equals its own self costs */
			if (p.totals_line)
				cr_assert_eq(p.totals_line[0], p.totals[0], "%s: profile %u", path, i);
			sum += p.totals[0];
			/* per-profile inclusive never exceeds the profile's total */
			int64_t nf = profdb_cg_function_count(cg);
			for (int64_t f = 0; f < nf; f += 7) {
				const uint64_t *c;
				cr_assert_geq(profdb_cg_inclusive(cg, i, (uint32_t)f, &c), 0);
				cr_assert_leq(c[0], p.totals[0]);
			}
		}
		const uint64_t *t;
		cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &t), 0);
		cr_assert_eq(t[0], sum, "%s: profiles add up to the whole", path);
		check_invariants(cg, path);
		cg_close(cg);
		free(path);
	}
}

/* Tarjan: does the call graph of @p cg have a cycle of two or more
 * functions? */
static int has_cycle(const profdb_cg *cg)
{
	int64_t nf = profdb_cg_function_count(cg), ne = profdb_cg_call_count(cg);
	/* adjacency by counting sort on the caller */
	uint32_t *start = calloc((size_t)nf + 1, sizeof *start), *adj = malloc((size_t)ne * sizeof *adj);
	cr_assert(start && adj);
	for (int64_t e = 0; e < ne; e++) {
		profdb_cg_call c;
		profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)e, &c);
		start[c.caller + 1]++;
	}
	for (int64_t i = 0; i < nf; i++)
		start[i + 1] += start[i];
	uint32_t *fill = malloc((size_t)nf * sizeof *fill);
	memcpy(fill, start, (size_t)nf * sizeof *fill);
	for (int64_t e = 0; e < ne; e++) {
		profdb_cg_call c;
		profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)e, &c);
		adj[fill[c.caller]++] = c.callee;
	}
	/* iterative Tarjan */
	int64_t *idx = malloc((size_t)nf * sizeof *idx), *low = malloc((size_t)nf * sizeof *low);
	uint32_t *stack = malloc((size_t)nf * sizeof *stack), *cs = malloc((size_t)nf * sizeof *cs);
	uint32_t *it = malloc((size_t)nf * sizeof *it);
	char *on = calloc((size_t)nf, 1);
	for (int64_t i = 0; i < nf; i++)
		idx[i] = -1;
	int64_t counter = 0, sp = 0, found = 0;
	for (int64_t r = 0; r < nf && !found; r++) {
		if (idx[r] >= 0)
			continue;
		int64_t csp = 0;
		cs[csp++] = (uint32_t)r;
		idx[r] = low[r] = counter++;
		it[r] = start[r];
		stack[sp++] = (uint32_t)r;
		on[r] = 1;
		while (csp && !found) {
			uint32_t v = cs[csp - 1];
			if (it[v] < start[v + 1]) {
				uint32_t w = adj[it[v]++];
				if (idx[w] < 0) {
					idx[w] = low[w] = counter++;
					it[w] = start[w];
					stack[sp++] = w;
					on[w] = 1;
					cs[csp++] = w;
				} else if (on[w] && idx[w] < low[v]) {
					low[v] = idx[w];
				}
				continue;
			}
			csp--;
			if (csp && low[v] < low[cs[csp - 1]])
				low[cs[csp - 1]] = low[v];
			if (low[v] == idx[v]) {
				int64_t size = 0;
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = 0;
					size++;
				} while (w != v);
				found = size >= 2;
			}
		}
	}
	free(start), free(adj), free(fill), free(idx), free(low), free(stack), free(cs), free(it), free(on);
	return (int)found;
}

/* bzr.callgrind (gprof2dot, from a Python profile) writes cfn=
 * before cfi= on every call, and fi= but no fl=. One function per name
 * (2,751 names, no ob=, every function in the unknown file ""),
 * the self costs of the file (1,482,191 Ticks over 1,000 functions with
 * cost, tests/cg_function_check.py reads the same), and the recursion of the
 * Python program shows as cycles of the call graph. */
Test(callgrind_real, bzr_cfn_before_cfi)
{
	char *p = tc_sample_path("callgrind/public/gprof2dot/bzr.callgrind");
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open(&cg, p, NULL), 0, "%s", profdb_error_message());
	int64_t n = profdb_cg_function_count(cg);
	cr_assert_eq(n, 2751);
	int with_cost = 0;
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		cr_assert_eq(f.file.len, 0, "%.*s has a file", (int)f.name.len, f.name.ptr);  /* no fl= */
		with_cost += f.self[0] != 0;
		for (int64_t j = 0; j < i; j++) {  /* one function per name */
			profdb_cg_function g;
			profdb_cg_function_get(cg, (uint32_t)j, &g);
			cr_assert(g.name.len != f.name.len || memcmp(g.name.ptr, f.name.ptr, f.name.len),
			          "%.*s twice", (int)f.name.len, f.name.ptr);
		}
	}
	cr_assert_eq(with_cost, 1000);
	const uint64_t *t;
	cr_assert_eq(profdb_cg_totals(cg, PROFDB_CG_ALL, &t), 0);
	cr_assert_eq(t[0], 1482191);
	cr_assert(has_cycle(cg));
	cg_close(cg);
	free(p);
}

Test(callgrind_real, known_values)
{
	char *p = tc_sample_path("callgrind/valgrind/08_combine_dumps.out");
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open(&cg, p, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq((int)profdb_cg_profile_count(cg), 274);
	cg_close(cg);
	free(p);
	/* KCachegrind's values (doc/FORMATS.md): <cycle> = {a'2, b'2} 496,400,
	 * its members their self costs (their calls stay inside the cycle),
	 * fact'2 65,200 */
	p = tc_sample_path("callgrind/valgrind/22_recursion.out");
	cr_assert_eq(profdb_cg_open(&cg, p, NULL), 0);
	const uint64_t *inc, *self;
	uint32_t a2 = (uint32_t)find_fn(cg, "a'2"), b2 = (uint32_t)find_fn(cg, "b'2"), ca, cb;
	cr_assert_eq(profdb_cg_function_cycle(cg, a2, &ca), 1);
	cr_assert_eq(profdb_cg_function_cycle(cg, b2, &cb), 1);
	cr_assert_eq(ca, cb);
	cr_assert_eq(profdb_cg_cycle_inclusive(cg, PROFDB_CG_ALL, ca, &inc), 1);
	cr_assert_eq(inc[0], 496400);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, a2, &inc), 1);
	cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, a2, &self), 1);
	cr_assert_eq(inc[0], 179600);
	cr_assert_eq(inc[0], self[0]);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, b2, &inc), 1);
	cr_assert_eq(profdb_cg_self(cg, PROFDB_CG_ALL, b2, &self), 1);
	cr_assert_eq(inc[0], self[0]);
	cr_assert_eq(profdb_cg_inclusive(cg, PROFDB_CG_ALL, (uint32_t)find_fn(cg, "fact'2"), &inc), 1);
	cr_assert_eq(inc[0], 65200);
	cg_close(cg);
	free(p);
	p = tc_sample_path("callgrind/edge/hex_cost.out");
	cr_assert_eq(profdb_cg_open(&cg, p, NULL), 0);
	cr_assert_eq(self_of(cg, "main", 0), 32);
	cg_close(cg);
	free(p);
	p = tc_sample_path("callgrind/edge/tabs.out");
	cr_assert_eq(profdb_cg_open(&cg, p, NULL), 0);
	cr_assert_eq(self_of(cg, "main", 0), 15);
	cg_close(cg);
	free(p);
	p = tc_sample_path("callgrind/edge/relprof_negcalls.out");
	cr_assert_eq(profdb_cg_open(&cg, p, NULL), 0);
	cr_assert_eq(self_of(cg, "main", 0), 5);
	cr_assert_eq(edge_of(cg, "main", "foo").inclusive[0], 7);
	cg_close(cg);
	free(p);
#ifdef PROFDB_HAVE_ZLIB
	/* the gzip copy decodes to the same model as the plain file */
	char *q = tc_sample_path("callgrind/valgrind/13_python.out");
	p = tc_sample_path("callgrind/valgrind/13_python.out.gz");
	profdb_cg *a, *b;
	cr_assert_eq(profdb_cg_open(&a, q, NULL), 0);
	cr_assert_eq(profdb_cg_open(&b, p, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_function_count(a), profdb_cg_function_count(b));
	cr_assert_eq(profdb_cg_call_count(a), profdb_cg_call_count(b));
	const uint64_t *ta, *tb;
	profdb_cg_totals(a, PROFDB_CG_ALL, &ta);
	profdb_cg_totals(b, PROFDB_CG_ALL, &tb);
	cr_assert_eq(ta[0], tb[0]);
	profdb_cg_close(a);
	profdb_cg_close(b);
	free(p);
	free(q);
#endif
}

/* ---- callgrind_annotate comparison ------------------------------------------------ */

static const char *annotate_path(void)
{
	static const char *const cands[] = {"/usr/bin/callgrind_annotate",
	                                    "/usr/local/bin/callgrind_annotate"};
	for (size_t i = 0; i < 2; i++)
		if (access(cands[i], X_OK) == 0)
			return cands[i];
	return NULL;
}

/* One row "  1,234 (12.3%)  file:function [object]" of callgrind_annotate's
 * function table: its first cost and the key, split in place into file
 * and function. Returns 0 for any other line. */
static int annotate_row(char *line, uint64_t *v, const char **file, const char **fn)
{
	char *pct = strstr(line, "%)  ");
	if (!pct)
		return 0;
	*v = 0;
	for (char *c = line; c < pct && *c != '('; c++)
		if (*c >= '0' && *c <= '9')
			*v = *v * 10 + (uint64_t)(*c - '0');
	char *key = pct + 4;
	key[strcspn(key, "\n")] = 0;
	char *br = strrchr(key, '[');
	if (br && br > key && br[-1] == ' ')
		br[-1] = 0;
	char *colon = strchr(key, ':');
	cr_assert(colon, "line: %s", line);
	*colon = 0;
	*file = key;
	*fn = colon + 1;
	return 1;
}

/* Parse "  1,234 (12.3%)  file:function [object]" lines of the function table
 * and compare each with profdb's line rows summed per (file, function name),
 * which is how callgrind_annotate keys its table. */
static void compare_annotate(const char *rel)
{
	const char *tool = annotate_path();
	if (!tool)
		cr_skip_test("callgrind_annotate not installed");
	char *path = tc_sample_path(rel);
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open(&cg, path, NULL), 0, "%s", profdb_error_message());
	char *cmd;
	cr_assert(asprintf(&cmd, "%s --inclusive=no --threshold=100 --auto=no '%s' 2>/dev/null",
	                   tool, path) >= 0);
	FILE *f = popen(cmd, "r");
	cr_assert(f);
	char line[8192];
	int in_table = 0, compared = 0;
	uint64_t prog_total = 0;
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, "PROGRAM TOTALS")) {
			for (char *c = line; *c && *c != '('; c++)
				if (*c >= '0' && *c <= '9')
					prog_total = prog_total * 10 + (uint64_t)(*c - '0');
			continue;
		}
		if (strstr(line, "file:function")) {
			in_table = 1;
			continue;
		}
		uint64_t v;
		const char *file, *fn;
		if (!in_table || !annotate_row(line, &v, &file, &fn))
			continue;
		/* sum profdb's line rows of that (file, function name) */
		uint64_t sum = 0;
		int64_t nf = profdb_cg_function_count(cg);
		for (int64_t i = 0; i < nf; i++) {
			profdb_cg_function fx;
			profdb_cg_function_get(cg, (uint32_t)i, &fx);
			if (!name_is(fx.name.ptr, fx.name.len, fn))
				continue;
			for (uint32_t k = 0; k < n_lines(cg, (uint32_t)i); k++) {
				profdb_cg_line l;
				fn_line(cg, (uint32_t)i, k, &l);
				if (name_is(l.file.ptr, l.file.len, file))
					sum += l.self[0];
			}
		}
		cr_assert_eq(sum, v, "%s: %s:%s: callgrind_annotate %lu, profdb %lu", rel, file, fn,
		             (unsigned long)v, (unsigned long)sum);
		compared++;
	}
	pclose(f);
	const uint64_t *t;
	profdb_cg_totals(cg, PROFDB_CG_ALL, &t);
	cr_assert_eq(t[0], prog_total, "%s: PROGRAM TOTALS", rel);
	cr_assert_gt(compared, 10, "%s: only %d functions compared", rel, compared);
	cg_close(cg);
	free(cmd);
	free(path);
}

Test(callgrind_annotate, default_ls, .timeout = 120)
{
	compare_annotate("callgrind/valgrind/01_default_ls.out");
}

Test(callgrind_annotate, nocompress_sqlite, .timeout = 120)
{
	compare_annotate("callgrind/valgrind/04_nocompress_sqlite.out");
}

Test(callgrind_annotate, recursion, .timeout = 120)
{
	compare_annotate("callgrind/valgrind/22_recursion.out");
}

/* ---- inclusive costs against callgrind_annotate --inclusive=yes ---------------------
 * callgrind_annotate's inclusive cost of a function is its self cost plus the
 * cost of every calls= line in it, recursion included, so a recursive
 * function can exceed the program total (810% in 22_recursion.out). profdb
 * collapses cycles as KCachegrind does (doc/FORMATS.md). The two agree on
 * every function outside a cycle of the call graph; inside one, profdb stays
 * at or below the total (a cycle member gets the cycle's cost, which can be
 * more or less than callgrind_annotate's sum). */

typedef struct scc {
	uint32_t *index, *low, *stack, *comp, *size;
	uint8_t *on;
	uint32_t n_stack, next, n_comp;
	const profdb_cg *cg;
	uint32_t *first, *adj;      /* callees of each function (CSR) */
} scc;

static void scc_visit(scc *s, uint32_t v)
{
	/* recursive Tarjan: call depth is bounded by the sample's call depth */
	s->index[v] = s->low[v] = s->next++;
	s->stack[s->n_stack++] = v;
	s->on[v] = 1;
	for (uint32_t k = s->first[v]; k < s->first[v + 1]; k++) {
		uint32_t w = s->adj[k];
		if (s->index[w] == UINT32_MAX) {
			scc_visit(s, w);
			if (s->low[w] < s->low[v])
				s->low[v] = s->low[w];
		} else if (s->on[w] && s->index[w] < s->low[v]) {
			s->low[v] = s->index[w];
		}
	}
	if (s->low[v] != s->index[v])
		return;
	uint32_t c = s->n_comp++, w;
	s->size[c] = 0;
	do {
		w = s->stack[--s->n_stack];
		s->on[w] = 0;
		s->comp[w] = c;
		s->size[c]++;
	} while (w != v);
}

/* cyclic[f] = 1 when f lies on a cycle of the call graph (a self call
 * included). */
static uint8_t *cyclic_functions(const profdb_cg *cg)
{
	uint32_t nf = (uint32_t)profdb_cg_function_count(cg), ne = (uint32_t)profdb_cg_call_count(cg);
	scc s = {0};
	s.cg = cg;
	s.first = calloc(nf + 2, sizeof *s.first);
	s.adj = malloc((ne + 1) * sizeof *s.adj);
	uint8_t *cyc = calloc(nf + 1, 1);
	cr_assert(s.first && s.adj && cyc);
	for (uint32_t i = 0; i < ne; i++) {
		profdb_cg_call c;
		cr_assert_eq(profdb_cg_call_get(cg, PROFDB_CG_ALL, i, &c), 1);
		s.first[c.caller + 2]++;
		if (c.caller == c.callee)
			cyc[c.caller] = 1;
	}
	for (uint32_t f = 0; f < nf; f++)
		s.first[f + 2] += s.first[f + 1];
	for (uint32_t i = 0; i < ne; i++) {
		profdb_cg_call c;
		profdb_cg_call_get(cg, PROFDB_CG_ALL, i, &c);
		s.adj[s.first[c.caller + 1]++] = c.callee;
	}
	s.index = malloc((nf + 1) * sizeof *s.index);
	s.low = malloc((nf + 1) * sizeof *s.low);
	s.stack = malloc((nf + 1) * sizeof *s.stack);
	s.comp = malloc((nf + 1) * sizeof *s.comp);
	s.size = malloc((nf + 1) * sizeof *s.size);
	s.on = calloc(nf + 1, 1);
	cr_assert(s.index && s.low && s.stack && s.comp && s.size && s.on);
	memset(s.index, 0xff, (nf + 1) * sizeof *s.index);
	for (uint32_t f = 0; f < nf; f++)
		if (s.index[f] == UINT32_MAX)
			scc_visit(&s, f);
	for (uint32_t f = 0; f < nf; f++)
		if (s.size[s.comp[f]] > 1)
			cyc[f] = 1;
	free(s.first);
	free(s.adj);
	free(s.index);
	free(s.low);
	free(s.stack);
	free(s.comp);
	free(s.size);
	free(s.on);
	return cyc;
}

/* Does every line row of function @p f lie in its own fl= file? Then
 * callgrind_annotate's file:function key holds the function whole. */
static int rows_in_own_file(const profdb_cg *cg, uint32_t f)
{
	profdb_cg_function fx;
	profdb_cg_function_get(cg, f, &fx);
	for (uint32_t k = 0; k < n_lines(cg, f); k++) {
		profdb_cg_line l;
		fn_line(cg, f, k, &l);
		if (l.file.len != fx.file.len || memcmp(l.file.ptr, fx.file.ptr, l.file.len) != 0)
			return 0;
	}
	return 1;
}

static void compare_annotate_inclusive(const char *rel)
{
	const char *tool = annotate_path();
	if (!tool)
		cr_skip_test("callgrind_annotate not installed");
	char *path = tc_sample_path(rel);
	if (!path)
		cr_skip_test("sample data absent");
	profdb_cg *cg;
	cr_assert_eq(profdb_cg_open(&cg, path, NULL), 0, "%s", profdb_error_message());
	uint8_t *cyc = cyclic_functions(cg);
	const uint64_t *total;
	profdb_cg_totals(cg, PROFDB_CG_ALL, &total);
	char *cmd;
	cr_assert(asprintf(&cmd, "%s --inclusive=yes --threshold=100 --auto=no '%s' 2>/dev/null",
	                   tool, path) >= 0);
	FILE *f = popen(cmd, "r");
	cr_assert(f);
	char line[8192];
	int in_table = 0, equal = 0, cyclic = 0;
	int64_t nf = profdb_cg_function_count(cg);
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, "file:function")) {
			in_table = 1;
			continue;
		}
		uint64_t v;
		const char *file, *fn;
		if (!in_table || !annotate_row(line, &v, &file, &fn))
			continue;
		/* the functions of that key: all whole (rows in their own file) */
		uint64_t sum = 0;
		int n = 0, whole = 1, any_cyclic = 0;
		for (int64_t i = 0; i < nf; i++) {
			profdb_cg_function fx;
			profdb_cg_function_get(cg, (uint32_t)i, &fx);
			if (!name_is(fx.name.ptr, fx.name.len, fn) || !name_is(fx.file.ptr, fx.file.len, file))
				continue;
			n++;
			whole &= rows_in_own_file(cg, (uint32_t)i);
			any_cyclic |= cyc[i];
			sum += incl_of(cg, (uint32_t)i)[0];
		}
		if (n == 0 || !whole)
			continue;   /* inlined code: annotate splits the function by file */
		if (any_cyclic) {   /* the rules differ; the total bounds ours (below) */
			cyclic++;
			continue;
		}
		cr_assert_eq(sum, v, "%s: %s:%s: callgrind_annotate --inclusive=yes %lu, profdb %lu",
		             rel, file, fn, (unsigned long)v, (unsigned long)sum);
		equal++;
	}
	pclose(f);
	for (int64_t i = 0; i < nf; i++)
		cr_assert_leq(incl_of(cg, (uint32_t)i)[0], total[0], "%s: never above the total", rel);
	cr_assert_gt(equal, 5, "%s: only %d functions compared (%d in cycles)", rel, equal, cyclic);
	free(cyc);
	cg_close(cg);
	free(cmd);
	free(path);
}

Test(callgrind_annotate, inclusive_default_ls, .timeout = 180)
{
	compare_annotate_inclusive("callgrind/valgrind/01_default_ls.out");
}

Test(callgrind_annotate, inclusive_recursion, .timeout = 120)
{
	compare_annotate_inclusive("callgrind/valgrind/22_recursion.out");
}

Test(callgrind_annotate, inclusive_sqlite, .timeout = 180)
{
	compare_annotate_inclusive("callgrind/valgrind/04_nocompress_sqlite.out");
}

/* ---- name/position compression: two recordings of the same program ---------------
 * valgrind writes names once and refers to them by (id) and positions
 * relative to the previous line by default; --compress-strings=no
 * --compress-pos=no writes everything out. The program is deterministic,
 * so both recordings must decode to the same functions with the same self
 * and inclusive costs and the same calls. */

static char *record(const char *dir, const char *prog, const char *name, const char *flags)
{
	char *out, *cmd;
	cr_assert(asprintf(&out, "%s/%s", dir, name) >= 0);
	cr_assert(asprintf(&cmd, "valgrind --tool=callgrind %s --callgrind-out-file='%s' '%s' "
	                   ">/dev/null 2>&1", flags, out, prog) >= 0);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	return out;
}

/* Index of the function with the same (object, file, name) in @p cg. */
static int64_t same_function(const profdb_cg *cg, const profdb_cg_function *want)
{
	int64_t n = profdb_cg_function_count(cg);
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_function f;
		profdb_cg_function_get(cg, (uint32_t)i, &f);
		if (f.name.len == want->name.len && f.file.len == want->file.len &&
		    f.object.len == want->object.len && !memcmp(f.name.ptr, want->name.ptr, f.name.len) &&
		    !memcmp(f.file.ptr, want->file.ptr, f.file.len) &&
		    !memcmp(f.object.ptr, want->object.ptr, f.object.len))
			return i;
	}
	return -1;
}

Test(callgrind_valgrind, compressed_and_plain_recordings_agree, .timeout = 300)
{
	const char *prog = getenv("PROFDB_SAMPLE_PROG");
	if (!prog || access(prog, X_OK) != 0)
		cr_skip_test("the sample program is not built");
	if (system("valgrind --version >/dev/null 2>&1") != 0)
		cr_skip_test("valgrind is not installed");
	char dir[] = "/tmp/profdb-cg-pair-XXXXXX";
	cr_assert(mkdtemp(dir));
	char *a = record(dir, prog, "compressed.out", "");
	char *b = record(dir, prog, "plain.out", "--compress-strings=no --compress-pos=no");
	profdb_cg *ca, *cb;
	cr_assert_eq(profdb_cg_open(&ca, a, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_cg_open(&cb, b, NULL), 0, "%s", profdb_error_message());
	/* the plain file really is uncompressed: no "fn=(id)" references
	 * ("fn=(below main)" is a name) */
	size_t n;
	unsigned char *text = tc_slurp(b, &n);
	cr_assert(text);
	for (const unsigned char *p = text; (p = memmem(p, n - (size_t)(p - text), "fn=(", 4));
	     p += 4)
		cr_assert(p + 4 >= text + n || p[4] < '0' || p[4] > '9', "a compressed name");
	free(text);
	int64_t nf = profdb_cg_function_count(ca);
	cr_assert_eq(nf, profdb_cg_function_count(cb));
	cr_assert_eq(profdb_cg_call_count(ca), profdb_cg_call_count(cb));
	int ne = (int)profdb_cg_event_count(ca);
	cr_assert_gt(nf, 10);
	for (int64_t i = 0; i < nf; i++) {
		profdb_cg_function f;
		profdb_cg_function_get(ca, (uint32_t)i, &f);
		int64_t j = same_function(cb, &f);
		cr_assert_geq(j, 0, "function %.*s missing from the plain recording", (int)f.name.len,
		              f.name.ptr);
		const uint64_t *sa, *sb, *ia, *ib;
		profdb_cg_self(ca, PROFDB_CG_ALL, (uint32_t)i, &sa);
		profdb_cg_self(cb, PROFDB_CG_ALL, (uint32_t)j, &sb);
		profdb_cg_inclusive(ca, PROFDB_CG_ALL, (uint32_t)i, &ia);
		profdb_cg_inclusive(cb, PROFDB_CG_ALL, (uint32_t)j, &ib);
		for (int e = 0; e < ne; e++) {
			cr_assert_eq(sa[e], sb[e], "%.*s: self", (int)f.name.len, f.name.ptr);
			cr_assert_eq(ia[e], ib[e], "%.*s: inclusive", (int)f.name.len, f.name.ptr);
		}
	}
	profdb_cg_close(ca);
	profdb_cg_close(cb);
	unlink(a);
	unlink(b);
	rmdir(dir);
	free(a);
	free(b);
}

/* ---- the mapping's page-size hint ------------------------------------------ */

/* The VmFlags of the mapping of @p path in /proc/self/smaps, or "" when
 * none maps it. */
static void vm_flags_of(const char *path, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[4096];
	int ours = 0;
	out[0] = 0;
	cr_assert_not_null(f);
	while (fgets(line, sizeof line, f)) {
		size_t l = strlen(line);
		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		if (strncmp(line, "VmFlags:", 8) == 0) {
			if (ours) {   /* the flags and a blank after the last */
				size_t k = strlen(line + 8) < n - 2 ? strlen(line + 8) : n - 2;
				memcpy(out, line + 8, k);
				memcpy(out + k, " ", 2);
			}
			ours = 0;
		} else {   /* a mapping's first line: "start-end perms ... path" */
			const char *sp = strchr(line, ' ');
			size_t w = sp ? (size_t)(sp - line) : 0;
			if (w && memchr(line, '-', w) && !memchr(line, ':', w))
				ours = l >= strlen(path) && strcmp(line + l - strlen(path), path) == 0;
		}
	}
	fclose(f);
}

/* A text read through to its end asks for huge pages on its mapping (so a
 * file read from disk is cached in 2 MiB folios mapped by one entry
 * each); a text under 2 MiB, which one such page would hold, does not. */
Test(callgrind, whole_read_asks_for_huge_pages)
{
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0 ||
	    access("/proc/self/smaps", R_OK) != 0)
		cr_skip_test("no transparent huge pages, or no /proc/self/smaps to see them");
	for (int big = 0; big < 2; big++) {
		char path[] = "/tmp/profdb-hugeXXXXXX";
		int fd = mkstemp(path);
		cr_assert_geq(fd, 0);
		FILE *f = fdopen(fd, "w");
		fputs("events: Ir\nfn=f\n", f);
		for (long i = 0, n = big ? 300000 : 1000; i < n; i++)
			fputs("+1 12345\n", f);
		fclose(f);
		profdb_cg *cg = NULL;
		int r = profdb_cg_open(&cg, path, NULL);
		cr_assert_eq(r, 0, "%s", profdb_error_message());
		char flags[512];
		vm_flags_of(path, flags, sizeof flags);
		cr_assert_neq(flags[0], 0, "%s is not mapped", path);
		cr_expect_eq(strstr(flags, " hg ") != NULL, big, "%s text: VmFlags%s",
		             big ? "a 2.7 MB" : "a 9 kB", flags);
		profdb_cg_close(cg);
		unlink(path);
	}
}

TC_MAIN
