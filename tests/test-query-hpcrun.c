/* The hpcrun backend of the common query interface (lib/hpcrun/query.c):
 * the writer's sample in every version with exact values, a hand-made
 * two-profile set whose trees overlap partially (merged contexts, metric
 * maps, an inclusive value computed by hand, the summation order, trace
 * samples mapped to merged contexts), detection of directories and single
 * files, tolerant mode and the memory bound, first use from many threads,
 * and the generic invariants (tests/query-check.h) on every generated set
 * and on every real sample under hpctoolkit/hpcrun (skipped when absent). */
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
#include "query-check.h"
#include "writer.h"

TestSuite(query_hpcrun, .timeout = 300);

#define NAME "app-000000-000-7f000101-4242-0"
#define T0 TW_HPCRUN_T0
#define PRIMARY UINT64_C(0x5e5072696d617279) /* "^Primary" */

/* ---- helpers ------------------------------------------------------------------ */

typedef struct warns {
	int n;
	char last[512];
} warns;

static void on_warn(const char *msg, void *ud)
{
	warns *w = ud;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", msg);
}

static profdb_options opts_of(uint32_t flags, warns *w)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	o.warn = on_warn;
	o.warn_userdata = w;
	return o;
}

static tw_blob write_run(const tw_hpcrun *d)
{
	tw_blob b;
	cr_assert_eq(tw_hpcrun_write(d, &b), 0);
	return b;
}

static tw_blob write_trace(uint64_t flags, const tw_hpctrace_rec *r, size_t n)
{
	tw_blob b;
	cr_assert_eq(tw_hpctrace_write(flags, r, n, &b), 0);
	return b;
}

static tw_blob sample_run(unsigned version, int trailer)
{
	tw_hpcrun d;
	tw_hpcrun_sample(&d, version, trailer);
	return write_run(&d);
}

static tw_blob sample_trace(void)
{
	const tw_hpctrace_rec *r;
	size_t n;
	tw_hpctrace_sample(&r, &n);
	return write_trace(0, r, n);
}

static profdb *open_blobs(const tw_blob *b, const char *const *names, size_t n,
                          const profdb_options *o)
{
	profdb_input in[8];
	cr_assert_leq(n, 8);
	for (size_t i = 0; i < n; i++)
		in[i] = (profdb_input){names[i], b[i].data, b[i].size};
	profdb *db;
	int r = profdb_open_inputs(&db, in, n, o);
	cr_assert_eq(r, 0, "open_inputs: %d %s", r, profdb_error_message());
	return db;
}

static double f64_of(const profdb *db, uint32_t p, uint32_t c, uint32_t m, int incl)
{
	profdb_number n;
	int r = incl ? profdb_inclusive(db, p, c, m, &n) : profdb_value(db, p, c, m, &n);
	cr_assert_eq(r, 1, "%s(%u, %u, %u) = %d %s", incl ? "inclusive" : "value", p, c, m, r,
	             profdb_error_message());
	cr_assert_eq(n.type, PROFDB_TYPE_F64);
	return n.as.f64;
}

static uint64_t u64_of(const profdb *db, uint32_t p, uint32_t c, uint32_t m, int incl)
{
	profdb_number n;
	int r = incl ? profdb_inclusive(db, p, c, m, &n) : profdb_value(db, p, c, m, &n);
	cr_assert_eq(r, 1, "%s(%u, %u, %u) = %d %s", incl ? "inclusive" : "value", p, c, m, r,
	             profdb_error_message());
	cr_assert_eq(n.type, PROFDB_TYPE_U64);
	return n.as.u64;
}

/* Call result @p r is the error @p code with the message @p message. */
static void expect_error(int r, int code, const char *message)
{
	cr_assert_eq(r, code, "%d (%s)", r, profdb_error_message());
	cr_assert_str_eq(profdb_error_message(), message);
}

/* An unknown context or metric id is -ENOENT with the same message from
 * every entry point that takes one (the sample: contexts 1 to 7, 3
 * metrics). */
static void check_id_messages(const profdb *db)
{
	static const char no_context[] = "hpcrun: no context 8 (ids 1 to 7)";
	static const char no_metric[] = "hpcrun: no metric 3 (3 metrics)";
	profdb_number n;
	profdb_context ctx;
	profdb_metric met;
	profdb_values *it;
	expect_error(profdb_value(db, 0, 8, 0, &n), -ENOENT, no_context);
	expect_error(profdb_inclusive(db, 0, 8, 0, &n), -ENOENT, no_context);
	expect_error(profdb_context_get(db, 8, &ctx), -ENOENT, no_context);
	expect_error(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, 8), -ENOENT, no_context);
	expect_error(profdb_value(db, 0, 1, 3, &n), -ENOENT, no_metric);
	expect_error(profdb_inclusive(db, 0, 1, 3, &n), -ENOENT, no_metric);
	expect_error(profdb_metric_at(db, 3, &met), -ENOENT, no_metric);
}

static void expect_absent(const profdb *db, uint32_t p, uint32_t c, uint32_t m)
{
	profdb_number n;
	cr_assert_eq(profdb_value(db, p, c, m, &n), 0, "value(%u, %u, %u)", p, c, m);
	cr_assert_eq(n.type, PROFDB_TYPE_NONE);
}

static void expect_context(const profdb *db, uint32_t id, uint32_t parent, const char *module,
                           uint64_t offset)
{
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, id, &c), 0, "%s", profdb_error_message());
	cr_assert_eq(c.parent, parent, "parent of %u: %u", id, c.parent);
	cr_assert(qc_str_is(c.module, module), "module of %u: %.*s", id, (int)c.module.len,
	          c.module.ptr);
	cr_assert_eq(c.offset, offset, "offset of %u", id);
	/* placeholders (no module here) are named, load-module offsets are not */
	cr_assert(qc_str_is(c.function, module[0] ? "" : "<primary root>"), "function of %u", id);
	cr_assert(c.has_offset && c.in_tree && qc_str_is(c.file, ""));
	cr_assert_eq(c.relation, parent == PROFDB_NONE ? PROFDB_RELATION_NONE : PROFDB_RELATION_CALL);
	cr_assert_eq(c.type, module[0] ? PROFDB_CTX_INSTRUCTION : PROFDB_CTX_UNKNOWN);
}

