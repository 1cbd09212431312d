/* Unit tests of the HPCToolkit 4.0 reader on databases produced by the test
 * writer (tests/writer): the documented sample in every layout variant,
 * edge-case databases, and hand-corrupted copies that must fail with
 * specific errors. Expected content is transcribed from writer.h. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "writer.h"
#include "hpctk-views.h"

/* A profdb_str equal to a C string (length included). */
#define ASSERT_STR(s, lit)                                                             \
	cr_assert((s).len == strlen(lit) && memcmp((s).ptr, (lit), (s).len) == 0,          \
	          "\"%.*s\" is not \"%s\"", (int)(s).len, (s).ptr, (lit))

#define N(a) (sizeof(a) / sizeof *(a))
#define T0 TW_SAMPLE_T0

/* ---- a written database, opened from exact-size private copies --------------- */

typedef struct gen {
	unsigned char *file[PROFDB_HPCTK_NFILES];
	size_t size[PROFDB_HPCTK_NFILES];
	profdb_hpctk *db;
	int warnings;
	char warning[512];
} gen;

static void on_warn(const char *msg, void *ud)
{
	gen *g = ud;
	g->warnings++;
	snprintf(g->warning, sizeof g->warning, "%s", msg);
}

static void gen_write(gen *g, const tw_hpctk4 *d)
{
	tw_blob out[TW_NFILES];
	memset(g, 0, sizeof *g);
	int r = tw_hpctk4_write(d, out);
	cr_assert_eq(r, 0, "writer failed: %d", r);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		if (!out[f].data)
			continue;
		g->file[f] = malloc(out[f].size);
		cr_assert(g->file[f]);
		memcpy(g->file[f], out[f].data, out[f].size);
		g->size[f] = out[f].size;
		tw_blob_free(&out[f]);
	}
}

/* Open the generated files with @p flags, warnings into @p g. */
static int gen_open_flags(gen *g, uint32_t flags)
{
	profdb_input blobs[PROFDB_HPCTK_NFILES];
	profdb_options o = {.size = sizeof o, .flags = flags, .warn = on_warn, .warn_userdata = g};
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		blobs[f] = (profdb_input){NULL, g->file[f], g->size[f]};
	g->db = (profdb_hpctk *)1;
	int r = profdb_hpctk_open_mem(&g->db, blobs, &o);
	if (r < 0)
		cr_assert_null(g->db);
	return r;
}

static int gen_open(gen *g)
{
	return gen_open_flags(g, 0);
}

static void gen_free(gen *g)
{
	profdb_hpctk_close(g->db);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		free(g->file[f]);
	memset(g, 0, sizeof *g);
}

/* The sample, written with layout switches, opened. */
static void sample(gen *g, int devstage, int unaligned, uint8_t extra, uint8_t minor,
                   int no_cct, int no_trace)
{
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	d.devstage = devstage;
	d.unaligned = unaligned;
	d.extra = extra;
	d.minor = minor;
	d.no_cct = no_cct;
	d.no_trace = no_trace;
	gen_write(g, &d);
	cr_assert_eq(gen_open(g), 0, "open: %s", profdb_error_message());
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)rd64((const unsigned char[8]){p[0], p[1], p[2], p[3]});
}

static void wr64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static void wr32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static void wr16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static void expect_error(int r, int code, const char *file, const char *needle)
{
	const char *msg = profdb_error_message();
	cr_assert_eq(r, code, "expected %d (%s), got %d: %s", code, strerror(-code), r, msg);
	cr_assert(strstr(msg, file), "message does not name %s: %s", file, msg);
	if (needle)
		cr_assert(strstr(msg, needle), "message lacks \"%s\": %s", needle, msg);
}

/* ---- the documented sample ------------------------------------------------------ */

typedef struct ectx {
	uint32_t id, parent, depth;
	uint8_t rel, lex;
	uint32_t function, file, line, module;
	uint64_t offset;
	uint16_t prop;
} ectx;

#define NO PROFDB_NONE
/* Walk (pre-)order; entry points 1 and 15 are listed with relation ENTRY. */
static const ectx ctxs[] = {
	{1, 0, 1, PROFDB_REL_ENTRY, PROFDB_LEX_ENTRY, NO, NO, 0, NO, 0, 0},
	{2, 1, 2, 1, 0, 0, NO, 0, NO, 0, 0},
	{3, 2, 3, 0, 1, NO, 0, 12, 0, 0x1140, 1},
	{4, 3, 4, 0, 2, NO, 0, 13, NO, 0, 1},
	{5, 4, 5, 0, 3, NO, NO, 0, 0, 0x1158, 1},
	{7, 5, 6, 1, 0, 1, NO, 0, NO, 0, 0},
	{8, 7, 7, 0, 2, NO, 0, 32, NO, 0, 1},
	{9, 8, 8, 2, 0, 2, NO, 0, NO, 0, 0},
	{10, 9, 9, 0, 2, NO, 1, 6, NO, 0, 1},
	{12, 7, 7, 0, 1, NO, 0, 40, NO, 0, 1},
	{13, 12, 8, 0, 3, NO, NO, 0, 0, 0x1248, 1},
	{14, 13, 9, 1, 0, 3, NO, 0, NO, 0, 0},
	{15, 0, 1, PROFDB_REL_ENTRY, PROFDB_LEX_ENTRY, NO, NO, 0, NO, 0, 0},
	{16, 15, 2, 1, 0, 4, NO, 0, NO, 0, 0},
};

typedef struct eval {
	uint32_t ctx;
	uint16_t metric;
	double v;
} eval;

static const eval prof1[] = {
	{0, 2, 3.75}, {0, 3, 4096}, {1, 2, 3.75}, {2, 1, 1}, {2, 2, 3.75}, {3, 1, 1}, {3, 2, 3.75},
	{4, 1, 1}, {4, 2, 3.75}, {5, 0, 1}, {5, 1, 1}, {5, 2, 3.75}, {7, 1, 2}, {7, 2, 2.75},
	{8, 2, 0.5}, {9, 1, 0.5}, {9, 2, 0.5}, {10, 1, 0.5}, {10, 2, 0.5}, {11, 0, 0.5}, {11, 1, 0.5},
	{11, 2, 0.5}, {12, 1, 2}, {12, 2, 2.25}, {13, 0, 2}, {13, 1, 2}, {13, 2, 2.25}, {13, 3, 4096},
	{13, 4, 4096}, {14, 0, 0.25}, {14, 1, 0.25}, {14, 2, 0.25},
};
static const eval prof2[] = {
	{0, 2, 1.625}, {0, 3, 2048}, {1, 2, 1.5}, {2, 1, 0.5}, {2, 2, 1.5}, {3, 1, 0.5}, {3, 2, 1.5},
	{4, 1, 0.5}, {4, 2, 1.5}, {5, 0, 0.5}, {5, 1, 0.5}, {5, 2, 1.5}, {7, 1, 1}, {7, 2, 1},
	{12, 1, 1}, {12, 2, 1}, {13, 0, 1}, {13, 1, 1}, {13, 2, 1}, {13, 3, 2048}, {13, 4, 2048},
	{15, 2, 0.125}, {16, 0, 0.125}, {16, 1, 0.125}, {16, 2, 0.125},
};
static const eval prof0[] = {
	{0, 2, 5.375}, {0, 3, 6144}, {0, 4, 4096}, {1, 2, 5.25}, {2, 1, 1.5}, {2, 2, 5.25},
	{3, 1, 1.5}, {3, 2, 5.25}, {4, 1, 1.5}, {4, 2, 5.25}, {5, 0, 1.5}, {5, 1, 1.5}, {5, 2, 5.25},
	{7, 1, 3}, {7, 2, 3.75}, {8, 2, 0.5}, {9, 1, 0.5}, {9, 2, 0.5}, {10, 1, 0.5}, {10, 2, 0.5},
	{11, 0, 0.5}, {11, 1, 0.5}, {11, 2, 0.5}, {12, 1, 3}, {12, 2, 3.25}, {13, 0, 3}, {13, 1, 3},
	{13, 2, 3.25}, {13, 3, 6144}, {13, 4, 4096}, {13, 5, 6144}, {14, 0, 0.25}, {14, 1, 0.25},
	{14, 2, 0.25}, {15, 2, 0.125}, {16, 0, 0.125}, {16, 1, 0.125}, {16, 2, 0.125},
};

