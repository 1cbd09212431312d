/* Shared driver of the common query interface; drive-query.h lists the
 * invariants. Written after tests/query-check.c (the same invariants with
 * Criterion asserts, for valid inputs), but every call may fail here, with a
 * documented code and a message, and the work is budgeted. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpctk.h"
#include "drive-query.h"
#include "fuzz-common.h"

enum {
	MAX_PROFILES = 4096,        /* profiles visited (get, scans, traces) */
	MAX_METRICS = 4096,         /* metrics visited */
	MAX_FINDS = 64,             /* metric_find calls (each scans every metric) */
	MAX_TREE = 1 << 17,         /* tree nodes walked */
	MAX_IDENTITY = 64,          /* identity entries per profile */
	MAX_SAMPLES = 1 << 18,      /* trace samples read, all profiles together */
	MAX_CONTEXT_SEARCHES = 1 << 20, /* CONTEXT scans x profiles (a search each) */
	MAX_SCOPED = 48,            /* (profile, context, metric) inclusive/exclusive */
	MAX_MEMORY = 256u << 20,    /* profdb_options.max_memory */
};

fuzz_query_stats fuzz_query_stats_total;

/* Clear the message, make the call, check a failure's code and message
 * (fuzz-common.h). */
#define CALL FUZZ_CALL

typedef struct qd {
	const profdb *db;
	const profdb_input *in;
	size_t n_in;
	int consistent;       /* cross-file disagreements abort */
	int tolerant;
	profdb_format format;
	int has_cct;          /* HPCToolkit: a cct.db is among the inputs */
	int has_meta;         /* HPCToolkit: a meta.db or experiment.xml is */
	profdb_counts counts;
	int have_counts;
	int64_t nm, nc, np;
	/* metrics visited: id and exclusive id */
	uint32_t *m_id, *m_excl;
	size_t n_m;
	/* tree ids walked, sorted */
	uint32_t *tree;
	size_t n_tree;
	int tree_complete;
	/* the ALL scan */
	profdb_entry *all;
	size_t n_all;
	int all_complete;
	uint64_t warnings;
} qd;

/* ---- strings ------------------------------------------------------------------ */

static void check_str(const qd *d, profdb_str s, const char *what)
{
	QUERY_CHECK(s.ptr != NULL, "%s: NULL pointer (length %zu)", what, s.len);
	uintptr_t x = (uintptr_t)s.ptr;
	for (size_t i = 0; i < d->n_in; i++) {
		uintptr_t lo = (uintptr_t)d->in[i].data;
		size_t size = d->in[i].size;
		if (!d->in[i].data || x < lo || x - lo >= size)
			continue;
		QUERY_CHECK(s.len <= size - (x - lo), "%s [%p, +%zu) starts inside input %zu "
		            "(\"%s\", [%p, +%zu)) and ends past it", what, (const void *)s.ptr, s.len,
		            i, d->in[i].name ? d->in[i].name : "", d->in[i].data, size);
	}
	/* Owned by the handle, or inside an input: readable for its length
	 * (a sanitizer reports a read past either). */
	volatile unsigned char sink = 0;
	for (size_t i = 0; i < s.len; i++)
		sink ^= (unsigned char)s.ptr[i];
	(void)sink;
}