static profdb_sample sample_at(const profdb *db, uint32_t p, uint64_t i)
{
	profdb_sample s;
	cr_assert_eq(profdb_trace_sample_at(db, p, i, &s), 0, "%s", profdb_error_message());
	return s;
}

static uint64_t seek(const profdb *db, uint32_t p, uint64_t t)
{
	uint64_t i;
	cr_assert_eq(profdb_trace_seek(db, p, t, &i), 0, "%s", profdb_error_message());
	return i;
}

/* The SCAN_ALL order, strictly: profile, then context, then metric. */
static void check_scan_order(const profdb *db)
{
	size_t n;
	profdb_entry *e = qc_scan(db, PROFDB_SCAN_ALL, 0, &n);
	for (size_t i = 1; i < n; i++) {
		const profdb_entry *a = &e[i - 1], *b = &e[i];
		int up = a->profile < b->profile ||
		         (a->profile == b->profile && (a->context < b->context ||
		                                       (a->context == b->context && a->metric < b->metric)));
		cr_assert(up, "scan entry %zu (%u, %u, %u) does not follow (%u, %u, %u)", i, b->profile,
		          b->context, b->metric, a->profile, a->context, a->metric);
	}
	free(e);
}

/* The inclusive rule, for every (profile, context, metric): the raw value
 * plus the children's inclusive values in the tree's child order, in f64
 * for real metrics and u64 (mod 2^64) for integer ones, bit for bit. */
static void check_inclusive_rule(const profdb *db, const char *what)
{
	int64_t np = profdb_profile_count(db), nm = profdb_metric_count(db);
	int64_t nc = profdb_context_count(db);
	cr_assert_geq(nc, 0);
	for (uint32_t c = 1; c <= (uint32_t)nc; c++) {
		profdb_context ctx;
		cr_assert_eq(profdb_context_get(db, c, &ctx), 0);
		for (uint32_t p = 0; p < (uint32_t)np; p++)
			for (uint32_t m = 0; m < (uint32_t)nm; m++) {
				profdb_metric md;
				profdb_number raw, incl, ch;
				cr_assert_eq(profdb_metric_get(db, m, &md), 0);
				int real = md.type == PROFDB_TYPE_F64;
				double fs = 0;
				uint64_t us = 0;
				if (profdb_exclusive(db, p, c, m, &raw) == 1) {
					fs = real ? raw.as.f64 : 0;
					us = real ? 0 : raw.as.u64;
				}
				for (uint32_t k = ctx.first_child; k != PROFDB_NONE;) {
					profdb_context kc;
					int r = profdb_inclusive(db, p, k, m, &ch);
					cr_assert_geq(r, 0, "%s", profdb_error_message());
					if (r == 1) {
						if (real)
							fs += ch.as.f64;
						else
							us += ch.as.u64;
					}
					cr_assert_eq(profdb_context_get(db, k, &kc), 0);
					k = kc.next_sibling;
				}
				int r = profdb_inclusive(db, p, c, m, &incl);
				cr_assert_geq(r, 0, "%s", profdb_error_message());
				if (real)
					cr_assert(r == 1 ? incl.as.f64 == fs : fs == 0, "%s: inclusive(%u, %u, %u) "
					          "= %a, rule gives %a", what, p, c, m, r ? incl.as.f64 : 0.0, fs);
				else
					cr_assert(r == 1 ? incl.as.u64 == us : us == 0, "%s: inclusive(%u, %u, %u)",
					          what, p, c, m);
			}
	}
}

static profdb_counts check_all(const profdb *db, const char *what)
{
	profdb_counts c = qc_check_all(db, what);
	check_scan_order(db);
	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0);
	cr_assert_eq(a.format, PROFDB_FORMAT_HPCRUN);
	return c;
}

/* ---- the writer's sample ------------------------------------------------------------ */

/* writer.h's sample tree, merged ids in pre-order: 1 node 0 (^Primary),
 * 2 node 1 (app+0x1000), 3 node 2 (app+0x1010), 4 node 3 (libc+0x2000),
 * 5 node 4 (app+0x1020), 6 node 5 ([vdso]+0x3000), 7 node 6 (libc+0x2100). */