static void check_values(const profdb_hpctk *db, uint32_t profile, const eval *e, size_t n,
                         uint32_t n_ctx, int with_cct)
{
	tv_plane pl;
	profdb_hpctk_profile p;
	cr_assert_eq(profdb_hpctk_profile_at(db, profile, &p), 0);
	cr_assert_eq(p.n_values, n);
	cr_assert_eq(p.n_contexts, n_ctx);
	cr_assert_eq(tv_profile_plane(db, profile, &pl), 0, "%s", profdb_error_message());
	cr_assert(pl.values.count == n && pl.index.count == n_ctx);
	for (size_t i = 0; i < n; i++) {
		double v;
		cr_assert_eq(profdb_hpctk_value(db, profile, e[i].ctx, e[i].metric, &v), 1,
		             "profile %u ctx %u metric %u", profile, e[i].ctx, e[i].metric);
		cr_assert(v == e[i].v);
		if (with_cct) {
			cr_assert_eq(profdb_hpctk_value_cct(db, profile, e[i].ctx, e[i].metric, &v), 1);
			cr_assert(v == e[i].v);
		}
	}
	/* Plane order: contexts ascending, metrics ascending within. */
	size_t k = 0;
	for (uint64_t j = 0; j < pl.index.count; j++) {
		uint32_t ctx, metric;
		profdb_view run;
		double v;
		cr_assert_eq(tv_plane_at(&pl, j, &ctx, &run), 0);
		for (uint64_t m = 0; m < run.count; m++, k++) {
			cr_assert_eq(tv_run_at(&run, m, &metric, &v), 0);
			cr_assert(ctx == e[k].ctx && metric == e[k].metric && v == e[k].v);
		}
	}
	cr_assert_eq(k, n);
	double v;
	cr_assert_eq(profdb_hpctk_value(db, profile, 6, 0, &v), 0); /* unused id */
	cr_assert_eq(profdb_hpctk_value(db, profile, 99, 0, &v), 0);
	/* Metric id 9 stores nothing here; 999 is not one meta.db defines (an
	 * id meta.db does not define was 0 before 0.9). */
	v = 1;
	int r = profdb_hpctk_value(db, profile, 0, 9, &v);
	cr_assert((r == 0 || r == -ENOENT) && v == 0, "value(0, 9) = %d", r);
	v = 1;
	/* Without meta.db every id is accepted. */
	int want = profdb_hpctk_has(db, PROFDB_HPCTK_META) == 1 ? -ENOENT : 0;
	r = profdb_hpctk_value(db, profile, 0, 999, &v);
	cr_assert_eq(r, want, "value(0, 999) = %d: %s", r, profdb_error_message());
	cr_assert_eq(v, 0);
}

