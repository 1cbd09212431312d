/* The Callgrind and pprof writers (lib/convert/{callgrind,cg-*,pprof}.c)
 * on hand-made inputs with known costs: Callgrind text round trips
 * (self costs, call edges, jumps, parts), the writer's HPCToolkit sample
 * to Callgrind and pprof with the self costs derived by hand, the
 * protobuf decoded here, and the refusals. Real samples and the outside
 * clients: tests/convert_check.py. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "convert/convert-internal.h"
#include "convert/pb-internal.h"
#include "profdb-config.h"
#include "profdb/profdb.h"
#ifdef PROFDB_HAVE_ZLIB
#include <zlib.h>

#include "convert/gzip-out-internal.h"
#endif
#ifdef HAVE_TEST_WRITER
#include "writer.h"
#endif

/* ---- helpers ---------------------------------------------------------------- */

typedef struct buf {
	unsigned char *p;
	size_t len, cap;
	int fail_after;     /* > 0: the write that fails with -EIO */
} buf;

static int to_buf(const void *data, size_t len, void *userdata)
{
	buf *b = userdata;
	if (b->fail_after && --b->fail_after == 0)
		return -EIO;
	if (b->len + len + 1 > b->cap) {
		b->cap = (b->len + len + 1) * 2;
		b->p = realloc(b->p, b->cap);
		cr_assert(b->p);
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = 0;
	return 0;
}

/* Do @p x and @p y hold the same bytes? */
static int same(profdb_str x, profdb_str y)
{
	return x.len == y.len && !memcmp(x.ptr, y.ptr, x.len);
}

/* Function @p f of the input @p a and of its conversion @p c, into @p x
 * and @p y: both read, and of one name. */
static void same_function(const profdb_cg *a, const profdb_cg *c, uint32_t f,
                          profdb_cg_function *x, profdb_cg_function *y)
{
	cr_assert_eq(profdb_cg_function_get(a, f, x), 0);
	cr_assert_eq(profdb_cg_function_get(c, f, y), 0);
	cr_assert(same(x->name, y->name), "function %u's name", f);
}

static buf convert(const profdb *db, profdb_convert_format f, int separate, const uint32_t *metrics,
                   size_t n_metrics)
{
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = f;
	o.separate = separate;
	o.metrics = metrics;
	o.n_metrics = n_metrics;
	buf b = {0};
	int r = profdb_convert(db, &o, to_buf, &b);
	cr_assert_eq(r, 0, "convert: %d %s", r, profdb_error_message());
	return b;
}

/* @p text opened with options.threads = @p threads (0: one per core). */
static profdb *open_threads(const void *text, size_t n, uint32_t threads)
{
	profdb_input in = {"callgrind.out.1", text, n};
	profdb_options oo = PROFDB_OPTIONS_INIT;
	oo.threads = threads;
	profdb *db = NULL;
	int r = profdb_open_inputs(&db, &in, 1, &oo);
	cr_assert_eq(r, 0, "open: %d %s\n%.*s", r, profdb_error_message(), (int)(n < 2000 ? n : 2000),
	             (const char *)text);
	return db;
}

static profdb *open_text(const void *text, size_t n)
{
	return open_threads(text, n, 0);
}

/* Self cost of the function named @p name in @p profile, event @p ev. */
static uint64_t fn_self(const profdb *db, uint32_t profile, const char *name, uint32_t ev)
{
	const profdb_cg *cg = profdb_get_cg(db);
	int64_t n = profdb_cg_function_count(cg);
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		if (f.name.len == strlen(name) && !memcmp(f.name.ptr, name, f.name.len)) {
			const uint64_t *c;
			cr_assert_geq(profdb_cg_self(cg, profile, (uint32_t)i, &c), 0);
			return c[ev];
		}
	}
	cr_assert_fail("no function %s", name);
	return 0;
}

/* The call count and inclusive cost of every call edge, by names. */
static void edges_of(const profdb *db, uint32_t profile, char *out, size_t cap)
{
	const profdb_cg *cg = profdb_get_cg(db);
	int64_t n = profdb_cg_call_count(cg);
	size_t o = 0;
	out[0] = 0;
	for (int64_t i = 0; i < n; i++) {
		profdb_cg_call c;
		profdb_cg_function a, b;
		if (profdb_cg_call_get(cg, profile, (uint32_t)i, &c) != 1)
			continue;
		cr_assert_eq(profdb_cg_function_get(cg, c.caller, &a), 0);
		cr_assert_eq(profdb_cg_function_get(cg, c.callee, &b), 0);
		o += (size_t)snprintf(out + o, cap - o, "%.*s>%.*s:%" PRIu64 ":%" PRIu64 ";",
		                      (int)a.name.len, a.name.ptr, (int)b.name.len, b.name.ptr, c.count,
		                      c.inclusive[0]);
		cr_assert_lt(o, cap);
	}
}

static uint64_t jump_sum(const profdb *db)
{
	const profdb_cg *cg = profdb_get_cg(db);
	uint64_t s = 0;
	for (int64_t f = 0; f < profdb_cg_function_count(cg); f++) {
		profdb_cg_detail *d;
		cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)f), 0);
		for (int64_t j = 0; j < profdb_cg_detail_jump_count(d); j++) {
			profdb_cg_jump jp;
			cr_assert_eq(profdb_cg_detail_jump_at(d, (uint32_t)j, &jp), 0);
			s += jp.count * 1000 + jp.executed * 7 + jp.to_line + jp.from_line * 3 +
			     (uint64_t)jp.conditional;
		}
		profdb_cg_detail_free(d);
	}
	return s;
}

/* ---- Callgrind to Callgrind ----------------------------------------------------- */

static const char two_parts[] =
	"# callgrind format\nversion: 1\npart: 1\npositions: line\nevents: Ir Dr\n"
	"ob=(1) /bin/app\nfl=(1) app.c\nfn=(1) main\n"
	"3 10 2\n4 5\n"
	"cfi=(2) lib.c\ncfn=(2) work\ncalls=2 20\n4 100 30\n"
	"jump=3 6\n5\n"
	"jcnd=2/4 7\n5\n"
	"fl=(2)\nfn=(2)\n20 100 30\n"
	"fi=(3) inl.h\n7 1\n"
	"totals: 116 32\n"
	"part: 2\n"
	"ob=(1)\nfl=(1)\nfn=(1)\n3 1\n"
	"cfi=(2)\ncfn=(2)\ncalls=1 20\n3 9\n"
	"fl=(2)\nfn=(2)\n20 9\n";

Test(convert_cg, callgrind_round_trip_combined)
{
	profdb *a = open_text(two_parts, sizeof two_parts - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	cr_assert(strstr((char *)b.p, "# callgrind format\n") == (char *)b.p);
	cr_assert(strstr((char *)b.p, "\nevents: Ir Dr\n"));
	cr_assert(strstr((char *)b.p, "\nfn=(1) main\n"), "name compression: %s", b.p);
	cr_assert(strstr((char *)b.p, "\ntotals: 126 32\n"), "%s", b.p);
	profdb *c = open_text(b.p, b.len);
	cr_assert_eq(profdb_profile_count(c), 1, "combined: one part");
	cr_assert_eq(fn_self(c, 0, "main", 0), 10 + 5 + 1);
	cr_assert_eq(fn_self(c, 0, "work", 0), 100 + 1 + 9);
	cr_assert_eq(fn_self(c, 0, "work", 1), 30);
	char ea[512], eb[512];
	edges_of(a, PROFDB_CG_ALL, ea, sizeof ea);
	edges_of(c, 0, eb, sizeof eb);
	cr_assert_str_eq(ea, eb);
	cr_assert_str_eq(eb, "main>work:3:109;");
	cr_assert_eq(jump_sum(a), jump_sum(c), "jumps are kept");
	cr_assert_neq(jump_sum(a), 0);
	/* the inlined file stays the position's file, not the function's */
	cr_assert(strstr((char *)b.p, "fi=(3) inl.h\n"), "%s", b.p);
	profdb_close(c);
	profdb_close(a);
	free(b.p);
}

Test(convert_cg, callgrind_round_trip_parts)
{
	profdb *a = open_text(two_parts, sizeof two_parts - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 1, NULL, 0);
	profdb *c = open_text(b.p, b.len);
	cr_assert_eq(profdb_profile_count(c), 2, "one part per profile");
	for (uint32_t p = 0; p < 2; p++) {
		const uint64_t *ta, *tc;
		cr_assert_eq(profdb_cg_totals(profdb_get_cg(a), p, &ta), 0);
		cr_assert_eq(profdb_cg_totals(profdb_get_cg(c), p, &tc), 0);
		cr_assert_eq(ta[0], tc[0]);
		cr_assert_eq(ta[1], tc[1]);
		cr_assert_eq(fn_self(a, p, "main", 0), fn_self(c, p, "main", 0));
		char ea[512], eb[512];
		edges_of(a, p, ea, sizeof ea);
		edges_of(c, p, eb, sizeof eb);
		cr_assert_str_eq(ea, eb);
	}
	cr_assert(strstr((char *)b.p, "\npart: 2\n"));
	profdb_close(c);
	profdb_close(a);
	free(b.p);
}

/* A part per profile of a text with instruction positions: each later
 * part gives its columns again, since a part starts with the default
 * positions (line) and "+4 * 5" would read as a line and two costs. */
Test(convert_cg, callgrind_parts_keep_instruction_positions)
{
	static const char text[] =
		"positions: instr line\nevents: Ir Dr\nfn=(1) main\n0x10 3 10 1\n+4 * 5\n"
		"part: 2\npositions: instr line\nevents: Ir Dr\nfn=(1)\n0x10 3 1\n+4 * 5 2\n";
	profdb *a = open_text(text, sizeof text - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 1, NULL, 0);
	const char *p2 = strstr((char *)b.p, "\npart: 2\n");
	cr_assert(p2 && strstr(p2, "\npositions: instr line\nevents: Ir Dr\n"), "%s", b.p);
	profdb *c = open_text(b.p, b.len);
	cr_assert_eq(profdb_profile_count(c), 2);
	for (uint32_t p = 0; p < 2; p++)
		for (uint32_t e = 0; e < 2; e++)
			cr_assert_eq(fn_self(c, p, "main", e), fn_self(a, p, "main", e));
	cr_assert_eq(fn_self(c, 1, "main", 1), 2);
	profdb_close(c);
	profdb_close(a);
	free(b.p);
}

/* Names by the input's keys: one key names a file and a function here
 * ("work"), and each of the writer's tables (fl, fn) defines it once; a
 * file met by key takes the id of the same bytes met before, the unknown
 * file ("???") included. */
static const char shared_names[] =
	"# callgrind format\nversion: 1\npositions: line\nevents: Ir\n"
	"ob=(1) /bin/app\nfl=(1) work\nfn=(1) main\n3 10\n"
	"cfi=(2) lib.c\ncfn=(2) work\ncalls=2 20\n4 100\n"
	"jfi=(1)\njfn=(2)\njump=3 6\n5\n"
	"fl=(2)\nfn=(2)\n20 100\n"
	"fl=(3) ???\nfn=(3) other\n7 1\nfi=(1)\n8 2\n"
	"fl=\nfn=(4) none\n9 4\n";

Test(convert_cg, callgrind_names_per_table)
{
	profdb *a = open_text(shared_names, sizeof shared_names - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	const char *want =
		"ob=(1) /bin/app\nfl=(1) work\nfn=(1) main\n3 10\n"
		"cfi=(2) lib.c\ncfn=(2) work\ncalls=2 0\n4 100\n"
		"jfi=(1)\njfn=(2)\njump=3 6\n*\n5\n"
		"fl=(2)\nfn=(2)\n+15 100\n"
		"fl=(3) ???\nfn=(3) other\n-13 1\nfi=(1)\n8 2\n"
		"fl=(3)\nfn=(4) none\n+1 4\ntotals: 117\n";
	cr_assert(strstr((char *)b.p, want), "%s", b.p);
	profdb_close(a);
	free(b.p);
}

/* Every jump of @p db's function @p fn as "from>file:function:line
 * count/executed" (c: conditional), in the detail's order. */
static void jumps_of(const profdb *db, const char *fn, char *out, size_t cap)
{
	const profdb_cg *cg = profdb_get_cg(db);
	size_t o = 0;
	out[0] = 0;
	for (int64_t f = 0; f < profdb_cg_function_count(cg); f++) {
		profdb_cg_function cf;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)f, &cf), 0);
		if (cf.name.len != strlen(fn) || memcmp(cf.name.ptr, fn, cf.name.len))
			continue;
		profdb_cg_detail *d;
		cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)f), 0);
		for (int64_t j = 0; j < profdb_cg_detail_jump_count(d); j++) {
			profdb_cg_jump jp;
			cr_assert_eq(profdb_cg_detail_jump_at(d, (uint32_t)j, &jp), 0);
			o += (size_t)snprintf(out + o, cap - o, "%" PRIu64 ">%.*s:%.*s:%" PRIu64 " %" PRIu64
			                      "/%" PRIu64 "%s;", jp.from_line, (int)jp.to_file.len,
			                      jp.to_file.ptr, (int)jp.to_function.len, jp.to_function.ptr,
			                      jp.to_line, jp.count, jp.executed, jp.conditional ? "c" : "");
			cr_assert_lt(o, cap);
		}
		profdb_cg_detail_free(d);
	}
}

