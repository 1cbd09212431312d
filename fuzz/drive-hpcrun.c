/* See drive-hpcrun.h. Invariants checked:
 *  - failures return a documented negative errno and leave a message;
 *  - counts agree between profile_get and the per-item getters;
 *  - a validated tree is consistent: parent iff parent_id != 0, children
 *    lists hold exactly the nodes naming that parent, every node is reached
 *    once from the roots, node_find(id) finds the node, module indices
 *    match the load map ids;
 *  - runs: metric indices below the table, increasing when sparse; the
 *    point lookup returns the same bits as the run;
 *  - inclusive(n) == raw(n) + inclusive(children, in file order), bit for
 *    bit (f64 for real metrics, u64 otherwise);
 *  - traces: times do not decrease, seek returns the last record at or
 *    before a time, window the records in [from, to). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpcrun.h"

#define CHECK(cond, what)                                                               \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "hpcrun driver: invariant violated: %s (%s:%d)\n", \
			        what, __FILE__, __LINE__);                              \
			abort();                                                        \
		}                                                                       \
	} while (0)

#define MAX_PROFILES 512
#define MAX_NODES 4096
#define MAX_CELLS (1u << 16)
#define MAX_RECORDS (1u << 18)

int fuzz_hpcrun_documented(int r)
{
	return (r == -EINVAL || r == -ENOENT || r == -EBADMSG || r == -ENODATA ||
	        r == -EPROTONOSUPPORT || r == -ENOMEM || r == -EFBIG) &&
	       profdb_error_message()[0] != 0;
}

static int failed(fuzz_hpcrun_stats *st, int strict, int r, const char *what)
{
	if (r >= 0)
		return 0;
	if (!fuzz_hpcrun_documented(r)) {
		fprintf(stderr, "%s: undocumented result %d (%s)\n", what, r, profdb_error_message());
		abort();
	}
	if (strict) {
		fprintf(stderr, "%s failed on a strict input: %s\n", what, profdb_error_message());
		abort();
	}
	st->failures++;
	if (!st->first_error)
		st->first_error = r;
	return 1;
}

static uint64_t add(int real, uint64_t a, uint64_t b)
{
	if (!real)
		return a + b;
	double x, y;
	memcpy(&x, &a, 8);
	memcpy(&y, &b, 8);
	x += y;
	memcpy(&a, &x, 8);
	return a;
}

static void drive_tree(const profdb_hpcrun *h, uint32_t p, const profdb_hpcrun_profile *pr,
                       int strict, fuzz_hpcrun_stats *st)
{
	int64_t n = profdb_hpcrun_node_count(h, p);
	if (failed(st, strict, (int)(n < 0 ? n : 0), "node_count"))
		return;
	CHECK(n == (pr->has_profile ? (int64_t)pr->n_nodes : 0), "node count = n_nodes");
	/* a second call takes the "already built" path and must agree */
	CHECK(profdb_hpcrun_node_count(h, p) == n, "node count stable");
	if (n > MAX_NODES)
		n = MAX_NODES;
	uint32_t prev_met = 0;
	uint64_t cells = 0;
	int incl_ok = 1;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		profdb_hpcrun_node nd, c;
		CHECK(profdb_hpcrun_node_get(h, p, i, &nd) == 0, "node_get on a validated tree");
		st->nodes++;
		CHECK(nd.index == i && nd.id != 0, "node index and id");
		CHECK((nd.parent == PROFDB_NONE) == (nd.parent_id == 0), "root iff parent id 0");
		uint32_t found = PROFDB_NONE;
		CHECK(profdb_hpcrun_node_find(h, p, nd.id, &found) == 1 && found == i, "node_find");
		if (nd.parent != PROFDB_NONE) {
			CHECK(nd.parent < pr->n_nodes, "parent index in range");
		}
		if (nd.module != PROFDB_NONE) {
			profdb_hpcrun_module mod;
			CHECK(nd.module < pr->n_modules &&
			      profdb_hpcrun_module_get(h, p, nd.module, &mod) == 0 && mod.id == nd.lm_id,
			      "module index matches lm id");
		}
		for (uint32_t k = nd.first_child, guard = 0; k != PROFDB_NONE; guard++) {
			CHECK(guard <= pr->n_nodes, "children list terminates");
			CHECK(profdb_hpcrun_node_get(h, p, k, &c) == 0 && c.parent == i, "child's parent");
			k = c.next_sibling;
		}
		profdb_hpcrun_run run;
		CHECK(profdb_hpcrun_values(h, p, i, &run) == 0, "values on a validated tree");
		for (uint64_t k = 0; k < run.count && k < MAX_CELLS; k++) {
			uint32_t met;
			uint64_t bits, again;
			CHECK(profdb_hpcrun_run_at(&run, k, &met, &bits) == 0, "run_at");
			CHECK(met < pr->n_metrics, "run metric in range");
			if (k)
				CHECK(met > prev_met, "run metrics increase");
			prev_met = met;
			CHECK(profdb_hpcrun_value(h, p, i, met, &again) == 1 && again == bits,
			      "value agrees with the run");
			st->values++;
		}
		uint64_t bits;
		CHECK(profdb_hpcrun_run_at(&run, run.count, NULL, &bits) == -ENOENT, "run end");
		/* inclusive = raw + children's inclusive in file order */
		for (uint32_t met = 0; incl_ok && met < pr->n_metrics && cells < MAX_CELLS;
		     met++, cells++) {
			uint64_t raw = 0, want, got, cb;
			profdb_hpcrun_metric md;
			int r = profdb_hpcrun_inclusive(h, p, i, met, &got);
			if (r == -EFBIG || r == -ENOMEM) {
				failed(st, 0, r, "inclusive");
				incl_ok = 0;
				break;
			}
			CHECK(r == 0 || r == 1, "inclusive result");
			CHECK(profdb_hpcrun_metric_get(h, p, met, &md) == 0, "metric_get");
			CHECK(profdb_hpcrun_value(h, p, i, met, &raw) >= 0, "value");
			want = raw;
			for (uint32_t k = nd.first_child; k != PROFDB_NONE; k = c.next_sibling) {
				CHECK(profdb_hpcrun_node_get(h, p, k, &c) == 0, "child");
				CHECK(profdb_hpcrun_inclusive(h, p, k, met, &cb) >= 0, "child inclusive");
				want = add(md.is_real, want, cb);
			}
			CHECK(want == got, "inclusive = raw + children");
			st->inclusive++;
		}
	}
	/* every node reached exactly once from the roots (small trees only) */
	if (pr->n_nodes <= MAX_NODES && pr->n_nodes > 0) {
		uint64_t seen = 0;
		profdb_hpcrun_node nd;
		uint32_t first = PROFDB_NONE;
		for (uint32_t i = 0; i < pr->n_nodes && first == PROFDB_NONE; i++) {
			CHECK(profdb_hpcrun_node_get(h, p, i, &nd) == 0, "node_get");
			if (nd.parent == PROFDB_NONE)
				first = i;
		}
		CHECK(first != PROFDB_NONE, "a tree has a root");
		uint32_t *stack = malloc(pr->n_nodes * sizeof *stack);
		CHECK(stack != NULL, "malloc");
		size_t sp = 0;
		for (uint32_t r = first; r != PROFDB_NONE; r = nd.next_sibling) {
			CHECK(profdb_hpcrun_node_get(h, p, r, &nd) == 0 && nd.parent == PROFDB_NONE,
			      "root chain");
			stack[sp++] = r;
			CHECK(sp <= pr->n_nodes, "roots fit");
		}
		while (sp) {
			uint32_t i = stack[--sp];
			seen++;
			CHECK(seen <= pr->n_nodes, "each node once");
			CHECK(profdb_hpcrun_node_get(h, p, i, &nd) == 0, "node_get");
			for (uint32_t k = nd.first_child; k != PROFDB_NONE;) {
				CHECK(sp < pr->n_nodes, "stack");
				stack[sp++] = k;
				profdb_hpcrun_node c;
				CHECK(profdb_hpcrun_node_get(h, p, k, &c) == 0, "node_get");
				k = c.next_sibling;
			}
		}
		free(stack);
		CHECK(seen == pr->n_nodes, "every node reached from a root");
	}
}