static void check_sample(const profdb_hpctk *db, int devstage, int no_cct, int no_trace)
{
	profdb_str s, d;
	cr_assert_eq(profdb_hpctk_get_layout(db), devstage ? PROFDB_HPCTK_DEVSTAGE : PROFDB_HPCTK_FINAL);
	cr_assert_eq(profdb_hpctk_title(db, &s, &d), 0);
	ASSERT_STR(s, "profdb sample");
	ASSERT_STR(d, "Hand-made HPCToolkit 4.0 test database (profdb tests/writer).");
	cr_assert_eq(profdb_hpctk_id_kind_count(db), 8);
	cr_assert_eq(profdb_hpctk_id_kind_at(db, 3, &s), 0);
	ASSERT_STR(s, "THREAD");
	cr_assert_eq(profdb_hpctk_id_kind_at(db, 7, &s), 0);
	ASSERT_STR(s, "CORE");

	/* Metrics. */
	cr_assert_eq(profdb_hpctk_metric_count(db), 2);
	profdb_hpctk_metric m;
	profdb_hpctk_prop p;
	profdb_hpctk_summary su;
	cr_assert_eq(profdb_hpctk_metric_at(db, 0, &m), 0);
	ASSERT_STR(m.name, "CPUTIME (sec)");
	cr_assert(m.n_props == 3 && m.n_summaries == 3);
	static const char *const cpu_scopes[3] = {"point", "function", "execution"};
	static const uint8_t cpu_types[3] = {PROFDB_SCOPE_POINT, PROFDB_SCOPE_TRANSITIVE,
	                                     PROFDB_SCOPE_EXECUTION};
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(profdb_hpctk_metric_prop_at(db, 0, i, &p), 0);
		ASSERT_STR(p.scope, cpu_scopes[i]);
		cr_assert(p.scope_type == cpu_types[i] && p.prop_metric_id == i &&
		          p.prop_index == (i == 1 ? 0 : 255));
		cr_assert_eq(profdb_hpctk_metric_summary_at(db, 0, i, &su), 0);
		ASSERT_STR(su.scope, cpu_scopes[i]);
		ASSERT_STR(su.formula, "$$");
		cr_assert(su.combine == PROFDB_HPCTK_COMBINE_SUM && su.stat_metric_id == i);
	}
	cr_assert_eq(profdb_hpctk_metric_at(db, 1, &m), 0);
	ASSERT_STR(m.name, "cycles");
	cr_assert(m.n_props == 2 && m.n_summaries == 3);
	cr_assert_eq(profdb_hpctk_metric_prop_at(db, 1, 0, &p), 0);
	ASSERT_STR(p.scope, "execution");
	cr_assert(p.scope_type == PROFDB_SCOPE_EXECUTION && p.prop_metric_id == 3);
	cr_assert_eq(profdb_hpctk_metric_prop_at(db, 1, 1, &p), 0);
	ASSERT_STR(p.scope, "lex_aware");
	/* Dev-stage scopes are names only; an unknown name maps to UNKNOWN. */
	cr_assert_eq(p.scope_type, devstage ? PROFDB_SCOPE_UNKNOWN : PROFDB_SCOPE_CUSTOM);
	cr_assert(p.prop_metric_id == 4 && p.prop_index == 255);
	static const struct { const char *scope; uint8_t combine; uint16_t id; } cyc[3] = {
		{"execution", PROFDB_HPCTK_COMBINE_SUM, 3}, {"execution", PROFDB_HPCTK_COMBINE_MAX, 4},
		{"lex_aware", PROFDB_HPCTK_COMBINE_SUM, 5}};
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(profdb_hpctk_metric_summary_at(db, 1, i, &su), 0);
		ASSERT_STR(su.scope, cyc[i].scope);
		ASSERT_STR(su.formula, "$$");
		cr_assert(su.combine == cyc[i].combine && su.stat_metric_id == cyc[i].id);
	}
	cr_assert_eq(profdb_hpctk_metric_summary_at(db, 1, 3, &su), -ENOENT);
	cr_assert_eq(profdb_hpctk_metric_at(db, 2, &m), -ENOENT);

	/* Modules, files, functions. */
	cr_assert_eq(profdb_hpctk_module_count(db), 2);
	cr_assert_eq(profdb_hpctk_module_at(db, 1, &s), 0);
	ASSERT_STR(s, "/lib/x86_64-linux-gnu/libc.so.6");
	int copied;
	cr_assert_eq(profdb_hpctk_file_count(db), 2);
	cr_assert_eq(profdb_hpctk_file_at(db, 0, &s, &copied), 0);
	ASSERT_STR(s, "/src/sample.c");
	cr_assert(copied == 0);
	cr_assert_eq(profdb_hpctk_file_at(db, 1, &s, &copied), 0);
	ASSERT_STR(s, "src/util.h");
	cr_assert(copied == 1);
	static const struct {
		const char *name;
		uint32_t module, file;
		uint64_t offset;
		uint32_t line;
	} fns[5] = {
		{"main", 0, 0, 0x1130, 10}, {"compute", 0, 0, 0x1200, 30}, {"helper", NO, 1, 0, 5},
		{"memcpy", 1, NO, 0x9a0c0, 0}, {NULL, 1, NO, 0x2000, 0}};
	cr_assert_eq(profdb_hpctk_function_count(db), 5);
	for (uint32_t i = 0; i < 5; i++) {
		profdb_hpctk_function f;
		cr_assert_eq(profdb_hpctk_function_at(db, i, &f), 0);
		cr_assert((f.name.len == 0) == (fns[i].name == NULL));
		if (fns[i].name)
			ASSERT_STR(f.name, fns[i].name);
		cr_assert(f.module == fns[i].module && f.file == fns[i].file &&
		          f.offset == fns[i].offset && f.line == fns[i].line, "function %u", i);
	}

	/* The tree: walk order, depths, fields, parents, children. */
	cr_assert_eq(profdb_hpctk_context_count(db), 14);
	profdb_hpctk_walk *w;
	profdb_hpctk_context c;
	uint32_t depth;
	cr_assert_eq(profdb_hpctk_walk_new(&w, db), 0);
	cr_assert_eq(profdb_hpctk_walk_next(w, &c, &depth), 1);
	cr_assert(c.id == 0 && depth == 0 && c.lexical_type == PROFDB_LEX_ROOT);
	for (size_t i = 0; i < N(ctxs); i++) {
		const ectx *e = &ctxs[i];
		uint32_t parent;
		cr_assert_eq(profdb_hpctk_walk_next(w, &c, &depth), 1);
		cr_assert(c.id == e->id && depth == e->depth, "walk step %zu: id %u depth %u", i, c.id,
		          depth);
		int top = e->rel == PROFDB_REL_ENTRY;
		if (top && devstage) {
			/* Dev-stage roots are plain contexts. */
			cr_assert(c.relation == PROFDB_REL_LEXICAL && c.lexical_type == PROFDB_LEX_FUNCTION &&
			          c.entry_name.len == 0);
		} else if (top) {
			cr_assert(c.relation == PROFDB_REL_ENTRY && c.lexical_type == PROFDB_LEX_ENTRY);
			cr_assert_eq(c.entry_point, e->id == 1 ? PROFDB_ENTRY_MAIN_THREAD : PROFDB_ENTRY_UNKNOWN);
			ASSERT_STR(c.entry_name, e->id == 1 ? "main thread" : "unknown entry");
		} else {
			cr_assert(c.relation == e->rel && c.lexical_type == e->lex, "context %u", e->id);
			cr_assert(c.function == e->function && c.file == e->file && c.line == e->line &&
			          c.module == e->module && c.offset == e->offset, "context %u", e->id);
			cr_assert_eq(c.propagation, devstage ? 0 : e->prop, "context %u", e->id);
			cr_assert_eq(c.entry_name.len, 0);
		}
		cr_assert(c.pos > 0);
		profdb_hpctk_context by;
		cr_assert_eq(profdb_hpctk_context_get(db, e->id, &by), 0);
		cr_assert(by.pos == c.pos && by.function == c.function && by.relation == c.relation);
		cr_assert_eq(profdb_hpctk_context_parent(db, e->id, &parent), 0);
		cr_assert_eq(parent, e->parent);
	}
	cr_assert_eq(profdb_hpctk_walk_next(w, &c, &depth), 0);
	cr_assert_eq(profdb_hpctk_walk_next(w, &c, &depth), 0);
	profdb_hpctk_walk_free(w);
	/* Elided id 11 and unused id 6 are not nodes; the root is. */
	cr_assert_eq(profdb_hpctk_context_get(db, 11, &c), -ENOENT);
	cr_assert_eq(profdb_hpctk_context_get(db, 6, &c), -ENOENT);
	uint32_t parent;
	cr_assert_eq(profdb_hpctk_context_parent(db, 0, &parent), 0);
	cr_assert_eq(parent, PROFDB_NONE);
	/* Children of 7: 8 then 12; of the root: 1 then 15. */
	profdb_hpctk_children it;
	cr_assert_eq(profdb_hpctk_context_get(db, 7, &c), 0);
	cr_assert_eq(profdb_hpctk_children_begin(db, &c, &it), 0);
	cr_assert(profdb_hpctk_children_next(&it, &c) == 1 && c.id == 8);
	profdb_hpctk_children copy = it;   /* a copy goes on from the same child */
	cr_assert(profdb_hpctk_children_next(&it, &c) == 1 && c.id == 12);
	cr_assert_eq(profdb_hpctk_children_next(&it, &c), 0);
	cr_assert(profdb_hpctk_children_next(&copy, &c) == 1 && c.id == 12);
	cr_assert_eq(profdb_hpctk_root(db, &c), 0);
	cr_assert_eq(profdb_hpctk_children_begin(db, &c, &it), 0);
	cr_assert(profdb_hpctk_children_next(&it, &c) == 1 && c.id == 1);
	cr_assert_eq(profdb_hpctk_children_next(&it, NULL), -EINVAL);
	cr_assert(profdb_hpctk_children_next(&it, &c) == 1);
	cr_assert_eq(profdb_hpctk_children_next(&it, &c), 0);
	/* A context that is not from this database is refused, and the
	 * iterator of a failed start is refused too, as is one never started. */
	c.pos += 8;
	cr_assert_eq(profdb_hpctk_children_begin(db, &c, &it), -EINVAL);
	cr_assert_eq(profdb_hpctk_children_next(&it, &c), -EINVAL);
	profdb_hpctk_children never;
	memset(&never, 0, sizeof never);
	cr_assert_eq(profdb_hpctk_children_next(&never, &c), -EINVAL);

	/* Profiles and values. */
	cr_assert_eq(profdb_hpctk_profile_count(db), 3);
	profdb_hpctk_profile pr;
	profdb_hpctk_id id;
	cr_assert_eq(profdb_hpctk_profile_at(db, 0, &pr), 0);
	cr_assert(pr.is_summary && pr.n_ids == 0);
	for (uint32_t k = 1; k <= 2; k++) {
		cr_assert_eq(profdb_hpctk_profile_at(db, k, &pr), 0);
		cr_assert(!pr.is_summary && pr.n_ids == 2);
		cr_assert_eq(profdb_hpctk_profile_id_at(db, k, 0, &id), 0);
		cr_assert(id.kind == 1 && id.flags == 1 && id.logical_id == 0 &&
		          id.physical_id == 0x7f000101);
		cr_assert_eq(profdb_hpctk_profile_id_at(db, k, 1, &id), 0);
		cr_assert(id.kind == 3 && id.flags == 0 && id.logical_id == k - 1 &&
		          id.physical_id == k - 1);
	}
	check_values(db, 1, prof1, N(prof1), 14, !no_cct);
	check_values(db, 2, prof2, N(prof2), 11, !no_cct);
	check_values(db, 0, prof0, N(prof0), 16, 0);

	if (no_cct) {
		cr_assert_eq(profdb_hpctk_has(db, PROFDB_HPCTK_CCT), 0);
		cr_assert_eq(profdb_hpctk_cct_slot_count(db), -ENOENT);
		double v;
		cr_assert_eq(profdb_hpctk_value_cct(db, 1, 0, 2, &v), -ENOENT);
	} else {
		cr_assert_eq(profdb_hpctk_cct_slot_count(db), 17);
		uint64_t total = 0;
		for (uint32_t ctx = 0; ctx < 17; ctx++) {
			tv_plane pl;
			cr_assert_eq(tv_context_plane(db, ctx, &pl), 0);
			total += pl.values.count;
			if (ctx == 6)
				cr_assert_eq(pl.index.count, 0);
		}
		cr_assert_eq(total, N(prof1) + N(prof2));
		double v;
		/* The summary profile is not in cct.db. */
		cr_assert_eq(profdb_hpctk_value_cct(db, 0, 0, 2, &v), 0);
		cr_assert_eq(profdb_hpctk_value_cct(db, 1, 11, 0, &v), 1);
		cr_assert(v == 0.5);
	}

	/* Traces. */
	if (no_trace) {
		cr_assert_eq(profdb_hpctk_has(db, PROFDB_HPCTK_TRACE), 0);
		/* No trace.db: no trace lines (was -ENOENT before 0.9). */
		cr_assert_eq(profdb_hpctk_trace_count(db), 0);
		cr_assert_eq(profdb_hpctk_trace_line_at(db, 0, &(profdb_hpctk_trace){0}), -ENOENT);
		return;
	}
	uint64_t lo, hi;
	cr_assert_eq(profdb_hpctk_trace_bounds(db, &lo, &hi), 1);
	cr_assert(lo == T0 + 1000 && hi == T0 + 6000);
	cr_assert_eq(profdb_hpctk_trace_count(db), 2);
	profdb_hpctk_trace t;
	cr_assert_eq(profdb_hpctk_trace_line_at(db, 0, &t), 0);
	cr_assert(t.profile == 1 && t.samples.count == 6);
	static const uint32_t tctx[6] = {5, 13, 0, 14, 10, 13};
	for (uint64_t k = 0; k < 6; k++) {
		uint64_t tm;
		uint32_t cx;
		cr_assert_eq(tv_sample(&t, k, &tm, &cx), 0);
		cr_assert(tm == T0 + 1000 * (k + 1) && cx == tctx[k]);
	}
	uint64_t idx, first, last;
	cr_assert_eq(profdb_view_in_effect(&t.samples, T0 + 999, &idx), 0);
	cr_assert(profdb_view_in_effect(&t.samples, T0 + 1000, &idx) == 1 && idx == 0);
	cr_assert(profdb_view_in_effect(&t.samples, T0 + 3500, &idx) == 1 && idx == 2);
	cr_assert(profdb_view_in_effect(&t.samples, UINT64_MAX, &idx) == 1 && idx == 5);
	cr_assert_eq(profdb_view_window(&t.samples, T0 + 2000, T0 + 5000, &first, &last), 0);
	cr_assert(first == 1 && last == 4);
	cr_assert_eq(profdb_view_window(&t.samples, T0 + 5000, T0 + 2000, &first, &last), 0);
	cr_assert(first == last);
	cr_assert_eq(profdb_hpctk_trace_line_at(db, 1, &t), 0);
	cr_assert(t.profile == 2 && t.samples.count == 0 && t.samples.base == NULL);
	cr_assert_eq(profdb_hpctk_trace_line_at(db, 2, &t), -ENOENT);
}

Test(hpctk4, sample_final)
{
	gen g;
	sample(&g, 0, 0, 0, 0, 0, 0);
	check_sample(g.db, 0, 0, 0);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		uint8_t major, minor;
		cr_assert_eq(profdb_hpctk_version(g.db, (profdb_hpctk_file)f, &major, &minor), 0);
		cr_assert(major == 4 && minor == 0);
	}
	cr_assert_eq(g.warnings, 0, "warning for a 4.0 database: %s", g.warning);
	gen_free(&g);
}