/* A jump names its target's file and function only where a reader
 * would take others without them: no jfn= for a jump within the
 * function, no jfi= either when the target is in the file in effect, and
 * jfi= with every jfn= (KCachegrind places a target without jfi= in the
 * current function's file). The targets read back the same. */
Test(convert_cg, callgrind_jump_targets_named_where_needed)
{
	static const char text[] =
		"# callgrind format\nversion: 1\npositions: line\nevents: Ir\n"
		"ob=(1) /bin/app\nfl=(1) app.c\nfn=(1) main\n"
		"3 10\njump=2 7\n3\n"                         /* app.c:main */
		"fi=(2) inl.h\n5 1\njcnd=1/3 9\n5\n"          /* inl.h:main */
		"jfi=(1)\njump=4 8\n5\n"                       /* app.c:main, from inl.h */
		"fi=(1)\n6 1\njfi=(3) lib.c\njfn=(2) work\njump=4 20\n6\n"   /* lib.c:work */
		"jfn=(2)\njump=5 21\n6\n"                      /* app.c:work */
		"fl=(3)\nfn=(2)\n20 100\n21 1\n";
	profdb *a = open_text(text, sizeof text - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	const char *out = (const char *)b.p;
	cr_assert(!strstr(out, "jfn=(1)"), "a jump within main names main: %s", out);
	/* main's lines in the input's order: a jump into the file in effect
	 * needs no jfi= of its own, one from inl.h into app.c does */
	const char *want = "3 10\njump=2 7\n*\n3\nfi=(2) inl.h\n5 1\njcnd=1/3 9\n*\n5\n"
	                   "jfi=(1)\njump=4 8\n*\n5\nfi=(1)\n6 1\njfi=(3) lib.c\njfn=(2) work\n"
	                   "jump=4 20\n*\n6\njfi=(1)\njfn=(2)\njump=5 21\n*\n6\nfl=(3)\nfn=(2)\n";
	cr_assert(strstr(out, want), "%s", out);
	profdb *c = open_text(b.p, b.len);
	char ja[512], jc[512];
	jumps_of(a, "main", ja, sizeof ja);
	jumps_of(c, "main", jc, sizeof jc);
	cr_assert_str_eq(ja, "3>app.c:main:7 2/2;5>inl.h:main:9 1/3c;5>app.c:main:8 4/4;"
	                     "6>lib.c:work:20 4/4;6>app.c:work:21 5/5;");
	cr_assert_str_eq(jc, ja);
	profdb_close(c);
	profdb_close(a);
	free(b.p);
}

/* Lines of @p text that start with @p key. */
static int count_lines(const char *text, const char *key)
{
	int n = 0;
	size_t kn = strlen(key);
	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, key, kn);
	return n;
}

#define HEAD_FNS 40u

/* A block leaves out ob= and fl= where the block before left the same
 * (valgrind's way): ob= when the object changes, fl= when the file
 * changes or the block before ended in another file (an inlined one),
 * since callgrind_annotate takes the file in effect for the next fn=.
 * More functions than one text holds (16), so that the writer decides at
 * the start of each text: fn16 leaves out both, fn32 only ob= (fn31 ends
 * in inl.h); with --separate, each part starts with both. */
Test(convert_cg, callgrind_block_heads_as_left)
{
	static char text[HEAD_FNS * 96 * 2 + 256];
	size_t n = 0;
	n += (size_t)snprintf(text, sizeof text, "positions: line\nevents: Ir\n");
	for (uint32_t part = 0; part < 2; part++) {
		if (part)
			n += (size_t)snprintf(text + n, sizeof text - n, "part: 2\n");
		for (uint32_t i = 0; i < HEAD_FNS; i++) {
			n += (size_t)snprintf(text + n, sizeof text - n, "ob=lib%u.so\nfl=f%u.c\nfn=fn%u\n10 %u\n",
			                      i / 10, i / 5, i, i + 1);
			if (i % 7 == 3)   /* ends in another file: the last line */
				n += (size_t)snprintf(text + n, sizeof text - n, "fi=inl.h\n20 1\n");
		}
	}
	cr_assert_lt(n, sizeof text);
	int want_fl = 0;   /* per part */
	for (uint32_t i = 0; i < HEAD_FNS; i++)
		want_fl += i == 0 || i / 5 != (i - 1) / 5 || (i - 1) % 7 == 3;
	profdb *a = open_text(text, n);
	for (int separate = 0; separate < 2; separate++) {
		buf b = convert(a, PROFDB_CONVERT_CALLGRIND, separate, NULL, 0);
		const char *out = (const char *)b.p;
		int parts = separate ? 2 : 1;
		cr_assert_eq(count_lines(out, "ob="), 4 * parts, "%s", out);
		cr_assert_eq(count_lines(out, "fl="), want_fl * parts, "%s", out);
		cr_assert_eq(count_lines(out, "fn="), (int)HEAD_FNS * parts);
		profdb *c = open_text(b.p, b.len);
		const profdb_cg *ca = profdb_get_cg(a), *cc = profdb_get_cg(c);
		cr_assert_eq(profdb_cg_function_count(cc), HEAD_FNS);
		for (uint32_t f = 0; f < HEAD_FNS; f++) {
			profdb_cg_function x, y;
			same_function(ca, cc, f, &x, &y);
			cr_assert(same(x.object, y.object), "fn%u's object", f);
			cr_assert(same(x.file, y.file), "fn%u's file", f);
			cr_assert_eq(x.self[0], y.self[0]);
		}
		profdb_close(c);
		free(b.p);
	}
	profdb_close(a);
}

/* Every call edge of @p db as "caller>callee [object] file:count/cost;",
 * the callee's module and file as the reader bound them. */
static void callees_of(const profdb *db, char *out, size_t cap)
{
	const profdb_cg *cg = profdb_get_cg(db);
	size_t o = 0;
	out[0] = 0;
	for (int64_t i = 0; i < profdb_cg_call_count(cg); i++) {
		profdb_cg_call c;
		profdb_cg_function a, b;
		if (profdb_cg_call_get(cg, PROFDB_CG_ALL, (uint32_t)i, &c) != 1)
			continue;
		cr_assert_eq(profdb_cg_function_get(cg, c.caller, &a), 0);
		cr_assert_eq(profdb_cg_function_get(cg, c.callee, &b), 0);
		o += (size_t)snprintf(out + o, cap - o, "%.*s>%.*s [%.*s] %.*s:%" PRIu64 "/%" PRIu64 ";",
		                      (int)a.name.len, a.name.ptr, (int)b.name.len, b.name.ptr,
		                      (int)b.object.len, b.object.ptr, (int)b.file.len, b.file.ptr,
		                      c.count, c.inclusive[0]);
		cr_assert_lt(o, cap);
	}
}

/* A call names its callee's module (cob=) and file (cfi=) only where
 * they are not the block's module and the file in effect, which every
 * reader takes without them; a call from inlined code (fi=) to the
 * function's own file names it. The callees read back the same. */
Test(convert_cg, callgrind_callee_names_where_needed)
{
	static const char text[] =
		"positions: line\nevents: Ir\n"
		"ob=(1) app\nfl=(1) a.c\nfn=(1) main\n1 1\n"
		"cfn=(2) near\ncalls=1 50\n2 10\n"                    /* app, a.c */
		"cfi=(2) b.c\ncfn=(3) other\ncalls=2 60\n3 20\n"      /* app, b.c */
		"cob=(2) lib\ncfi=(3) c.c\ncfn=(4) far\ncalls=3 70\n4 30\n"   /* lib, c.c */
		"fi=(4) inl.h\n5 1\ncfi=(1)\ncfn=(2)\ncalls=4 50\n5 40\n"    /* app, a.c from inl.h */
		"fl=(1)\nfn=(2)\n50 10\n"
		"fl=(2)\nfn=(3)\n60 20\n"
		"ob=(2)\nfl=(3)\nfn=(4)\n70 30\n";
	profdb *a = open_text(text, sizeof text - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	const char *out = (const char *)b.p;
	const char *want = "1 1\ncfn=(2) near\ncalls=1 0\n2 10\n"
	                   "cfi=(2) b.c\ncfn=(3) other\ncalls=2 0\n3 20\n"
	                   "cob=(2) lib\ncfi=(3) c.c\ncfn=(4) far\ncalls=3 0\n4 30\n"
	                   "fi=(4) inl.h\n5 1\ncfi=(1)\ncfn=(2)\ncalls=4 0\n5 40\n";
	cr_assert(strstr(out, want), "%s", out);
	profdb *c = open_text(b.p, b.len);
	char ea[1024], ec[1024];
	callees_of(a, ea, sizeof ea);
	callees_of(c, ec, sizeof ec);
	cr_assert_str_eq(ea, "main>near [app] a.c:5/50;main>other [app] b.c:2/20;"
	                     "main>far [lib] c.c:3/30;");
	cr_assert_str_eq(ec, ea);
	profdb_close(c);
	profdb_close(a);
	free(b.p);
}

/* "(N)" at @p p: N, or -1 when @p p holds no id below @p cap. */
static int id_at(const char *p, int cap)
{
	char *end;
	long v = *p == '(' ? strtol(p + 1, &end, 10) : -1;
	return v > 0 && v < cap && *end == ')' ? (int)v : -1;
}

#define IDS_MAX 64

/* The function ids of Callgrind text @p text as KCachegrind binds them:
 * an id stands for the function its definition named, in the object in
 * effect there (cob= for a cfn=, else ob=), whatever object is in effect
 * where the id comes again. The number of references (fn=, cfn=, jfn=
 * by id alone) made where another object is in effect; *n_named: the
 * ids defined with name @p name. */
static int fn_ids_bound_elsewhere(const char *text, const char *name, int *n_named)
{
	/* objects by id, IDS_MAX: the empty one ("ob="); 0: none yet */
	int def_ob[IDS_MAX] = {0}, ob = 0, cob = 0, bad = 0;
	size_t nn = strlen(name);
	*n_named = 0;
	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		int is_cob = !strncmp(p, "cob=", 4), is_ob = !strncmp(p, "ob=", 3);
		if (is_ob || is_cob) {
			const char *v = p + 3 + is_cob;
			int id = *v == '\n' ? IDS_MAX : id_at(v, IDS_MAX);
			cr_assert_gt(id, 0, "%.20s", p);
			*(is_cob ? &cob : &ob) = id;
			continue;
		}
		int is_cfn = !strncmp(p, "cfn=", 4);
		if (!is_cfn && strncmp(p, "fn=", 3) && strncmp(p, "jfn=", 4))
			continue;
		const char *v = strchr(p, '=') + 1;
		int id = id_at(v, IDS_MAX), in = is_cfn && cob ? cob : ob;
		cr_assert_gt(id, 0, "%.20s", p);
		cob = is_cfn ? 0 : cob;   /* (it comes right before its cfn=) */
		const char *after = strchr(v, ')') + 1;
		if (*after == ' ') {
			cr_assert_eq(def_ob[id], 0, "function id %d defined twice", id);
			def_ob[id] = in;
			*n_named += !strncmp(after + 1, name, nn) && after[1 + nn] == '\n';
		} else {
			cr_assert_neq(def_ob[id], 0, "function id %d used before its name", id);
			bad += def_ob[id] != in;
		}
	}
	return bad;
}

/* Every function of @p db as "name [object] file:self;". */
static void functions_of(const profdb *db, char *out, size_t cap)
{
	const profdb_cg *cg = profdb_get_cg(db);
	size_t o = 0;
	out[0] = 0;
	for (int64_t i = 0; i < profdb_cg_function_count(cg); i++) {
		profdb_cg_function f;
		cr_assert_eq(profdb_cg_function_get(cg, (uint32_t)i, &f), 0);
		o += (size_t)snprintf(out + o, cap - o, "%.*s [%.*s] %.*s:%" PRIu64 ";",
		                      (int)f.name.len, f.name.ptr, (int)f.object.len, f.object.ptr,
		                      (int)f.file.len, f.file.ptr, f.self[0]);
		cr_assert_lt(o, cap);
	}
}