static int same_str(profdb_str a, profdb_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static int same_number(profdb_number a, profdb_number b)
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

static int cmp_by_context(const void *a, const void *b)
{
	const profdb_entry *x = a, *y = b;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

static int same_entry(const profdb_entry *a, const profdb_entry *b)
{
	return a->profile == b->profile && a->context == b->context && a->metric == b->metric &&
	       same_number(a->value, b->value);
}

/* ---- description, counts, metrics --------------------------------------------- */

static void drive_about(qd *d)
{
	profdb_about a;
	/* A damaged title is an error (HPCToolkit reads it lazily); the format
	 * is set anyway. */
	int r = (int)CALL(profdb_get_about(d->db, &a));
	QUERY_CHECK(r <= 0, "get_about returned %d", r);
	QUERY_CHECK(a.format != PROFDB_FORMAT_UNKNOWN &&
	            strcmp(profdb_format_name(a.format), "unknown") != 0, "format %d", (int)a.format);
	if (r == 0) {
		check_str(d, a.version, "about.version");
		check_str(d, a.title, "about.title");
	}
	d->format = a.format;
	QUERY_CHECK(a.format != PROFDB_FORMAT_HPCTK4 || profdb_get_hpctk(d->db) != NULL,
	            "no native HPCToolkit handle");
	QUERY_CHECK(a.format != PROFDB_FORMAT_CUBE || profdb_get_cube(d->db) != NULL,
	            "no native Cube handle");
	QUERY_CHECK(a.format != PROFDB_FORMAT_CALLGRIND || profdb_get_cg(d->db) != NULL,
	            "no native Callgrind handle");
	r = (int)CALL(profdb_get_counts(d->db, &d->counts));
	d->have_counts = r == 0;
	QUERY_CHECK(r <= 0, "get_counts returned %d", r);
	if (d->have_counts) {
		const profdb_counts *c = &d->counts;
		QUERY_CHECK(c->profiles >= 0 && c->contexts >= 0 && c->metrics >= 0 && c->values >= 0 &&
		            c->traces >= 0 && c->samples >= 0, "a negative count");
	}
}

static void drive_metrics(qd *d)
{
	d->nm = CALL(profdb_metric_count(d->db));
	if (d->nm < 0)
		return;
	size_t lim = d->nm < MAX_METRICS ? (size_t)d->nm : MAX_METRICS;
	d->m_id = malloc((lim + 1) * sizeof *d->m_id);
	d->m_excl = malloc((lim + 1) * sizeof *d->m_excl);
	QUERY_CHECK(d->m_id && d->m_excl, "out of memory");
	int64_t stat_only = 0;
	int complete = 1;
	for (size_t i = 0; i < lim; i++) {
		profdb_metric m, g, f;
		int r = (int)CALL(profdb_metric_at(d->db, (uint32_t)i, &m));
		if (r < 0) {
			complete = 0;
			break;
		}
		QUERY_CHECK(r == 0, "metric_at(%zu) = %d", i, r);
		check_str(d, m.name, "metric name");
		check_str(d, m.unit, "metric unit");
		check_str(d, m.description, "metric description");
		check_str(d, m.statistic, "metric statistic");
		QUERY_CHECK(m.kind >= PROFDB_METRIC_OTHER && m.kind <= PROFDB_METRIC_DERIVED &&
		            m.type >= PROFDB_TYPE_NONE && m.type <= PROFDB_TYPE_F64 &&
		            (m.has_data == 0 || m.has_data == 1), "metric %zu: kind %d type %d "
		            "has_data %d", i, (int)m.kind, (int)m.type, m.has_data);
		stat_only += m.kind == PROFDB_METRIC_SUMMARY;
		d->m_id[d->n_m] = m.id;
		d->m_excl[d->n_m++] = m.exclusive_id;

		r = (int)CALL(profdb_metric_get(d->db, m.id, &g));
		QUERY_CHECK(r == 0 && g.id == m.id, "metric %zu (id %" PRIu32 "): metric_get = %d, "
		            "id %" PRIu32, i, m.id, r, g.id);
		if (m.exclusive_id != PROFDB_NONE)
			QUERY_CHECK(CALL(profdb_metric_get(d->db, m.exclusive_id, &g)) == 0,
			            "metric %" PRIu32 ": exclusive id %" PRIu32 " does not exist", m.id,
			            m.exclusive_id);
		if (m.inclusive_id != PROFDB_NONE)
			QUERY_CHECK(CALL(profdb_metric_get(d->db, m.inclusive_id, &g)) == 0,
			            "metric %" PRIu32 ": inclusive id %" PRIu32 " does not exist", m.id,
			            m.inclusive_id);
		if (i < MAX_FINDS && m.name.len && m.name.len < 4096 &&
		    !memchr(m.name.ptr, 0, m.name.len)) {
			char *name = malloc(m.name.len + 1);
			QUERY_CHECK(name != NULL, "out of memory");
			memcpy(name, m.name.ptr, m.name.len);
			name[m.name.len] = 0;
			r = (int)CALL(profdb_metric_find(d->db, name, &f));
			QUERY_CHECK(r == 0 && same_str(f.name, m.name), "metric_find(\"%s\") = %d", name, r);
			free(name);
		}
	}
	if (!complete || d->nm > MAX_METRICS)
		return;
	profdb_metric m;
	QUERY_CHECK(CALL(profdb_metric_at(d->db, (uint32_t)d->nm, &m)) == -ENOENT,
	            "metric_at(count = %" PRId64 ") is not -ENOENT", d->nm);
	if (d->have_counts)
		QUERY_CHECK(d->counts.metrics <= d->nm && d->counts.metrics >= d->nm - stat_only,
		            "%" PRId64 " metrics, %" PRId64 " of them SUMMARY, but counts.metrics = %"
		            PRId64, d->nm, stat_only, d->counts.metrics);
}

/* ---- the tree ------------------------------------------------------------------- */

static void check_context(const qd *d, const profdb_context *c)
{
	check_str(d, c->function, "context function");
	check_str(d, c->file, "context file");
	check_str(d, c->module, "context module");
	QUERY_CHECK(c->relation >= PROFDB_RELATION_NONE && c->relation <= PROFDB_RELATION_UNKNOWN &&
	            c->type >= PROFDB_CTX_UNKNOWN && c->type <= PROFDB_CTX_INSTRUCTION &&
	            (c->in_tree == 0 || c->in_tree == 1) && (c->has_offset == 0 || c->has_offset == 1),
	            "context %" PRIu32 ": relation %d type %d in_tree %d has_offset %d", c->id,
	            (int)c->relation, (int)c->type, c->in_tree, c->has_offset);
}

/* Walk through the links only: each node once, links mutually consistent,
 * never more nodes than context_count. */
static void drive_tree(qd *d)
{
	d->nc = CALL(profdb_context_count(d->db));
	if (d->nc < 0)
		return;
	if (d->have_counts)
		QUERY_CHECK(d->nc == d->counts.contexts, "context_count %" PRId64 ", counts.contexts %"
		            PRId64, d->nc, d->counts.contexts);
	uint32_t id;
	int r = (int)CALL(profdb_context_root(d->db, &id));
	if (d->nc == 0) {
		QUERY_CHECK(r == -ENOENT, "an empty tree has a root (%d)", r);
		d->tree_complete = 1;
		return;
	}
	if (r < 0)
		return;
	QUERY_CHECK(r == 0, "context_root = %d", r);
	size_t cap = d->nc < MAX_TREE ? (size_t)d->nc : MAX_TREE;
	d->tree = malloc((cap + 1) * sizeof *d->tree);
	QUERY_CHECK(d->tree != NULL, "out of memory");
	profdb_context c, parent, ch;
	if (CALL(profdb_context_get(d->db, id, &c)) < 0)
		return;
	QUERY_CHECK(c.id == id && c.parent == PROFDB_NONE, "root %" PRIu32 ": id %" PRIu32
	            ", parent %" PRIu32, id, c.id, c.parent);
	int complete = 0;
	for (;;) {
		QUERY_CHECK((int64_t)d->n_tree < d->nc, "the links visit more than the %" PRId64
		            " nodes context_count says (at %" PRIu32 ")", d->nc, c.id);
		if (d->n_tree >= cap)
			break;
		d->tree[d->n_tree++] = c.id;
		check_context(d, &c);
		QUERY_CHECK(c.in_tree == 1, "tree node %" PRIu32 " has in_tree 0", c.id);
		if (c.parent == PROFDB_NONE) {
			QUERY_CHECK(c.depth == 0 && c.relation == PROFDB_RELATION_NONE, "root %" PRIu32
			            ": depth %" PRIu32 ", relation %d", c.id, c.depth, (int)c.relation);
		} else {
			QUERY_CHECK(CALL(profdb_context_get(d->db, c.parent, &parent)) == 0,
			            "parent %" PRIu32 " of %" PRIu32, c.parent, c.id);
			QUERY_CHECK(c.depth == parent.depth + 1 && c.relation != PROFDB_RELATION_NONE,
			            "context %" PRIu32 ": depth %" PRIu32 " below a parent of depth %"
			            PRIu32 ", relation %d", c.id, c.depth, parent.depth, (int)c.relation);
		}
		if (c.first_child != PROFDB_NONE) {
			if (CALL(profdb_context_get(d->db, c.first_child, &ch)) < 0)
				break;
			QUERY_CHECK(ch.id == c.first_child && ch.parent == c.id, "first child %" PRIu32
			            " of %" PRIu32 " has id %" PRIu32 " and parent %" PRIu32, c.first_child,
			            c.id, ch.id, ch.parent);
			c = ch;
			continue;
		}
		/* Climb to the next sibling: depths strictly decrease. */
		while (c.next_sibling == PROFDB_NONE && c.parent != PROFDB_NONE)
			QUERY_CHECK(CALL(profdb_context_get(d->db, c.parent, &c)) == 0, "parent again");
		if (c.next_sibling == PROFDB_NONE) {
			complete = 1;
			break;
		}
		uint32_t up = c.parent, sib = c.next_sibling;
		if (CALL(profdb_context_get(d->db, sib, &c)) < 0)
			break;
		QUERY_CHECK(c.id == sib && c.parent == up, "sibling %" PRIu32 " has id %" PRIu32
		            " and parent %" PRIu32 ", not %" PRIu32, sib, c.id, c.parent, up);
	}
	qsort(d->tree, d->n_tree, sizeof *d->tree, cmp_u32);
	for (size_t i = 1; i < d->n_tree; i++)
		QUERY_CHECK(d->tree[i] != d->tree[i - 1], "context %" PRIu32 " reached twice",
		            d->tree[i]);
	if (complete) {
		QUERY_CHECK((int64_t)d->n_tree == d->nc, "the links reach %zu of %" PRId64 " nodes",
		            d->n_tree, d->nc);
		d->tree_complete = 1;
	}
}

static int in_tree(const qd *d, uint32_t id)
{
	return d->n_tree && bsearch(&id, d->tree, d->n_tree, sizeof *d->tree, cmp_u32) != NULL;
}

/* ---- profiles ------------------------------------------------------------------- */

static void drive_profiles(qd *d)
{
	d->np = CALL(profdb_profile_count(d->db));
	if (d->np < 0)
		return;
	if (d->have_counts)
		QUERY_CHECK(d->np == d->counts.profiles, "profile_count %" PRId64 ", counts.profiles %"
		            PRId64, d->np, d->counts.profiles);
	int64_t lim = d->np < MAX_PROFILES ? d->np : MAX_PROFILES;
	for (int64_t p = 0; p < lim; p++) {
		profdb_profile pr;
		int r = (int)CALL(profdb_profile_at(d->db, (uint32_t)p, &pr));
		if (r < 0)
			continue;
		QUERY_CHECK(r == 0 && pr.index == (uint32_t)p && pr.name.len > 0 &&
		            (pr.is_summary == 0 || pr.is_summary == 1), "profile %" PRId64 ": %d, index %"
		            PRIu32 ", name length %zu, is_summary %d", p, r, pr.index, pr.name.len,
		            pr.is_summary);
		check_str(d, pr.name, "profile name");
		profdb_str kind;
		uint64_t v;
		uint32_t ni = pr.n_identity < MAX_IDENTITY ? pr.n_identity : MAX_IDENTITY;
		for (uint32_t i = 0; i < ni; i++) {
			r = (int)CALL(profdb_profile_identity(d->db, (uint32_t)p, i, &kind, &v));
			if (r < 0)
				break;
			QUERY_CHECK(r == 0 && kind.len > 0, "profile %" PRId64 " identity %" PRIu32
			            ": %d, kind length %zu", p, i, r, kind.len);
			check_str(d, kind, "identity kind");
		}
		if (pr.n_identity < UINT32_MAX)
			QUERY_CHECK(CALL(profdb_profile_identity(d->db, (uint32_t)p, pr.n_identity, &kind,
			                                         &v)) == -ENOENT,
			            "identity %" PRIu32 " of profile %" PRId64 " is not -ENOENT",
			            pr.n_identity, p);
	}
	profdb_profile pr;
	if (d->np < UINT32_MAX)
		QUERY_CHECK(CALL(profdb_profile_at(d->db, (uint32_t)d->np, &pr)) == -ENOENT,
		            "profile_get(count = %" PRId64 ") is not -ENOENT", d->np);
}

/* ---- values --------------------------------------------------------------------- */

static void check_entry(const qd *d, const profdb_entry *e, const char *what)
{
	QUERY_CHECK(e->value.type >= PROFDB_TYPE_U64 && e->value.type <= PROFDB_TYPE_F64,
	            "%s: entry (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") of type %d", what, e->profile,
	            e->context, e->metric, (int)e->value.type);
	QUERY_CHECK(d->np < 0 || (int64_t)e->profile < d->np, "%s: entry of profile %" PRIu32
	            " of %" PRId64, what, e->profile, d->np);
}

/* Pre-release: is @p e a summary (or data-less) metric outside the summary
 * profile (profile 0, doc/model.md), or a thread-profile metric in it? */
static int summary_mismatch(const qd *d, const profdb_entry *e)
{
	profdb_metric m;
	return CALL(profdb_metric_get(d->db, e->metric, &m)) == 0 &&
	       (m.kind == PROFDB_METRIC_DERIVED ||
	        (m.kind == PROFDB_METRIC_SUMMARY) != (e->profile == 0));
}

/* The ALL scan: every entry equals profdb_value(), profiles ascend, and a
 * complete scan counts counts.values. */
static void scan_all(qd *d)
{
	profdb_values *it = NULL;
	int r = (int)CALL(profdb_values_new(&it, d->db, PROFDB_SCAN_ALL, 0));
	if (r < 0) {
		QUERY_CHECK(it == NULL, "a failed values_new returned a cursor");
		return;
	}
	size_t cap = 1024;
	d->all = malloc(cap * sizeof *d->all);
	QUERY_CHECK(d->all != NULL, "out of memory");
	profdb_entry e;
	while (d->n_all < FUZZ_QUERY_BUDGET) {
		r = (int)CALL(profdb_values_next(it, &e));
		if (r <= 0)
			break;
		QUERY_CHECK(r == 1, "values_next = %d", r);
		check_entry(d, &e, "ALL");
		if (d->n_all)
			QUERY_CHECK(e.profile >= d->all[d->n_all - 1].profile, "ALL: profile %" PRIu32
			            " after %" PRIu32, e.profile, d->all[d->n_all - 1].profile);
		profdb_number v;
		profdb_metric m;
		int rv = (int)CALL(profdb_value(d->db, e.profile, e.context, e.metric, &v));
		/* A value file of another database than the metadata (the
		 * companion passes): values under metric ids the metadata does
		 * not name are scanned, but a lookup refuses the id. The library
		 * does not compare the files, so this counts as a cross-file
		 * mismatch, fatal only for consistent inputs. Without metadata
		 * there is nothing to disagree with. */
		if (rv == -ENOENT && !d->consistent && d->has_meta &&
		    CALL(profdb_metric_get(d->db, e.metric, &m)) == -ENOENT)
			fuzz_query_stats_total.mismatches++;
		/* Pre-release: a thread-profile id stored in the summary profile
		 * (or the reverse), which the metadata declares otherwise; a
		 * lookup then reads "not stored". Also a cross-file mismatch. */
		else if (rv == 0 && !d->consistent && d->has_meta &&
		         d->format == PROFDB_FORMAT_HPCTK_PRE && summary_mismatch(d, &e))
			fuzz_query_stats_total.mismatches++;
		else
			QUERY_CHECK(rv == 1 && same_number(v, e.value), "value(%" PRIu32 ", %" PRIu32 ", %"
		            PRIu32 ") = %d (type %d) differs from the ALL scan (type %d)", e.profile,
		            e.context, e.metric, rv, (int)v.type, (int)e.value.type);
		if (d->n_all == cap) {
			cap *= 2;
			d->all = realloc(d->all, cap * sizeof *d->all);
			QUERY_CHECK(d->all != NULL, "out of memory");
		}
		d->all[d->n_all++] = e;
	}
	fuzz_query_stats_total.values += d->n_all;
	if (r == 0) {
		QUERY_CHECK(CALL(profdb_values_next(it, &e)) == 0, "a finished cursor goes on");
		d->all_complete = 1;
		/* Tolerant mode: blocks found damaged while scanning read as absent,
		 * but counts.values counts what the indexes say (doc/model.md). */
		if (d->have_counts && !d->tolerant)
			QUERY_CHECK((int64_t)d->n_all == d->counts.values, "the ALL scan found %zu values, "
			            "counts.values = %" PRId64, d->n_all, d->counts.values);
		if (d->have_counts && d->tolerant)
			QUERY_CHECK((int64_t)d->n_all <= d->counts.values, "the ALL scan found %zu values, "
			            "more than counts.values = %" PRId64, d->n_all, d->counts.values);
	} else if (r < 0) {
		QUERY_CHECK(CALL(profdb_values_next(it, &e)) < 0, "a failed cursor goes on");
	}
	profdb_values_free(it);
}

/* PROFILE scans: the ALL entries of their profile, in the same order. */
static void scan_profiles(qd *d)
{
	if (d->np < 0)
		return;
	size_t at = 0, budget = FUZZ_QUERY_BUDGET;
	int64_t lim = d->np < MAX_PROFILES ? d->np : MAX_PROFILES;
	int complete = d->all_complete && lim == d->np;
	for (int64_t p = 0; p < lim && budget; p++) {
		profdb_values *it = NULL;
		int r = (int)CALL(profdb_values_new(&it, d->db, PROFDB_SCAN_PROFILE, (uint32_t)p));
		QUERY_CHECK(r <= 0, "values_new = %d", r);
		if (r < 0) {
			QUERY_CHECK(!d->all_complete, "profile %" PRId64 ": the scan cannot start but the "
			            "ALL scan read everything", p);
			complete = 0;
			continue;
		}
		profdb_entry e;
		while (budget && (r = (int)CALL(profdb_values_next(it, &e))) == 1) {
			budget--;
			check_entry(d, &e, "PROFILE");
			QUERY_CHECK(e.profile == (uint32_t)p, "the scan of profile %" PRId64 " yields "
			            "profile %" PRIu32, p, e.profile);
			if (d->all_complete) {
				QUERY_CHECK(at < d->n_all && same_entry(&e, &d->all[at]), "profile %" PRId64
				            ": entry (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") is not entry %zu "
				            "of the ALL scan", p, e.profile, e.context, e.metric, at);
				at++;
			}
		}
		if (!budget)
			complete = 0;
		else if (r < 0) {
			QUERY_CHECK(!d->all_complete, "profile %" PRId64 ": the scan fails (%d) but the "
			            "ALL scan read everything", p, r);
			complete = 0;
		}
		profdb_values_free(it);
	}
	if (complete)
		QUERY_CHECK(at == d->n_all, "the PROFILE scans found %zu values, the ALL scan %zu", at,
		            d->n_all);
}