static void check_sample(unsigned version, int trailer)
{
	tw_blob b[2] = {sample_run(version, trailer), sample_trace()};
	const char *names[2] = {NAME ".hpcrun", NAME ".hpctrace"};
	warns w = {0, ""};
	profdb_options o = opts_of(0, &w);
	profdb *db = open_blobs(b, names, 2, &o);
	cr_assert_eq(w.n, 0, "%s", w.last);
	profdb_counts c = check_all(db, "sample");
	cr_assert_eq(c.profiles, 1);
	cr_assert_eq(c.contexts, 7);
	cr_assert_eq(c.metrics, 3);
	cr_assert_eq(c.values, 7, "dense files: the 7 non-zero cells of 21");
	cr_assert_eq(c.traces, 1);
	cr_assert_eq(c.samples, 5);

	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0);
	char v[8];
	snprintf(v, sizeof v, "0%u.00", version);
	cr_assert(qc_str_is(a.version, v));
	cr_assert(qc_str_is(a.title, "app"));
	/* Only load module + offset: the tool says so instead of a name. */
	cr_assert_eq(profdb_has_names(db), 0);
	profdb_str fn;
	cr_assert_eq(profdb_file_name(db, 0, &fn), -ENOTSUP);
	cr_assert_eq(profdb_check(db), -ENOTSUP);

	profdb_metric m;
	cr_assert_eq(profdb_metric_at(db, 0, &m), 0);
	cr_assert(qc_str_is(m.name, "CPUTIME (sec)") && qc_str_is(m.description, "CPU time"));
	cr_assert(m.kind == PROFDB_METRIC_POINT && m.type == PROFDB_TYPE_F64 && m.has_data);
	cr_assert(m.inclusive_id == 0 && m.exclusive_id == 0 && qc_str_is(m.unit, ""));
	cr_assert_eq(profdb_metric_find(db, "cycles", &m), 0);
	cr_assert(m.id == 1 && m.type == PROFDB_TYPE_U64);

	uint32_t root;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	cr_assert_eq(root, 1);
	expect_context(db, 1, PROFDB_NONE, "", PRIMARY);
	expect_context(db, 2, 1, "/usr/bin/app", 0x1000);
	expect_context(db, 4, 3, "/lib/x86_64-linux-gnu/libc.so.6", 0x2000);
	expect_context(db, 6, 5, "[vdso]", 0x3000);
	expect_context(db, 7, 1, "/lib/x86_64-linux-gnu/libc.so.6", 0x2100);
	profdb_context ctx;
	cr_assert_eq(profdb_context_get(db, 0, &ctx), -ENOENT);
	cr_assert_eq(profdb_context_get(db, 8, &ctx), -ENOENT);
	cr_assert_eq(profdb_context_get(db, 6, &ctx), 0);
	cr_assert_eq(ctx.depth, 3);

	profdb_profile pr;
	cr_assert_eq(profdb_profile_at(db, 0, &pr), 0);
	if (version == 4) {
		cr_assert(qc_str_is(pr.name, "node 2130706689 thread 0"), "%.*s", (int)pr.name.len,
		          pr.name.ptr);
		cr_assert_eq(pr.n_identity, 2);
	} else {
		cr_assert(qc_str_is(pr.name, "rank 0 thread 0"));
		cr_assert_eq(pr.n_identity, 4);
		profdb_str kind;
		uint64_t val;
		cr_assert_eq(profdb_profile_identity(db, 0, 3, &kind, &val), 0);
		cr_assert(qc_str_is(kind, "pid") && val == 4242);
	}

	cr_assert_eq(u64_of(db, 0, 4, 1, 0), 100);
	cr_assert_eq(f64_of(db, 0, 4, 0, 0), 2.0);
	expect_absent(db, 0, 2, 1);   /* dense: a stored zero; sparse: not stored */
	expect_absent(db, 0, 1, 0);
	cr_assert_eq(f64_of(db, 0, 1, 0, 1), 3.75);
	cr_assert_eq(u64_of(db, 0, 1, 1, 1), 112);
	cr_assert_eq(f64_of(db, 0, 1, 2, 1), 3.0);
	cr_assert_eq(u64_of(db, 0, 2, 1, 1), 107);
	cr_assert_eq(u64_of(db, 0, 6, 1, 0), 7);
	profdb_number n;
	cr_assert_eq(profdb_exclusive(db, 0, 6, 1, &n), 1);
	cr_assert_eq(n.as.u64, 7);
	cr_assert_eq(profdb_inclusive(db, 0, 7, 0, &n), 0, "nothing below: zero");
	cr_assert_eq(profdb_value(db, 1, 1, 0, &n), -ENOENT);
	cr_assert_eq(profdb_value(db, 0, 8, 0, &n), -ENOENT);
	cr_assert_eq(profdb_value(db, 0, 1, 3, &n), -ENOENT);
	check_id_messages(db);
	check_inclusive_rule(db, "sample");

	/* trace cct ids 7, 11, 13, 3, 7 are nodes 3, 5, 6, 1, 3 */
	static const uint32_t want[5] = {4, 6, 7, 2, 4};
	cr_assert_eq(profdb_trace_length(db, 0), 5);
	for (uint64_t i = 0; i < 5; i++)
		cr_assert_eq(sample_at(db, 0, i).context, want[i], "sample %" PRIu64, i);
	cr_assert_eq(sample_at(db, 0, 3).time_ns, T0 + 5000);
	cr_assert_eq(seek(db, 0, 0), 0);
	cr_assert_eq(seek(db, 0, T0 + 2000), 1);
	cr_assert_eq(seek(db, 0, T0 + 2001), 3);
	cr_assert_eq(seek(db, 0, T0 + 9000), 4);
	cr_assert_eq(seek(db, 0, T0 + 9001), 5);
	profdb_sample s;
	cr_assert_eq(profdb_trace_sample_at(db, 0, 5, &s), -ENOENT);
	cr_assert_eq(profdb_trace_length(db, 1), -ENOENT);
	profdb_close(db);
	tw_blob_free(&b[0]);
	tw_blob_free(&b[1]);
}

Test(query_hpcrun, sample_v4) { check_sample(4, 1); }
Test(query_hpcrun, sample_v3) { check_sample(3, 1); }
Test(query_hpcrun, sample_v2_trailer) { check_sample(2, 1); }
Test(query_hpcrun, sample_v2_no_trailer) { check_sample(2, 0); }

/* Three epochs of one 03.00 file: three profiles with the same tree merge
 * into one tree of 7 contexts. */
Test(query_hpcrun, epochs_merge)
{
	tw_hpcrun d;
	tw_hpcrun_sample(&d, 3, 1);
	d.n_epochs = 3;
	d.lush = 1;
	tw_blob b = write_run(&d);
	const char *names[1] = {NAME ".hpcrun"};
	profdb *db = open_blobs(&b, names, 1, NULL);
	profdb_counts c = check_all(db, "epochs");
	cr_assert(c.profiles == 3 && c.contexts == 7 && c.values == 21 && c.traces == 0);
	profdb_profile pr;
	cr_assert_eq(profdb_profile_at(db, 2, &pr), 0);
	cr_assert(qc_str_is(pr.name, "rank 0 thread 0 epoch 2"), "%.*s", (int)pr.name.len,
	          pr.name.ptr);
	cr_assert_eq(pr.n_identity, 5);
	for (uint32_t p = 0; p < 3; p++)
		cr_assert_eq(u64_of(db, p, 1, 1, 1), 112);
	check_inclusive_rule(db, "epochs");
	profdb_close(db);
	tw_blob_free(&b);
}

/* ---- two profiles whose trees overlap partially --------------------------------------- */