/* Two functions of one name in two objects are two functions to
 * KCachegrind, which keys them by object and name and reads an id as the
 * function its definition named: each takes an id of its own, in its
 * block (fn=), as a callee (cfn=, in the callee's object) and as a jump
 * target (jfn=, in the jumping block's object). Both are called from
 * main, libb's first; liba's jumps to itself from helper. The output
 * reads back with the same functions, self costs, calls and jumps. */
Test(convert_cg, callgrind_namesakes_in_two_objects)
{
	static const char text[] =
		"positions: line\nevents: Ir\n"
		"ob=app\nfl=main.c\nfn=main\n1 1\n"
		"cob=libb.so\ncfi=b.c\ncfn=dup\ncalls=2 10\n2 200\n"
		"cob=liba.so\ncfi=a.c\ncfn=dup\ncalls=3 20\n3 150\n"
		"ob=libb.so\nfl=b.c\nfn=dup\n10 100\n"
		"ob=liba.so\nfl=a.c\nfn=dup\n20 50\n"
		"fn=helper\n30 5\njfi=a.c\njfn=dup\njump=4 20\n30\n"
		"cfn=dup\ncalls=1 20\n31 10\n";
	profdb *a = open_text(text, sizeof text - 1);
	char fa[512], fc[512], ea[512], ec[512], ja[256], jc[256];
	functions_of(a, fa, sizeof fa);
	cr_assert_str_eq(fa, "main [app] main.c:1;dup [libb.so] b.c:100;dup [liba.so] a.c:50;"
	                     "helper [liba.so] a.c:5;");
	for (uint32_t threads = 1; threads <= 2; threads++) {
		profdb *t = open_threads(text, sizeof text - 1, threads);
		buf b = convert(t, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
		const char *out = (const char *)b.p;
		int named;
		cr_assert_eq(fn_ids_bound_elsewhere(out, "dup", &named), 0, "%s", out);
		cr_assert_eq(named, 2, "%s", out);
		profdb *c = open_text(b.p, b.len);
		functions_of(c, fc, sizeof fc);
		cr_assert_str_eq(fc, fa);
		callees_of(a, ea, sizeof ea);
		callees_of(c, ec, sizeof ec);
		cr_assert_str_eq(ea, "main>dup [libb.so] b.c:2/200;main>dup [liba.so] a.c:3/150;"
		                     "helper>dup [liba.so] a.c:1/10;");
		cr_assert_str_eq(ec, ea);
		jumps_of(a, "helper", ja, sizeof ja);
		jumps_of(c, "helper", jc, sizeof jc);
		cr_assert_str_eq(ja, "30>a.c:dup:20 4/4;");
		cr_assert_str_eq(jc, ja);
		profdb_close(c);
		profdb_close(t);
		free(b.p);
	}
	profdb_close(a);
}

/* Event names the output could not read back as the same token (a NUL, a
 * blank, ':' or '=' inside) are made from the metric's name, and a name
 * kept from the input never meets a made one: the output opens again with
 * every event apart. */
Test(convert_cg, callgrind_event_names_read_back_apart)
{
	static const char text[] = "events: Ir\0\0 Dr\nfn=(1) main\n1 2 1\n"
	                           "part: 2\nevents: Dr Ir a:b\nfn=(1)\n2 3 4 5\n";
	profdb *a = open_text(text, sizeof text - 1);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	cr_assert(strstr((char *)b.p, "\nevents: Ir Dr Ir_2 a_b\n"), "%s", b.p);
	cr_assert_eq(strlen((char *)b.p), b.len, "a NUL in the output");
	profdb *c = open_text(b.p, b.len);
	cr_assert_eq(profdb_metric_count(c), profdb_metric_count(a));
	profdb_close(c);
	profdb_close(a);
	free(b.p);
}

/* A function of more line rows than the writer takes at a time (256):
 * every row is written once, in order, with its own costs. */
Test(convert_cg, callgrind_rows_past_a_batch)
{
	enum { ROWS = 600 };
	size_t cap = ROWS * 32 + 256, n = 0;
	char *t = malloc(cap);
	cr_assert(t);
	n += (size_t)snprintf(t + n, cap - n, "# callgrind format\nversion: 1\npositions: line\n"
	                      "events: Ir\nfl=(1) a.c\nfn=(1) long\n");
	for (uint32_t i = 0; i < ROWS; i++)
		n += (size_t)snprintf(t + n, cap - n, "%u %u\n", 10 + i, 1000 + i);
	profdb *a = open_text(t, n);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	profdb *c = open_text(b.p, b.len);
	profdb_cg_detail *d;
	cr_assert_eq(profdb_cg_detail_new(&d, profdb_get_cg(c), PROFDB_CG_ALL, 0), 0);
	cr_assert_eq(profdb_cg_detail_line_count(d), ROWS);
	for (uint32_t i = 0; i < ROWS; i++) {
		profdb_cg_line ln;
		cr_assert_eq(profdb_cg_detail_line_at(d, i, &ln), 0);
		cr_assert(ln.line == 10 + i && ln.self[0] == 1000 + i, "row %u: line %" PRIu64
		          " cost %" PRIu64, i, ln.line, ln.self[0]);
	}
	profdb_cg_detail_free(d);
	profdb_close(c);
	profdb_close(a);
	free(b.p);
	free(t);
}

/* Parts of many functions, each in a file of its own, with costs at every
 * boundary of the decimal digit count: more functions than the writer
 * decodes ahead, more names than its first name table holds. */
#define MANY_FNS 1500u
#define MANY_PARTS 3u

/* Part 0: the first 60 functions at 10^k - 1, 10^k and 10^k + 1, every
 * digit count up to 20 (and the part's total within 64 bits). */
static uint64_t many_cost(uint32_t part, uint32_t fn)
{
	if (part > 0 || fn >= 60)
		return fn + part;
	uint64_t p10 = 1;
	for (uint32_t k = fn % 20; k > 0; k--)
		p10 *= 10;
	if (fn % 20 == 19)
		return fn / 20 == 0 ? p10 : p10 / 10 + fn / 20;   /* one of 20 digits */
	return fn / 20 == 0 ? p10 : fn / 20 == 1 ? p10 - 1 : p10 + 1;
}

static char *many_functions(size_t *len)
{
	size_t cap = (size_t)MANY_PARTS * MANY_FNS * 160 + 256, n = 0;
	char *t = malloc(cap);
	cr_assert(t);
	n += (size_t)snprintf(t + n, cap - n, "# callgrind format\nversion: 1\npart: 1\n"
	                      "positions: line\nevents: Ir Dr\n");
	for (uint32_t part = 0; part < MANY_PARTS; part++) {
		if (part > 0)
			n += (size_t)snprintf(t + n, cap - n, "part: %u\n", part + 1);
		for (uint32_t f = 0; f < MANY_FNS; f++) {
			/* names compressed in the first part, by id after */
			if (part == 0)
				n += (size_t)snprintf(t + n, cap - n, "fl=(%u) file%u.c\nfn=(%u) f%u\n", f + 1,
				                      f, f + 1, f);
			else
				n += (size_t)snprintf(t + n, cap - n, "fl=(%u)\nfn=(%u)\n", f + 1, f + 1);
			n += (size_t)snprintf(t + n, cap - n, "%u 1 %" PRIu64 "\n%u 2\n", 10 + f,
			                      many_cost(part, f), 12 + f);
			if (f % 3 == 1)   /* calls to the first function */
				n += (size_t)snprintf(t + n, cap - n, "cfl=(1)\ncfn=(1)\ncalls=1 5\n%u 3 4\n",
				                      11 + f);
			cr_assert_lt(n, cap);
		}
	}
	*len = n;
	return t;
}

Test(convert_cg, callgrind_many_functions)
{
	size_t len;
	char *text = many_functions(&len);
	profdb *a = open_text(text, len);
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 1, NULL, 0);
	/* every digit count written as the input has it, the largest too */
	cr_assert(strstr((char *)b.p, " 10000000000000000000\n"), "20 digits");
	for (uint32_t f = 0; f < 60; f++) {
		char want[48];
		if (many_cost(0, f) == 0)
			continue;   /* a trailing zero is left out */
		snprintf(want, sizeof want, "\n%u 1 %" PRIu64 "\n", 10 + f, many_cost(0, f));
		if (f)   /* positions are relative after the first */
			snprintf(want, sizeof want, " 1 %" PRIu64 "\n", many_cost(0, f));
		cr_assert(strstr((char *)b.p, want), "%s", want);
	}
	/* names numbered in the order of first use, defined again in each part */
	int defined = 0;
	for (const char *at = (char *)b.p; (at = strstr(at, "\nfl=(1500) file1499.c\nfn=(1500) f1499\n"));
	     at++)
		defined++;
	cr_assert_eq(defined, MANY_PARTS);
	cr_assert(strstr((char *)b.p, "\nfn=(1499) f1498\n-1 1 1498\n1510 2\ncfi=(1)\ncfn=(1)\n"),
	          "a call by ids (the same module: no cob=)");
	profdb *c = open_text(b.p, b.len);
	cr_assert_eq(profdb_profile_count(c), MANY_PARTS, "%" PRId64, profdb_profile_count(c));
	const profdb_cg *ca = profdb_get_cg(a), *cc = profdb_get_cg(c);
	cr_assert_eq(profdb_cg_function_count(cc), MANY_FNS);
	for (uint32_t f = 0; f < MANY_FNS; f++) {
		profdb_cg_function fa, fc;
		same_function(ca, cc, f, &fa, &fc);
		for (uint32_t p = 0; p < MANY_PARTS; p++) {
			const uint64_t *sa, *sc;
			cr_assert_geq(profdb_cg_self(ca, p, f, &sa), 0);
			cr_assert_geq(profdb_cg_self(cc, p, f, &sc), 0);
			cr_assert_eq(sa[1], sc[1], "function %u part %u", f, p);
			cr_assert_eq(sc[1], many_cost(p, f));
		}
	}
	/* written again: the same bytes, so nothing depends on the thread */
	buf b2 = convert(c, PROFDB_CONVERT_CALLGRIND, 1, NULL, 0);
	cr_assert_eq(b.len, b2.len);
	cr_assert(!memcmp(b.p, b2.p, b.len));
	/* a subset of the profiles, summed: the two parts' costs */
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	uint32_t two[] = {2, 0};
	o.format = PROFDB_CONVERT_CALLGRIND;
	o.profiles = two;
	o.n_profiles = 2;
	buf s = {0};
	cr_assert_eq(profdb_convert(a, &o, to_buf, &s), 0, "%s", profdb_error_message());
	profdb *d = open_text(s.p, s.len);
	for (uint32_t f = 0; f < MANY_FNS; f++) {
		const uint64_t *sd;
		cr_assert_geq(profdb_cg_self(profdb_get_cg(d), 0, f, &sd), 0);
		uint64_t x = many_cost(0, f), y = many_cost(2, f);
		cr_assert_eq(sd[1], x + y, "function %u", f);
	}
	profdb_close(d);
	profdb_close(c);
	profdb_close(a);
	free(s.p);
	free(b2.p);
	free(b.p);
	free(text);
}

/* Functions whose blocks depend on the ones before them: names met
 * first in another function (ob=, fl=, fi=, cfn=, jfn=), a first cost
 * line relative to the previous function's last, jumps before any cost
 * line (their source is the position in effect), instruction positions,
 * and one function whose text is larger than the output buffer (64 KiB)
 * and than a decoded function's text starts with. */
#define GAP_FNS 2500u
#define GAP_BIG 1234u
#define GAP_BIG_ROWS 30000u

static char *gaps_text(size_t *len)
{
	size_t cap = (size_t)GAP_FNS * 300 + (size_t)GAP_BIG_ROWS * 12 + 256, n = 0;
	char *t = malloc(cap);
	cr_assert(t);
	n += (size_t)snprintf(t + n, cap - n, "# callgrind format\nversion: 1\n"
	                      "positions: instr line\nevents: Ir Dr\n");
	for (uint32_t f = 0; f < GAP_FNS; f++) {
		n += (size_t)snprintf(t + n, cap - n, "ob=/lib/o%u.so\nfl=file%u.c\nfn=f%u\n", f % 3,
		                      f % 7, f);
		if (f % 5 == 0)
			n += (size_t)snprintf(t + n, cap - n, "jump=%u 0x%x %u\n", f + 1, 0x2000 + f, f);
		n += (size_t)snprintf(t + n, cap - n, "0x%x %u %u 1\n+2 +1 3\n", 0x1000 + 16 * f,
		                      10 + f % 50, f + 1);
		if (f % 3 == 0)
			n += (size_t)snprintf(t + n, cap - n, "fi=inl%u.h\n+4 * 2 2\n", f % 11);
		if (f % 4 == 1)
			n += (size_t)snprintf(t + n, cap - n, "cfi=file0.c\ncfn=f0\ncalls=2 0x1000 10\n"
			                      "+1 * 5 1\n");
		if (f % 6 == 2)
			n += (size_t)snprintf(t + n, cap - n, "jcnd=1/3 0x%x %u\n+1 * 1\n", 0x3000 + f, f);
		for (uint32_t i = 0; f == GAP_BIG && i < GAP_BIG_ROWS; i++)
			n += (size_t)snprintf(t + n, cap - n, "+1 +1 1\n");
		cr_assert_lt(n, cap);
	}
	*len = n;
	return t;
}

