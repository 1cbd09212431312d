/* Shared driver of the Callgrind fuzz targets; drive-callgrind.h lists the
 * invariants. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-callgrind.h"
#include "fuzz-common.h"

enum {
	MAX_FUNCTIONS = 1 << 16,  /* functions visited per input */
	MAX_ROWS = 1 << 18,       /* line rows visited, all functions together */
	MAX_CALLS = 1 << 16,      /* call edges visited */
	MAX_PROFILES = 4096,      /* profiles visited */
};

/* Clear the message, make the call, check a failure's code and message
 * (fuzz-common.h). */
#define CALL FUZZ_CALL

typedef struct drv {
	const profdb_cg *cg;
	const uint8_t *data;   /* the caller's buffer when plain, else NULL */
	size_t size;
	int ne;
	int64_t nf, np;
	uint64_t rows;         /* detail rows and jumps visited */
} drv;

/* A (pointer, length) view: inside the input when it is plain text, else
 * readable (ASan checks the bytes exist). */
static void check_view(const drv *d, const char *p, size_t len, const char *what)
{
	CG_CHECK(p != NULL || len == 0, "%s is NULL with length %zu", what, len);
	if (!len)
		return;
	if (d->data) {
		uintptr_t lo = (uintptr_t)d->data, x = (uintptr_t)p;
		CG_CHECK(x >= lo && x - lo <= d->size && len <= d->size - (x - lo),
		         "%s [%p, +%zu) is outside the input [%p, +%zu)", what, (const void *)p, len,
		         (const void *)d->data, d->size);
	}
	volatile unsigned char sink = 0;
	for (size_t i = 0; i < len; i++)
		sink ^= (unsigned char)p[i];
	(void)sink;
}

/* Stored (not derived) events: sums of them are exact unless they wrap. */
static int stored(const drv *d, int e)
{
	profdb_cg_event ev;
	return profdb_cg_event_get(d->cg, (uint32_t)e, &ev) == 0 && ev.formula.len == 0;
}

/* acc += v per event; 0 once any stored event wrapped. */
static int add_costs(const drv *d, uint64_t *acc, const uint64_t *v, int ok)
{
	for (int e = 0; e < d->ne; e++)
		if (__builtin_add_overflow(acc[e], v[e], &acc[e]) && stored(d, e))
			ok = 0;
	return ok;
}

static void drive_events(drv *d)
{
	const profdb_cg *cg = d->cg;
	int ne = (int)CALL(profdb_cg_event_count(cg));
	CG_CHECK(ne >= 0 && ne <= 256, "%d events", ne);
	d->ne = ne;
	for (int e = 0; e < ne; e++) {
		profdb_cg_event ev;
		CG_CHECK(CALL(profdb_cg_event_get(cg, (uint32_t)e, &ev)) == 0, "event %d", e);
		CG_CHECK(ev.name.ptr && ev.name.len > 0, "event %d has no name", e);
		check_view(d, ev.name.ptr, ev.name.len, "event name");
		if (ev.long_name.len)
			check_view(d, ev.long_name.ptr, ev.long_name.len, "event long name");
		if (ev.formula.len)
			check_view(d, ev.formula.ptr, ev.formula.len, "event formula");
	}
	profdb_cg_event ev;
	CG_CHECK(CALL(profdb_cg_event_get(cg, (uint32_t)ne, &ev)) == -ENOENT, "event past the end");
	CG_CHECK(CALL(profdb_cg_event_get(cg, 0, NULL)) == -EINVAL, "event_get(NULL)");
}