/* Profile 0 (thread 0): modules 1 /bin/app, 2 /lib/libm.so; metrics 0
 * CPUTIME real, 1 cycles int. Profile 1 (thread 1): the same modules under
 * other ids (5 libm, 7 app), other node ids, metrics in another order plus
 * two more. Merged contexts (first appearance, pre-order):
 *   1 root placeholder       (both)
 *   2 app+0x100   under 1    (both)
 *   3 app+0x200   under 2    (both)
 *   4 libm+0x50   under 3    (profile 0)
 *   5 app+0x300   under 2    (profile 0)
 *   6 libm+0x50   under 2    (profile 1)
 *   7 app+0x999   under 3    (profile 1)
 *   8 app+0x42    a root     (profile 1)
 * Merged metrics: 0 CPUTIME, 1 cycles, 2 extra, 3 order. */
#define P53 9007199254740992.0   /* 2^53 */

static const tw_hpcrun_metric metrics_a[] = {
	{"CPUTIME (sec)", "CPU time", 1, 1, NULL, NULL, NULL, 0, 0},
	{"cycles", NULL, 0, 1000, NULL, NULL, NULL, 0, 0},
};
static const tw_hpcrun_metric metrics_b[] = {
	{"cycles", NULL, 0, 1000, NULL, NULL, NULL, 0, 0},
	{"CPUTIME (sec)", "CPU time", 1, 1, NULL, NULL, NULL, 0, 0},
	{"extra", NULL, 0, 1, NULL, NULL, NULL, 0, 0},
	{"order", NULL, 1, 1, NULL, NULL, NULL, 0, 0},
};
static const tw_hpcrun_module modules_a[] = {{1, "/bin/app", 1}, {2, "/lib/libm.so", 0}};
static const tw_hpcrun_module modules_b[] = {{5, "/lib/libm.so", 0}, {7, "/bin/app", 1}};
static const tw_hpcrun_node nodes_a[] = {
	{1, 0, 0, PRIMARY, 1}, {2, 1, 1, 0x100, 1}, {3, 2, 1, 0x200, 1}, {4, 3, 2, 0x50, 1},
	{5, 2, 1, 0x300, 1},
};
static const tw_hpcrun_node nodes_b[] = {
	{10, 0, 0, PRIMARY, 1}, {12, 10, 7, 0x100, 1}, {14, 12, 5, 0x50, 1}, {16, 12, 7, 0x200, 1},
	{18, 16, 7, 0x999, 1}, {20, 0, 7, 0x42, 1},
};
static const tw_hpcrun_id ids_a[] = {{0x4001, 0x7f000101, 0}, {0xC003, 0, 0}};
static const tw_hpcrun_id ids_b[] = {{0x4001, 0x7f000101, 0}, {0xC003, 1, 1}};
static const char *const attrs[] = {"program-name", "two"};

static void two_profiles(tw_blob b[3], const tw_hpcrun_node *bad_b)
{
	const tw_hpcrun_value va[] = {
		{2, 1, 3}, {3, 0, tw_hpcrun_f64(1.0)}, {3, 1, 10}, {4, 0, tw_hpcrun_f64(0.5)},
	};
	const tw_hpcrun_value vb[] = {
		{1, 0, 1}, {1, 3, tw_hpcrun_f64(1.0)},
		{2, 0, 20}, {2, 1, tw_hpcrun_f64(2.0)}, {2, 3, tw_hpcrun_f64(P53)}, {3, 2, 4},
		{4, 1, tw_hpcrun_f64(0.25)}, {4, 2, 9}, {4, 3, tw_hpcrun_f64(-P53)},
	};
	tw_hpcrun d;
	memset(&d, 0, sizeof d);
	d.version = 4;
	d.attrs = attrs;
	d.n_attrs = 1;
	d.metrics = metrics_a;
	d.n_metrics = 2;
	d.modules = modules_a;
	d.n_modules = 2;
	d.nodes = nodes_a;
	d.n_nodes = 5;
	d.values = va;
	d.n_values = 4;
	d.ids = ids_a;
	d.n_ids = 2;
	b[0] = write_run(&d);
	d.metrics = metrics_b;
	d.n_metrics = 4;
	d.modules = modules_b;
	d.nodes = bad_b ? bad_b : nodes_b;
	d.n_nodes = 6;
	d.values = vb;
	d.n_values = 9;
	d.ids = ids_b;
	b[1] = write_run(&d);
	/* cct 18 is merged 7, 14 is 6, 99 names no node */
	const tw_hpctrace_rec tr[] = {{100, 18, 0}, {200, 14, 0}, {300, 99, 0}, {300, 12, 0}};
	b[2] = write_trace(0, tr, 4);
}

static const char *const two_names[3] = {
	"two-000000-000-7f000101-1-0.hpcrun", "two-000000-001-7f000101-1-0.hpcrun",
	"two-000000-001-7f000101-1-0.hpctrace"};