/* The rows with a cost, of every function (a zero row is not written). */
static uint64_t row_sum(const profdb *db, uint64_t *rows)
{
	const profdb_cg *cg = profdb_get_cg(db);
	int two = profdb_cg_event_count(cg) > 1;
	uint64_t s = 0;
	*rows = 0;
	for (int64_t f = 0; f < profdb_cg_function_count(cg); f++) {
		profdb_cg_detail *d;
		cr_assert_eq(profdb_cg_detail_new(&d, cg, PROFDB_CG_ALL, (uint32_t)f), 0);
		for (int64_t i = 0; i < profdb_cg_detail_line_count(d); i++) {
			profdb_cg_line ln;
			cr_assert_eq(profdb_cg_detail_line_at(d, (uint32_t)i, &ln), 0);
			uint64_t second = two ? ln.self[1] : 0;
			if (!ln.self[0] && !second)
				continue;
			++*rows;
			s += ((uint64_t)f * 1000003 + ln.line * 31 + ln.instr * 7 + ln.file.len) *
			     (ln.self[0] * 131 + second + 1);
		}
		profdb_cg_detail_free(d);
	}
	return s;
}

Test(convert_cg, callgrind_same_bytes_on_any_thread_count)
{
	size_t len;
	char *text = gaps_text(&len);
	buf out[3];
	for (uint32_t k = 0; k < 3; k++) {
		/* 1: the caller alone; 2, 3: a second thread beside it */
		profdb *db = open_threads(text, len, k + 1);
		out[k] = convert(db, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
		profdb_close(db);
	}
	for (uint32_t k = 1; k < 3; k++)
		cr_assert(out[k].len == out[0].len && !memcmp(out[k].p, out[0].p, out[0].len),
		          "%u threads", k + 1);
	cr_assert_gt(out[0].len, (size_t)GAP_BIG_ROWS * 8, "the long function is there");
	/* read back: the same rows, call edges and jumps */
	profdb *a = open_text(text, len), *c = open_text(out[0].p, out[0].len);
	uint64_t ra, rc;
	cr_assert_eq(row_sum(a, &ra), row_sum(c, &rc));
	cr_assert_eq(ra, rc);
	cr_assert_gt(ra, GAP_BIG_ROWS);
	cr_assert_eq(jump_sum(a), jump_sum(c));
	static char ea[1 << 16], ec[1 << 16];
	edges_of(a, 0, ea, sizeof ea);
	edges_of(c, 0, ec, sizeof ec);
	cr_assert_str_eq(ea, ec);
	for (uint32_t e = 0; e < 2; e++)
		cr_assert_eq(fn_self(a, 0, "f1234", e), fn_self(c, 0, "f1234", e));
	/* the function after the long one goes on from its last position:
	 * its jump's source, in effect, is not written again (its id after
	 * those of f0..f1234 and of the two callees f0 in /lib/o1.so and
	 * /lib/o2.so, functions other than /lib/o0.so's f0) */
	cr_assert(strstr((char *)out[0].p, "\nfn=(1238) f1235\njump=1236 0x24d3 1235\n* *\n0x5d30 "),
	          "from the long one's last position");
	profdb_close(c);
	profdb_close(a);
	for (uint32_t k = 0; k < 3; k++)
		free(out[k].p);
	free(text);
}

/* The progress as told: (done, total) per call. */
typedef struct told {
	uint64_t done[16], total[16];
	int n;
} told;

static int record_progress(uint64_t done, uint64_t total, void *userdata)
{
	told *t = userdata;
	if (t->n < 16) {
		t->done[t->n] = done;
		t->total[t->n] = total;
	}
	t->n++;
	return 0;
}

/* The progress of a conversion of many functions, each written in two
 * profiles: told after every 256th function (0, 256, ...), with the
 * function count, whatever number of functions the writer formats at a
 * time. */
Test(convert_cg, callgrind_progress_every_256_functions)
{
	size_t len;
	char *text = many_functions(&len);
	profdb *a = open_text(text, len);
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	uint32_t two[] = {2, 0};
	o.format = PROFDB_CONVERT_CALLGRIND;
	o.profiles = two;
	o.n_profiles = 2;
	told t = {{0}, {0}, 0};
	o.progress = record_progress;
	o.progress_userdata = &t;
	buf b = {0};
	cr_assert_eq(profdb_convert(a, &o, to_buf, &b), 0, "%s", profdb_error_message());
	cr_assert_eq(t.n, (int)((MANY_FNS + 255) / 256));
	for (int i = 0; i < t.n; i++)
		cr_assert(t.done[i] == (uint64_t)i * 256 && t.total[i] == MANY_FNS,
		          "call %d: %" PRIu64 " of %" PRIu64, i, t.done[i], t.total[i]);
	free(b.p);
	profdb_close(a);
	free(text);
}

/* A progress callback that counts its calls and asks to stop at the
 * stop-th. */
typedef struct stopper {
	int calls, stop;
} stopper;

static int stop_at_call(uint64_t done, uint64_t total, void *userdata)
{
	(void)done, (void)total;
	stopper *s = userdata;
	return ++s->calls == s->stop;
}

/* A write error or a cancel in the middle: the records decoded ahead are
 * dropped (the ASan build checks that they are freed), the error is
 * returned. */
Test(convert_cg, callgrind_stops_in_the_middle)
{
	size_t len;
	char *text = many_functions(&len);
	profdb *a = open_text(text, len);
	/* the writes the whole output takes (64 KiB each, the last one less):
	 * each of the first ones fails in turn */
	buf whole = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	int writes = (int)((whole.len + 65535) / 65536);
	free(whole.p);
	cr_assert_geq(writes, 2);
	for (int k = 1; k < writes && k <= 3; k++) {
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		o.format = PROFDB_CONVERT_CALLGRIND;
		buf b = {0};
		b.fail_after = k;
		cr_assert_eq(profdb_convert(a, &o, to_buf, &b), -EIO, "write %d fails", k);
		free(b.p);
	}
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	stopper st = {0, 3};
	o.format = PROFDB_CONVERT_CALLGRIND;
	o.progress = stop_at_call;
	o.progress_userdata = &st;
	buf b = {0};
	cr_assert_eq(profdb_convert(a, &o, to_buf, &b), -ECANCELED);
	cr_assert_eq(st.calls, 3);
	free(b.p);
	profdb_close(a);
	free(text);
}

/* A function whose text changed after the open (the input is borrowed)
 * no longer adds up to its self cost: the conversion stops with the
 * decoder's error and message, on one thread or two (the function is
 * then decoded on either), and frees what was made ahead. */
Test(convert_cg, callgrind_stops_at_a_function_that_fails_to_decode)
{
	size_t len;
	char *text = many_functions(&len);
	char *at = strstr(text, "\n1010 1 1000\n");   /* function 1000, part 1: Dr 1000 */
	cr_assert(at);
	for (uint32_t threads = 1; threads <= 2; threads++) {
		profdb *db = open_threads(text, len, threads);
		at[8] = '9';
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		o.format = PROFDB_CONVERT_CALLGRIND;
		buf b = {0};
		cr_assert_eq(profdb_convert(db, &o, to_buf, &b), -EBADMSG, "%u threads", threads);
		const char *msg = profdb_error_message();
		cr_assert(strstr(msg, "function 1000:") && strstr(msg, "inconsistent profile"), "%s", msg);
		cr_assert(b.len > 0 && !strstr((char *)b.p, "fn=(1001) f1000\n"), "written up to it");
		at[8] = '1';
		free(b.p);
		profdb_close(db);
	}
	free(text);
}

Test(convert_cg, callgrind_one_event_and_write_error)
{
	profdb *a = open_text(two_parts, sizeof two_parts - 1);
	uint32_t dr = 1;
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, &dr, 1);
	cr_assert(strstr((char *)b.p, "\nevents: Dr\n"));
	cr_assert(strstr((char *)b.p, "\ntotals: 32\n"), "%s", b.p);
	free(b.p);
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = PROFDB_CONVERT_CALLGRIND;
	buf e = {0};
	e.fail_after = 1;
	cr_assert_eq(profdb_convert(a, &o, to_buf, &e), -EIO, "the callback's error comes back");
	o.format = PROFDB_CONVERT_PPROF;
	o.separate = 1;
	cr_assert_eq(profdb_convert(a, &o, to_buf, &e), -EINVAL, "pprof has no parts");
	free(e.p);
	profdb_close(a);
}

/* ---- a protobuf reader, enough for profile.proto ---------------------------- */

typedef struct pbr {
	const unsigned char *p, *end;
} pbr;