/* Whether profile @p p is a summary profile: 1, 0, or -1 when profile_at
 * fails (lazily read tables may). */
static int summary_profile(const qd *d, uint32_t p)
{
	profdb_profile pr;
	return CALL(profdb_profile_at(d->db, p, &pr)) == 0 ? pr.is_summary != 0 : -1;
}

/* The ALL entries of the profiles that are not summary profiles (what a
 * CONTEXT scan covers), sorted by context; NULL when a profile cannot say
 * whether it is a summary. */
static profdb_entry *thread_entries(const qd *d, size_t *n)
{
	profdb_entry *all = malloc((d->n_all ? d->n_all : 1) * sizeof *all);
	QUERY_CHECK(all != NULL, "out of memory");
	int summary = 0;
	*n = 0;
	for (size_t i = 0; i < d->n_all; i++) {   /* profiles ascend in the ALL scan */
		if ((i == 0 || d->all[i].profile != d->all[i - 1].profile) &&
		    (summary = summary_profile(d, d->all[i].profile)) < 0)
			break;
		if (!summary)
			all[(*n)++] = d->all[i];
	}
	if (summary < 0) {
		free(all);
		return NULL;
	}
	qsort(all, *n, sizeof *all, cmp_by_context);
	return all;
}

/* CONTEXT scans: the ALL entries of their context in the profiles that are
 * not summary profiles, as a set. A context with values is addressable,
 * and in the tree exactly when the walk met it. */