static void drive_profiles(drv *d)
{
	const profdb_cg *cg = d->cg;
	int64_t np = CALL(profdb_cg_profile_count(cg));
	CG_CHECK(np >= 0, "profile count %" PRId64, np);
	d->np = np;
	for (int64_t p = 0; p < np && p < MAX_PROFILES; p++) {
		profdb_cg_profile pr;
		CG_CHECK(CALL(profdb_cg_profile_get(cg, (uint32_t)p, &pr)) == 0, "profile %" PRId64, p);
		CG_CHECK(pr.file.ptr != NULL, "profile %" PRId64 " without a file name", p);
		CG_CHECK(strlen(pr.file.ptr) == pr.file.len, "profile %" PRId64 ": file name length", p);
		if (pr.trigger.len)
			check_view(d, pr.trigger.ptr, pr.trigger.len, "profile trigger");
		if (pr.cmd.len)
			check_view(d, pr.cmd.ptr, pr.cmd.len, "profile cmd");
		CG_CHECK(pr.totals != NULL, "profile %" PRId64 " totals NULL with %d events", p, d->ne);
		const uint64_t *t = NULL;
		CG_CHECK(CALL(profdb_cg_totals(cg, (uint32_t)p, &t)) == 0 && t == pr.totals,
		         "profile %" PRId64 ": profdb_cg_totals differs from the profile's totals", p);
	}
	profdb_cg_profile pr;
	CG_CHECK(CALL(profdb_cg_profile_get(cg, (uint32_t)np, &pr)) == -ENOENT, "profile past end");
	const uint64_t *t;
	CG_CHECK(np >= (int64_t)UINT32_MAX - 1 ||
	         CALL(profdb_cg_totals(cg, (uint32_t)np, &t)) == -ENOENT, "totals past the end");
}

/* Self and inclusive costs of every function in profile @p p (or ALL):
 * consistent with each other, with the totals, with the detail rows. */