static uint64_t rd_varint(pbr *r)
{
	uint64_t v = 0;
	for (unsigned s = 0; s < 64; s += 7) {
		cr_assert_lt(r->p, r->end, "varint runs past its message");
		unsigned char c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	cr_assert_fail("varint longer than 10 bytes");
	return 0;
}

/* The next field: its number, wire type, and a varint value or a slice. */
static int rd_field(pbr *r, uint32_t *field, uint64_t *v, pbr *sub)
{
	if (r->p == r->end)
		return 0;
	uint64_t key = rd_varint(r);
	*field = (uint32_t)(key >> 3);
	switch (key & 7) {
	case 0: *v = rd_varint(r); return 1;
	case 2:
		*v = rd_varint(r);
		cr_assert_leq(*v, (uint64_t)(r->end - r->p));
		sub->p = r->p;
		sub->end = r->p + *v;
		r->p += *v;
		return 2;
	default: cr_assert_fail("wire type %u", (unsigned)(key & 7)); return 0;
	}
}

typedef struct prof {
	size_t n_types, n_samples, n_strings;
	uint64_t sums[8];
	char strings[64][96];
	uint64_t fn_name[64];           /* function id -> name index */
	uint64_t loc_fn[256];           /* location id -> function id */
	uint64_t stacks[64][16];        /* first samples' location ids */
	size_t depth[64];
	uint64_t values[64][16];        /* first samples' values */
	size_t n_values[64];
	uint64_t default_type;
} prof;

static void decode(const unsigned char *data, size_t len, prof *out)
{
	memset(out, 0, sizeof *out);
	pbr r = {data, data + len}, s;
	uint32_t f;
	uint64_t v;
	int k;
	while ((k = rd_field(&r, &f, &v, &s))) {
		if (f == 1 && k == 2) {
			out->n_types++;
		} else if (f == 2 && k == 2) {
			pbr t;
			uint32_t g;
			size_t nv = 0, ns = out->n_samples++;
			while (rd_field(&s, &g, &v, &t)) {
				while (t.p < t.end) {
					uint64_t x = rd_varint(&t);
					if (g == 2 && ns < 64 && out->n_values[ns] < 16)
						out->values[ns][out->n_values[ns]++] = x;
					if (g == 2 && nv < 8)
						out->sums[nv++] += x;
					if (g == 1 && ns < 64 && out->depth[ns] < 16)
						out->stacks[ns][out->depth[ns]++] = x;
				}
			}
		} else if (f == 4 && k == 2) {
			pbr t, u;
			uint32_t g;
			uint64_t id = 0, fn = 0;
			while (rd_field(&s, &g, &v, &t) ) {
				if (g == 1)
					id = v;
				if (g == 4)
					while (rd_field(&t, &g, &v, &u))
						fn = g == 1 ? v : fn;
			}
			cr_assert(id > 0 && id < 256);
			out->loc_fn[id] = fn;
		} else if (f == 5 && k == 2) {
			pbr t;
			uint32_t g;
			uint64_t id = 0, name = 0;
			while (rd_field(&s, &g, &v, &t))
				id = g == 1 ? v : id, name = g == 2 ? v : name;
			cr_assert(id > 0 && id < 64);
			out->fn_name[id] = name;
		} else if (f == 6 && k == 2) {
			cr_assert_lt(out->n_strings, 64);
			size_t l = (size_t)(s.end - s.p) < 95 ? (size_t)(s.end - s.p) : 95;
			memcpy(out->strings[out->n_strings++], s.p, l);
		} else if (f == 14) {
			out->default_type = v;
		}
	}
}

/* The function name of location @p loc. */
static const char *loc_name(const prof *p, uint64_t loc)
{
	cr_assert(loc > 0 && loc < 256 && p->loc_fn[loc], "location %" PRIu64 " is defined", loc);
	uint64_t fn = p->loc_fn[loc];
	cr_assert(fn < 64 && p->fn_name[fn] < p->n_strings);
	return p->strings[p->fn_name[fn]];
}

static unsigned char *gunzip(const unsigned char *data, size_t len, size_t *out_len)
{
#ifdef PROFDB_HAVE_ZLIB
	cr_assert(len > 2 && data[0] == 0x1f && data[1] == 0x8b, "gzip magic");
	size_t cap = (size_t)16 << 20;
	unsigned char *out = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof z);
	cr_assert_eq(inflateInit2(&z, 31), Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	inflateEnd(&z);
	return out;
#else
	cr_assert(len == 0 || data[0] != 0x1f, "without zlib the protobuf is plain");
	unsigned char *out = malloc(len + 1);
	memcpy(out, data, len);
	*out_len = len;
	return out;
#endif
}

Test(convert_cg, pprof_of_callgrind)
{
	profdb *a = open_text(two_parts, sizeof two_parts - 1);
	buf b = convert(a, PROFDB_CONVERT_PPROF, 0, NULL, 0);
	size_t n;
	unsigned char *pb = gunzip(b.p, b.len, &n);
	prof p;
	decode(pb, n, &p);
	cr_assert_eq(p.n_types, 2);
	cr_assert_str_eq(p.strings[0], "", "the string table starts with \"\"");
	cr_assert_eq(p.sums[0], 126, "Ir over both parts");
	cr_assert_eq(p.sums[1], 32);
	cr_assert_str_eq(p.strings[p.default_type], "Ir");
	for (size_t s = 0; s < p.n_samples && s < 64; s++) {
		/* the context table's shape: every function under the root, so a
		 * stack is the one function whose self cost it carries, under the
		 * program root */
		cr_assert_eq(p.depth[s], 2);
		cr_assert_str_eq(loc_name(&p, p.stacks[s][1]), "<program root>");
	}
	free(pb);
	free(b.p);
	profdb_close(a);
}

/* A pprof output of several compression chunks (lib/convert/protobuf.c
 * compresses each on a thread of its own while the next one fills): the
 * samples all arrive, and the bytes are those of one deflate over the
 * whole message, so how the stream was cut does not show. */
/* The samples of a profile.proto: how many, the sums of their first two
 * values. */
static void sample_sums(const unsigned char *data, size_t len, size_t *n, uint64_t sums[2])
{
	pbr r = {data, data + len}, s, t;
	uint32_t f, g;
	uint64_t v;
	int k;
	*n = 0;
	sums[0] = sums[1] = 0;
	while ((k = rd_field(&r, &f, &v, &s)))
		if (f == 2 && k == 2) {
			++*n;
			while (rd_field(&s, &g, &v, &t))
				for (size_t nv = 0; g == 2 && t.p < t.end; nv++) {
					uint64_t x = rd_varint(&t);
					if (nv < 2)
						sums[nv] += x;
				}
		}
}

/* More functions than the lines decoded ahead: every line's sample, in
 * the order of the functions, the same bytes each time. */
Test(convert_cg, pprof_many_functions)
{
	size_t len;
	char *text = many_functions(&len);
	profdb *a = open_text(text, len);
	/* Ir only: Dr has costs past pprof's int64 */
	uint32_t ir = 0;
	buf b = convert(a, PROFDB_CONVERT_PPROF, 0, &ir, 1);
	size_t n, ns;
	uint64_t sums[2];
	unsigned char *pb = gunzip(b.p, b.len, &n);
	sample_sums(pb, n, &ns, sums);
	cr_assert_eq(ns, 2 * MANY_FNS, "two lines per function");
	cr_assert_eq(sums[0], 3 * MANY_FNS * MANY_PARTS);
	cr_assert_eq(sums[1], 0, "one value per sample");
	buf b2 = convert(a, PROFDB_CONVERT_PPROF, 0, &ir, 1);
	cr_assert(b.len == b2.len && !memcmp(b.p, b2.p, b.len));
	free(b2.p);
	/* one thread (the functions of one identity known before the first
	 * sample), and four (known after a few, on a thread of their own; the
	 * lines decoded ahead of the writer, and the compressor) */
	for (uint32_t threads = 1; threads <= 4; threads += 3) {
		profdb *t = open_threads(text, len, threads);
		buf bt = convert(t, PROFDB_CONVERT_PPROF, 0, &ir, 1);
		cr_assert(b.len == bt.len && !memcmp(b.p, bt.p, b.len), "%u threads", threads);
		free(bt.p);
		profdb_close(t);
	}
	free(pb);
	free(b.p);
	profdb_close(a);
	free(text);
}

/* A cancel at the second progress call (function 1024 of 1500) while the
 * walk that marks the functions of one identity may still run beside the
 * writer (two threads) or after it ran (one): -ECANCELED, the walk ended
 * and its memory freed (the ASan build checks). */
Test(convert_cg, pprof_cancels_in_the_middle)
{
	size_t len;
	char *text = many_functions(&len);
	uint32_t ir = 0;
	for (uint32_t threads = 1; threads <= 2; threads++) {
		profdb *db = open_threads(text, len, threads);
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		stopper st = {0, 2};
		o.format = PROFDB_CONVERT_PPROF;
		o.metrics = &ir;
		o.n_metrics = 1;
		o.progress = stop_at_call;
		o.progress_userdata = &st;
		buf b = {0};
		cr_assert_eq(profdb_convert(db, &o, to_buf, &b), -ECANCELED, "%u threads", threads);
		cr_assert_eq(st.calls, 2);
		cr_assert(strstr(profdb_error_message(), "cancelled"), "%s", profdb_error_message());
		free(b.p);
		profdb_close(db);
	}
	free(text);
}

/* A protobuf of more chunks (256 KiB) than wait for the compressing
 * thread at once (8): the gzip stream is one deflate over the whole
 * message, compressed on the converting thread (@p threads 1) or beside
 * it (2). */
static void pprof_in_chunks(uint32_t threads)
{
	enum { LINES = 200000 };
	size_t cap = 64 + (size_t)LINES * 24, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text, cap, "# callgrind format\nversion: 1\npositions: line\nevents: Ir\nfn=(1) main\n");
	uint64_t want = 0;
	for (unsigned i = 1; i <= LINES; i++) {
		len += (size_t)snprintf(text + len, cap - len, "%u %u\n", i, 1000 + i);
		want += 1000 + i;
	}
	profdb *a = open_threads(text, len, threads);
	buf b = convert(a, PROFDB_CONVERT_PPROF, 0, NULL, 0);
#ifdef PROFDB_HAVE_ZLIB
	size_t n = 0, at = 0;
	unsigned char *pb = gunzip(b.p, b.len, &n);
	cr_assert_gt(n, (size_t)12 << 18, "more than twelve chunks of 256 KiB: %zu bytes", n);
	size_t samples = 0;
	uint64_t sum = 0;
	pbr r = {pb, pb + n}, s, t;
	uint32_t f, g;
	uint64_t v;
	while (rd_field(&r, &f, &v, &s))
		if (f == 2) {
			samples++;
			while (rd_field(&s, &g, &v, &t))
				while (g == 2 && t.p < t.end)
					sum += rd_varint(&t);
		}
	cr_assert_eq(samples, LINES, "a sample per line");
	cr_assert_eq(sum, want, "Ir over every line");
	/* the deflater's bytes, as the writer's stream sets it up, over the
	 * message cut every PROFDB__PBZ_CHUNK bytes */
	profdb__gzo *gz = profdb__gzo_new();
	cr_assert(gz);
	unsigned char *one = NULL;
	size_t zcap = 0;
	for (size_t k = 0; k < n; k += PROFDB__PBZ_CHUNK) {
		size_t piece = n - k < PROFDB__PBZ_CHUNK ? n - k : PROFDB__PBZ_CHUNK;
		cr_assert_eq(profdb__gzo_put(gz, pb + k, piece, k + piece == n, &one, &at, &zcap), 0);
	}
	profdb__gzo_free(gz);
	cr_assert(at == b.len && memcmp(one, b.p, at) == 0, "the stream is the deflater's");
	free(one);
	free(pb);
#else
	cr_assert_gt(b.len, (size_t)3 << 20, "the plain protobuf");
#endif
	free(b.p);
	free(text);
	profdb_close(a);
}

Test(convert_cg, pprof_in_chunks_compressed_here) { pprof_in_chunks(1); }
Test(convert_cg, pprof_in_chunks_compressed_beside) { pprof_in_chunks(2); }

#ifdef PROFDB_HAVE_ZLIB
/* The gzip member of the pprof stream, its input cut into pieces of 1,
 * 4093, 256 Ki and 3 Mi bytes with empty ones between: it inflates to the
 * input, and every cut gives the bytes of the input in one piece (so the
 * output does not depend on the threads); no input at all is a member of
 * nothing. */
static buf gzo_in_pieces(const unsigned char *in, size_t n, size_t piece)
{
	profdb__gzo *g = profdb__gzo_new();
	cr_assert(g);
	buf b = {0};
	for (size_t at = 0; at < n; at += piece) {
		size_t k = n - at < piece ? n - at : piece;
		cr_assert_eq(profdb__gzo_put(g, in + at, k, 0, &b.p, &b.len, &b.cap), 0);
		cr_assert_eq(profdb__gzo_put(g, in, 0, 0, &b.p, &b.len, &b.cap), 0);
	}
	cr_assert_eq(profdb__gzo_put(g, NULL, 0, 1, &b.p, &b.len, &b.cap), 0);
	profdb__gzo_free(g);
	return b;
}

/* The next of a xorshift generator's numbers: test inputs that are the
 * same on every run. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

Test(convert_cg, gzip_member_in_pieces)
{
	size_t n = (size_t)3 << 20;
	unsigned char *in = malloc(n);
	uint64_t x = 88172645463325252u;
	for (size_t i = 0; i < n; i++) {   /* compressible: a few symbols, runs */
		next_random(&x);
		in[i] = (unsigned char)(x % 5 || !i ? 'a' + x % 7 : in[i / 2]);
	}
	const size_t pieces[] = {1, 4093, (size_t)256 << 10, n};
	for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
		size_t len = k ? n : 100000, back;
		buf b = gzo_in_pieces(in, len, pieces[k]), whole = gzo_in_pieces(in, len, len);
		cr_assert_lt(b.len, len * 2 / 3, "compressed: %zu of %zu bytes", b.len, len);
		unsigned char *plain = gunzip(b.p, b.len, &back);
		cr_assert(back == len && !memcmp(plain, in, len), "pieces of %zu bytes inflate", pieces[k]);
		cr_assert(b.len == whole.len && !memcmp(b.p, whole.p, b.len), "pieces of %zu bytes", pieces[k]);
		free(plain);
		free(whole.p);
		free(b.p);
	}
	buf none = gzo_in_pieces(in, 0, 1);
	size_t back;
	unsigned char *plain = gunzip(none.p, none.len, &back);
	cr_assert_eq(back, 0, "a member of nothing");
	free(plain);
	free(none.p);
	free(in);
}

/* Code lengths: deflate's limit of 15 bits holds for counts that would
 * make a deeper code (the Fibonacci numbers: Huffman's code is 29 bits
 * deep for 30 of them), each code is complete (Kraft's sum is 1), a
 * symbol more frequent than another never has a longer code, and counts
 * with room to spare keep Huffman's lengths. */
static void check_lengths(const uint32_t *freq, unsigned n, unsigned limit, const uint8_t *len)
{
	uint64_t kraft = 0;
	for (unsigned i = 0; i < n; i++) {
		cr_assert_eq(len[i] != 0, freq[i] != 0, "symbol %u", i);
		cr_assert_leq(len[i], limit, "symbol %u: %u bits", i, len[i]);
		if (len[i])
			kraft += (uint64_t)1 << (limit - len[i]);
		for (unsigned j = 0; j < n; j++)
			if (freq[i] > freq[j] && freq[j])
				cr_assert_leq(len[i], len[j], "symbols %u and %u", i, j);
	}
	cr_assert_eq(kraft, (uint64_t)1 << limit, "a complete code");
}

Test(convert_cg, gzip_code_lengths)
{
	uint32_t fib[30];
	uint8_t len[30];
	for (unsigned i = 0; i < 30; i++)
		fib[i] = i < 2 ? 1 : fib[i - 1] + fib[i - 2];
	profdb__gzo_code_lengths(fib, 30, 15, len);
	check_lengths(fib, 30, 15, len);
	profdb__gzo_code_lengths(fib, 19, 7, len);   /* the code-length code's limit */
	check_lengths(fib, 19, 7, len);
	const uint32_t easy[4] = {10, 5, 3, 2};   /* Huffman: 1, 2, 3, 3 */
	profdb__gzo_code_lengths(easy, 4, 15, len);
	cr_assert(len[0] == 1 && len[1] == 2 && len[2] == 3 && len[3] == 3, "%u %u %u %u", len[0],
	          len[1], len[2], len[3]);
	const uint32_t one[3] = {0, 7, 0};   /* one symbol: a second gets a length */
	profdb__gzo_code_lengths(one, 3, 15, len);
	cr_assert(len[1] == 1 && len[0] + len[2] == 1, "%u %u %u", len[0], len[1], len[2]);
}