static void scan_contexts(qd *d)
{
	if (!d->all_complete || !d->n_all)
		return;
	/* HPCToolkit 4.0 reads these from cct.db, which the library does not
	 * compare with profile.db: see drive-hpctk.h. */
	int fatal = d->consistent || d->format != PROFDB_FORMAT_HPCTK4 || !d->has_cct;
	/* Both HPCToolkit formats find contexts without a tree node (elided
	 * ones) through cct.db when there is one (else through profile.db). */
	int get_fatal = d->consistent || !d->has_cct ||
	                (d->format != PROFDB_FORMAT_HPCTK4 && d->format != PROFDB_FORMAT_HPCTK_PRE);
	size_t n_all;
	profdb_entry *all = thread_entries(d, &n_all), *got = NULL;
	if (!all)
		return;
	size_t budget = FUZZ_QUERY_BUDGET, cap = 0;
	uint64_t searches = 0, per_scan = (uint64_t)(d->np > 0 ? d->np : 0) + 1;
	for (size_t i = 0; i < n_all && budget && searches < MAX_CONTEXT_SEARCHES;) {
		size_t j = i;
		while (j < n_all && all[j].context == all[i].context)
			j++;
		uint32_t ctx = all[i].context;
		searches += per_scan;
		profdb_context cx;
		int r = (int)CALL(profdb_context_get(d->db, ctx, &cx));
		/* Lazily validated structures may fail (documented codes); only
		 * "no such context" contradicts the values. */
		QUERY_CHECK(r != -ENOENT || !get_fatal, "context %" PRIu32 " carries values but "
		            "context_get says -ENOENT", ctx);
		if (r == 0) {
			check_context(d, &cx);
			QUERY_CHECK(cx.id == ctx, "context_get(%" PRIu32 ") is %" PRIu32, ctx, cx.id);
			if (d->tree_complete)
				QUERY_CHECK(cx.in_tree == in_tree(d, ctx), "context %" PRIu32 ": in_tree %d, "
				            "but the walk %s it", ctx, cx.in_tree, in_tree(d, ctx) ? "met" :
				            "did not meet");
		}
		profdb_values *it = NULL;
		r = (int)CALL(profdb_values_new(&it, d->db, PROFDB_SCAN_CONTEXT, ctx));
		QUERY_CHECK(r <= 0, "values_new = %d", r);
		if (r < 0) {
			QUERY_CHECK(!fatal, "context %" PRIu32 ": the scan cannot start (%d)", ctx, r);
			fuzz_query_stats_total.mismatches++;
			i = j;
			continue;
		}
		/* One entry more than expected is enough to see a difference. */
		size_t want = j - i, k = 0;
		if (cap < want + 1) {
			cap = want + 1;
			got = realloc(got, cap * sizeof *got);
			QUERY_CHECK(got != NULL, "out of memory");
		}
		while (k <= want && budget && (r = (int)CALL(profdb_values_next(it, &got[k]))) == 1) {
			check_entry(d, &got[k], "CONTEXT");
			k++;
			budget--;
		}
		profdb_values_free(it);
		if (!budget)
			break;
		int same = r >= 0 && k == want;
		if (same) {
			qsort(got, k, sizeof *got, cmp_by_context);
			for (size_t x = 0; same && x < k; x++)
				same = same_entry(&got[x], &all[i + x]);
		}
		if (!same) {
			QUERY_CHECK(!fatal, "context %" PRIu32 ": the CONTEXT scan (%d, %zu entries) "
			            "differs from the %zu entries of the ALL scan", ctx, r, k, want);
			fuzz_query_stats_total.mismatches++;
		}
		i = j;
	}
	free(got);
	free(all);
}