static void drive_functions(drv *d, uint32_t p)
{
	const profdb_cg *cg = d->cg;
	int ne = d->ne;
	const uint64_t *tot = NULL;
	CG_CHECK(CALL(profdb_cg_totals(cg, p, &tot)) == 0, "totals of profile %" PRIu32, p);
	CG_CHECK(tot != NULL, "totals NULL with %d events", ne);
	uint64_t *sum = calloc((size_t)ne + 1, sizeof *sum), *ls = calloc((size_t)ne + 1, sizeof *ls);
	uint64_t *site_sum = calloc((size_t)ne + 1, sizeof *site_sum), site_count = 0;
	CG_CHECK(sum && ls && site_sum, "out of memory");
	int exact = d->nf <= MAX_FUNCTIONS;
	int sites_exact = exact;   /* every call site seen, no sum overflowed */
	for (int64_t i = 0; i < d->nf && i < MAX_FUNCTIONS; i++) {
		const uint64_t *self = NULL, *inc = NULL, *inc2 = NULL;
		int64_t rs = CALL(profdb_cg_self(cg, p, (uint32_t)i, &self));
		CG_CHECK((rs == 0 || rs == 1) && (self || ne == 0), "self of %" PRId64 " in %" PRIu32
		         ": %" PRId64, i, p, rs);
		for (int e = 0; rs == 0 && e < ne; e++)
			CG_CHECK(self[e] == 0, "function %" PRId64 " absent from profile %" PRIu32
			         " with a non-zero cost", i, p);
		int64_t ri = CALL(profdb_cg_inclusive(cg, p, (uint32_t)i, &inc));
		CG_CHECK(ri == rs, "function %" PRId64 " profile %" PRIu32 ": self says %" PRId64
		         ", inclusive says %" PRId64, i, p, rs, ri);
		CG_CHECK(CALL(profdb_cg_inclusive(cg, p, (uint32_t)i, &inc2)) == ri && inc2 == inc,
		         "the inclusive table changed between two calls");
		exact = add_costs(d, sum, self, exact);
		/* not capped at the total: a file's calls= costs may add up to more
		 * than its totals, and KCachegrind's rule keeps what they say */
		for (int e = 0; e < ne; e++)
			CG_CHECK(inc[e] >= self[e], "function %" PRId64 " profile %" PRIu32
			         " event %d: inclusive %" PRIu64 " below self %" PRIu64,
			         i, p, e, inc[e], self[e]);

		/* detail: rows sorted, adding up to the self cost */
		if (d->rows >= MAX_ROWS) {
			sites_exact = 0;
			continue;
		}
		profdb_cg_detail *det = NULL;
		int64_t r = CALL(profdb_cg_detail_new(&det, cg, p, (uint32_t)i));
		if (r < 0) {
			CG_CHECK(det == NULL, "a failed detail_new returned an object");
			/* The scanner validated every line, the re-read only repeats it:
			 * any other failure means the two disagree. */
			CG_CHECK(r == -ENOMEM, "function %" PRId64 " profile %" PRIu32 ": detail_new "
			         "failed (%" PRId64 ") on a profile that opened", i, p, r);
			sites_exact = 0;
			continue;
		}
		int64_t nl = CALL(profdb_cg_detail_line_count(det));
		CG_CHECK(nl >= 0, "detail line count %" PRId64, nl);
		memset(ls, 0, ((size_t)ne + 1) * sizeof *ls);
		int lexact = 1;
		profdb_cg_line prev = {0};
		for (int64_t k = 0; k < nl; k++) {
			if (++d->rows > MAX_ROWS) {
				lexact = 0;
				break;
			}
			profdb_cg_line l;
			CG_CHECK(CALL(profdb_cg_detail_line_at(det, (uint32_t)k, &l)) == 0, "line row %" PRId64, k);
			CG_CHECK(l.file.ptr && (l.self || ne == 0), "line row with a NULL field");
			check_view(d, l.file.ptr, l.file.len, "line row file");
			CG_CHECK(k == 0 || l.line > prev.line ||
			         (l.line == prev.line && l.instr >= prev.instr),
			         "function %" PRId64 " line rows not sorted: (%" PRIu64 ", 0x%" PRIx64
			         ") after (%" PRIu64 ", 0x%" PRIx64 ")", i, l.line, l.instr, prev.line,
			         prev.instr);
			prev = l;
			lexact = add_costs(d, ls, l.self, lexact);
		}
		profdb_cg_line l;
		CG_CHECK(CALL(profdb_cg_detail_line_at(det, (uint32_t)nl, &l)) == -ENOENT, "row past end");
		for (int e = 0; lexact && e < ne; e++)
			CG_CHECK(!stored(d, e) || ls[e] == self[e], "function %" PRId64 " profile %" PRIu32
			         " event %d: line rows add up to %" PRIu64 ", self %" PRIu64, i, p, e, ls[e],
			         self[e]);
		int64_t nj = CALL(profdb_cg_detail_jump_count(det));
		CG_CHECK(nj >= 0, "jump count %" PRId64, nj);
		for (int64_t k = 0; k < nj && d->rows < MAX_ROWS; k++, d->rows++) {
			profdb_cg_jump j;
			CG_CHECK(CALL(profdb_cg_detail_jump_at(det, (uint32_t)k, &j)) == 0, "jump %" PRId64, k);
			if (j.to_file.len)
				check_view(d, j.to_file.ptr, j.to_file.len, "jump target file");
			if (j.to_function.len)
				check_view(d, j.to_function.ptr, j.to_function.len, "jump target function");
			CG_CHECK(j.conditional == 0 || j.conditional == 1, "jump conditional %d",
			         j.conditional);
			CG_CHECK(j.conditional || j.executed == j.count, "jump=: executed != count");
		}
		profdb_cg_jump j;
		CG_CHECK(CALL(profdb_cg_detail_jump_at(det, (uint32_t)nj, &j)) == -ENOENT, "jump past end");
		/* call sites: of this profile, to a function, summing to the edges */
		int64_t ns = CALL(profdb_cg_detail_call_count(det));
		CG_CHECK(ns >= 0, "call site count %" PRId64, ns);
		for (int64_t k = 0; k < ns; k++, d->rows++) {
			if (d->rows >= MAX_ROWS) {
				sites_exact = 0;
				break;
			}
			profdb_cg_callsite cs;
			CG_CHECK(CALL(profdb_cg_detail_call_at(det, (uint32_t)k, &cs)) == 0, "call site %" PRId64,
			         k);
			CG_CHECK(cs.callee < d->nf && (p == PROFDB_CG_ALL ? cs.profile < d->np
			                                                  : cs.profile == p),
			         "call site %" PRId64 " of function %" PRId64 ": callee %" PRIu32
			         ", profile %" PRIu32, k, i, cs.callee, cs.profile);
			CG_CHECK(cs.file.ptr && (cs.inclusive || ne == 0), "call site with a NULL field");
			check_view(d, cs.file.ptr, cs.file.len, "call site file");
			sites_exact = add_costs(d, site_sum, cs.inclusive, sites_exact);
			sites_exact &= !__builtin_add_overflow(site_count, cs.count, &site_count);
		}
		profdb_cg_callsite cs;
		CG_CHECK(CALL(profdb_cg_detail_call_at(det, (uint32_t)ns, &cs)) == -ENOENT,
		         "call site past end");
		profdb_cg_detail_free(det);
	}
	/* the call sites of all functions add up to all call edges */
	int64_t nc = CALL(profdb_cg_call_count(cg));
	uint64_t edge_count = 0;
	memset(ls, 0, ((size_t)ne + 1) * sizeof *ls);
	for (int64_t i = 0; i < nc && i < MAX_CALLS && sites_exact; i++) {
		profdb_cg_call c;
		if (CALL(profdb_cg_call_get(cg, p, (uint32_t)i, &c)) < 0)
			sites_exact = 0;
		else if (c.inclusive || ne == 0)
			sites_exact = add_costs(d, ls, c.inclusive, sites_exact) &&
			              !__builtin_add_overflow(edge_count, c.count, &edge_count);
	}
	if (nc > MAX_CALLS)
		sites_exact = 0;
	CG_CHECK(!sites_exact || site_count == edge_count, "profile %" PRIu32 ": call sites count %"
	         PRIu64 " calls, the edges %" PRIu64, p, site_count, edge_count);
	for (int e = 0; sites_exact && e < ne; e++)
		CG_CHECK(!stored(d, e) || site_sum[e] == ls[e], "profile %" PRIu32 " event %d: call "
		         "sites add up to %" PRIu64 ", the edges to %" PRIu64, p, e, site_sum[e], ls[e]);
	free(site_sum);
	for (int e = 0; exact && e < ne; e++)
		CG_CHECK(!stored(d, e) || sum[e] == tot[e], "profile %" PRIu32 " event %d: self costs "
		         "add up to %" PRIu64 ", totals say %" PRIu64, p, e, sum[e], tot[e]);
	free(sum);
	free(ls);
	const uint64_t *c;
	CG_CHECK(CALL(profdb_cg_self(cg, p, (uint32_t)d->nf, &c)) == -ENOENT, "self past end");
	CG_CHECK(CALL(profdb_cg_inclusive(cg, p, (uint32_t)d->nf, &c)) == -ENOENT,
	         "inclusive past end");
}

