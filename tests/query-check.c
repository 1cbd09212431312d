/* Invariants of any database opened through the common query interface
 * (query-check.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query-check.h"


int qc_str_is(profdb_str s, const char *c)
{
	return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0;
}

int qc_same_number(profdb_number a, profdb_number b)
{
	if (a.type != b.type)
		return 0;
	switch (a.type) {
	case PROFDB_TYPE_U64: return a.as.u64 == b.as.u64;
	case PROFDB_TYPE_I64: return a.as.i64 == b.as.i64;
	case PROFDB_TYPE_F64: return memcmp(&a.as.f64, &b.as.f64, sizeof(double)) == 0;
	default: return 1;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int qc_is_summary(const profdb *db, uint32_t profile)
{
	profdb_profile p;
	cr_assert_eq(profdb_profile_at(db, profile, &p), 0, "profile %" PRIu32 ": %s", profile,
	             profdb_error_message());
	return p.is_summary != 0;
}

int qc_cmp_by_context(const void *a, const void *b)
{
	const profdb_entry *x = a, *y = b;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* The same scan through profdb_values_next_block() in blocks of 5 gives
 * the @p n entries @p want, field by field, and then its end. */
static void check_blocks(const profdb *db, profdb_scan how, uint32_t key,
                         const profdb_entry *want, size_t n)
{
	profdb_values *it;
	profdb_entry b[5];
	size_t k = 0;
	int64_t r;
	cr_assert_eq(profdb_values_new(&it, db, how, key), 0);
	while ((r = profdb_values_next_block(it, b, 5)) > 0) {
		cr_assert(r <= 5 && (r == 5 || k + (size_t)r == n), "block of %" PRId64 " at %zu", r, k);
		for (int64_t i = 0; i < r; i++, k++) {
			cr_assert_lt(k, n, "more entries in blocks than one by one");
			const profdb_entry *x = &b[i], *y = &want[k];
			cr_assert(x->profile == y->profile && x->context == y->context &&
			          x->metric == y->metric && x->value.type == y->value.type &&
			          x->value.as.u64 == y->value.as.u64 && !x->reserved[0] && !x->reserved[1],
			          "entry %zu differs in blocks", k);
		}
	}
	cr_assert_eq(r, 0, "values_next_block: %" PRId64 " %s", r, profdb_error_message());
	cr_assert_eq(k, n);
	cr_assert_eq(profdb_values_next_block(it, b, 5), 0, "a finished cursor stays finished");
	profdb_values_free(it);
}

/* Every entry of a scan, into a malloc'ed array; the block cursor agrees. */
profdb_entry *qc_scan(const profdb *db, profdb_scan how, uint32_t key, size_t *n)
{
	profdb_values *it;
	size_t cap = 256, k = 0;
	profdb_entry *e = malloc(cap * sizeof *e);
	cr_assert(e);
	int r = profdb_values_new(&it, db, how, key);
	cr_assert_eq(r, 0, "values_new(%d, %" PRIu32 "): %d %s", how, key, r, profdb_error_message());
	while ((r = profdb_values_next(it, &e[k])) == 1) {
		if (++k == cap) {
			cap *= 2;
			e = realloc(e, cap * sizeof *e);
			cr_assert(e);
		}
	}
	cr_assert_eq(r, 0, "values_next: %d %s", r, profdb_error_message());
	cr_assert_eq(profdb_values_next(it, &e[k]), 0, "a finished cursor stays finished");
	profdb_values_free(it);
	check_blocks(db, how, key, e, k);
	*n = k;
	return e;
}

/* ---- invariants of any database ------------------------------------------------- */

static void check_metrics(const profdb *db, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		profdb_metric m, g, f;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &m), 0);
		cr_assert_eq(profdb_metric_get(db, m.id, &g), 0);
		cr_assert_eq(g.id, m.id);
		cr_assert(qc_str_is(g.name, "") || g.name.len == m.name.len);
		if (m.name.len && !memchr(m.name.ptr, 0, m.name.len)) {
			char *name = strndup(m.name.ptr, m.name.len);
			cr_assert_eq(profdb_metric_find(db, name, &f), 0, "find \"%s\"", name);
			cr_assert(f.name.len == m.name.len && memcmp(f.name.ptr, m.name.ptr, m.name.len) == 0);
			free(name);
		}
		if (m.exclusive_id != PROFDB_NONE)
			cr_assert_eq(profdb_metric_get(db, m.exclusive_id, &g), 0);
		if (m.inclusive_id != PROFDB_NONE)
			cr_assert_eq(profdb_metric_get(db, m.inclusive_id, &g), 0);
	}
	profdb_metric m;
	cr_assert_eq(profdb_metric_at(db, (uint32_t)n, &m), -ENOENT);
}