/* ---- inclusive / exclusive ---------------------------------------------------- */

static uint32_t exclusive_id_of(const qd *d, uint32_t m)
{
	for (size_t i = 0; i < d->n_m; i++)
		if (d->m_id[i] == m)
			return d->m_excl[i];
	return PROFDB_NONE;
}

static void scoped_one(const qd *d, uint32_t p, uint32_t c, uint32_t m)
{
	for (int inclusive = 0; inclusive < 2; inclusive++) {
		profdb_number a, b;
		int r = inclusive ? (int)CALL(profdb_inclusive(d->db, p, c, m, &a))
		                  : (int)CALL(profdb_exclusive(d->db, p, c, m, &a));
		QUERY_CHECK(r <= 1, "%s(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") = %d",
		            inclusive ? "inclusive" : "exclusive", p, c, m, r);
		QUERY_CHECK(r < 0 || (a.type >= PROFDB_TYPE_NONE && a.type <= PROFDB_TYPE_F64 &&
		                      (r == 0 || a.type != PROFDB_TYPE_NONE)),
		            "%s(%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") = %d of type %d",
		            inclusive ? "inclusive" : "exclusive", p, c, m, r, (int)a.type);
		int r2 = inclusive ? (int)CALL(profdb_inclusive(d->db, p, c, m, &b))
		                   : (int)CALL(profdb_exclusive(d->db, p, c, m, &b));
		QUERY_CHECK(r2 == r && (r < 0 || same_number(a, b)), "%s(%" PRIu32 ", %" PRIu32 ", %"
		            PRIu32 ") changed between two calls: %d, then %d",
		            inclusive ? "inclusive" : "exclusive", p, c, m, r, r2);
		/* Where the exclusive value is the stored one (model.md). */
		if (inclusive || r < 0 || exclusive_id_of(d, m) != m ||
		    (d->format != PROFDB_FORMAT_HPCTK4 && d->format != PROFDB_FORMAT_CALLGRIND))
			continue;
		profdb_number v;
		int rv = (int)CALL(profdb_value(d->db, p, c, m, &v));
		if (rv == 1)
			QUERY_CHECK(r == 1 && same_number(a, v), "exclusive(%" PRIu32 ", %" PRIu32 ", %"
			            PRIu32 ") = %d differs from the stored value of its own exclusive id",
			            p, c, m, r);
	}
}