static void drive_trace(const profdb_hpcrun *h, uint32_t p, const profdb_hpcrun_profile *pr,
                        int tree_ok, int strict, fuzz_hpcrun_stats *st)
{
	profdb_hpcrun_trace t;
	int r = profdb_hpcrun_trace_get(h, p, &t);
	if (failed(st, strict, r, "trace_get") || r == 0) {
		CHECK(r != 0 || !pr->has_trace || !strict, "trace present");
		return;
	}
	CHECK(pr->has_trace, "trace only when has_trace");
	CHECK(t.record_size == 12 || t.record_size == 16, "record size");
	uint64_t prev = 0, time;
	uint32_t id, met;
	uint64_t n = t.count < MAX_RECORDS ? t.count : MAX_RECORDS;
	for (uint64_t i = 0; i < n; i++) {
		CHECK(profdb_hpcrun_trace_at(&t, i, &time, &id, &met) == 0, "trace_at");
		CHECK(i == 0 || time >= prev, "trace sorted");
		CHECK(t.record_size == 16 || met == PROFDB_NONE, "metric id only in 16-byte records");
		prev = time;
		st->samples++;
		if (tree_ok && pr->has_profile && i < 4096) {
			uint32_t idx;
			int f = profdb_hpcrun_node_find(h, p, id, &idx);
			CHECK(f == 0 || f == 1, "node_find of a trace id");
			st->unresolved += f == 0;
		}
	}
	CHECK(profdb_hpcrun_trace_at(&t, t.count, &time, &id, &met) == -ENOENT, "trace end");
	for (uint64_t i = 0; i < n; i += 1 + n / 16) {
		uint64_t ti, idx, first, last;
		CHECK(profdb_hpcrun_trace_at(&t, i, &ti, NULL, NULL) == 0, "trace_at");
		CHECK(profdb_hpcrun_trace_seek(&t, ti, &idx) == 1 && idx >= i, "seek finds");
		CHECK(profdb_hpcrun_trace_at(&t, idx, &time, NULL, NULL) == 0 && time == ti,
		      "seek lands on the time");
		if (ti == UINT64_MAX)
			continue; /* [ti, ti + 1) does not exist */
		CHECK(profdb_hpcrun_trace_window(&t, ti, ti + 1, &first, &last) == 0 &&
		      first <= i && last > i && last <= idx + 1, "window");
	}
	if (t.count) {
		uint64_t t0, idx;
		CHECK(profdb_hpcrun_trace_at(&t, 0, &t0, NULL, NULL) == 0, "first");
		CHECK(t0 == 0 || profdb_hpcrun_trace_seek(&t, t0 - 1, &idx) == 0, "seek before");
	}
}