/* Every "all profiles" value is the sum over profiles (stored events). */
static void check_all_is_sum(drv *d)
{
	if (d->np > MAX_PROFILES || d->nf > MAX_FUNCTIONS || d->ne == 0)
		return;
	uint64_t *acc = calloc((size_t)d->ne, sizeof *acc);
	CG_CHECK(acc != NULL, "out of memory");
	uint64_t budget = MAX_ROWS;
	for (int64_t i = 0; i < d->nf && budget > (uint64_t)d->np; i++, budget -= (uint64_t)d->np) {
		const uint64_t *all, *v;
		memset(acc, 0, (size_t)d->ne * sizeof *acc);
		int exact = 1;
		for (int64_t p = 0; p < d->np; p++) {
			CALL(profdb_cg_self(d->cg, (uint32_t)p, (uint32_t)i, &v));
			exact = add_costs(d, acc, v, exact);
		}
		CALL(profdb_cg_self(d->cg, PROFDB_CG_ALL, (uint32_t)i, &all));
		for (int e = 0; exact && e < d->ne; e++)
			CG_CHECK(!stored(d, e) || acc[e] == all[e], "function %" PRId64 " event %d: "
			         "profiles add up to %" PRIu64 ", all profiles %" PRIu64, i, e, acc[e],
			         all[e]);
	}
	free(acc);
}

static void drive_calls(drv *d)
{
	const profdb_cg *cg = d->cg;
	int64_t nc = CALL(profdb_cg_call_count(cg));
	CG_CHECK(nc >= 0, "call count %" PRId64, nc);
	for (int64_t i = 0; i < nc && i < MAX_CALLS; i++) {
		profdb_cg_call c;
		CG_CHECK(CALL(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)i, &c)) == 1,
		         "call %" PRId64 " over all profiles", i);
		CG_CHECK(c.caller < (uint64_t)d->nf && c.callee < (uint64_t)d->nf,
		         "call %" PRId64 ": %" PRIu32 " -> %" PRIu32 " of %" PRId64 " functions", i,
		         c.caller, c.callee, d->nf);
		CG_CHECK(c.inclusive != NULL || d->ne == 0, "call %" PRId64 " without costs", i);
		for (int64_t p = 0; p < d->np && p < 4; p++) {
			profdb_cg_call q;
			int64_t r = CALL(profdb_cg_call_get(cg, (uint32_t)p, (uint32_t)i, &q));
			CG_CHECK(r == 0 || r == 1, "call %" PRId64 " in profile %" PRId64 ": %" PRId64, i,
			         p, r);
			CG_CHECK(q.caller == c.caller && q.callee == c.callee && q.count <= c.count &&
			         (r == 1 || q.count == 0),
			         "call %" PRId64 " in profile %" PRId64 " is another edge", i, p);
		}
	}
	profdb_cg_call c;
	CG_CHECK(CALL(profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)nc, &c)) == -ENOENT,
	         "call past the end");
}