static void drive_scoped(qd *d)
{
	unsigned n = 0;
	/* Stored entries, spread over the ALL scan. */
	size_t step = d->n_all / (MAX_SCOPED / 2) + 1;
	for (size_t i = 0; i < d->n_all && n < MAX_SCOPED / 2; i += step, n++)
		scoped_one(d, d->all[i].profile, d->all[i].context, d->all[i].metric);
	/* Tree nodes with the first metrics, in the first and last profile. */
	if (d->np <= 0)
		return;
	uint32_t ps[2] = {0, (uint32_t)(d->np - 1)};
	for (size_t t = 0; t < d->n_tree && n < MAX_SCOPED; t += d->n_tree / 8 + 1)
		for (size_t m = 0; m < d->n_m && m < 3 && n < MAX_SCOPED; m++)
			for (int k = 0; k < 2 && n < MAX_SCOPED; k++, n++)
				scoped_one(d, ps[k], d->tree[t], d->m_id[m]);
}

/* ---- traces --------------------------------------------------------------------- */

static void drive_traces(qd *d)
{
	if (d->np < 0)
		return;
	int64_t lim = d->np < MAX_PROFILES ? d->np : MAX_PROFILES, total = 0;
	uint64_t budget = MAX_SAMPLES;
	int complete = lim == d->np;
	for (int64_t p = 0; p < lim; p++) {
		int64_t len = CALL(profdb_trace_length(d->db, (uint32_t)p));
		if (len == -ENOTSUP) {
			QUERY_CHECK(!d->have_counts || d->counts.traces == 0, "trace_length -ENOTSUP, but "
			            "counts.traces = %" PRId64, d->counts.traces);
			continue;
		}
		if (len < 0) {
			complete = 0;
			continue;
		}
		total += len;
		profdb_sample s, prev = {0, 0};
		int64_t i = 0;
		for (; i < len && budget; i++, budget--) {
			uint64_t idx = UINT64_MAX;
			int r = (int)CALL(profdb_trace_sample_at(d->db, (uint32_t)p, (uint64_t)i, &s));
			if (r < 0)
				break;
			QUERY_CHECK(r == 0, "trace_at = %d", r);
			QUERY_CHECK(i == 0 || s.time_ns >= prev.time_ns, "profile %" PRId64 " sample %"
			            PRId64 ": time %" PRIu64 " after %" PRIu64, p, i, s.time_ns,
			            prev.time_ns);
			r = (int)CALL(profdb_trace_seek(d->db, (uint32_t)p, s.time_ns, &idx));
			QUERY_CHECK(r >= 0 && idx <= (uint64_t)i &&
			            (idx == (uint64_t)i || (i > 0 && s.time_ns == prev.time_ns)),
			            "profile %" PRId64 ": seek(%" PRIu64 ") = %d, index %" PRIu64
			            ", sample %" PRId64 " has that time", p, s.time_ns, r, idx, i);
			prev = s;
		}
		if (i < len || len == 0)
			continue;
		uint64_t idx = UINT64_MAX;
		QUERY_CHECK(CALL(profdb_trace_seek(d->db, (uint32_t)p, 0, &idx)) >= 0 && idx == 0,
		            "profile %" PRId64 ": seek(0) = index %" PRIu64, p, idx);
		if (prev.time_ns < UINT64_MAX)
			QUERY_CHECK(CALL(profdb_trace_seek(d->db, (uint32_t)p, prev.time_ns + 1, &idx)) >= 0
			            && idx == (uint64_t)len, "profile %" PRId64 ": seek past the last "
			            "sample = index %" PRIu64 " of %" PRId64, p, idx, len);
		QUERY_CHECK(CALL(profdb_trace_sample_at(d->db, (uint32_t)p, (uint64_t)len, &s)) == -ENOENT,
		            "trace_at(length) is not -ENOENT");
	}
	if (complete && d->have_counts)
		QUERY_CHECK(total <= d->counts.samples, "the traces hold %" PRId64 " samples, "
		            "counts.samples = %" PRId64, total, d->counts.samples);
}