/* Walk the tree through the links only; every node once, links mutually
 * consistent. Returns a sorted array of the tree's ids. */
static uint32_t *check_tree(const profdb *db, int64_t count)
{
	uint32_t *ids = malloc(((size_t)count + 1) * sizeof *ids);
	cr_assert(ids);
	uint32_t id;
	int r = profdb_context_root(db, &id);
	if (count == 0) {
		cr_assert_eq(r, -ENOENT);
		return ids;
	}
	cr_assert_eq(r, 0, "%s", profdb_error_message());
	int64_t seen = 0;
	profdb_context c, parent;
	cr_assert_eq(profdb_context_get(db, id, &c), 0);
	cr_assert_eq(c.parent, PROFDB_NONE);
	for (;;) {
		cr_assert_lt(seen, count, "the links visit more nodes than context_count");
		ids[seen++] = c.id;
		cr_assert_eq(c.in_tree, 1);
		if (c.parent == PROFDB_NONE) {
			cr_assert_eq(c.depth, 0);
			cr_assert_eq(c.relation, PROFDB_RELATION_NONE);
		} else {
			cr_assert_eq(profdb_context_get(db, c.parent, &parent), 0);
			cr_assert_eq(c.depth, parent.depth + 1, "depth of %" PRIu32, c.id);
			cr_assert_neq(c.relation, PROFDB_RELATION_NONE);
		}
		if (c.first_child != PROFDB_NONE) {
			profdb_context ch;
			cr_assert_eq(profdb_context_get(db, c.first_child, &ch), 0);
			cr_assert_eq(ch.parent, c.id, "first child of %" PRIu32, c.id);
			c = ch;
			continue;
		}
		/* climb to the next sibling */
		while (c.next_sibling == PROFDB_NONE && c.parent != PROFDB_NONE)
			cr_assert_eq(profdb_context_get(db, c.parent, &c), 0);
		if (c.next_sibling == PROFDB_NONE)
			break;
		uint32_t up = c.parent;
		cr_assert_eq(profdb_context_get(db, c.next_sibling, &c), 0);
		cr_assert_eq(c.parent, up, "sibling %" PRIu32 " has another parent", c.id);
	}
	cr_assert_eq(seen, count, "the links reach %" PRId64 " of %" PRId64 " nodes", seen, count);
	qsort(ids, (size_t)seen, sizeof *ids, cmp_u32);
	for (int64_t i = 1; i < seen; i++)
		cr_assert_neq(ids[i], ids[i - 1], "context %" PRIu32 " reached twice", ids[i]);
	return ids;
}

static int in_ids(const uint32_t *ids, int64_t n, uint32_t id)
{
	return bsearch(&id, ids, (size_t)n, sizeof *ids, cmp_u32) != NULL;
}

/* Everything a tool relies on, on one open database; returns its counts. */
/* ---- views ------------------------------------------------------------------ */

/* The example consumer (examples/view-fingerprint.c): every value and every
 * trace sample read through the views only. */
#define VIEW_FINGERPRINT_NO_MAIN
#include "../examples/view-fingerprint.c"

/* The same fingerprint through profdb_values_next and profdb_trace_sample_at. */
static view_fingerprint cursor_fingerprint(const profdb *db)
{
	view_fingerprint f;
	memset(&f, 0, sizeof f);
	size_t n;
	profdb_entry *all = qc_scan(db, PROFDB_SCAN_ALL, 0, &n);
	for (size_t i = 0; i < n; i++)
		f.value_hash += vf_value_tuple(all[i].profile, all[i].context, all[i].metric,
		                               all[i].value);
	f.values = n;
	free(all);
	int64_t np = profdb_profile_count(db);
	for (int64_t p = 0; p < np; p++) {
		int64_t len = profdb_trace_length(db, (uint32_t)p);
		for (int64_t i = 0; i < len; i++) {
			profdb_sample s;
			cr_assert_eq(profdb_trace_sample_at(db, (uint32_t)p, (uint64_t)i, &s), 0);
			f.sample_hash += vf_sample_tuple((uint32_t)p, s.time_ns, s.context);
			f.samples++;
		}
	}
	return f;
}

/* Keys of an index or of each run strictly increase; a view asked for twice
 * is the same memory. */