static void drive(drv *d)
{
	const profdb_cg *cg = d->cg;
	drive_events(d);
	drive_profiles(d);
	const uint64_t *s = NULL;
	for (int w = PROFDB_CG_SUMMARY; w <= PROFDB_CG_TOTALS; w++) {
		int64_t r = CALL(profdb_cg_summary(cg, w, &s));
		CG_CHECK(r == 0 || r == 1, "summary(%d) = %" PRId64, w, r);
		CG_CHECK(s != NULL, "summary(%d) = %" PRId64 " but NULL", w, r);
	}
	d->nf = CALL(profdb_cg_function_count(cg));
	CG_CHECK(d->nf >= 0, "function count %" PRId64, d->nf);
	/* A file without events: may still name functions (all without cost). */
	for (int64_t i = 0; i < d->nf && i < MAX_FUNCTIONS; i++) {
		profdb_cg_function f;
		CG_CHECK(CALL(profdb_cg_function_get(cg, (uint32_t)i, &f)) == 0, "function %" PRId64, i);
		CG_CHECK(f.name.ptr && f.object.ptr && f.file.ptr && (f.self || d->ne == 0),
		         "function %" PRId64 " has a NULL field", i);
		check_view(d, f.name.ptr, f.name.len, "function name");
		check_view(d, f.object.ptr, f.object.len, "object name");
		check_view(d, f.file.ptr, f.file.len, "file name");
		const uint64_t *all;
		CG_CHECK(CALL(profdb_cg_self(cg, PROFDB_CG_ALL, (uint32_t)i, &all)) >= 0 &&
		         (d->ne == 0 || memcmp(all, f.self, (size_t)d->ne * 8) == 0),
		         "function %" PRId64 ": self over all profiles differs from function_get", i);
	}
	profdb_cg_function f;
	CG_CHECK(CALL(profdb_cg_function_get(cg, (uint32_t)d->nf, &f)) == -ENOENT, "function past end");
	CG_CHECK(d->nf == 0 || CALL(profdb_cg_function_get(cg, 0, NULL)) == -EINVAL,
	         "function_get(NULL)");

	/* The call rows are read on first use (lib/callgrind/first-use.c): a call
	 * count or call cost over 64 bits fails every query that needs them,
	 * alike, and nothing else. */
	int64_t nc = CALL(profdb_cg_call_count(cg));
	CG_CHECK(nc >= 0 || nc == -EBADMSG || nc == -ENOMEM, "call count %" PRId64, nc);
	if (nc < 0) {
		const uint64_t *c;
		CG_CHECK(d->nf == 0 || CALL(profdb_cg_inclusive(cg, PROFDB_CG_ALL, 0, &c)) == nc,
		         "inclusive after the call rows failed with %" PRId64, nc);
		CG_CHECK(CALL(profdb_cg_call_count(cg)) == nc, "the call count changed");
	} else {
		drive_functions(d, PROFDB_CG_ALL);
		for (int64_t p = 0; p < d->np && p < 4; p++)
			drive_functions(d, (uint32_t)p);
		check_all_is_sum(d);
		drive_calls(d);
	}

	/* A NULL handle is a bad argument. */
	const uint64_t *t;
	CG_CHECK(CALL(profdb_cg_function_count(NULL)) == -EINVAL, "function_count(NULL)");
	CG_CHECK(CALL(profdb_cg_call_count(NULL)) == -EINVAL, "call_count(NULL)");
	CG_CHECK(CALL(profdb_cg_profile_count(NULL)) == -EINVAL, "profile_count(NULL)");
	CG_CHECK(CALL(profdb_cg_totals(NULL, PROFDB_CG_ALL, &t)) == -EINVAL, "totals(NULL)");
}

static void quiet(const char *msg, void *ud)
{
	(void)ud;
	CG_CHECK(msg && msg[0], "empty warning");
}