Test(hpctk4, sample_extra_stride_bytes)
{
	static const uint8_t extras[] = {1, 8, 13, 200};
	for (size_t i = 0; i < N(extras); i++) {
		gen g;
		sample(&g, 0, 0, extras[i], 0, 0, 0);
		check_sample(g.db, 0, 0, 0);
		gen_free(&g);
		/* Not for dev-stage: its layout is recognised by szMetric == 24,
		 * which a grown stride changes (no such files exist). */
	}
}

Test(hpctk4, minor_version_warns)
{
	gen g;
	sample(&g, 0, 0, 16, 3, 0, 0);
	check_sample(g.db, 0, 0, 0);
	cr_assert_eq(g.warnings, 4, "one warning per file, got %d", g.warnings);
	cr_assert(strstr(g.warning, "minor") && strstr(g.warning, "trace.db"), "%s", g.warning);
	uint8_t major, minor;
	cr_assert_eq(profdb_hpctk_version(g.db, PROFDB_HPCTK_META, &major, &minor), 0);
	cr_assert(major == 4 && minor == 3);
	gen_free(&g);
	/* Without a callback nothing happens (nothing is printed). */
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	d.minor = 1;
	gen_write(&g, &d);
	profdb_input blobs[PROFDB_HPCTK_NFILES];
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		blobs[f] = (profdb_input){"named.db", g.file[f], g.size[f]};
	cr_assert_eq(profdb_hpctk_open_mem(&g.db, blobs, NULL), 0);
	check_sample(g.db, 0, 0, 0);
	gen_free(&g);
}

Test(hpctk4, sample_devstage)
{
	gen g;
	sample(&g, 1, 0, 0, 0, 0, 0);
	check_sample(g.db, 1, 0, 0);
	gen_free(&g);
	/* Layout from profile.db alone (szProfile 40). */
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	d.devstage = 1;
	gen_write(&g, &d);
	free(g.file[PROFDB_HPCTK_META]);
	g.file[PROFDB_HPCTK_META] = NULL;
	cr_assert_eq(gen_open(&g), 0);
	cr_assert_eq(profdb_hpctk_get_layout(g.db), PROFDB_HPCTK_DEVSTAGE);
	profdb_hpctk_profile p;
	cr_assert_eq(profdb_hpctk_profile_at(g.db, 0, &p), 0);
	cr_assert(p.is_summary);
	check_values(g.db, 1, prof1, N(prof1), 14, 1);
	gen_free(&g);
}

Test(hpctk4, sample_unaligned)
{
	gen g;
	sample(&g, 0, 1, 0, 0, 0, 0);
	check_sample(g.db, 0, 0, 0);
	gen_free(&g);
	sample(&g, 1, 1, 0, 2, 0, 0);
	check_sample(g.db, 1, 0, 0);
	gen_free(&g);
}

Test(hpctk4, sample_without_cct_or_trace)
{
	gen g;
	sample(&g, 0, 0, 0, 0, 1, 0);
	check_sample(g.db, 0, 1, 0);
	gen_free(&g);
	sample(&g, 0, 0, 0, 0, 0, 1);
	check_sample(g.db, 0, 0, 1);
	gen_free(&g);
	sample(&g, 0, 0, 0, 0, 1, 1);
	check_sample(g.db, 0, 1, 1);
	gen_free(&g);
}

Test(hpctk4, open_directory_and_single_files)
{
	char dir[] = "/tmp/profdb-hpctk4-XXXXXX";
	cr_assert(mkdtemp(dir));
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write_dir(&d, dir), 0);
	static const uint32_t flags[3] = {0, PROFDB_OPEN_COPY, PROFDB_OPEN_POPULATE};
	for (int i = 0; i < 3; i++) {
		profdb_options o = {.size = sizeof o, .flags = flags[i]};
		profdb_hpctk *db;
		cr_assert_eq(profdb_hpctk_open(&db, dir, &o), 0, "%s", profdb_error_message());
		check_sample(db, 0, 0, 0);
		profdb_hpctk_close(db);
	}
	char path[512];
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		profdb_hpctk *db;
		snprintf(path, sizeof path, "%s/%s", dir, tc_file_names[f]);
		cr_assert_eq(profdb_hpctk_open(&db, path, NULL), 0, "%s", profdb_error_message());
		for (int k = 0; k < PROFDB_HPCTK_NFILES; k++)
			cr_assert_eq(profdb_hpctk_has(db, (profdb_hpctk_file)k), k == f);
		profdb_hpctk_close(db);
	}
	/* A file that is not a database; an empty directory. */
	snprintf(path, sizeof path, "%s/other", dir);
	FILE *fp = fopen(path, "w");
	cr_assert(fp);
	fputs("not a database at all", fp);
	fclose(fp);
	profdb_hpctk *db;
	cr_assert_eq(profdb_hpctk_open(&db, path, NULL), -EPROTONOSUPPORT);
	unlink(path);
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		snprintf(path, sizeof path, "%s/%s", dir, tc_file_names[f]);
		unlink(path);
	}
	cr_assert_eq(profdb_hpctk_open(&db, dir, NULL), -ENOENT);
	cr_assert_null(db);
	rmdir(dir);
}