void fuzz_hpcrun_drive(const profdb_hpcrun *h, int strict, fuzz_hpcrun_stats *st)
{
	int64_t np = profdb_hpcrun_profile_count(h);
	CHECK(np >= 0, "profile count");
	uint8_t ma, mi;
	int v = profdb_hpcrun_version(h, &ma, &mi);
	CHECK(v == 0 || v == 1 || v == -ENOENT, "version");
	for (uint32_t p = 0; p < (uint32_t)np && p < MAX_PROFILES; p++) {
		profdb_hpcrun_profile pr;
		CHECK(profdb_hpcrun_profile_get(h, p, &pr) == 0 && pr.index == p && pr.name,
		      "profile_get");
		st->profiles++;
		for (uint32_t i = 0; i < pr.n_attrs && i < 256; i++) {
			profdb_hpcrun_attr a;
			CHECK(profdb_hpcrun_attr_get(h, p, i, &a) == 0, "attr_get");
		}
		for (uint32_t i = 0; i < pr.n_ids; i++) {
			profdb_hpcrun_id id;
			CHECK(profdb_hpcrun_id_get(h, p, i, &id) == 0 && id.interpretation < 4,
			      "id_get");
		}
		for (uint32_t i = 0; i < pr.n_metrics && i < 4096; i++) {
			profdb_hpcrun_metric m;
			CHECK(profdb_hpcrun_metric_get(h, p, i, &m) == 0 && m.raw_flags, "metric_get");
			CHECK(m.has_trailer == pr.has_metric_trailer, "trailer per file");
		}
		for (uint32_t i = 0; i < pr.n_modules && i < 4096; i++) {
			profdb_hpcrun_module m;
			CHECK(profdb_hpcrun_module_get(h, p, i, &m) == 0, "module_get");
		}
		profdb_hpcrun_metric m;
		CHECK(profdb_hpcrun_metric_get(h, p, pr.n_metrics, &m) == -ENOENT, "metric past end");
		uint64_t before = st->failures;
		drive_tree(h, p, &pr, strict, st);
		drive_trace(h, p, &pr, st->failures == before, strict, st);
	}
	profdb_hpcrun_profile pr;
	CHECK(profdb_hpcrun_profile_get(h, (uint32_t)np, &pr) == -ENOENT, "profile past end");
}