/* ---- opening -------------------------------------------------------------------- */

static void on_warning(const char *msg, void *ud)
{
	QUERY_CHECK(msg && msg[0], "an empty warning");
	(void)strlen(msg);
	((qd *)ud)->warnings++;
}

static void check_arguments_once(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	profdb *db = (profdb *)&done;
	profdb_input in = {"x", "", 0};
	QUERY_CHECK(CALL(profdb_open_inputs(NULL, &in, 1, NULL)) == -EINVAL, "open_inputs(NULL)");
	QUERY_CHECK(CALL(profdb_open_inputs(&db, &in, 0, NULL)) == -EINVAL && db == NULL,
	            "open_inputs with no inputs");
	profdb_number v;
	QUERY_CHECK(CALL(profdb_value(NULL, 0, 0, 0, &v)) == -EINVAL, "value(NULL)");
	QUERY_CHECK(CALL(profdb_metric_count(NULL)) == -EINVAL, "metric_count(NULL)");
	QUERY_CHECK(CALL(profdb_trace_length(NULL, 0)) == -EINVAL, "trace_length(NULL)");
	profdb_close(NULL);
	profdb_values_free(NULL);
}

/* One open (tolerant or strict) and the whole walk. */
static int run_one(const profdb_input *in, size_t n, int consistent, uint32_t flags,
                   profdb_hpctk_layout *layout)
{
	qd d;
	memset(&d, 0, sizeof d);
	d.in = in;
	d.n_in = n;
	d.consistent = consistent;
	d.tolerant = (flags & PROFDB_OPEN_TOLERANT) != 0;
	d.nm = d.nc = d.np = -1;
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	o.warn = on_warning;
	o.warn_userdata = &d;
	o.max_memory = MAX_MEMORY;
	profdb *db = (profdb *)&d;   /* must come back NULL on failure */
	int r = (int)CALL(profdb_open_inputs(&db, in, n, &o));
	if (r < 0) {
		QUERY_CHECK(db == NULL, "a failed open (%d) returned a handle", r);
		return r;
	}
	QUERY_CHECK(r == 0 && db != NULL, "open returned %d and handle %p", r, (void *)db);
	fuzz_query_stats_total.opened++;
	d.db = db;
	for (size_t i = 0; i < n; i++)
		if (in[i].data && ((in[i].size >= 14 && memcmp(in[i].data, "HPCTOOLKITctxt", 14) == 0) ||
		                   (in[i].size >= 16 && memcmp(in[i].data, "HPCPROF-cctdb___", 16) == 0)))
			d.has_cct = 1;
	for (size_t i = 0; i < n; i++)
		if ((in[i].data && in[i].size >= 14 && memcmp(in[i].data, "HPCTOOLKITmeta", 14) == 0) ||
		    (in[i].data && in[i].size >= 16 && memcmp(in[i].data, "HPCTOOLKIT_expmt", 16) == 0) ||
		    (in[i].name && strcmp(in[i].name, "experiment.xml") == 0))
			d.has_meta = 1;

	/* Whether metadata is there, as the library decided it (by content:
	 * an experiment.xml may come under another name). */
	profdb_hpctkpre_info pinfo;
	if (profdb_get_hpctk(db))
		d.has_meta = profdb_hpctk_has(profdb_get_hpctk(db), PROFDB_HPCTK_META) == 1;
	else if (profdb_get_hpctkpre(db) &&
	         profdb_hpctkpre_get_info(profdb_get_hpctkpre(db), &pinfo) == 0)
		d.has_meta = pinfo.meta_kind != PROFDB_HPCTKPRE_META_NONE;
	/* A database the library itself finds consistent (profdb_hpctk_check)
	 * must not show any cross-file disagreement below. */
	if (!d.consistent && profdb_get_hpctk(db))
		d.consistent = CALL(profdb_hpctk_check(profdb_get_hpctk(db))) == 0;
	else if (!d.consistent && profdb_get_hpctkpre(db))
		d.consistent = CALL(profdb_hpctkpre_check(profdb_get_hpctkpre(db))) == 0;
	drive_about(&d);
	drive_metrics(&d);
	drive_tree(&d);
	drive_profiles(&d);
	scan_all(&d);
	scan_profiles(&d);
	scan_contexts(&d);
	drive_scoped(&d);
	drive_traces(&d);
	fuzz_analysis_run(db);
	/* The converters, with the writers' helper threads and (tolerant
	 * runs) without them, on a second handle opened with one thread. */
	profdb *db1 = NULL;
	if (d.tolerant && d.np >= 0 && d.np <= FUZZ_CONVERT_FEW_PROFILES) {
		o.threads = 1;
		int r1 = (int)CALL(profdb_open_inputs(&db1, in, n, &o));
		QUERY_CHECK(r1 == 0 || r1 == -ENOMEM, "opens with the default threads, not with one: %d", r1);
	}
	fuzz_convert_run(db, db1);
	profdb_close(db1);

	profdb_values *it = NULL;
	QUERY_CHECK(CALL(profdb_values_new(&it, db, (profdb_scan)3, 0)) == -EINVAL && it == NULL,
	            "an unknown scan kind");
	if (layout && d.format == PROFDB_FORMAT_HPCTK4)
		*layout = profdb_hpctk_get_layout(profdb_get_hpctk(db));
	profdb_close(db);
	free(d.m_id);
	free(d.m_excl);
	free(d.tree);
	free(d.all);
	return 0;
}