static void check_view_shape(const profdb_view *index, const profdb_view *values,
                             const profdb_view *again, const char *what, uint32_t key)
{
	cr_assert_eq(index->base, again->base, "%s: view %u moved", what, key);
	cr_assert_eq(index->count, again->count);
	PROFDB_VIEW_FOREACH(index, i) {
		if (i)
			cr_assert_gt(profdb_view_key(index, i), profdb_view_key(index, i - 1),
			             "%s: view %u: index keys not increasing", what, key);
		profdb_view run = profdb_view_run(index, i, values);
		cr_assert_gt(run.count, 0, "%s: view %u: empty run", what, key);
		PROFDB_VIEW_FOREACH(&run, k)
			if (k)
				cr_assert_gt(profdb_view_key(&run, k), profdb_view_key(&run, k - 1),
				             "%s: view %u: run keys not increasing", what, key);
	}
}

void qc_views_match_cursor(const profdb *db, const char *what)
{
	view_fingerprint v, w = cursor_fingerprint(db);
	int r = view_fingerprint_of(db, &v);
	cr_assert_eq(r, 0, "%s: views: %d %s", what, r, profdb_error_message());
	cr_assert_eq(v.values, w.values, "%s: %" PRIu64 " values through views, %" PRIu64
	             " through the cursor", what, v.values, w.values);
	cr_assert_eq(v.value_hash, w.value_hash, "%s: views and cursor read different values", what);
	cr_assert_eq(v.samples, w.samples, "%s: %" PRIu64 " samples through views, %" PRIu64
	             " through profdb_trace_sample_at", what, v.samples, w.samples);
	cr_assert_eq(v.sample_hash, w.sample_hash, "%s: views and trace_at differ", what);
}

static void check_views(const profdb *db, const profdb_counts *c, const char *what)
{
	int r;
	qc_views_match_cursor(db, what);
	for (int64_t p = 0; p < c->profiles; p++) {
		profdb_view index, values, index2, values2;
		cr_assert_eq(profdb_profile_view(db, (uint32_t)p, &index, &values), 0);
		cr_assert_eq(profdb_profile_view(db, (uint32_t)p, &index2, &values2), 0);
		check_view_shape(&index, &values, &index2, what, (uint32_t)p);
		int summary = qc_is_summary(db, (uint32_t)p);
		/* Every context of the profile: its context view holds this value,
		 * unless the profile is a summary profile. */
		PROFDB_VIEW_FOREACH(&index, i) {
			uint32_t ctx = (uint32_t)profdb_view_key(&index, i);
			profdb_view run = profdb_view_run(&index, i, &values), ci, cv, ci2, cv2;
			cr_assert_eq(profdb_context_view(db, ctx, &ci, &cv), 0, "%s: context view %u: %s",
			             what, ctx, profdb_error_message());
			cr_assert_eq(profdb_context_view(db, ctx, &ci2, &cv2), 0);
			if (p == 0)
				check_view_shape(&ci, &cv, &ci2, what, ctx);
			uint64_t at;
			uint32_t metric = (uint32_t)profdb_view_key(&run, 0);
			int found = profdb_view_find(&ci, metric, &at) == 1;
			profdb_view by_profile = found ? profdb_view_run(&ci, at, &cv) : cv;
			if (summary) {
				cr_assert(!found || profdb_view_find(&by_profile, (uint64_t)p, &at) != 1,
				          "%s: context %u holds summary profile %" PRId64, what, ctx, p);
				continue;
			}
			cr_assert(found, "%s: context %u lacks metric %u", what, ctx, metric);
			cr_assert_eq(profdb_view_find(&by_profile, (uint64_t)p, &at), 1);
			cr_assert(qc_same_number(profdb_view_value(&by_profile, at),
			                         profdb_view_value(&run, 0)),
			          "%s: context %u metric %u profile %" PRId64 " differs", what, ctx, metric, p);
		}
		profdb_view t;
		r = profdb_trace_view(db, (uint32_t)p, &t);
		if (r == -ENOTSUP)
			continue;
		cr_assert_eq(r, 0, "%s: trace view %" PRId64 ": %s", what, p, profdb_error_message());
		PROFDB_VIEW_FOREACH(&t, i) {
			uint64_t time = profdb_view_key(&t, i), a = 0, b = 0;
			cr_assert_eq(profdb_view_seek(&t, time, &a), 0);
			cr_assert_eq(profdb_trace_seek(db, (uint32_t)p, time, &b), 0);
			cr_assert_eq(a, b, "%s: view seek and profdb_trace_seek differ", what);
			cr_assert_eq(profdb_view_in_effect(&t, time, &a), 1);
			cr_assert_geq(a, i);
		}
	}
	/* A scoped lookup with nothing there leaves no number behind. */
	uint32_t id;
	if (c->profiles > 0 && profdb_context_root(db, &id) == 0) {
		int64_t nm = profdb_metric_count(db);
		for (int k = 0; k < 64 && id != PROFDB_NONE; k++) {
			profdb_context cx;
			cr_assert_eq(profdb_context_get(db, id, &cx), 0);
			for (int64_t m = 0; m < nm; m++) {
				profdb_metric md;
				profdb_number sv;
				cr_assert_eq(profdb_metric_at(db, (uint32_t)m, &md), 0);
				for (int inclusive = 0; inclusive <= 1; inclusive++) {
					int sr = inclusive ? profdb_inclusive(db, 0, id, md.id, &sv)
					                   : profdb_exclusive(db, 0, id, md.id, &sv);
					if (sr <= 0)
						cr_assert_eq(sv.type, PROFDB_TYPE_NONE, "%s: scoped lookup "
						             "returned %d and left a number", what, sr);
				}
			}
			id = cx.first_child != PROFDB_NONE ? cx.first_child : cx.next_sibling;
		}
	}
	profdb_view a, b;
	cr_assert_eq(profdb_profile_view(db, (uint32_t)c->profiles, &a, &b), -ENOENT);
	cr_assert_eq(profdb_profile_view(db, 0, NULL, &b), -EINVAL);
}