/* ---- the parallel scan against the sequential one ----------------------- */

/* The warnings of one open, in order: their number and a hash of their text. */
typedef struct warned {
	uint64_t n, hash;
} warned;

static void collect(const char *msg, void *ud)
{
	warned *w = ud;
	CG_CHECK(msg && msg[0], "empty warning");
	w->n++;
	for (const char *p = msg; *p; p++)
		w->hash = (w->hash ^ (unsigned char)*p) * 0x100000001b3ULL;
	w->hash = (w->hash ^ '\n') * 0x100000001b3ULL;
}

static int open_threads(const uint8_t *data, size_t size, uint32_t threads, warned *w,
                        char *msg, size_t msg_size, profdb_cg **out)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.warn = collect;
	o.warn_userdata = w;
	o.threads = threads;
	memset(w, 0, sizeof *w);
	w->hash = 0xcbf29ce484222325ULL;
	int r = (int)CALL(profdb_cg_open_mem(out, data, size, &o));
	snprintf(msg, msg_size, "%s", r < 0 ? profdb_error_message() : "");
	return r;
}

/* Split into 2 to 9 pieces, the text reads as it does in one piece: the
 * same result, error message, warnings (number and text, in order) and,
 * when it opens, the same profile, id for id (lib/callgrind/parallel.c). */
static void parallel_compare(const uint8_t *data, size_t size)
{
	char ma[512], mb[512];
	warned wa, wb;
	profdb_cg *a = NULL, *b = NULL;
	uint32_t threads = 2 + (uint32_t)(size % 8);
	int ra = open_threads(data, size, 1, &wa, ma, sizeof ma, &a);
	int rb = open_threads(data, size, threads, &wb, mb, sizeof mb, &b);
	if (ra != -ENOMEM && rb != -ENOMEM) {
		CG_CHECK(ra == rb, "one thread: open %d, %u threads: open %d (%s)", ra, threads, rb, mb);
		CG_CHECK(strcmp(ma, mb) == 0, "one thread: \"%s\", %u threads: \"%s\"", ma, threads, mb);
		CG_CHECK(wa.n == wb.n && wa.hash == wb.hash,
		         "one thread: %" PRIu64 " warnings, %u threads: %" PRIu64 " (or other text)",
		         wa.n, threads, wb.n);
		if (a && b)
			fuzz_cg_compare(a, b);
	}
	profdb_cg_close(a);
	profdb_cg_close(b);
}

int fuzz_cg_run(const uint8_t *data, size_t size, int plain, profdb_cg **keep)
{
	parallel_compare(data, size);
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.threads = 1;
	o.warn = quiet;
	profdb_cg *cg = (profdb_cg *)&o;   /* must come back NULL on failure */
	int r = (int)CALL(profdb_cg_open_mem(&cg, data, size, &o));
	if (keep)
		*keep = NULL;
	if (r < 0) {
		CG_CHECK(cg == NULL, "a failed open returned a handle");
		CG_CHECK(r != -EINVAL, "open_mem refused its arguments");
		return r;
	}
	CG_CHECK(r == 0 && cg != NULL, "open returned %d and handle %p", r, (void *)cg);
	drv d = {cg, plain ? data : NULL, size, 0, 0, 0, 0};
	drive(&d);
	if (keep)
		*keep = cg;
	else
		profdb_cg_close(cg);
	return 0;
}

/* ---- gzip versus plain ------------------------------------------------------ */