Test(query_hpcrun, merged_two_profiles)
{
	tw_blob b[3];
	two_profiles(b, NULL);
	profdb *db = open_blobs(b, two_names, 3, NULL);
	profdb_counts c = check_all(db, "two profiles");
	cr_assert_eq(c.profiles, 2);
	cr_assert_eq(c.contexts, 8);
	cr_assert_eq(c.metrics, 4);
	cr_assert_eq(c.values, 13);
	cr_assert(c.traces == 1 && c.samples == 4);

	expect_context(db, 1, PROFDB_NONE, "", PRIMARY);
	expect_context(db, 2, 1, "/bin/app", 0x100);
	expect_context(db, 3, 2, "/bin/app", 0x200);
	expect_context(db, 4, 3, "/lib/libm.so", 0x50);
	expect_context(db, 5, 2, "/bin/app", 0x300);
	expect_context(db, 6, 2, "/lib/libm.so", 0x50);
	expect_context(db, 7, 3, "/bin/app", 0x999);
	expect_context(db, 8, PROFDB_NONE, "/bin/app", 0x42);
	profdb_context x;
	cr_assert_eq(profdb_context_get(db, 1, &x), 0);
	cr_assert(x.first_child == 2 && x.next_sibling == 8);
	cr_assert_eq(profdb_context_get(db, 2, &x), 0);
	cr_assert_eq(x.first_child, 3);
	cr_assert_eq(profdb_context_get(db, 5, &x), 0);
	cr_assert_eq(x.next_sibling, 6);

	static const char *const mnames[4] = {"CPUTIME (sec)", "cycles", "extra", "order"};
	for (uint32_t i = 0; i < 4; i++) {
		profdb_metric m;
		cr_assert_eq(profdb_metric_at(db, i, &m), 0);
		cr_assert(qc_str_is(m.name, mnames[i]) && m.id == i);
	}

	/* point values through each profile's metric map */
	cr_assert_eq(u64_of(db, 1, 6, 1, 0), 20);
	cr_assert_eq(f64_of(db, 1, 6, 0, 0), 2.0);
	cr_assert_eq(u64_of(db, 1, 7, 2, 0), 9);
	cr_assert_eq(u64_of(db, 0, 3, 1, 0), 3);
	expect_absent(db, 0, 6, 0);   /* profile 0 has no node there */
	expect_absent(db, 0, 4, 2);   /* nor that metric */
	expect_absent(db, 1, 4, 0);

	/* inclusive by hand. Profile 1 at context 2 (main): raw + children 3, 6
	 * (profile 1 has no node at 5): CPUTIME 0 + (0 + 0.25) + 2.0 = 2.25;
	 * cycles 1 + 0 + 20 = 21. Profile 0: CPUTIME (1.0) + 0.5 = 1.5,
	 * cycles 3 + 10 = 13. */
	cr_assert_eq(f64_of(db, 1, 2, 0, 1), 2.25);
	cr_assert_eq(u64_of(db, 1, 2, 1, 1), 21);
	cr_assert_eq(u64_of(db, 1, 1, 1, 1), 21);
	cr_assert_eq(f64_of(db, 0, 2, 0, 1), 1.5);
	cr_assert_eq(u64_of(db, 0, 1, 1, 1), 13);
	cr_assert_eq(u64_of(db, 1, 3, 2, 1), 13);
	profdb_number n;
	cr_assert_eq(profdb_inclusive(db, 1, 5, 0, &n), 0);
	cr_assert_eq(profdb_inclusive(db, 1, 8, 0, &n), 0);
	/* The summation order is the merged tree's: at main, 1.0 + incl(3) +
	 * incl(6) = (1 - 2^53) + 2^53 = 1 exactly. Profile 1's own record
	 * order (6 before 3) would give (1 + 2^53) - 2^53 = 0. */
	cr_assert_eq(f64_of(db, 1, 2, 3, 1), 1.0);
	cr_assert_eq(f64_of(db, 1, 3, 3, 1), -P53);
	check_inclusive_rule(db, "two profiles");

	/* trace of profile 1 through the merged tree */
	cr_assert_eq(profdb_trace_length(db, 0), 0);
	cr_assert_eq(profdb_trace_length(db, 1), 4);
	cr_assert_eq(sample_at(db, 1, 0).context, 7);
	cr_assert_eq(sample_at(db, 1, 1).context, 6);
	cr_assert_eq(sample_at(db, 1, 2).context, 0, "an id without a node: context 0");
	cr_assert_eq(sample_at(db, 1, 3).context, 2);
	cr_assert_eq(seek(db, 1, 300), 2);
	cr_assert_eq(seek(db, 1, 301), 4);
	cr_assert_eq(seek(db, 0, 5), 0);

	profdb_profile pr;
	cr_assert_eq(profdb_profile_at(db, 1, &pr), 0);
	cr_assert(qc_str_is(pr.name, "node 2130706689 thread 1"));
	profdb_str kind;
	uint64_t v;
	cr_assert_eq(profdb_profile_identity(db, 1, 0, &kind, &v), 0);
	cr_assert(qc_str_is(kind, "node") && v == 0x7f000101, "physical for a logic-local NODE");
	cr_assert_eq(profdb_profile_identity(db, 1, 1, &kind, &v), 0);
	cr_assert(qc_str_is(kind, "thread") && v == 1);

	/* the context scan of 3: both profiles' values there */
	size_t k;
	profdb_entry *e = qc_scan(db, PROFDB_SCAN_CONTEXT, 3, &k);
	cr_assert_eq(k, 2);   /* (0, cycles 3), (1, extra 4) */
	cr_assert(e[0].profile == 0 && e[0].metric == 1 && e[0].value.as.u64 == 3);
	cr_assert(e[1].profile == 1 && e[1].metric == 2 && e[1].value.as.u64 == 4);
	free(e);
	profdb_values *it;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, 9), -ENOENT);
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_PROFILE, 2), -ENOENT);
	profdb_close(db);
	for (int i = 0; i < 3; i++)
		tw_blob_free(&b[i]);
}

/* Duplicate siblings and duplicate metric names in one profile (hpcrun
 * writes neither): the k-th duplicate merges with the k-th of the other
 * profiles, so no stored value is lost or summed. */