/* Inputs that reach the deflater's edges, each whole and in pieces of
 * 65 543 bytes: random bytes (no match: every block all literals,
 * slightly larger than its input), zeros (matches of 258 bytes one byte
 * back), and bytes whose counts follow the Fibonacci numbers in random
 * order (a Huffman code deeper than deflate's 15 bits, which the
 * deflater must shorten). Each inflates, its trailer checked, to the
 * input. */
Test(convert_cg, gzip_member_of_edge_inputs)
{
	size_t n = (size_t)1 << 20;
	unsigned char *in = malloc(n);
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int kind = 0; kind < 3; kind++) {
		size_t len = n;
		if (kind == 0) {
			for (size_t i = 0; i < n; i++)
				in[i] = (unsigned char)(next_random(&x) >> 56);
		} else if (kind == 1) {
			memset(in, 0, n);
		} else {   /* 25 symbols, counts 1, 1, 2, 3, 5, ...: 196 417 bytes */
			len = 0;
			for (size_t a = 1, b = 1, s = 0; s < 25; s++, b += a, a = b - a)
				for (size_t k = 0; k < a; k++)
					in[len++] = (unsigned char)('A' + s);
			for (size_t i = len; i-- > 1;) {   /* shuffled */
				size_t j = (size_t)(next_random(&x) % (i + 1));
				unsigned char t = in[i];
				in[i] = in[j], in[j] = t;
			}
		}
		buf whole = gzo_in_pieces(in, len, len), cut = gzo_in_pieces(in, len, 65543);
		size_t back;
		unsigned char *plain = gunzip(whole.p, whole.len, &back);
		cr_assert(back == len && !memcmp(plain, in, len), "input %d inflates", kind);
		cr_assert(cut.len == whole.len && !memcmp(cut.p, whole.p, whole.len), "input %d cut", kind);
		if (kind == 0)
			cr_assert_lt(whole.len, len + len / 100, "random bytes: %zu", whole.len);
		else
			cr_assert_lt(whole.len, len / 2, "input %d: %zu bytes of %zu", kind, whole.len, len);
		free(plain);
		free(whole.p);
		free(cut.p);
	}
	free(in);
}
#endif

/* The threads a conversion runs follow the open's profdb_options.threads:
 * 1 runs none beside the caller; 2 lets the Callgrind writer decode ahead;
 * 3 lets pprof compress beside the caller and decode ahead. Counted from
 * inside the write callback, while the helpers run. */
typedef struct counting {
	buf b;
	int most;            /* the process's threads, at most, during the writes */
} counting;

static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	cr_assert(d, "/proc/self/task");
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int to_buf_counting(const void *data, size_t len, void *userdata)
{
	counting *c = userdata;
	int n = task_count();
	c->most = n > c->most ? n : c->most;
	return to_buf(data, len, &c->b);
}

/* The most threads beside the caller's while @p text converts to @p f
 * from a handle opened with @p threads. */
static int helpers_seen(const char *text, size_t len, uint32_t threads, profdb_convert_format f)
{
	profdb *db = open_threads(text, len, threads);
	int base = task_count();   /* (the open's scan threads have ended) */
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = f;
	uint32_t ir = 0;
	o.metrics = &ir;   /* Ir: the many functions' Dr passes pprof's int64 */
	o.n_metrics = 1;
	counting c = {{0}, 0};
	int r = profdb_convert(db, &o, to_buf_counting, &c);
	cr_assert_eq(r, 0, "convert: %d %s", r, profdb_error_message());
	cr_assert_gt(c.b.len, 0);
	free(c.b.p);
	profdb_close(db);
	return c.most - base;
}

Test(convert_cg, helper_threads_follow_the_open_option)
{
	enum { LINES = 60000 };   /* pprof: several chunks of 256 KiB */
	size_t cap = 64 + (size_t)LINES * 24, len = 0, many_len;
	char *chunks = malloc(cap);
	cr_assert(chunks);
	len += (size_t)snprintf(chunks, cap, "# callgrind format\nversion: 1\npositions: line\n"
	                        "events: Ir\nfn=(1) main\n");
	for (unsigned i = 1; i <= LINES; i++)
		len += (size_t)snprintf(chunks + len, cap - len, "%u %u\n", i, 1000 + i);
	char *many = many_functions(&many_len);
	cr_assert_eq(helpers_seen(chunks, len, 1, PROFDB_CONVERT_PPROF), 0);
	cr_assert_eq(helpers_seen(many, many_len, 1, PROFDB_CONVERT_PPROF), 0);
	cr_assert_eq(helpers_seen(many, many_len, 1, PROFDB_CONVERT_CALLGRIND), 0);
	/* The decoding thread ends once it has claimed the last function, and
	 * runs at most a ring of functions (1024) ahead of the writer: with
	 * 20 000 functions of about 25 bytes of output each, it is still there
	 * at the first 64 KiB write, however the two threads are scheduled. */
	enum { FNS = 20000 };
	size_t fcap = 64 + (size_t)FNS * 32, flen = 0;
	char *fns = malloc(fcap);
	cr_assert(fns);
	flen += (size_t)snprintf(fns, fcap, "events: Ir\n");
	for (unsigned i = 1; i <= FNS; i++)
		flen += (size_t)snprintf(fns + flen, fcap - flen, "fn=(%u) f%u\n1 %u\n", i, i, i);
	cr_assert_eq(helpers_seen(fns, flen, 1, PROFDB_CONVERT_CALLGRIND), 0);
	cr_assert_eq(helpers_seen(fns, flen, 2, PROFDB_CONVERT_CALLGRIND), 1, "decoding ahead");
	/* pprof: the walk that marks the functions of one identity, then the
	 * compressor, never both at once */
	cr_assert_leq(helpers_seen(fns, flen, 2, PROFDB_CONVERT_PPROF), 1);
	free(fns);
#ifdef PROFDB_HAVE_ZLIB
	cr_assert_eq(helpers_seen(chunks, len, 2, PROFDB_CONVERT_PPROF), 1, "the compressor");
#endif
	free(many);
	free(chunks);
}

/* Samples of 16 events: a packed field of values whose encoding needs
 * a two-byte length (16 nine-byte varints), one of mixed lengths, and one
 * mostly zero (a cost line with fewer costs than events); the locations'
 * field is short. Every value comes back in its event's place. */
Test(convert_cg, pprof_long_sample_values)
{
	enum { NE = 16 };
	char text[2048];
	size_t len = (size_t)snprintf(text, sizeof text, "# callgrind format\nversion: 1\n"
	                              "positions: line\nevents:");
	for (int e = 0; e < NE; e++)
		len += (size_t)snprintf(text + len, sizeof text - len, " E%d", e);
	len += (size_t)snprintf(text + len, sizeof text - len, "\nfn=(1) main\n1");
	uint64_t want[3][NE] = {{0}};
	for (int e = 0; e < NE; e++) {
		want[0][e] = ((uint64_t)1 << 62) + (uint64_t)e;
		want[1][e] = (uint64_t)e * 100;
		len += (size_t)snprintf(text + len, sizeof text - len, " %" PRIu64, want[0][e]);
	}
	len += (size_t)snprintf(text + len, sizeof text - len, "\n2");
	for (int e = 0; e < NE; e++)
		len += (size_t)snprintf(text + len, sizeof text - len, " %" PRIu64, want[1][e]);
	want[2][0] = 1;
	len += (size_t)snprintf(text + len, sizeof text - len, "\n3 1\n");
	cr_assert_lt(len, sizeof text);
	profdb *a = open_text(text, len);
	buf b = convert(a, PROFDB_CONVERT_PPROF, 0, NULL, 0);
	size_t n;
	unsigned char *pb = gunzip(b.p, b.len, &n);
	prof p;
	decode(pb, n, &p);
	cr_assert_eq(p.n_samples, 3, "a sample per line");
	for (size_t k = 0; k < 3; k++) {
		cr_assert_eq(p.n_values[k], NE, "a value per event");
		for (size_t e = 0; e < NE; e++)
			cr_assert_eq(p.values[k][e], want[k][e], "sample %zu, event %zu", k, e);
	}
	free(pb);
	free(b.p);
	profdb_close(a);
}

/* One profile, the events asked for in their order or another: a
 * sample's values follow the order asked for (a line's costs go to the
 * writer as stored only when they are in that order). */
Test(convert_cg, pprof_events_in_any_order)
{
	static const char one[] = "# callgrind format\nversion: 1\npositions: line\n"
	                          "events: Ir Dr\nfn=(1) main\n1 5 7\n2 3\n";
	profdb *a = open_text(one, sizeof one - 1);
	uint32_t order[2][2] = {{0, 1}, {1, 0}};
	uint64_t want[2][2] = {{8, 7}, {7, 8}};
	for (int k = 0; k < 2; k++) {
		buf b = convert(a, PROFDB_CONVERT_PPROF, 0, order[k], 2);
		size_t n, ns;
		uint64_t sums[2];
		unsigned char *pb = gunzip(b.p, b.len, &n);
		sample_sums(pb, n, &ns, sums);
		cr_assert_eq(ns, 2, "a sample per line");
		cr_assert_eq(sums[0], want[k][0], "order %d: the first event's sum", k);
		cr_assert_eq(sums[1], want[k][1], "order %d: the second event's sum", k);
		free(pb);
		free(b.p);
	}
	profdb_close(a);
}

/* The instructions of a line share its location, so their costs are one
 * sample, summed, as long as the sum fits int64: two instructions of 2^62
 * each on line 3 are two samples (the second with the next one's 1 added),
 * while line 1's two instructions are one. The same samples with one
 * thread and with the compressor beside. */
Test(convert_cg, pprof_one_sample_per_line_within_int64)
{
	static const char text[] = "# callgrind format\nversion: 1\npositions: instr line\n"
	                           "events: Ir\nfn=(1) main\n"
	                           "0x10 1 5\n0x14 1 7\n0x18 2 3\n"
	                           "0x20 3 4611686018427387904\n0x24 3 4611686018427387904\n"
	                           "0x28 3 1\n";
	static const uint64_t want[] = {12, 3, (uint64_t)1 << 62, ((uint64_t)1 << 62) + 1};
	for (uint32_t threads = 1; threads <= 2; threads++) {
		profdb *a = open_threads(text, sizeof text - 1, threads);
		buf b = convert(a, PROFDB_CONVERT_PPROF, 0, NULL, 0);
		size_t n;
		unsigned char *pb = gunzip(b.p, b.len, &n);
		prof p;
		decode(pb, n, &p);
		cr_assert_eq(p.n_samples, 4, "threads %u: one sample per line, two for line 3", threads);
		for (size_t k = 0; k < 4; k++) {
			cr_assert_eq(p.n_values[k], 1);
			cr_assert_eq(p.values[k][0], want[k], "threads %u, sample %zu", threads, k);
		}
		cr_assert_eq(p.stacks[2][0], p.stacks[3][0], "line 3's location in both");
		cr_assert_neq(p.stacks[0][0], p.stacks[1][0]);
		free(pb);
		free(b.p);
		profdb_close(a);
	}
}

/* A self cost past int64 (pprof's values are signed) in the second event
 * of a line, after a line of zeros and one that fits: the conversion
 * stops with -ERANGE naming that event. */
Test(convert_cg, pprof_cost_past_int64)
{
	static const char big[] = "# callgrind format\nversion: 1\npositions: line\n"
	                          "events: Ir Dr\nfn=(1) main\n1 0 0\n2 5 7\n"
	                          "3 1 9223372036854775808\n";
	profdb *a = open_text(big, sizeof big - 1);
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = PROFDB_CONVERT_PPROF;
	buf b = {0};
	cr_assert_eq(profdb_convert(a, &o, to_buf, &b), -ERANGE);
	cr_assert(strstr(profdb_error_message(), "metric 'Dr'"), "%s", profdb_error_message());
	cr_assert(strstr(profdb_error_message(), "9223372036854775808"), "%s",
	          profdb_error_message());
	free(b.p);
	profdb_close(a);
}

/* ---- the protobuf stream (lib/convert/protobuf.c) ------------------------------- */