Test(hpctk4, bad_arguments)
{
	profdb_hpctk *db;
	profdb_input none[PROFDB_HPCTK_NFILES] = {{NULL, NULL, 0}};
	cr_assert_eq(profdb_hpctk_open_mem(&db, none, NULL), -ENOENT);
	cr_assert_eq(profdb_hpctk_open_mem(NULL, none, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_open_mem(&db, NULL, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_open(&db, NULL, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_context_count(NULL), -EINVAL);
	/* A NULL handle is -EINVAL (was 0 before 0.9). */
	cr_assert_eq(profdb_hpctk_has(NULL, PROFDB_HPCTK_META), -EINVAL);
	cr_assert_eq(profdb_hpctk_trace_count(NULL), -EINVAL);
	profdb_hpctk_close(NULL);
	profdb_hpctk_walk_free(NULL);

	gen g;
	sample(&g, 0, 0, 0, 0, 0, 0);
	cr_assert_eq(profdb_hpctk_has(g.db, PROFDB_HPCTK_NFILES), -EINVAL);
	cr_assert_eq(profdb_hpctk_version(g.db, PROFDB_HPCTK_NFILES, NULL, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_context_get(g.db, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_walk_new(NULL, g.db), -EINVAL);
	cr_assert_eq(tv_profile_plane(g.db, 3, &(tv_plane){0}), -ENOENT);
	cr_assert_eq(profdb_hpctk_id_kind_at(g.db, 8, &(profdb_str){0}), -ENOENT);
	cr_assert_eq(profdb_hpctk_function_at(g.db, 5, &(profdb_hpctk_function){0}), -ENOENT);
	/* Every NULL output is -EINVAL. */
	profdb_view iv, vv;
	profdb_str str;
	uint8_t u8;
	uint64_t u64;
	uint32_t u32;
	int copied;
	cr_assert_eq(profdb_hpctk_value(g.db, 1, 2, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_value_cct(g.db, 1, 2, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_profile_plane(g.db, 1, NULL, &vv), -EINVAL);
	cr_assert_eq(profdb_hpctk_profile_plane(g.db, 1, &iv, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_context_plane(g.db, 2, &iv, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_trace_line_at(g.db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_trace_bounds(g.db, &u64, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_title(g.db, &str, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_id_kind_at(g.db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_module_at(g.db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_file_at(g.db, 0, &str, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_file_at(g.db, 0, NULL, &copied), -EINVAL);
	cr_assert_eq(profdb_hpctk_metric_at(g.db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_metric_prop_at(g.db, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_metric_summary_at(g.db, 0, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_profile_at(g.db, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_profile_id_at(g.db, 1, 0, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_context_parent(g.db, 1, NULL), -EINVAL);
	cr_assert_eq(profdb_hpctk_version(g.db, PROFDB_HPCTK_META, &u8, NULL), -EINVAL);
	profdb_hpctk_walk *w;
	cr_assert_eq(profdb_hpctk_walk_new(&w, g.db), 0);
	cr_assert_eq(profdb_hpctk_walk_next(w, NULL, &u32), -EINVAL);
	cr_assert_eq(profdb_hpctk_walk_next(w, &(profdb_hpctk_context){0}, NULL), -EINVAL);
	profdb_hpctk_walk_free(w);
	gen_free(&g);
}

/* ---- edge-case databases -------------------------------------------------------- */

Test(hpctk4, empty_sections)
{
	static const tw_profile only_summary[] = {{1, 0, NULL, 0, NULL}};
	for (int devstage = 0; devstage <= 1; devstage++) {
		tw_hpctk4 d = {0};
		d.devstage = devstage;
		d.n_profiles = 1;
		d.profiles = only_summary;
		gen g;
		gen_write(&g, &d);
		cr_assert_eq(gen_open(&g), 0, "%s", profdb_error_message());
		profdb_str t, desc;
		cr_assert_eq(profdb_hpctk_title(g.db, &t, &desc), 0);
		ASSERT_STR(t, "");
		cr_assert_eq(profdb_hpctk_metric_count(g.db), 0);
		cr_assert_eq(profdb_hpctk_module_count(g.db), 0);
		cr_assert_eq(profdb_hpctk_file_count(g.db), 0);
		cr_assert_eq(profdb_hpctk_function_count(g.db), 0);
		cr_assert_eq(profdb_hpctk_context_count(g.db), 0);
		profdb_hpctk_walk *w;
		profdb_hpctk_context c;
		uint32_t depth;
		cr_assert_eq(profdb_hpctk_walk_new(&w, g.db), 0);
		cr_assert_eq(profdb_hpctk_walk_next(w, &c, &depth), 1);
		cr_assert_eq(c.id, 0);
		cr_assert_eq(profdb_hpctk_walk_next(w, &c, &depth), 0);
		profdb_hpctk_walk_free(w);
		cr_assert_eq(profdb_hpctk_profile_count(g.db), 1);
		tv_plane pl;
		cr_assert_eq(tv_profile_plane(g.db, 0, &pl), 0);
		cr_assert(pl.index.count == 0 && pl.values.count == 0);
		profdb_view run;
		cr_assert_eq(tv_plane_find(&pl, 0, &run), 0);
		cr_assert_eq(profdb_hpctk_cct_slot_count(g.db), 1);
		cr_assert_eq(tv_context_plane(g.db, 0, &pl), 0);
		cr_assert_eq(pl.index.count, 0);
		cr_assert_eq(profdb_hpctk_trace_count(g.db), 0);
		uint64_t lo, hi;
		cr_assert_eq(profdb_hpctk_trace_bounds(g.db, &lo, &hi), 0);
		tc_drive_stats st;
		tc_drive(g.db, 0, &st);
		cr_assert(st.failures == 0 && st.contexts == 0 && st.values == 0);
		gen_free(&g);
	}
}

Test(hpctk4, sparse_ids)
{
	static const tw_context cx[] = {
		{1, -1, 0, 0, -1, -1, 0, -1, 0, 0, 1, NULL},
		{70000, 0, 1, 0, -1, -1, 0, -1, 0, 0, 0, NULL},
		{2, 1, 0, 2, -1, -1, 0, -1, 0, 1, 0, NULL},
		{99999, 2, 0, 3, -1, -1, 0, -1, 0, 1, 0, NULL},
	};
	static const tw_value v1[] = {{99999, 0, 1.0}, {2, 0, 2.0}, {77777, 0, 3.0}, {0, 0, 4.0}};
	static const tw_profile profs[] = {{1, 0, NULL, 0, NULL}, {0, 0, NULL, N(v1), v1}};
	static const tw_scope sc[] = {{"point", 1, 255}};
	static const tw_propagation pp[] = {{0, 0}};
	static const tw_summary ss[] = {{0, "$$", 0, 0}};
	static const tw_metric mt[] = {{"m", 1, pp, 1, ss}};
	tw_hpctk4 d = {0};
	d.n_scopes = 1;
	d.scopes = sc;
	d.n_metrics = 1;
	d.metrics = mt;
	d.n_contexts = N(cx);
	d.contexts = cx;
	d.n_profiles = N(profs);
	d.profiles = profs;
	gen g;
	gen_write(&g, &d);
	cr_assert_eq(gen_open(&g), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_hpctk_context_count(g.db), 4);
	cr_assert_eq(profdb_hpctk_cct_slot_count(g.db), 100000);
	uint32_t parent;
	cr_assert_eq(profdb_hpctk_context_parent(g.db, 99999, &parent), 0);
	cr_assert_eq(parent, 2);
	cr_assert_eq(profdb_hpctk_context_parent(g.db, 2, &parent), 0);
	cr_assert_eq(parent, 70000);
	profdb_hpctk_context c;
	cr_assert_eq(profdb_hpctk_context_get(g.db, 77777, &c), -ENOENT);
	cr_assert_eq(profdb_hpctk_context_get(g.db, 50000, &c), -ENOENT);
	double v;
	cr_assert(profdb_hpctk_value_cct(g.db, 1, 77777, 0, &v) == 1 && v == 3.0);
	cr_assert(profdb_hpctk_value(g.db, 1, 77777, 0, &v) == 1 && v == 3.0);
	cr_assert(profdb_hpctk_value_cct(g.db, 1, 99999, 0, &v) == 1 && v == 1.0);
	cr_assert(profdb_hpctk_value_cct(g.db, 1, 0, 0, &v) == 1 && v == 4.0);
	cr_assert_eq(profdb_hpctk_value_cct(g.db, 1, 50000, 0, &v), 0);
	cr_assert_eq(profdb_hpctk_value_cct(g.db, 1, 100000, 0, &v), 0);
	tc_drive_stats st;
	tc_drive(g.db, 0, &st);
	cr_assert(st.failures == 0 && st.contexts == 4 && st.values == 4 && st.cct_values == 4);
	gen_free(&g);
}

/* A chain 10 000 deep, read on a thread with a small stack: the walk, the
 * index build and the lookups must not recurse. */
enum { DEPTH = 10000 };

static void *deep_reader(void *arg)
{
	const profdb_hpctk *db = arg;
	profdb_hpctk_walk *w;
	profdb_hpctk_context c;
	uint32_t depth, n = 0, maxd = 0;
	int r;
	if (profdb_hpctk_context_count(db) != DEPTH || profdb_hpctk_walk_new(&w, db) != 0)
		return (void *)1;
	while ((r = profdb_hpctk_walk_next(w, &c, &depth)) == 1) {
		if (depth != n || (n > 0 && c.id != n))
			return (void *)2;
		maxd = depth;
		n++;
	}
	profdb_hpctk_walk_free(w);
	if (r != 0 || n != DEPTH + 1 || maxd != DEPTH)
		return (void *)3;
	for (uint32_t id = 1; id <= DEPTH; id++) {
		uint32_t parent;
		if (profdb_hpctk_context_parent(db, id, &parent) != 0 || parent != id - 1)
			return (void *)4;
	}
	/* Climb from the deepest node to the root. */
	uint32_t id = DEPTH, steps = 0;
	while (id != PROFDB_NONE) {
		if (profdb_hpctk_context_parent(db, id, &id) != 0)
			return (void *)5;
		steps++;
	}
	return steps == DEPTH + 1 ? NULL : (void *)6;
}

Test(hpctk4, deep_chain_without_recursion, .timeout = 60)
{
	tw_context *cx = calloc(DEPTH, sizeof *cx);
	cr_assert(cx);
	for (int i = 0; i < DEPTH; i++) {
		cx[i] = (tw_context){(uint32_t)i + 1, i - 1, i % 3 == 1 ? 1 : 0, i % 4 == 0 ? 0 : 2,
		                     -1, -1, 0, -1, 0, (uint16_t)(i % 3 != 1), 1, NULL};
	}
	static const tw_profile profs[] = {{1, 0, NULL, 0, NULL}};
	for (int devstage = 0; devstage <= 1; devstage++) {
		tw_hpctk4 d = {0};
		d.devstage = devstage;
		d.n_contexts = DEPTH;
		d.contexts = cx;
		d.n_profiles = 1;
		d.profiles = profs;
		gen g;
		gen_write(&g, &d);
		cr_assert_eq(gen_open(&g), 0, "%s", profdb_error_message());
		pthread_attr_t attr;
		pthread_t t;
		void *res;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		cr_assert_eq(pthread_create(&t, &attr, deep_reader, g.db), 0);
		pthread_join(t, &res);
		pthread_attr_destroy(&attr);
		cr_assert_null(res, "deep chain check %ld failed (dev-stage %d): %s", (long)res, devstage,
		               profdb_error_message());
		/* Children iteration at the bottom. */
		profdb_hpctk_context c;
		profdb_hpctk_children it;
		cr_assert_eq(profdb_hpctk_context_get(g.db, DEPTH - 1, &c), 0);
		cr_assert_eq(profdb_hpctk_children_begin(g.db, &c, &it), 0);
		cr_assert(profdb_hpctk_children_next(&it, &c) == 1 && c.id == DEPTH);
		cr_assert_eq(profdb_hpctk_children_next(&it, &c), 0);
		gen_free(&g);
	}
	free(cx);
}

/* NaN payloads, signed zeros, denormals and infinities come back bit for bit
 * through both planes. */
Test(hpctk4, special_values_bit_exact)
{
	static const uint64_t pats[] = {
		UINT64_C(0x7ff0000000000001), UINT64_C(0x7ff4000000000abc), UINT64_C(0x7ff8000000000000),
		UINT64_C(0xfff8deadbeef0001), UINT64_C(0x8000000000000000), UINT64_C(0x0000000000000000),
		UINT64_C(0x0000000000000001), UINT64_C(0x800fffffffffffff), UINT64_C(0x7ff0000000000000),
		UINT64_C(0xfff0000000000000), UINT64_C(0x7fefffffffffffff),
	};
	enum { NP = N(pats) };
	tw_value vals[NP], sums[NP];
	for (size_t i = 0; i < NP; i++) {
		double x;
		memcpy(&x, &pats[i], 8);
		/* Contexts of the sample tree, metrics 0..4 round robin. */
		vals[i] = (tw_value){ctxs[i % N(ctxs)].id, (uint16_t)(i % 5), 0};
		memcpy(&vals[i].value, &x, 8);
		sums[i] = vals[i];
	}
	tw_profile profs[2] = {{1, 0, NULL, NP, sums}, {0, 0, NULL, NP, vals}};
	for (int unaligned = 0; unaligned <= 1; unaligned++) {
		tw_hpctk4 d;
		tw_hpctk4_sample(&d);
		d.unaligned = unaligned;
		d.profiles = profs;
		d.n_profiles = 2;
		d.n_traces = 0;
		gen g;
		gen_write(&g, &d);
		cr_assert_eq(gen_open(&g), 0, "%s", profdb_error_message());
		for (size_t i = 0; i < NP; i++) {
			double v = 1.0, w = 1.0;
			uint64_t bits;
			cr_assert_eq(profdb_hpctk_value(g.db, 1, vals[i].ctx, vals[i].metric, &v), 1);
			memcpy(&bits, &v, 8);
			cr_assert_eq(bits, pats[i], "profile.db: 0x%016llx came back as 0x%016llx",
			             (unsigned long long)pats[i], (unsigned long long)bits);
			cr_assert_eq(profdb_hpctk_value_cct(g.db, 1, vals[i].ctx, vals[i].metric, &w), 1);
			memcpy(&bits, &w, 8);
			cr_assert_eq(bits, pats[i], "cct.db: 0x%016llx came back as 0x%016llx",
			             (unsigned long long)pats[i], (unsigned long long)bits);
			cr_assert_eq(profdb_hpctk_value(g.db, 0, vals[i].ctx, vals[i].metric, &v), 1);
			cr_assert(same_bits(v, w));
		}
		gen_free(&g);
	}
}

/* ---- hand-corrupted structures -------------------------------------------------- */

static void fresh(gen *g)
{
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	gen_write(g, &d);
}

/* Start of the section whose {size, pointer} pair is at header offset @p at. */
static unsigned char *sec(gen *g, int f, size_t at)
{
	return g->file[f] + rd64(g->file[f] + at + 8);
}

/* profdb_hpctk_check compares the files: the sample is consistent; a cct.db
 * written from a profile whose value differs is named as the disagreement;
 * one that holds one value more already fails the open (@p at_open: the
 * value counts are compared there), naming both files. */
static void check_with_cct_of(const tw_hpctk4 *other, const char *want, int at_open)
{
	gen a, b;
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	gen_write(&a, &d);
	gen_write(&b, other);
	free(a.file[PROFDB_HPCTK_CCT]);   /* a's files, b's cct.db */
	a.file[PROFDB_HPCTK_CCT] = b.file[PROFDB_HPCTK_CCT];
	a.size[PROFDB_HPCTK_CCT] = b.size[PROFDB_HPCTK_CCT];
	b.file[PROFDB_HPCTK_CCT] = NULL;
	if (at_open) {
		expect_error(gen_open(&a), -EBADMSG, "profile.db", want);
		cr_assert(strstr(profdb_error_message(), "cct.db") &&
		          strstr(profdb_error_message(), "not of one database"), "%s",
		          profdb_error_message());
		gen_free(&a);
		gen_free(&b);
		return;
	}
	cr_assert_eq(gen_open(&a), 0, "%s", profdb_error_message());
	int r = profdb_hpctk_check(a.db);
	cr_assert_eq(r, -EBADMSG, "%d", r);
	cr_assert(strstr(profdb_error_message(), want), "%s", profdb_error_message());
	gen_free(&a);
	gen_free(&b);
}

Test(hpctk4, check_compares_the_files)
{
	gen g;
	sample(&g, 0, 0, 0, 0, 0, 0);
	cr_assert_eq(profdb_hpctk_check(g.db), 0, "%s", profdb_error_message());
	gen_free(&g);
	sample(&g, 1, 0, 0, 0, 0, 0);   /* dev-stage */
	cr_assert_eq(profdb_hpctk_check(g.db), 0, "%s", profdb_error_message());
	gen_free(&g);
	sample(&g, 0, 0, 0, 0, 1, 1);   /* without cct.db and trace.db */
	cr_assert_eq(profdb_hpctk_check(g.db), 0, "%s", profdb_error_message());
	gen_free(&g);
	cr_assert_eq(profdb_hpctk_check(NULL), -EINVAL);

	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	tw_profile prof[3];
	cr_assert_eq(d.n_profiles, 3);
	memcpy(prof, d.profiles, sizeof prof);
	tw_value v[64];
	cr_assert_leq(prof[1].n_values + 1, 64);
	memcpy(v, prof[1].values, prof[1].n_values * sizeof *v);
	prof[1].values = v;
	d.profiles = prof;
	v[0].value += 1;   /* one value differs */
	check_with_cct_of(&d, "disagree", 0);
	v[0].value -= 1;
	v[prof[1].n_values] = (tw_value){6, 0, 9.0};   /* one value more (context 6) */
	prof[1].n_values++;
	check_with_cct_of(&d, "holds", 1);
}

Test(hpctk4, bad_magic_and_major)
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		gen g;
		fresh(&g);
		g.file[f][11] ^= 0x20; /* "meta" -> "mEta" */
		expect_error(gen_open(&g), -EPROTONOSUPPORT, tc_file_names[f], "magic");
		gen_free(&g);
		fresh(&g);
		g.file[f][14] = 5;
		expect_error(gen_open(&g), -EPROTONOSUPPORT, tc_file_names[f], "major version 5");
		gen_free(&g);
		fresh(&g);
		g.file[f][14] = 3;
		expect_error(gen_open(&g), -EPROTONOSUPPORT, tc_file_names[f], NULL);
		gen_free(&g);
		/* A pre-release file in the wrong slot. */
		fresh(&g);
		memcpy(g.file[f], "HPCPROF-profdb__", 16);
		expect_error(gen_open(&g), -EPROTONOSUPPORT, tc_file_names[f], "pre-release");
		gen_free(&g);
	}
}

Test(hpctk4, missing_footer)
{
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		gen g;
		fresh(&g);
		g.size[f] -= 8; /* the footer is cut off */
		expect_error(gen_open(&g), -ENODATA, tc_file_names[f], "footer");
		gen_free(&g);
		fresh(&g);
		g.file[f][g.size[f] - 1] ^= 1; /* present but wrong */
		expect_error(gen_open(&g), -ENODATA, tc_file_names[f], "footer");
		gen_free(&g);
		fresh(&g);
		g.size[f] = 20;
		expect_error(gen_open(&g), -ENODATA, tc_file_names[f], NULL);
		gen_free(&g);
	}
}

Test(hpctk4, strides_below_minimum)
{
	gen g;
	/* profile.db szProfile */
	fresh(&g);
	sec(&g, PROFDB_HPCTK_PROFILE, 0x10)[0x0c] = 0x2f;
	expect_error(gen_open(&g), -EBADMSG, "profile.db", "stride");
	gen_free(&g);
	/* cct.db szCtx */
	fresh(&g);
	sec(&g, PROFDB_HPCTK_CCT, 0x10)[0x0c] = 0x1f;
	expect_error(gen_open(&g), -EBADMSG, "cct.db", "stride");
	gen_free(&g);
	/* trace.db szTrace */
	fresh(&g);
	sec(&g, PROFDB_HPCTK_TRACE, 0x10)[0x0c] = 0x17;
	expect_error(gen_open(&g), -EBADMSG, "trace.db", "stride");
	gen_free(&g);
	/* meta.db szFunction, szModule */
	fresh(&g);
	wr16(sec(&g, PROFDB_HPCTK_META, 0x80) + 0x0c, 0x27);
	expect_error(gen_open(&g), -EBADMSG, "meta.db", "Functions");
	gen_free(&g);
	fresh(&g);
	wr16(sec(&g, PROFDB_HPCTK_META, 0x60) + 0x0c, 0x0f);
	expect_error(gen_open(&g), -EBADMSG, "meta.db", "Modules");
	gen_free(&g);
	/* meta.db szEntryPoint */
	fresh(&g);
	sec(&g, PROFDB_HPCTK_META, 0x40)[0x0a] = 0x1f;
	expect_error(gen_open(&g), -EBADMSG, "meta.db", "entry point");
	gen_free(&g);
	/* meta.db szScopeInst: checked lazily, on the first metric call. */
	fresh(&g);
	sec(&g, PROFDB_HPCTK_META, 0x30)[0x0d] = 0x0f;
	cr_assert_eq(gen_open(&g), 0);
	expect_error(profdb_hpctk_metric_count(g.db), -EBADMSG, "meta.db", "stride");
	expect_error(profdb_hpctk_metric_at(g.db, 0, &(profdb_hpctk_metric){0}), -EBADMSG, "meta.db",
	             "stride");
	cr_assert_eq(profdb_hpctk_context_count(g.db), 14); /* the rest is fine */
	gen_free(&g);
}

/* Record offset of context @p id in the pristine sample. */
static uint64_t pos_of(gen *g, uint32_t id)
{
	profdb_hpctk_context c;
	cr_assert_eq(gen_open(g), 0);
	cr_assert_eq(profdb_hpctk_context_get(g->db, id, &c), 0);
	profdb_hpctk_close(g->db);
	g->db = NULL;
	return c.pos;
}

static void expect_tree_error(gen *g, const char *needle)
{
	cr_assert_eq(gen_open(g), 0, "the tree is checked lazily: %s", profdb_error_message());
	expect_error((int)profdb_hpctk_context_count(g->db), -EBADMSG, "meta.db", needle);
	/* Replayed to every tree call; other parts still work. */
	profdb_hpctk_walk *w;
	expect_error(profdb_hpctk_walk_new(&w, g->db), -EBADMSG, "meta.db", needle);
	expect_error(profdb_hpctk_context_get(g->db, 2, &(profdb_hpctk_context){0}), -EBADMSG,
	             "meta.db", needle);
	cr_assert_eq(profdb_hpctk_metric_count(g->db), 2);
	double v;
	cr_assert_eq(profdb_hpctk_value(g->db, 1, 13, 3, &v), 1);
}

Test(hpctk4, children_cycle, .timeout = 20)
{
	gen g;
	fresh(&g);
	uint64_t leaf = pos_of(&g, 14), entry = pos_of(&g, 1), mid = pos_of(&g, 7);
	unsigned char *m = g.file[PROFDB_HPCTK_META];
	/* Leaf 14 gets the children of entry point 1: context 2 again. */
	memcpy(m + leaf, m + entry, 16);
	expect_tree_error(&g, "meta.db");
	gen_free(&g);
	/* A context that is its own child (children array = its own record). */
	fresh(&g);
	m = g.file[PROFDB_HPCTK_META];
	wr64(m + mid, 0x20 + 8); /* context 7: one flex word */
	wr64(m + mid + 8, mid);
	expect_tree_error(&g, "meta.db");
	gen_free(&g);
}

Test(hpctk4, duplicate_context_id)
{
	gen g;
	fresh(&g);
	uint64_t p16 = pos_of(&g, 16);
	wr32(g.file[PROFDB_HPCTK_META] + p16 + 0x10, 14);
	expect_tree_error(&g, "appears twice");
	gen_free(&g);
	/* An entry point with the id of a context. */
	fresh(&g);
	uint64_t e15 = pos_of(&g, 15);
	wr32(g.file[PROFDB_HPCTK_META] + e15 + 0x10, 3);
	expect_tree_error(&g, "appears twice");
	gen_free(&g);
}

Test(hpctk4, context_flags_need_flex_words)
{
	gen g;
	fresh(&g);
	uint64_t p3 = pos_of(&g, 3); /* flags 6, 4 flex words */
	g.file[PROFDB_HPCTK_META][p3 + 0x17] = 3;
	expect_tree_error(&g, "flex");
	gen_free(&g);
}

/* {PI} of profile i in profile.db. */
static unsigned char *pi_of(gen *g, uint32_t i)
{
	unsigned char *s = sec(g, PROFDB_HPCTK_PROFILE, 0x10);
	return g->file[PROFDB_HPCTK_PROFILE] + rd64(s) + (uint64_t)i * s[0x0c];
}

/* {CI} of context c in cct.db. */
static unsigned char *ci_of(gen *g, uint32_t c)
{
	unsigned char *s = sec(g, PROFDB_HPCTK_CCT, 0x10);
	return g->file[PROFDB_HPCTK_CCT] + rd64(s) + (uint64_t)c * s[0x0c];
}

/* At open the counts and ids the files share are compared
 * (lib/hpctk4/cross.c): a disagreement is -EBADMSG naming both files and
 * what disagrees; in tolerant mode a warning, and the open goes on. */
static void expect_mismatch(gen *g, const char *a, const char *b, const char *needle)
{
	expect_error(gen_open(g), -EBADMSG, a, needle);
	cr_assert(strstr(profdb_error_message(), b) &&
	          strstr(profdb_error_message(), "not of one database"), "%s", profdb_error_message());
	g->warnings = 0;
	cr_assert_eq(gen_open_flags(g, PROFDB_OPEN_TOLERANT), 0, "%s", profdb_error_message());
	cr_assert(g->warnings >= 1 && strstr(g->warning, "not of one database"), "%d: %s",
	          g->warnings, g->warning);
	gen_free(g);
}

Test(hpctk4, open_compares_the_files)
{
	gen g;
	/* trace line 0 naming the summary profile */
	fresh(&g);
	unsigned char *traces = sec(&g, PROFDB_HPCTK_TRACE, 0x10);
	wr32(g.file[PROFDB_HPCTK_TRACE] + rd64(traces), 0);
	expect_mismatch(&g, "trace.db", "profile.db", "the summary profile 0");
	/* cct.db with fewer slots: fewer values than the thread profiles hold */
	fresh(&g);
	wr32(sec(&g, PROFDB_HPCTK_CCT, 0x10) + 8, 12);
	expect_mismatch(&g, "cct.db", "profile.db", "values, the thread profiles of");
	/* an edge of a profile block is not compared at open */
	fresh(&g);
	wr16(g.file[PROFDB_HPCTK_PROFILE] + rd64(pi_of(&g, 1) + 8), 999);
	cr_assert_eq(gen_open(&g), 0, "%s", profdb_error_message());
	gen_free(&g);
	/* the writer's sample agrees with itself, in both modes */
	fresh(&g);
	cr_assert_eq(gen_open(&g), 0, "%s", profdb_error_message());
	cr_assert_eq(g.warnings, 0, "%s", g.warning);
	gen_free(&g);
}

static void others_readable(gen *g, uint32_t bad_profile)
{
	tv_plane pl;
	for (uint32_t i = 0; i < 3; i++)
		if (i != bad_profile)
			cr_assert_eq(tv_profile_plane(g->db, i, &pl), 0, "profile %u: %s", i,
			             profdb_error_message());
	double v;
	if (bad_profile != 2)
		cr_assert(profdb_hpctk_value(g->db, 2, 16, 1, &v) == 1 && v == 0.125);
	else
		cr_assert(profdb_hpctk_value(g->db, 1, 14, 0, &v) == 1 && v == 0.25);
	cr_assert(profdb_hpctk_value_cct(g->db, 1, 5, 0, &v) == 1 && v == 1.0);
	cr_assert_eq(profdb_hpctk_context_count(g->db), 14);
}

/* At the first use of a profile.db value block its edges are compared
 * with cct.db and meta.db (lib/hpctk4/cross.c): the open succeeds; the
 * block is -EBADMSG naming both files at every use (it is never marked
 * good) while the other blocks read; in tolerant mode the block reads, with
 * one warning for the handle. */
/* The last value record of profile @p p's block. */
static unsigned char *last_value(gen *g, uint32_t p)
{
	unsigned char *pi = pi_of(g, p);
	return g->file[PROFDB_HPCTK_PROFILE] + rd64(pi + 8) + (rd64(pi) - 1) * 10;
}

static void expect_block_mismatch(gen *g, uint32_t p, const char *b, const char *needle)
{
	tv_plane pl;
	cr_assert_eq(gen_open(g), 0, "%s", profdb_error_message());
	for (int use = 0; use < 2; use++) {
		expect_error(tv_profile_plane(g->db, p, &pl), -EBADMSG, "profile.db", needle);
		cr_assert(strstr(profdb_error_message(), b) &&
		          strstr(profdb_error_message(), "not of one database"), "%s",
		          profdb_error_message());
	}
	others_readable(g, p);
	profdb_hpctk_close(g->db);
	g->warnings = 0;
	cr_assert_eq(gen_open_flags(g, PROFDB_OPEN_TOLERANT), 0, "%s", profdb_error_message());
	cr_assert_eq(g->warnings, 0, "%s", g->warning);
	for (int use = 0; use < 2; use++)
		cr_assert_eq(tv_profile_plane(g->db, p, &pl), 0, "%s", profdb_error_message());
	cr_assert(g->warnings == 1 && strstr(g->warning, "not of one database") &&
	          strstr(g->warning, b) && strstr(g->warning, needle), "%d: %s", g->warnings,
	          g->warning);
	gen_free(g);
}

Test(hpctk4, first_use_compares_the_blocks)
{
	gen g;
	/* a metric id meta.db does not define, last in profile 1 (the run
	 * stays sorted) */
	fresh(&g);
	wr16(last_value(&g, 1), 999);
	expect_block_mismatch(&g, 1, "meta.db", "metric id 999, which meta.db does not "
	                      "define as a propagated id");
	/* the last context of profile 1 past cct.db's slots (still sorted) */
	fresh(&g);
	unsigned char *pi = pi_of(&g, 1);
	unsigned char *idx = g.file[PROFDB_HPCTK_PROFILE] + rd64(pi + 0x18);
	wr32(idx + (rd32(pi + 0x10) - 1) * 12, 100000);
	expect_block_mismatch(&g, 1, "cct.db", "has values at context 100000");
	/* the summary profile's ids are summary statistic ids */
	fresh(&g);
	wr16(last_value(&g, 0), 999);
	expect_block_mismatch(&g, 0, "meta.db", "as a summary statistic id");
}

Test(hpctk4, unsorted_profile_index)
{
	gen g;
	fresh(&g);
	unsigned char *pi = pi_of(&g, 1), *f = g.file[PROFDB_HPCTK_PROFILE];
	unsigned char *idx = f + rd64(pi + 0x18);
	wr32(idx + 12, 0); /* second context id (1) becomes 0 = the first one */
	cr_assert_eq(gen_open(&g), 0);
	tv_plane pl;
	double v;
	expect_error(tv_profile_plane(g.db, 1, &pl), -EBADMSG, "profile.db", "not sorted");
	expect_error(profdb_hpctk_value(g.db, 1, 0, 2, &v), -EBADMSG, "profile.db", "not sorted");
	/* Still refused on later calls: a bad block is never marked good. */
	expect_error(tv_profile_plane(g.db, 1, &pl), -EBADMSG, "profile.db", NULL);
	others_readable(&g, 1);
	tc_drive_stats st;
	tc_drive(g.db, 0, &st);
	cr_assert(st.failures > 0 && st.first_error == -EBADMSG);
	gen_free(&g);
}

Test(hpctk4, unsorted_profile_values)
{
	gen g;
	fresh(&g);
	unsigned char *pi = pi_of(&g, 1), *f = g.file[PROFDB_HPCTK_PROFILE];
	unsigned char *vals = f + rd64(pi + 8);
	/* Context 0 has metrics 2, 3 (values 0 and 1): make the second 1. */
	cr_assert(rd32(vals) == 2 && vals[10] == 3);
	wr16(vals + 10, 1);
	cr_assert_eq(gen_open(&g), 0);
	expect_error(tv_profile_plane(g.db, 1, &(tv_plane){0}), -EBADMSG,
	             "profile.db", "values");
	others_readable(&g, 1);
	gen_free(&g);
}

Test(hpctk4, unsorted_cct_block)
{
	gen g;
	fresh(&g);
	unsigned char *ci = ci_of(&g, 13), *f = g.file[PROFDB_HPCTK_CCT];
	/* Context 13: metrics 0..4; make metric index 1 say 0. */
	unsigned char *midx = f + rd64(ci + 0x18);
	cr_assert(midx[0] == 0 && midx[10] == 1);
	wr16(midx + 10, 0);
	cr_assert_eq(gen_open(&g), 0);
	tv_plane pl;
	expect_error(tv_context_plane(g.db, 13, &pl), -EBADMSG, "cct.db", "not sorted");
	cr_assert_eq(tv_context_plane(g.db, 12, &pl), 0);
	double v;
	cr_assert(profdb_hpctk_value(g.db, 1, 13, 0, &v) == 1 && v == 2.0);
	gen_free(&g);
	/* Unsorted profile indices within one metric of context 5. */
	fresh(&g);
	ci = ci_of(&g, 5);
	unsigned char *pv = g.file[PROFDB_HPCTK_CCT] + rd64(ci + 8);
	cr_assert(rd32(pv) == 1 && rd32(pv + 12) == 2);
	wr32(pv + 12, 1);
	cr_assert_eq(gen_open(&g), 0);
	expect_error(tv_context_plane(g.db, 5, &pl), -EBADMSG, "cct.db", "not sorted");
	cr_assert_eq(tv_context_plane(g.db, 4, &pl), 0);
	gen_free(&g);
}

Test(hpctk4, unsorted_trace)
{
	gen g;
	fresh(&g);
	unsigned char *s = sec(&g, PROFDB_HPCTK_TRACE, 0x10), *f = g.file[PROFDB_HPCTK_TRACE];
	unsigned char *cth = f + rd64(s);
	unsigned char *el = f + rd64(cth + 8);
	cr_assert_eq(rd64(el + 24), T0 + 3000);
	wr64(el + 24, T0 + 1500); /* element 2 before element 1 */
	cr_assert_eq(gen_open(&g), 0);
	profdb_hpctk_trace t;
	expect_error(profdb_hpctk_trace_line_at(g.db, 0, &t), -EBADMSG, "trace.db", "not sorted");
	expect_error(profdb_hpctk_trace_line_at(g.db, 0, &t), -EBADMSG, "trace.db", "not sorted");
	cr_assert_eq(profdb_hpctk_trace_line_at(g.db, 1, &t), 0);
	cr_assert_eq(profdb_hpctk_context_count(g.db), 14);
	gen_free(&g);
	/* A line that is not a whole number of elements, one past the file. */
	fresh(&g);
	cth = g.file[PROFDB_HPCTK_TRACE] + rd64(sec(&g, PROFDB_HPCTK_TRACE, 0x10));
	wr64(cth + 0x10, rd64(cth + 0x10) - 1);
	cr_assert_eq(gen_open(&g), 0);
	expect_error(profdb_hpctk_trace_line_at(g.db, 0, &t), -EBADMSG, "trace.db", "12-byte");
	gen_free(&g);
	fresh(&g);
	cth = g.file[PROFDB_HPCTK_TRACE] + rd64(sec(&g, PROFDB_HPCTK_TRACE, 0x10));
	wr64(cth + 8, g.size[PROFDB_HPCTK_TRACE]);
	wr64(cth + 0x10, g.size[PROFDB_HPCTK_TRACE] + 12);
	cr_assert_eq(gen_open(&g), 0);
	cr_assert_lt(profdb_hpctk_trace_line_at(g.db, 0, &t), 0);
	cr_assert(strstr(profdb_error_message(), "trace.db"));
	gen_free(&g);
}

Test(hpctk4, count_times_stride_overflow)
{
	gen g;
	fresh(&g);
	/* nValues * 10 overflows 64 bits. */
	wr64(pi_of(&g, 2), UINT64_C(0x2000000000000000));
	cr_assert_eq(gen_open(&g), 0);
	expect_error(tv_profile_plane(g.db, 2, &(tv_plane){0}), -EBADMSG,
	             "profile.db", "overflows");
	others_readable(&g, 2);
	gen_free(&g);
	/* Same in cct.db: nValues * 12. */
	fresh(&g);
	wr64(ci_of(&g, 13), UINT64_MAX / 6);
	cr_assert_eq(gen_open(&g), 0);
	expect_error(tv_context_plane(g.db, 13, &(tv_plane){0}), -EBADMSG, "cct.db",
	             "overflows");
	gen_free(&g);
	/* A huge but non-overflowing count: outside the file. */
	fresh(&g);
	wr64(pi_of(&g, 2), UINT64_C(0x0100000000000000));
	cr_assert_eq(gen_open(&g), 0);
	cr_assert_lt(tv_profile_plane(g.db, 2, &(tv_plane){0}), 0);
	gen_free(&g);
	/* Functions: nFunctions huge: the array cannot fit in its section. */
	fresh(&g);
	wr32(sec(&g, PROFDB_HPCTK_META, 0x80) + 8, UINT32_MAX);
	expect_error(gen_open(&g), -EBADMSG, "meta.db", "Functions");
	gen_free(&g);
}

Test(hpctk4, contexts_without_values)
{
	gen g;
	fresh(&g);
	wr64(pi_of(&g, 1), 0); /* nValues 0, nCtxs 14 */
	cr_assert_eq(gen_open(&g), 0);
	expect_error(tv_profile_plane(g.db, 1, &(tv_plane){0}), -EBADMSG,
	             "profile.db", "index entries");
	others_readable(&g, 1);
	gen_free(&g);
	fresh(&g);
	wr64(ci_of(&g, 13), 0); /* cct.db: nValues 0, nMetrics 5 */
	cr_assert_eq(gen_open(&g), 0);
	expect_error(tv_context_plane(g.db, 13, &(tv_plane){0}), -EBADMSG,
	             "cct.db", "index entries");
	gen_free(&g);
}

Test(hpctk4, metric_scope_pointer_outside_table)
{
	gen g;
	fresh(&g);
	/* The first {PSI} of metric 0 points one byte into the scope table. */
	unsigned char *h = sec(&g, PROFDB_HPCTK_META, 0x30), *m = g.file[PROFDB_HPCTK_META];
	unsigned char *md = m + rd64(h);
	unsigned char *psi = m + rd64(md + 8);
	wr64(psi, rd64(psi) + 1);
	cr_assert_eq(gen_open(&g), 0);
	expect_error(profdb_hpctk_metric_count(g.db), -EBADMSG, "meta.db", "scope pointer");
	gen_free(&g);
}

TC_MAIN