Test(query_hpcrun, duplicates)
{
	static const tw_hpcrun_metric m2[] = {
		{"x", NULL, 0, 1, NULL, NULL, NULL, 0, 0}, {"x", NULL, 0, 1, NULL, NULL, NULL, 0, 0},
	};
	static const tw_hpcrun_module mods[] = {{1, "/bin/app", 0}};
	static const tw_hpcrun_node dup[] = {
		{1, 0, 1, 0x10, 1}, {2, 1, 1, 0x20, 1}, {3, 1, 1, 0x20, 1}, {4, 1, 1, 0x20, 1},
	};
	static const tw_hpcrun_node one[] = {{7, 0, 1, 0x10, 1}, {8, 7, 1, 0x20, 1}};
	const tw_hpcrun_value vd[] = {{1, 0, 1}, {1, 1, 2}, {2, 0, 3}, {3, 1, 4}};
	const tw_hpcrun_value vo[] = {{1, 0, 5}};
	tw_hpcrun d;
	memset(&d, 0, sizeof d);
	d.version = 4;
	d.metrics = m2;
	d.n_metrics = 2;
	d.modules = mods;
	d.n_modules = 1;
	d.nodes = dup;
	d.n_nodes = 4;
	d.values = vd;
	d.n_values = 4;
	tw_blob b[2];
	b[0] = write_run(&d);
	d.n_metrics = 1;
	d.nodes = one;
	d.n_nodes = 2;
	d.values = vo;
	d.n_values = 1;
	b[1] = write_run(&d);
	const char *names[2] = {"a-000000-000-1-1-0.hpcrun", "a-000000-001-1-1-0.hpcrun"};
	profdb *db = open_blobs(b, names, 2, NULL);
	profdb_counts c = check_all(db, "duplicates");
	cr_assert(c.contexts == 4 && c.metrics == 2 && c.values == 5);
	cr_assert_eq(u64_of(db, 0, 2, 0, 0), 1);
	cr_assert_eq(u64_of(db, 0, 2, 1, 0), 2);
	cr_assert_eq(u64_of(db, 1, 2, 0, 0), 5);
	cr_assert_eq(u64_of(db, 0, 3, 0, 0), 3);
	cr_assert_eq(u64_of(db, 0, 4, 1, 0), 4);
	cr_assert_eq(u64_of(db, 0, 1, 0, 1), 4);
	check_inclusive_rule(db, "duplicates");
	profdb_close(db);
	tw_blob_free(&b[0]);
	tw_blob_free(&b[1]);
}

/* Placeholder nodes (lm id 0) get the names hpcrun's table gives hpcprof;
 * other tags "<TAG>", other offsets "<placeholder 0x...>"; an lm-id-0 root
 * is the primary root whatever its offset (02.00 files write 0). */
Test(query_hpcrun, placeholder_names)
{
#define TAG(s) ((uint64_t)(unsigned char)s[0] << 56 | (uint64_t)(unsigned char)s[1] << 48 |     \
                (uint64_t)(unsigned char)s[2] << 40 | (uint64_t)(unsigned char)s[3] << 32 |     \
                (uint64_t)(unsigned char)s[4] << 24 | (uint64_t)(unsigned char)s[5] << 16 |     \
                (uint64_t)(unsigned char)s[6] << 8 | (uint64_t)(unsigned char)s[7])
	static const tw_hpcrun_module mods[] = {{1, "/bin/app", 0}};
	const tw_hpcrun_node nodes[] = {
		{1, 0, 0, 0, 1},                {2, 1, 0, TAG("| Main  "), 1},
		{3, 2, 1, 0x10, 1},             {4, 1, 0, TAG("NoActvty"), 1},
		{5, 1, 0, TAG("| Thread"), 1},  {6, 5, 0, TAG("GPUKernl"), 1},
		{7, 5, 0, TAG("Zz New  "), 1},  {8, 5, 0, TAG("Zz New  "), 1},
		{9, 5, 0, 1, 1},                {10, 5, 0, TAG(" bad tag"), 1},
		{11, 5, 0, TAG("OMPBarrW"), 1}, {12, 5, 0, TAG("^Partial"), 1},
	};
	static const tw_hpcrun_metric m1[] = {{"x", NULL, 0, 1, NULL, NULL, NULL, 0, 0}};
	const tw_hpcrun_value v[] = {{3, 0, 1}};
	static const char *const want[] = {
		"<primary root>", "<program root>", "", "<no activity>", "<thread root>",
		"<gpu kernel>", "<Zz New>", "<Zz New>", "<placeholder 0x1>", "<placeholder 0x2062616420746167>",
		"<omp barrier wait>", "<partial call paths>",
	};
	tw_hpcrun d;
	memset(&d, 0, sizeof d);
	d.version = 4;
	d.metrics = m1;
	d.n_metrics = 1;
	d.modules = mods;
	d.n_modules = 1;
	d.nodes = nodes;
	d.n_nodes = sizeof nodes / sizeof *nodes;
	d.values = v;
	d.n_values = 1;
	tw_blob b = write_run(&d);
	const char *name = "a-000000-000-1-1-0.hpcrun";
	profdb *db = open_blobs(&b, &name, 1, NULL);
	profdb_counts c = check_all(db, "placeholders");
	cr_assert_eq(c.contexts, 12, "duplicate siblings stay apart (doc/model.md)");
	for (uint32_t id = 1; id <= 12; id++) {
		profdb_context ctx;
		cr_assert_eq(profdb_context_get(db, id, &ctx), 0);
		cr_expect(qc_str_is(ctx.function, want[id - 1]), "context %u: '%.*s', want '%s'", id,
		          (int)ctx.function.len, ctx.function.ptr, want[id - 1]);
		cr_expect_eq(ctx.type, id == 3 ? PROFDB_CTX_INSTRUCTION : PROFDB_CTX_UNKNOWN);
	}
	profdb_close(db);
	tw_blob_free(&b);
#undef TAG
}

/* A damaged tree (a parent id that does not exist): strict mode fails,
 * tolerant mode warns and reads that profile as empty. */
Test(query_hpcrun, tolerant_mode)
{
	static const tw_hpcrun_node bad[] = {
		{10, 0, 0, PRIMARY, 1}, {12, 10, 7, 0x100, 1}, {14, 12, 5, 0x50, 1},
		{16, 12, 7, 0x200, 1}, {18, 77, 7, 0x999, 1}, {20, 0, 7, 0x42, 1},
	};
	tw_blob b[3];
	two_profiles(b, bad);
	profdb_input in[3];
	for (int i = 0; i < 3; i++)
		in[i] = (profdb_input){two_names[i], b[i].data, b[i].size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, in, 3, NULL), 0, "open checks no tree");
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "parent id 77"), "%s", profdb_error_message());
	cr_assert_eq(profdb_context_count(db), -EBADMSG);
	profdb_close(db);

	warns w = {0, ""};
	profdb_options o = opts_of(PROFDB_OPEN_TOLERANT, &w);
	cr_assert_eq(profdb_open_inputs(&db, in, 3, &o), 0);
	c = check_all(db, "tolerant");
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "tolerant mode: profile 1 reads as absent"), "%s", w.last);
	cr_assert(c.contexts == 5 && c.values == 4 && c.samples == 4);
	cr_assert_eq(sample_at(db, 1, 0).context, 0);
	expect_absent(db, 1, 2, 1);
	profdb_close(db);
	for (int i = 0; i < 3; i++)
		tw_blob_free(&b[i]);
}