/* A varint as protobuf encodes it, appended at *at. */
static void ref_varint(unsigned char **at, uint64_t v)
{
	while (v >= 0x80) {
		*(*at)++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*(*at)++ = (unsigned char)v;
}

/* Field 2 of a top-level message holding packed fields 1 (@p a) and 2
 * (@p b), encoded the plain way: each part whole before its length. */
static void ref_packed2(unsigned char **at, const uint64_t *a, size_t na, const uint64_t *b,
                        size_t nb, unsigned char *tmp)
{
	unsigned char *m = tmp;
	const uint64_t *v[2] = {a, b};
	size_t n[2] = {na, nb};
	for (unsigned f = 0; f < 2; f++) {
		if (!n[f])
			continue;
		unsigned char vals[10 * 512], *e = vals;
		cr_assert_leq(n[f], 512);
		for (size_t i = 0; i < n[f]; i++)
			ref_varint(&e, v[f][i]);
		ref_varint(&m, (uint64_t)(f + 1) << 3 | 2);
		ref_varint(&m, (uint64_t)(e - vals));
		memcpy(m, vals, (size_t)(e - vals));
		m += e - vals;
	}
	ref_varint(at, 2 << 3 | 2);
	ref_varint(at, (uint64_t)(m - tmp));
	memcpy(*at, tmp, (size_t)(m - tmp));
	*at += m - tmp;
}

/* Samples of every length from a few bytes to a few hundred (values of
 * one to ten bytes; no locations, or no values), over several chunks
 * (256 KiB): those that fit the chunk's room go in place, those that
 * straddle its end through a message. A sample with more values than a
 * chunk has bytes goes through a message whatever the room. The stream
 * holds the plain encoding of each, in order, compressed (@p threaded:
 * beside the caller) or not. @p hold: the compressing thread is held back
 * for the first half of the samples, whose chunks the caller compresses
 * (none runs meanwhile). The compressed bytes go to *@p keep (NULL: freed). */
static void packed2_stream(int threaded, int hold, buf *keep)
{
	enum { SAMPLES = 60000, HUGE = 300000 };
	size_t cap = (size_t)SAMPLES * 500 + 64, len = 0;
	unsigned char *want = malloc(cap), tmp[2 * 10 * 512 + 16];
	uint64_t *huge = malloc(HUGE * sizeof *huge);
	cr_assert(want && huge);
	buf got = {0};
	profdb__cv_out *o = malloc(sizeof *o);
	cr_assert(o);
	profdb__cv_init(o, to_buf, &got);
	profdb__pbs s;
	profdb__pbm m = {0};
	cr_assert_eq(profdb__pbs_init(&s, o, threaded), 0);
	int base = task_count();
	profdb__pbs_hold_thread(&s, hold);
	uint64_t seed = UINT64_C(88172645463325252), a[8], b[40];
	for (unsigned i = 0; i < SAMPLES; i++) {
		if (hold && i == SAMPLES / 2) {
			cr_assert_gt(got.len, (size_t)4 << 18, "chunks compressed while held");
			cr_assert_eq(task_count(), base, "no compressing thread while held");
			profdb__pbs_hold_thread(&s, 0);
		}
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		size_t na = i % 7 == 3 ? 0 : 1 + seed % 8, nb = i % 11 == 5 ? 0 : seed >> 8 & 31;
		if (i % 1000 == 999)
			nb = 40;   /* a values field longer than 127 bytes */
		for (size_t k = 0; k < na; k++)
			a[k] = (seed >> (k * 5)) & 0xffff;
		for (size_t k = 0; k < nb; k++)
			b[k] = i % 1000 == 999 ? UINT64_MAX - k : (seed * (k + 1)) >> (seed >> 20 & 63);
		unsigned char *at = want + len;
		ref_packed2(&at, a, na, b, nb, tmp);
		len = (size_t)(at - want);
		profdb__pbs_packed2(&s, 2, a, na, b, nb, &m);
	}
	for (size_t k = 0; k < HUGE; k++)
		huge[k] = k * 977;
	profdb__pbs_packed2(&s, 2, huge, HUGE, NULL, 0, &m);
#ifdef PROFDB_HAVE_ZLIB
	cr_assert_eq(task_count() - base, threaded, "the compressing thread, once released");
#endif
	cr_assert_eq(profdb__pbs_finish(&s), 0, "%s", profdb_error_message());
	profdb__cv_flush(o);
	profdb__pbs_free(&s);
	cr_assert_eq(m.err, 0);
	size_t n;
	unsigned char *pb = gunzip(got.p, got.len, &n);
	cr_assert_gt(n, len, "the huge sample follows");
	cr_assert_eq(memcmp(pb, want, len), 0, "the samples' bytes are the plain encoding's");
	pbr r = {pb + len, pb + n}, t, u;
	uint32_t f, g;
	uint64_t v;
	cr_assert_eq(rd_field(&r, &f, &v, &t), 2);
	cr_assert_eq(f, 2);
	cr_assert_eq(rd_field(&t, &g, &v, &u), 2);
	cr_assert_eq(g, 1);
	for (size_t k = 0; k < HUGE; k++)
		cr_assert_eq(rd_varint(&u), k * 977, "huge value %zu", k);
	cr_assert(u.p == u.end && t.p == t.end && r.p == r.end, "nothing after the huge sample");
	profdb__pbm_free(&m);
	free(pb);
	if (keep)
		*keep = got;
	else
		free(got.p);
	free(o);
	free(huge);
	free(want);
}

Test(convert_cg, pprof_samples_in_place_or_through_a_message) { packed2_stream(0, 0, NULL); }
Test(convert_cg, pprof_samples_in_place_compressed_beside) { packed2_stream(1, 0, NULL); }

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
/* A compressed stream of a few bytes holds one chunk (256 KiB, beside
 * the deflater's 128 KiB hash table), not the ring's eight: the others
 * are allocated as the stream reaches them. */
Test(convert_cg, pprof_small_stream_holds_one_chunk)
{
	buf got = {0};
	profdb__cv_out *o = malloc(sizeof *o);
	cr_assert(o);
	profdb__cv_init(o, to_buf, &got);
	struct mallinfo2 a = mallinfo2();
	profdb__pbs s;
	cr_assert_eq(profdb__pbs_init(&s, o, 1), 0);
	profdb__pbs_put(&s, "profile", 7);
	struct mallinfo2 b = mallinfo2();
	size_t grew = b.hblkhd + b.uordblks - (a.hblkhd + a.uordblks);
	if (grew == 0)
		cr_skip_test("an allocator that mallinfo2() does not see (a sanitizer's)");
	cr_assert_lt(grew, (size_t)1 << 20, "%zu bytes for a stream of 7", grew);
	cr_assert_eq(profdb__pbs_finish(&s), 0, "%s", profdb_error_message());
	profdb__cv_flush(o);
	profdb__pbs_free(&s);
	size_t n;
	unsigned char *pb = gunzip(got.p, got.len, &n);
	cr_assert(n == 7 && memcmp(pb, "profile", 7) == 0, "the bytes put");
	free(pb);
	free(got.p);
	free(o);
}
#endif

/* Chunks compressed here while the thread is held back, beside after:
 * the bytes of the stream compressed beside from the start. */
Test(convert_cg, pprof_samples_compressed_here_then_beside)
{
	buf held, beside;
	packed2_stream(1, 1, &held);
	packed2_stream(1, 0, &beside);
	cr_assert(held.len == beside.len && !memcmp(held.p, beside.p, held.len), "the same bytes");
	free(held.p);
	free(beside.p);
}

/* ---- the tree formats ------------------------------------------------------------- */

#ifdef HAVE_TEST_WRITER
/* The writer's HPCToolkit sample (tests/writer/writer.h), CPUTIME summed
 * over profiles 1 and 2: the inclusive scope less the children's gives
 * main 1.5 s (at its instruction), compute 3 s, helper 0.5 s (inlined, in
 * util.h), memcpy 0.25 s, the anonymous function 0.125 s: 5.375 s. */
static profdb *hpctk_sample(char *dir)
{
	cr_assert(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	return db;
}

static void rm_dir(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(convert_cg, hpctoolkit_to_callgrind)
{
	char dir[] = "/tmp/profdb-convert-cg-XXXXXX";
	profdb *db = hpctk_sample(dir);
	buf b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	const char *t = (const char *)b.p;
	cr_assert(strstr(t, "\nevents: CPUTIME_ns cycles\n"), "%s", t);
	cr_assert(strstr(t, "event: CPUTIME_ns : CPUTIME (sec) [metric 0], in nanoseconds (x 1e+09"));
	cr_assert(strstr(t, "\ntotals: 5375000000 6144\n"), "%s", t);
	profdb *c = open_text(b.p, b.len);
	cr_assert_eq(fn_self(c, 0, "main", 0), 1500000000);
	cr_assert_eq(fn_self(c, 0, "compute", 0), 3000000000);
	cr_assert_eq(fn_self(c, 0, "compute", 1), 6144);
	cr_assert_eq(fn_self(c, 0, "helper", 0), 500000000);
	cr_assert_eq(fn_self(c, 0, "memcpy", 0), 250000000);
	cr_assert_eq(fn_self(c, 0, "<unknown function> libc.so.6+0x2000", 0), 125000000,
	             "unnamed: named as the stack writers name it");
	char e[1024];
	edges_of(c, 0, e, sizeof e);
	cr_assert(strstr(e, "main>compute:1:3750000000;"), "calls=1 per call path: %s", e);
	cr_assert(strstr(e, "compute>helper:1:500000000;"), "%s", e);
	cr_assert(strstr(e, "<main thread>>main:1:5250000000;"), "%s", e);
	profdb_close(c);
	free(b.p);
	/* one part per profile: profile 2 alone */
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	uint32_t two = 2, cpu = 2;
	o.format = PROFDB_CONVERT_CALLGRIND;
	o.separate = 1;
	o.profiles = &two;
	o.n_profiles = 1;
	o.metrics = &cpu;
	o.n_metrics = 1;
	buf s = {0};
	cr_assert_eq(profdb_convert(db, &o, to_buf, &s), 0, "%s", profdb_error_message());
	cr_assert(strstr((char *)s.p, "\npart: 3\n"));
	cr_assert(strstr((char *)s.p, "\ntotals: 1625000000\n"), "1.5 + 0.125 s: %s", s.p);
	free(s.p);
	profdb_close(db);
	rm_dir(dir);
}

/* The writer's sample database in a new folder @p dir, its functions
 * renamed where @p names has a name (NULL: the sample's), opened. */
static profdb *sample_named(char *dir, const char *const names[8])
{
	cr_assert(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	tw_function fns[8];
	cr_assert_leq(d.n_functions, 8);
	memcpy(fns, d.functions, d.n_functions * sizeof *fns);
	for (size_t i = 0; i < d.n_functions; i++)
		if (names[i])
			fns[i].name = names[i];
	d.functions = fns;
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	return db;
}

/* A name with line breaks stays on its line: each '\r' and '\n' is a
 * blank (lib/convert/callgrind.c, put_line_text), first, last, side by
 * side or alone. */
Test(convert_cg, callgrind_names_with_line_breaks)
{
	char dir[] = "/tmp/profdb-convert-cg-XXXXXX";
	static const char *const names[8] = {NULL, "\ncom\r\npu\rte\n" /* compute */, "helper\r"};
	profdb *db = sample_named(dir, names);
	buf b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	const char *t = (const char *)b.p;
	cr_assert(strstr(t, ")  com  pu te \n"), "%s", t);
	cr_assert(strstr(t, ") helper \n"), "%s", t);
	cr_assert_null(strchr(t, '\r'));
	profdb *c = open_text(b.p, b.len);   /* (a name read back is trimmed) */
	cr_assert_eq(fn_self(c, 0, "com  pu te", 0), 3000000000);
	cr_assert_eq(fn_self(c, 0, "helper", 0), 500000000);
	profdb_close(c);
	free(b.p);
	profdb_close(db);
	rm_dir(dir);
}

/* From a tree format too, a function is its module and its name: the
 * sample's memcpy (libc) renamed compute, the name of a function of the
 * program, takes an id of its own, and both read back apart. */
Test(convert_cg, hpctoolkit_namesakes_in_two_modules)
{
	char dir[] = "/tmp/profdb-convert-cg-XXXXXX";
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_str_eq(d.functions[3].name, "memcpy");
	cr_assert_str_eq(d.functions[1].name, "compute");
	cr_assert_neq(d.functions[3].module, d.functions[1].module);
	static const char *const names[8] = {[3] = "compute"};
	profdb *db = sample_named(dir, names);
	buf b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	const char *t = (const char *)b.p;
	int named;
	cr_assert_eq(fn_ids_bound_elsewhere(t, "compute", &named), 0, "%s", t);
	cr_assert_eq(named, 2, "%s", t);
	profdb *c = open_text(b.p, b.len);
	static char fc[4096];
	functions_of(c, fc, sizeof fc);
	cr_assert(strstr(fc, "compute [/usr/bin/sample] "), "%s", fc);
	cr_assert(strstr(fc, "compute [/lib/x86_64-linux-gnu/libc.so.6] "), "%s", fc);
	profdb_close(c);
	free(b.p);
	profdb_close(db);
	rm_dir(dir);
}

/* The sample database with every stored value times @p factor. */
static profdb *scaled_sample(char *dir, double factor)
{
	cr_assert(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	tw_profile pr[16];
	tw_value vals[16][64];
	cr_assert_leq(d.n_profiles, 16);
	for (size_t p = 0; p < d.n_profiles; p++) {
		pr[p] = d.profiles[p];
		cr_assert_leq(pr[p].n_values, 64);
		for (size_t v = 0; v < pr[p].n_values; v++) {
			vals[p][v] = pr[p].values[v];
			vals[p][v].value *= factor;
		}
		pr[p].values = vals[p];
	}
	d.profiles = pr;
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	return db;
}

/* Stored values that add up past 2^64 - 1 where each fits: Callgrind's
 * nanoseconds (CPUTIME x 4e9: 1.5 s -> 6e18 ns, 5.375 s in all), in one
 * part and over a part per profile; a number that does not fit is
 * refused, not cut. */
Test(convert_cg, costs_past_2_64_in_total_are_refused)
{
	char dir[] = "/tmp/profdb-convert-big-XXXXXX";
	profdb *db = scaled_sample(dir, 4e9);
	uint32_t cpu = 0;
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = PROFDB_CONVERT_CALLGRIND;
	o.metrics = &cpu;
	o.n_metrics = 1;
	buf b = {0};
	int r = profdb_convert(db, &o, to_buf, &b);
	cr_assert_eq(r, -ERANGE, "%d %s\n%s", r, profdb_error_message(), b.p ? (char *)b.p : "");
	cr_assert(strstr(profdb_error_message(), "2^64"), "%s", profdb_error_message());
	free(b.p);
	/* a part per profile: each part's total fits (1.5e19 and 6.5e18 ns),
	 * their sum does not */
	o.separate = 1;
	buf c = {0};
	r = profdb_convert(db, &o, to_buf, &c);
	cr_assert_eq(r, -ERANGE, "%d %s\n%s", r, profdb_error_message(), c.p ? (char *)c.p : "");
	cr_assert(strstr(profdb_error_message(), "over the parts together"), "%s",
	          profdb_error_message());
	cr_assert(strstr((char *)c.p, "\npart: 3\n"), "%s", c.p);
	free(c.p);
	profdb_close(db);
	rm_dir(dir);
}

Test(convert_cg, hpctoolkit_to_pprof)
{
	char dir[] = "/tmp/profdb-convert-pp-XXXXXX";
	profdb *db = hpctk_sample(dir);
	buf b = convert(db, PROFDB_CONVERT_PPROF, 0, NULL, 0);
	size_t n;
	unsigned char *pb = gunzip(b.p, b.len, &n);
	prof p;
	decode(pb, n, &p);
	cr_assert_eq(p.n_types, 2);
	cr_assert_eq(p.sums[0], 5375000000, "pprof total = profdb's, in ns");
	cr_assert_eq(p.sums[1], 6144);
	cr_assert_eq(p.n_samples, 5, "one sample per context with a self cost");
	int seen_helper = 0;
	for (size_t s = 0; s < p.n_samples; s++) {
		if (strcmp(loc_name(&p, p.stacks[s][0]), "helper"))
			continue;
		seen_helper = 1;
		cr_assert_eq(p.depth[s], 4, "helper < compute < main < main thread");
		cr_assert_str_eq(loc_name(&p, p.stacks[s][1]), "compute");
		cr_assert_str_eq(loc_name(&p, p.stacks[s][2]), "main");
		cr_assert_str_eq(loc_name(&p, p.stacks[s][3]), "<main thread>");
	}
	cr_assert(seen_helper);
	free(pb);
	free(b.p);
	profdb_close(db);
	rm_dir(dir);
}

static int stop_at_second(uint64_t done, uint64_t total, void *userdata)
{
	(void)total;
	++*(int *)userdata;
	return done >= 1;
}

Test(convert_cg, progress_cancels)
{
	char dir[] = "/tmp/profdb-convert-pc-XXXXXX";
	profdb *db = hpctk_sample(dir);
	for (int f = PROFDB_CONVERT_CALLGRIND; f <= PROFDB_CONVERT_PPROF; f++) {
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		int calls = 0;
		o.format = (profdb_convert_format)f;
		o.progress = stop_at_second;
		o.progress_userdata = &calls;
		buf b = {0};
		cr_assert_eq(profdb_convert(db, &o, to_buf, &b), -ECANCELED, "format %d", f);
		cr_assert_eq(calls, 2, "asked once per profile until it said stop");
		free(b.p);
	}
	profdb_close(db);
	rm_dir(dir);
}

#ifdef PROFDB_HAVE_CUBE
Test(convert_cg, cube_refusals)
{
	tw_blob t;
	memset(&t, 0, sizeof t);
	cr_assert_eq(tw_cube_write(&t, 0, NULL), 0);
	profdb *db = tc_open_mem("sample.cubex", t.data, t.size);
	uint32_t ok[64];
	size_t n_ok = 0;
	for (int64_t i = 0; i < profdb_metric_count(db); i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &m), 0);
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		o.format = PROFDB_CONVERT_CALLGRIND;
		o.metrics = &m.id;
		o.n_metrics = 1;
		buf b = {0};
		int r = profdb_convert(db, &o, to_buf, &b);
		if (m.combine == PROFDB_COMBINE_MIN || m.combine == PROFDB_COMBINE_MAX) {
			cr_assert_eq(r, -ENOTSUP, "%.*s", (int)m.name.len, m.name.ptr);
			cr_assert(strstr(profdb_error_message(), "only sum metrics convert"));
		} else if (m.combine == PROFDB_COMBINE_SUM && m.has_data && r < 0) {
			cr_assert_eq(r, -ENOTSUP);
			cr_assert(strstr(profdb_error_message(), "negative"), "%s", profdb_error_message());
		} else if (r == 0 && n_ok < 64) {
			ok[n_ok++] = m.id;
		}
		free(b.p);
	}
	cr_assert_gt(n_ok, 0);
	/* Cube's visits become the call counts */
	buf b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, ok, n_ok);
	cr_assert(strstr((char *)b.p, "\ncalls="));
	cr_assert_null(strstr((char *)b.p, "\ncalls=1 "), "counts from visits: %s", b.p);
	free(b.p);
	profdb_close(db);
	tw_blob_free(&t);
}
#endif
#endif /* HAVE_TEST_WRITER */

TC_MAIN

/* Written from the records (a derived event: its values are not in the
 * text), a cost line ends at its last visible cost that is not 0 (the
 * writer finds it from the bits the decoder keeps per row, for the first
 * 32 events, else from the costs): rows of zeros in the visible events
 * are left out, a derived event counts, and past 32 events the costs
 * tell. */
Test(convert_cg, callgrind_trailing_zero_costs)
{
	static const char text[] = "event: S = A + B\nevents: A B C\nfn=(1) main\n"
	                           "1 1 0 0\n2 0 0 3\n3 0 0 0\n4 0 2\n5 7\n6 0 0 0\n6 0 5 0\n";
	profdb *db = open_text(text, sizeof text - 1);
	buf b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	cr_assert(strstr((char *)b.p, "fn=(1) main\n1 1 0 0 1\n+1 0 0 3\n+2 0 2 0 2\n+1 7 0 0 7\n"
	                              "+1 0 5 0 5\ntotals: 8 7 3 15\n"), "%s", b.p);
	free(b.p);
	static const uint32_t s_a[] = {3, 0};   /* S, A: C hidden, B's costs only in S */
	b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, s_a, 2);
	cr_assert(strstr((char *)b.p, "fn=(1) main\n1 1 1\n+3 2\n+1 7 7\n+1 5\ntotals: 15 8\n"), "%s",
	          b.p);
	free(b.p);
	profdb_close(db);

	char many[512];
	int n = snprintf(many, sizeof many, "event: S = E0\nevents:");
	for (int e = 0; e < 34; e++)
		n += snprintf(many + n, sizeof many - (size_t)n, " E%d", e);
	n += snprintf(many + n, sizeof many - (size_t)n, "\nfn=f\n1 1\n2");
	for (int e = 0; e < 33; e++)
		n += snprintf(many + n, sizeof many - (size_t)n, " 0");
	n += snprintf(many + n, sizeof many - (size_t)n, " 5\n");
	db = open_text(many, (size_t)n);
	b = convert(db, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
	cr_assert(strstr((char *)b.p, "\n+1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	                              "0 0 0 0 0 0 0 0 0 0 0 5\n"), "%s", b.p);
	free(b.p);
	profdb_close(db);
}

/* Where the output reads a function's text back as the input does (its
 * part's positions and columns are the output's in order, a '\n' ends
 * each line, relative positions are decimal, costs are of the fast
 * reader's kind), its lines are copied as they stand, in the text's
 * order; any other function is written from its records, merged and
 * ordered by line. Either way the output reads back with the same rows. */
Test(convert_cg, callgrind_lines_copied_where_they_read_back_the_same)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		/* copied: the order, a repeated position, zero costs, blanks */
		{"events: Ir Dr\nfl=a.c\nfn=main\n5 1 0\n3 2\n3 0 0\n+1 0 4 \n",
		 "fn=(1) main\n5 1 0\n3 2\n3 0 0\n+1 0 4 \ntotals: 3 4\n"},
		{"events: Ir\nfl=a.c\nfn=main\n5 1\ncfn=f\ncalls=1 9\n+1 2\nfn=f\n9 2\n",
		 "fn=(1) main\n5 1\ncfn=(2) f\ncalls=1 0\n+1 2\nfn=(2)\n+3 2\n"},
		/* a relative position in hex (callgrind_annotate reads "+0x2" as +0),
		 * also on a call's cost line */
		{"events: Ir\nfl=a.c\nfn=main\n5 1\n+0x2 2\n", "fn=(1) main\n5 1\n+2 2\n"},
		{"events: Ir\nfl=a.c\nfn=main\n5 1\ncfn=f\ncalls=1 9\n+0x1 2\nfn=f\n9 2\n",
		 "fn=(1) main\n5 1\ncfn=(2) f\ncalls=1 0\n+1 2\n"},
		/* a call's cost line ended by CR, or with a cost in hex */
		{"events: Ir\nfl=a.c\nfn=main\n5 1\ncfn=f\ncalls=1 9\n6 2\r\nfn=f\n9 2\n",
		 "fn=(1) main\n5 1\ncfn=(2) f\ncalls=1 0\n+1 2\n"},
		{"events: Ir\nfl=a.c\nfn=main\n5 1\ncfn=f\ncalls=1 9\n6 0x2\nfn=f\n9 2\n",
		 "fn=(1) main\n5 1\ncfn=(2) f\ncalls=1 0\n+1 2\n"},
		/* CR line ends; no '\n' at the end; a cost in hex */
		{"events: Ir\r\nfl=a.c\nfn=main\r\n5 1\r\n3 2\r\n", "fn=(1) main\n3 2\n+2 1\n"},
		{"events: Ir\nfl=a.c\nfn=main\n5 1\n3 2", "fn=(1) main\n3 2\n+2 1\n"},
		{"events: Ir\nfl=a.c\nfn=main\n5 1\n3 0x2\n", "fn=(1) main\n3 2\n+2 1\n"},
		/* positions the output does not have: instr only */
		{"positions: instr\nevents: Ir\nfl=a.c\nfn=main\n0x5 1\n0x3 2\n", "fn=(1) main\n0x3 0 2\n+2 * 1\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		profdb *a = open_text(cases[i].text, strlen(cases[i].text));
		buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, NULL, 0);
		cr_assert(strstr((char *)b.p, cases[i].want), "case %zu: %s", i, b.p);
		profdb *c = open_text(b.p, b.len);
		uint64_t ra, rc;
		cr_assert_eq(row_sum(a, &ra), row_sum(c, &rc), "case %zu", i);
		cr_assert_eq(ra, rc);
		cr_assert_eq(fn_self(a, 0, "main", 0), fn_self(c, 0, "main", 0));
		profdb_close(c);
		free(b.p);
		profdb_close(a);
	}
	/* columns chosen (-m) that are not the input's in order */
	profdb *a = open_text(cases[0].text, strlen(cases[0].text));
	static const uint32_t dr_ir[] = {1, 0};
	buf b = convert(a, PROFDB_CONVERT_CALLGRIND, 0, dr_ir, 2);
	cr_assert(strstr((char *)b.p, "fn=(1) main\n3 0 2\n+1 4\n+1 0 1\ntotals: 4 3\n"), "%s", b.p);
	free(b.p);
	profdb_close(a);
}