static int same_view(const char *a, size_t na, const char *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

static int same_costs(const uint64_t *a, const uint64_t *b, int ne)
{
	return ne == 0 || (a && b && memcmp(a, b, (size_t)ne * sizeof *a) == 0);
}

void fuzz_cg_compare(const profdb_cg *a, const profdb_cg *b)
{
	int ne = (int)profdb_cg_event_count(a);
	CG_CHECK(ne == profdb_cg_event_count(b), "event counts differ");
	for (int e = 0; e < ne; e++) {
		profdb_cg_event x, y;
		CG_CHECK(profdb_cg_event_get(a, (uint32_t)e, &x) == 0 &&
		         profdb_cg_event_get(b, (uint32_t)e, &y) == 0, "event %d", e);
		CG_CHECK(same_view(x.name.ptr, x.name.len, y.name.ptr, y.name.len) &&
		         (x.long_name.len == 0) == (y.long_name.len == 0) &&
		         same_view(x.long_name.ptr, x.long_name.len, y.long_name.ptr, y.long_name.len) &&
		         (x.formula.len == 0) == (y.formula.len == 0) &&
		         same_view(x.formula.ptr, x.formula.len, y.formula.ptr, y.formula.len),
		         "event %d differs", e);
	}
	int64_t np = profdb_cg_profile_count(a);
	CG_CHECK(np == profdb_cg_profile_count(b), "profile counts differ");
	for (int64_t p = 0; p < np && p < MAX_PROFILES; p++) {
		profdb_cg_profile x, y;
		CG_CHECK(profdb_cg_profile_get(a, (uint32_t)p, &x) == 0 &&
		         profdb_cg_profile_get(b, (uint32_t)p, &y) == 0, "profile %" PRId64, p);
		CG_CHECK(x.has_part == y.has_part && x.part == y.part && x.has_thread == y.has_thread &&
		         x.thread == y.thread && x.has_pid == y.has_pid && x.pid == y.pid &&
		         same_view(x.cmd.ptr, x.cmd.len, y.cmd.ptr, y.cmd.len) &&
		         same_view(x.trigger.ptr, x.trigger.len, y.trigger.ptr, y.trigger.len) &&
		         same_costs(x.totals, y.totals, ne) &&
		         (x.summary == NULL) == (y.summary == NULL) &&
		         (!x.summary || same_costs(x.summary, y.summary, ne)) &&
		         (x.totals_line == NULL) == (y.totals_line == NULL) &&
		         (!x.totals_line || same_costs(x.totals_line, y.totals_line, ne)),
		         "profile %" PRId64 " differs", p);
	}
	const uint64_t *ta, *tb;
	CG_CHECK(profdb_cg_totals(a, PROFDB_CG_ALL, &ta) == 0 &&
	         profdb_cg_totals(b, PROFDB_CG_ALL, &tb) == 0 && same_costs(ta, tb, ne),
	         "totals differ");
	for (int w = PROFDB_CG_SUMMARY; w <= PROFDB_CG_TOTALS; w++) {
		int ra = profdb_cg_summary(a, w, &ta), rb = profdb_cg_summary(b, w, &tb);
		CG_CHECK(ra == rb && (ra != 1 || same_costs(ta, tb, ne)), "summary %d differs", w);
	}
	int64_t nf = profdb_cg_function_count(a);
	CG_CHECK(nf == profdb_cg_function_count(b), "function counts differ");
	for (int64_t i = 0; i < nf && i < MAX_FUNCTIONS; i++) {
		profdb_cg_function x, y;
		const uint64_t *ia, *ib;
		CG_CHECK(profdb_cg_function_get(a, (uint32_t)i, &x) == 0 &&
		         profdb_cg_function_get(b, (uint32_t)i, &y) == 0, "function %" PRId64, i);
		CG_CHECK(same_view(x.name.ptr, x.name.len, y.name.ptr, y.name.len) &&
		         same_view(x.object.ptr, x.object.len, y.object.ptr, y.object.len) &&
		         same_view(x.file.ptr, x.file.len, y.file.ptr, y.file.len) &&
		         same_costs(x.self, y.self, ne), "function %" PRId64 " differs", i);
		int ra = profdb_cg_inclusive(a, PROFDB_CG_ALL, (uint32_t)i, &ia);
		int rb = profdb_cg_inclusive(b, PROFDB_CG_ALL, (uint32_t)i, &ib);
		CG_CHECK(ra == rb && (ra < 0 || same_costs(ia, ib, ne)),
		         "inclusive cost of function %" PRId64 " differs", i);
	}
	/* Per profile: self costs, line rows and jumps. */
	int64_t np2 = np < MAX_PROFILES ? np : MAX_PROFILES;
	uint64_t rows = 0;
	for (int64_t p = 0; p < np2; p++)
		for (int64_t i = 0; i < nf && i < MAX_FUNCTIONS && rows < MAX_ROWS; i++) {
			const uint64_t *sa, *sb;
			int ra = profdb_cg_self(a, (uint32_t)p, (uint32_t)i, &sa);
			int rb = profdb_cg_self(b, (uint32_t)p, (uint32_t)i, &sb);
			CG_CHECK(ra == rb && (ra < 0 || same_costs(sa, sb, ne)),
			         "self cost of function %" PRId64 " in profile %" PRId64 " differs", i, p);
			profdb_cg_detail *da = NULL, *db = NULL;
			ra = profdb_cg_detail_new(&da, a, (uint32_t)p, (uint32_t)i);
			rb = profdb_cg_detail_new(&db, b, (uint32_t)p, (uint32_t)i);
			CG_CHECK(ra == rb, "detail of function %" PRId64 " in profile %" PRId64 ": %d, %d",
			         i, p, ra, rb);
			if (ra == 0) {
				int64_t nl = profdb_cg_detail_line_count(da);
				CG_CHECK(nl == profdb_cg_detail_line_count(db), "function %" PRId64 " profile %"
				         PRId64 ": line row counts differ", i, p);
				for (int64_t k = 0; k < nl && rows < MAX_ROWS; k++, rows++) {
					profdb_cg_line x, y;
					CG_CHECK(profdb_cg_detail_line_at(da, (uint32_t)k, &x) == 0 &&
					         profdb_cg_detail_line_at(db, (uint32_t)k, &y) == 0 &&
					         same_view(x.file.ptr, x.file.len, y.file.ptr, y.file.len) &&
					         x.line == y.line && x.instr == y.instr &&
					         same_costs(x.self, y.self, ne),
					         "function %" PRId64 " profile %" PRId64 ": line row %" PRId64
					         " differs", i, p, k);
				}
				int64_t nj = profdb_cg_detail_jump_count(da);
				CG_CHECK(nj == profdb_cg_detail_jump_count(db), "function %" PRId64 " profile %"
				         PRId64 ": jump counts differ", i, p);
				for (int64_t k = 0; k < nj && rows < MAX_ROWS; k++, rows++) {
					profdb_cg_jump x, y;
					CG_CHECK(profdb_cg_detail_jump_at(da, (uint32_t)k, &x) == 0 &&
					         profdb_cg_detail_jump_at(db, (uint32_t)k, &y) == 0 &&
					         x.from_line == y.from_line && x.from_instr == y.from_instr &&
					         x.to_line == y.to_line && x.to_instr == y.to_instr &&
					         x.count == y.count && x.executed == y.executed &&
					         x.conditional == y.conditional &&
					         same_view(x.to_file.ptr, x.to_file.len, y.to_file.ptr, y.to_file.len) &&
					         same_view(x.to_function.ptr, x.to_function.len, y.to_function.ptr,
					                   y.to_function.len),
					         "function %" PRId64 " profile %" PRId64 ": jump %" PRId64
					         " differs", i, p, k);
				}
				int64_t ns = profdb_cg_detail_call_count(da);
				CG_CHECK(ns == profdb_cg_detail_call_count(db), "function %" PRId64 " profile %"
				         PRId64 ": call site counts differ", i, p);
				for (int64_t k = 0; k < ns && rows < MAX_ROWS; k++, rows++) {
					profdb_cg_callsite x, y;
					CG_CHECK(profdb_cg_detail_call_at(da, (uint32_t)k, &x) == 0 &&
					         profdb_cg_detail_call_at(db, (uint32_t)k, &y) == 0 &&
					         x.profile == y.profile && x.callee == y.callee &&
					         x.line == y.line && x.instr == y.instr && x.count == y.count &&
					         same_view(x.file.ptr, x.file.len, y.file.ptr, y.file.len) &&
					         same_costs(x.inclusive, y.inclusive, ne),
					         "function %" PRId64 " profile %" PRId64 ": call site %" PRId64
					         " differs", i, p, k);
				}
			}
			profdb_cg_detail_free(da);
			profdb_cg_detail_free(db);
		}
	int64_t nc = profdb_cg_call_count(a);
	CG_CHECK(nc == profdb_cg_call_count(b), "call counts differ");
	for (int64_t i = 0; i < nc && i < MAX_CALLS; i++) {
		profdb_cg_call x, y;
		CG_CHECK(profdb_cg_call_get(a, PROFDB_CG_ALL, (uint32_t)i, &x) == 1 &&
		         profdb_cg_call_get(b, PROFDB_CG_ALL, (uint32_t)i, &y) == 1 &&
		         x.caller == y.caller && x.callee == y.callee && x.count == y.count &&
		         same_costs(x.inclusive, y.inclusive, ne), "call %" PRId64 " differs", i);
	}
}