Test(query_hpcrun, memory_bound)
{
	tw_blob b[3];
	two_profiles(b, NULL);
	profdb_options o = opts_of(0, NULL);
	o.warn = NULL;
	o.max_memory = 512;
	profdb *db = open_blobs(b, two_names, 3, &o);
	cr_assert_eq(profdb_context_count(db), -EFBIG);
	cr_assert(strstr(profdb_error_message(), "max_memory"), "%s", profdb_error_message());
	profdb_number n;
	cr_assert_eq(profdb_value(db, 0, 1, 0, &n), -EFBIG);
	profdb_close(db);
	/* enough for the tree (about 80 bytes a node) */
	o.max_memory = 4000;
	db = open_blobs(b, two_names, 3, &o);
	cr_assert_eq(profdb_context_count(db), 8);
	cr_assert_eq(u64_of(db, 1, 6, 1, 0), 20);
	profdb_close(db);
	for (int i = 0; i < 3; i++)
		tw_blob_free(&b[i]);
}

/* ---- first use from many threads ---------------------------------------------------- */

typedef struct shared {
	const profdb *db;
	uint64_t got;
} shared;

static void *race(void *arg)
{
	shared *s = arg;
	profdb_number n;
	if (profdb_inclusive(s->db, 1, 2, 1, &n) == 1 && profdb_context_count(s->db) == 8)
		s->got = n.as.u64;
	return NULL;
}

Test(query_hpcrun, concurrent_first_use)
{
	tw_blob b[3];
	two_profiles(b, NULL);
	for (int round = 0; round < 20; round++) {
		profdb *db = open_blobs(b, two_names, 3, NULL);
		pthread_t t[8];
		shared s[8];
		for (int i = 0; i < 8; i++) {
			s[i] = (shared){db, 0};
			cr_assert_eq(pthread_create(&t[i], NULL, race, &s[i]), 0);
		}
		for (int i = 0; i < 8; i++) {
			pthread_join(t[i], NULL);
			cr_assert_eq(s[i].got, 21);
		}
		profdb_close(db);
	}
	for (int i = 0; i < 3; i++)
		tw_blob_free(&b[i]);
}

/* ---- detection ------------------------------------------------------------------------ */