profdb_counts qc_check_all(const profdb *db, const char *what)
{
	profdb_counts c;
	int r = profdb_get_counts(db, &c);
	cr_assert_eq(r, 0, "%s: counts: %s", what, profdb_error_message());
	/* An undamaged input declares in its headers what its blocks hold;
	 * Callgrind's line contexts and their values are unknown (-1) until
	 * every function's lines are read. */
	profdb_about about;
	cr_assert_eq(profdb_get_about(db, &about), 0, "%s", what);
	profdb_counts h;
	cr_assert_eq(profdb_get_header_counts(db, &h), 0, "%s: header counts: %s", what,
	             profdb_error_message());
	if (about.format == PROFDB_FORMAT_CALLGRIND && h.values == -1) {
		cr_assert_eq(h.contexts, -1, "%s", what);
		h.contexts = c.contexts;
		h.values = c.values;
	}
	cr_assert(memcmp(&h, &c, sizeof c) == 0,
	          "%s: header counts %lld values, %lld samples; read %lld, %lld", what,
	          (long long)h.values, (long long)h.samples, (long long)c.values,
	          (long long)c.samples);
	/* HPCToolkit 4.0: the count leaves out statistic-only ids (kind
	 * SUMMARY); every other format counts every metric it lists. */
	int64_t nm = profdb_metric_count(db), stat_only = 0;
	for (int64_t i = 0; i < nm; i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, (uint32_t)i, &m), 0);
		stat_only += m.kind == PROFDB_METRIC_SUMMARY && about.format == PROFDB_FORMAT_HPCTK4;
	}
	cr_assert_eq(nm - stat_only, c.metrics, "%s", what);
	cr_assert_eq(profdb_context_count(db), c.contexts, "%s", what);
	cr_assert_eq(profdb_profile_count(db), c.profiles, "%s", what);
	check_metrics(db, nm);
	uint32_t *tree = check_tree(db, c.contexts);

	/* ALL: as many as counted, ordered by profile, each equal to a point lookup. */
	size_t n;
	profdb_entry *all = qc_scan(db, PROFDB_SCAN_ALL, 0, &n);
	cr_assert_eq((int64_t)n, c.values, "%s: scan found %zu values, counts say %" PRId64, what,
	             n, c.values);
	for (size_t i = 0; i < n; i++) {
		profdb_number v;
		if (i)
			cr_assert_geq(all[i].profile, all[i - 1].profile);
		r = profdb_value(db, all[i].profile, all[i].context, all[i].metric, &v);
		cr_assert_eq(r, 1, "%s: value(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") = %d %s", what,
		             all[i].profile, all[i].context, all[i].metric, r, profdb_error_message());
		cr_assert(qc_same_number(v, all[i].value), "%s: value(%" PRIu32 ", %" PRIu32 ", %" PRIu32
		          ") differs from the scan", what, all[i].profile, all[i].context, all[i].metric);
	}
	/* PROFILE: exactly the ALL entries of that profile, in the same order. */
	size_t at = 0;
	for (int64_t p = 0; p < c.profiles; p++) {
		size_t k;
		profdb_entry *e = qc_scan(db, PROFDB_SCAN_PROFILE, (uint32_t)p, &k);
		for (size_t i = 0; i < k; i++, at++) {
			cr_assert_lt(at, n);
			cr_assert(e[i].profile == all[at].profile && e[i].context == all[at].context &&
			          e[i].metric == all[at].metric && qc_same_number(e[i].value, all[at].value),
			          "%s: profile scan %" PRId64 " differs at %zu", what, p, i);
		}
		free(e);
	}
	cr_assert_eq(at, n);
	/* CONTEXT: the ALL entries of each context in the profiles that are
	 * not summary profiles, as a set. */
	qsort(all, n, sizeof *all, qc_cmp_by_context);
	for (size_t i = 0; i < n;) {
		size_t j = i, k, want = 0;
		while (j < n && all[j].context == all[i].context)
			j++;
		uint32_t ctx = all[i].context;
		profdb_entry *e = qc_scan(db, PROFDB_SCAN_CONTEXT, ctx, &k);
		qsort(e, k, sizeof *e, qc_cmp_by_context);
		for (size_t x = i; x < j; x++) {
			if (qc_is_summary(db, all[x].profile))
				continue;
			cr_assert_lt(want, k, "%s: context %" PRIu32 ": the scan by context lacks "
			             "values", what, ctx);
			cr_assert(e[want].profile == all[x].profile && e[want].metric == all[x].metric &&
			          qc_same_number(e[want].value, all[x].value),
			          "%s: context %" PRIu32 " scan differs", what, ctx);
			want++;
		}
		cr_assert_eq(k, want, "%s: context %" PRIu32 ": %zu values by context, %zu in the "
		             "thread profiles", what, ctx, k, want);
		free(e);
		/* A context with values is addressable, in the tree or not. */
		profdb_context cx;
		cr_assert_eq(profdb_context_get(db, ctx, &cx), 0, "%s: context %" PRIu32 ": %s", what,
		             ctx, profdb_error_message());
		cr_assert_eq(cx.in_tree, in_ids(tree, c.contexts, ctx), "%s: context %" PRIu32, what, ctx);
		i = j;
	}
	free(all);
	free(tree);

	/* Profiles and traces. */
	int64_t samples = 0;
	for (int64_t p = 0; p < c.profiles; p++) {
		profdb_profile pr;
		cr_assert_eq(profdb_profile_at(db, (uint32_t)p, &pr), 0);
		cr_assert_eq(pr.index, (uint32_t)p);
		cr_assert_gt(pr.name.len, 0);
		for (uint32_t i = 0; i < pr.n_identity; i++) {
			profdb_str kind;
			uint64_t v;
			cr_assert_eq(profdb_profile_identity(db, (uint32_t)p, i, &kind, &v), 0);
			cr_assert_gt(kind.len, 0);
		}
		profdb_str kind;
		uint64_t v;
		cr_assert_eq(profdb_profile_identity(db, (uint32_t)p, pr.n_identity, &kind, &v), -ENOENT);
		int64_t len = profdb_trace_length(db, (uint32_t)p);
		if (len == -ENOTSUP && c.traces == 0)   /* a format without traces */
			continue;
		cr_assert_geq(len, 0, "%s: trace of %" PRId64 ": %s", what, p, profdb_error_message());
		samples += len;
		profdb_sample prev = {0, 0};
		for (int64_t i = 0; i < len; i++) {
			profdb_sample s;
			uint64_t idx;
			cr_assert_eq(profdb_trace_sample_at(db, (uint32_t)p, (uint64_t)i, &s), 0);
			if (i)
				cr_assert_geq(s.time_ns, prev.time_ns);
			cr_assert_eq(profdb_trace_seek(db, (uint32_t)p, s.time_ns, &idx), 0);
			cr_assert_leq(idx, (uint64_t)i);
			if (i == 0 || s.time_ns != prev.time_ns)
				cr_assert_eq(idx, (uint64_t)i);
			prev = s;
		}
		if (len > 0) {
			uint64_t idx;
			cr_assert_eq(profdb_trace_seek(db, (uint32_t)p, prev.time_ns + 1, &idx), 0);
			cr_assert_eq(idx, (uint64_t)len);
		}
	}
	cr_assert_leq(samples, c.samples, "%s", what);
	profdb_profile pr;
	cr_assert_eq(profdb_profile_at(db, (uint32_t)c.profiles, &pr), -ENOENT);
	check_views(db, &c, what);
	return c;
}