static int run_both(const profdb_input *in, size_t n, int consistent,
                    profdb_hpctk_layout *layout)
{
	check_arguments_once();
	fuzz_query_stats_total.runs++;
	int r = run_one(in, n, consistent, PROFDB_OPEN_TOLERANT, layout);
	run_one(in, n, consistent, 0, NULL);
	return r;
}

int fuzz_query_run(const profdb_input *in, size_t n, int consistent)
{
	return run_both(in, n, consistent, NULL);
}

int fuzz_query_run1(const char *name, const void *data, size_t size, int consistent)
{
	static const unsigned char none[1];
	profdb_input in = {name, data ? data : none, data ? size : 0};
	return run_both(&in, 1, consistent, NULL);
}

void fuzz_query_hpctk_slot(profdb_hpctk_file which, const uint8_t *data, size_t size,
                           int consistent)
{
	static const char *const names[PROFDB_HPCTK_NFILES] = {"meta.db", "profile.db", "cct.db",
	                                                       "trace.db"};
	static const uint8_t none[1];
	profdb_input in[PROFDB_HPCTK_NFILES];
	profdb_hpctk_layout layout = PROFDB_HPCTK_FINAL;
	in[0] = (profdb_input){names[which], data ? data : none, data ? size : 0};
	if (run_both(in, 1, consistent, &layout) < 0)
		return;
	const profdb_input *comp = fuzz_hpctk_companions(layout);
	if (!comp)
		return;
	size_t n = 1;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		if (f != (int)which && comp[f].data)
			in[n++] = (profdb_input){names[f], comp[f].data, comp[f].size};
	run_both(in, n, 0, NULL);
}

void fuzz_query_hpctkpre(const profdb_input files[PROFDB_HPCTKPRE_NFILES], int consistent)
{
	profdb_input in[PROFDB_HPCTKPRE_NFILES];
	size_t n = 0;
	for (int f = 0; f < PROFDB_HPCTKPRE_NFILES; f++) {
		const char *name = f == PROFDB_HPCTKPRE_PROFILE ? "profile.db"
		                 : f == PROFDB_HPCTKPRE_CCT     ? "cct.db"
		                 : f == PROFDB_HPCTKPRE_TRACE   ? "trace.db"
		                 : "experiment.xml";
		if (!files[f].data)
			continue;
		/* The META slot: experiment.xml, or a draft meta.db by its magic. */
		if (f == PROFDB_HPCTKPRE_META && files[f].size >= 10 &&
		    memcmp(files[f].data, "HPCTOOLKIT", 10) == 0)
			name = "meta.db";
		in[n++] = (profdb_input){name, files[f].data, files[f].size};
	}
	if (n)
		run_both(in, n, consistent, NULL);
}