static void put_file(const char *dir, const char *name, const void *data, size_t size)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	cr_assert(f != NULL);
	cr_assert_eq(fwrite(data, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

Test(query_hpcrun, detection)
{
	char dir[] = "/tmp/profdb-query-hpcrun-XXXXXX", path[4200];
	cr_assert(mkdtemp(dir));
	tw_blob b[3];
	two_profiles(b, NULL);
	for (int i = 0; i < 3; i++)
		put_file(dir, two_names[i], b[i].data, b[i].size);
	put_file(dir, "two-000000-000-7f000101-1-0.log", "not profile data\n", 17);
	profdb *db;

	/* the measurements directory: .log ignored, trace joined */
	warns w = {0, ""};
	profdb_options o = opts_of(0, &w);
	cr_assert_eq(profdb_open(&db, dir, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(w.n, 0, "%s", w.last);
	profdb_counts c = check_all(db, "directory");
	cr_assert_not_null(profdb_get_hpcrun(db));
	cr_assert_eq(profdb_hpcrun_profile_count(profdb_get_hpcrun(db)), 2);
	cr_assert(c.profiles == 2 && c.contexts == 8 && c.values == 13 && c.traces == 1);
	cr_assert_eq(sample_at(db, 1, 0).context, 7);
	profdb_context traced;   /* the node the first record names */
	cr_assert_eq(profdb_context_get(db, 7, &traced), 0);
	uint64_t traced_offset = traced.offset;
	profdb_close(db);

	/* one .hpcrun file: that profile, with the .hpctrace next to it */
	snprintf(path, sizeof path, "%s/%s", dir, two_names[1]);
	cr_assert_eq(profdb_open(&db, path, &o), 0, "%s", profdb_error_message());
	c = check_all(db, "one file");
	cr_assert(c.profiles == 1 && c.contexts == 6 && c.metrics == 4 && c.values == 9);
	cr_assert(c.traces == 1 && c.samples == 4);
	cr_assert_eq(profdb_context_get(db, sample_at(db, 0, 0).context, &traced), 0);
	cr_assert(traced.in_tree && traced.offset == traced_offset);
	profdb_close(db);
	/* and the same from the .hpctrace file's side */
	snprintf(path, sizeof path, "%s/%s", dir, two_names[2]);
	cr_assert_eq(profdb_open(&db, path, &o), 0, "%s", profdb_error_message());
	c = check_all(db, "one trace file with its profile");
	cr_assert(c.profiles == 1 && c.contexts == 6 && c.traces == 1);
	profdb_close(db);
	cr_assert_eq(w.n, 0, "%s", w.last);

	/* a .hpctrace file alone: a trace-only profile, ids unresolved */
	char alone[600];
	snprintf(alone, sizeof alone, "%s/alone", dir);
	cr_assert_eq(mkdir(alone, 0700), 0);
	put_file(alone, two_names[2], (const char *)b[2].data, b[2].size);
	snprintf(path, sizeof path, "%s/%s", alone, two_names[2]);
	cr_assert_eq(profdb_open(&db, path, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(w.last, "trace-only"), "%s", w.last);
	c = check_all(db, "trace only");
	cr_assert(c.profiles == 1 && c.contexts == 0 && c.metrics == 0 && c.values == 0);
	cr_assert(c.traces == 1 && c.samples == 4);
	cr_assert_eq(sample_at(db, 0, 0).context, 0);
	cr_assert_eq(sample_at(db, 0, 3).time_ns, 300);
	profdb_profile pr;
	cr_assert_eq(profdb_profile_at(db, 0, &pr), 0);
	cr_assert(qc_str_is(pr.name, "rank 0 thread 1"));
	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0);
	cr_assert(qc_str_is(a.version, "") && qc_str_is(a.title, ""));
	profdb_close(db);

	/* named buffers: a .log companion is left out */
	profdb_input in[4];
	for (int i = 0; i < 3; i++)
		in[i] = (profdb_input){two_names[i], b[i].data, b[i].size};
	in[3] = (profdb_input){"x.log", "log\n", 4};
	cr_assert_eq(profdb_open_inputs(&db, in, 4, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_profile_count(db), 2);
	profdb_close(db);

	/* a damaged file named .hpcrun: the reader's message */
	put_file(dir, "bad.hpcrun", "HPCRUN-profile____07.00b", 24);
	snprintf(path, sizeof path, "%s/bad.hpcrun", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), -EPROTONOSUPPORT);
	cr_assert(strstr(profdb_error_message(), "07.00"), "%s", profdb_error_message());
	put_file(dir, "short.hpcrun", "HPCRUN-pro", 10);
	snprintf(path, sizeof path, "%s/short.hpcrun", dir);
	cr_assert_lt(profdb_open(&db, path, NULL), 0);
	cr_assert(strstr(profdb_error_message(), "short.hpcrun"), "%s", profdb_error_message());

	remove_dir(alone);
	remove_dir(dir);
	for (int i = 0; i < 3; i++)
		tw_blob_free(&b[i]);
}

/* ---- real files -------------------------------------------------------------------------- */

/* Every sample directory, and every file in it on its own. */
Test(query_hpcrun, real_samples, .timeout = 300)
{
	char *root = tc_sample_path("hpctoolkit/hpcrun");
	DIR *d = opendir(root);
	cr_assert(d);
	struct dirent *e;
	int dirs = 0, files = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", root, e->d_name);
		profdb *db;
		warns w = {0, ""};
		profdb_options o = opts_of(0, &w);
		cr_assert_eq(profdb_open(&db, path, &o), 0, "%s: %s", path, profdb_error_message());
		profdb_counts c = check_all(db, e->d_name);
		cr_assert_gt(c.profiles, 0);
		check_inclusive_rule(db, e->d_name);
		/* trace samples of profiles with a CCT resolve to contexts */
		for (uint32_t p = 0; p < c.profiles && c.contexts; p++) {
			int64_t len = profdb_trace_length(db, p);
			for (int64_t i = 0; i < len; i++)
				cr_assert_neq(sample_at(db, p, (uint64_t)i).context, 0, "%s", e->d_name);
		}
		profdb_close(db);
		dirs++;

		DIR *sub = opendir(path);
		cr_assert(sub);
		struct dirent *f;
		while ((f = readdir(sub))) {
			if (f->d_name[0] == '.' || (!strstr(f->d_name, ".hpcrun") &&
			                            !strstr(f->d_name, ".hpctrace")))
				continue;
			char file[8192];
			snprintf(file, sizeof file, "%s/%s", path, f->d_name);
			cr_assert_eq(profdb_open(&db, file, &o), 0, "%s: %s", file, profdb_error_message());
			c = check_all(db, f->d_name);
			cr_assert_eq(c.profiles, 1);
			profdb_close(db);
			files++;
		}
		closedir(sub);
	}
	closedir(d);
	free(root);
	cr_assert_geq(dirs, 9);
	cr_assert_geq(files, 25);
}

/* Counts of a few samples, cross-checked by an independent merge of the
 * same files (a Python script over the raw bytes, run once). */
static void expect_counts(const char *rel, int64_t profiles, int64_t contexts, int64_t metrics,
                          int64_t values, int64_t traces, int64_t samples)
{
	char *path = tc_sample_path(rel);
	profdb *db;
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s: %s", path, profdb_error_message());
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	cr_assert(c.profiles == profiles && c.contexts == contexts && c.metrics == metrics &&
	          c.values == values && c.traces == traces && c.samples == samples,
	          "%s: %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, rel,
	          c.profiles, c.contexts, c.metrics, c.values, c.traces, c.samples);
	profdb_close(db);
	free(path);
}

Test(query_hpcrun, real_counts)
{
	expect_counts("hpctoolkit/hpcrun/hpctoolkit-tests-loops-cputime-t.m", 4, 140, 1, 193, 4, 668);
	expect_counts("hpctoolkit/hpcrun/hpctoolkit-tests-small.m", 1, 13, 1, 5, 1, 13);
	expect_counts("hpctoolkit/hpcrun/hpctoolkit-testvdso-v02", 1, 42, 1, 37, 0, 0);
	expect_counts("hpctoolkit/hpcrun/miniapp-hpctrace", 3, 0, 0, 0, 3, 338922);
}


/* A measurements directory of 300 files reports progress every 256 files
 * and can be cancelled from the callback. */
static int progress_calls;
static int on_progress(uint64_t done, uint64_t total, void *ud)
{
	progress_calls++;
	cr_assert_eq(total, 300);
	cr_assert_eq(done, 256);
	return ud != NULL;   /* cancel when asked to */
}

Test(query_hpcrun, progress_and_cancel)
{
	char dir[] = "/tmp/profdb-hpcrun-progress-XXXXXX", name[64];
	cr_assert(mkdtemp(dir));
	tw_blob b = sample_run(4, 0);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "p-000000-%03d-7f000101-1-0.hpcrun", i);
		put_file(dir, name, b.data, b.size);
	}
	profdb_options o = {.size = sizeof o, .progress = on_progress};
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, &o), 0, "%s", profdb_error_message());
	cr_assert_eq(progress_calls, 1);
	cr_assert_eq(profdb_profile_count(db), 300);
	profdb_close(db);
	o.progress_userdata = &o;
	cr_assert_eq(profdb_open(&db, dir, &o), -ECANCELED);
	cr_assert(strstr(profdb_error_message(), "cancelled"), "%s", profdb_error_message());
	remove_dir(dir);
	tw_blob_free(&b);
}

TC_MAIN
