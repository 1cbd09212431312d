/* See drive-hpcrun.h. Invariants checked:
 *  - failures return a documented negative errno and leave a message;
 *  - counts agree between profile_get and the per-item getters;
 *  - a validated tree is consistent: parent iff parent_id != 0, children
 *    lists hold exactly the nodes naming that parent, every node is reached
 *    once from the roots, node_find(id) finds the node, module indices
 *    match the load map ids;
 *  - value views: metric keys below the table and strictly increasing,
 *    records inside the view's stride; the point lookup returns the same
 *    bits as the view; lookups that miss clear their output;
 *  - inclusive(n) == raw(n) + inclusive(children, in file order), bit for
 *    bit (f64 for real metrics, u64 otherwise);
 *  - traces (views): times do not decrease, in_effect returns the last
 *    record at or before a time, seek the first at or after it, window the
 *    records in [from, to). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive-hpcrun.h"
#include "fuzz-common.h"

#define CHECK(cond, what) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, "%s", what))

#define MAX_PROFILES 512
#define MAX_NODES 4096
#define MAX_CELLS (1u << 16)
#define MAX_RECORDS (1u << 18)

int fuzz_hpcrun_documented(int r)
{
	return fuzz_documented(r) && profdb_error_message()[0] != 0;
}

static int failed(fuzz_hpcrun_stats *st, int strict, int r, const char *what)
{
	if (r >= 0)
		return 0;
	if (!fuzz_hpcrun_documented(r))
		fuzz_fail(__FILE__, __LINE__, "fuzz_hpcrun_documented(r)",
		          "%s: undocumented result %d, or no message", what, r);
	if (strict)
		fuzz_fail(__FILE__, __LINE__, "!strict", "%s failed (%d) on a strict input", what, r);
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
		CHECK(profdb_hpcrun_node_at(h, p, i, &nd) == 0, "node_at on a validated tree");
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
			      profdb_hpcrun_module_at(h, p, nd.module, &mod) == 0 && mod.id == nd.lm_id,
			      "module index matches lm id");
		}
		for (uint32_t k = nd.first_child, guard = 0; k != PROFDB_NONE; guard++) {
			CHECK(guard <= pr->n_nodes, "children list terminates");
			CHECK(profdb_hpcrun_node_at(h, p, k, &c) == 0 && c.parent == i, "child's parent");
			k = c.next_sibling;
		}
		profdb_view run;
		int vr = profdb_hpcrun_values(h, p, i, &run);
		if (vr == -EFBIG || vr == -ENOMEM) {   /* the dense views are materialised */
			failed(st, 0, vr, "values");
			incl_ok = 0;
			continue;
		}
		CHECK(vr == (run.count > 0), "values on a validated tree");
		CHECK(run.count == 0 || (run.base && run.key_type && run.big_endian &&
		                         run.value_type == PROFDB_FIELD_U64), "value view fields");
		for (uint64_t k = 0; k < run.count && k < MAX_CELLS; k++) {
			uint64_t met = profdb_view_key(&run, k), again = 1;
			uint64_t bits = profdb_view_value(&run, k).as.u64;
			CHECK(met < pr->n_metrics, "run metric in range");
			if (k)
				CHECK(met > prev_met, "run metrics increase");
			prev_met = (uint32_t)met;
			CHECK(profdb_hpcrun_value(h, p, i, (uint32_t)met, &again) == 1 && again == bits,
			      "value agrees with the run");
			st->values++;
		}
		for (uint32_t met = 0; met < pr->n_metrics && met < 64; met++) {
			uint64_t k, got = 1;
			int f = profdb_hpcrun_value(h, p, i, met, &got);
			CHECK(f == 0 || f == 1, "value result");
			CHECK(f == 1 || got == 0, "a missed value lookup clears its output");
			CHECK(f == (run.count && profdb_view_find(&run, met, &k) == 1), "value = view find");
		}
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
			CHECK(profdb_hpcrun_metric_at(h, p, met, &md) == 0, "metric_get");
			CHECK(profdb_hpcrun_value(h, p, i, met, &raw) >= 0, "value");
			want = raw;
			for (uint32_t k = nd.first_child; k != PROFDB_NONE; k = c.next_sibling) {
				CHECK(profdb_hpcrun_node_at(h, p, k, &c) == 0, "child");
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
			CHECK(profdb_hpcrun_node_at(h, p, i, &nd) == 0, "node_get");
			if (nd.parent == PROFDB_NONE)
				first = i;
		}
		CHECK(first != PROFDB_NONE, "a tree has a root");
		uint32_t *stack = malloc(pr->n_nodes * sizeof *stack);
		CHECK(stack != NULL, "malloc");
		size_t sp = 0;
		for (uint32_t r = first; r != PROFDB_NONE; r = nd.next_sibling) {
			CHECK(profdb_hpcrun_node_at(h, p, r, &nd) == 0 && nd.parent == PROFDB_NONE,
			      "root chain");
			stack[sp++] = r;
			CHECK(sp <= pr->n_nodes, "roots fit");
		}
		while (sp) {
			uint32_t i = stack[--sp];
			seen++;
			CHECK(seen <= pr->n_nodes, "each node once");
			CHECK(profdb_hpcrun_node_at(h, p, i, &nd) == 0, "node_get");
			for (uint32_t k = nd.first_child; k != PROFDB_NONE;) {
				CHECK(sp < pr->n_nodes, "stack");
				stack[sp++] = k;
				profdb_hpcrun_node c;
				CHECK(profdb_hpcrun_node_at(h, p, k, &c) == 0, "node_get");
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
	profdb_view t;
	int r = profdb_hpcrun_trace_at(h, p, &t);
	if (failed(st, strict, r, "trace_get") || r == 0) {
		CHECK(r != 0 || !pr->has_trace || !strict, "trace present");
		CHECK(r != 0 || (t.count == 0 && t.base == NULL), "no trace: empty view");
		return;
	}
	CHECK(pr->has_trace, "trace only when has_trace");
	CHECK(t.stride == 12 || t.stride == 16, "record size");
	CHECK(t.stride == ((pr->trace_flags & 1) ? 16u : 12u), "record size follows the flags");
	CHECK(t.big_endian && t.key_type == PROFDB_FIELD_U64 && t.key_offset == 0 &&
	      t.value_type == PROFDB_FIELD_U32 && t.value_offset == 8, "trace view fields");
	uint64_t prev = 0, time;
	uint64_t n = t.count < MAX_RECORDS ? t.count : MAX_RECORDS;
	for (uint64_t i = 0; i < n; i++) {
		time = profdb_view_key(&t, i);
		uint32_t id = (uint32_t)profdb_view_value(&t, i).as.u64;
		CHECK(i == 0 || time >= prev, "trace sorted");
		prev = time;
		st->samples++;
		if (tree_ok && pr->has_profile && i < 4096) {
			uint32_t idx;
			int f = profdb_hpcrun_node_find(h, p, id, &idx);
			CHECK(f == 0 || f == 1, "node_find of a trace id");
			CHECK(f == 1 || idx == PROFDB_NONE, "a missed node_find clears its output");
			st->unresolved += f == 0;
		}
	}
	for (uint64_t i = 0; i < n; i += 1 + n / 16) {
		uint64_t ti = profdb_view_key(&t, i), idx, lb, first, last;
		CHECK(profdb_view_in_effect(&t, ti, &idx) == 1 && idx >= i, "in_effect finds");
		CHECK(profdb_view_key(&t, idx) == ti, "in_effect lands on the time");
		CHECK(profdb_view_seek(&t, ti, &lb) == 0 && lb <= i && profdb_view_key(&t, lb) == ti,
		      "seek is the lower bound");
		if (ti == UINT64_MAX)
			continue; /* [ti, ti + 1) does not exist */
		CHECK(profdb_view_window(&t, ti, ti + 1, &first, &last) == 0 &&
		      first <= i && last > i && last <= idx + 1, "window");
	}
	if (t.count) {
		uint64_t t0 = profdb_view_key(&t, 0), idx;
		CHECK(t0 == 0 || profdb_view_in_effect(&t, t0 - 1, &idx) == 0, "in_effect before");
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
		CHECK(profdb_hpcrun_profile_at(h, p, &pr) == 0 && pr.index == p && pr.name.ptr &&
		      strlen(pr.name.ptr) == pr.name.len, "profile_get");
		st->profiles++;
		for (uint32_t i = 0; i < pr.n_attrs && i < 256; i++) {
			profdb_hpcrun_attr a;
			CHECK(profdb_hpcrun_attr_at(h, p, i, &a) == 0 && a.name.ptr && a.value.ptr,
			      "attr_at");
		}
		for (uint32_t i = 0; i < pr.n_ids; i++) {
			profdb_hpcrun_id id;
			CHECK(profdb_hpcrun_id_at(h, p, i, &id) == 0 && id.interpretation < 4,
			      "id_get");
		}
		for (uint32_t i = 0; i < pr.n_metrics && i < 4096; i++) {
			profdb_hpcrun_metric m;
			CHECK(profdb_hpcrun_metric_at(h, p, i, &m) == 0 && m.raw_flags, "metric_get");
			CHECK(m.has_trailer == pr.has_metric_trailer, "trailer per file");
		}
		for (uint32_t i = 0; i < pr.n_modules && i < 4096; i++) {
			profdb_hpcrun_module m;
			CHECK(profdb_hpcrun_module_at(h, p, i, &m) == 0, "module_get");
		}
		profdb_hpcrun_metric m;
		CHECK(profdb_hpcrun_metric_at(h, p, pr.n_metrics, &m) == -ENOENT, "metric past end");
		uint64_t before = st->failures;
		drive_tree(h, p, &pr, strict, st);
		drive_trace(h, p, &pr, st->failures == before, strict, st);
	}
	profdb_hpcrun_profile pr;
	CHECK(profdb_hpcrun_profile_at(h, (uint32_t)np, &pr) == -ENOENT, "profile past end");
}
