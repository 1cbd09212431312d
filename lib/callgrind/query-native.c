/* The Callgrind backend's own records and call graph (backend-internal.h,
 * native_records and graph): the events as declared, the functions, and
 * each function's cost lines, calls= lines and jumps as profdb_cg_detail
 * decodes them, for the Callgrind writer (lib/convert/cg-native.c), which
 * keeps them, and for the call edges (lib/analysis/edges.c); the
 * functions' self and inclusive costs, the cycles and the call edges, for
 * the analyses built on the call graph (lib/analysis). */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "detail-internal.h"
#include "query-internal.h"

static const profdb_cg *cg_of(const void *impl)
{
	return ((const cg_query *)impl)->cg;
}

static int n_event(const void *impl, uint32_t id, profdb_str *name, profdb_str *long_name,
                   profdb_str *formula)
{
	profdb_cg_event e;
	int r = profdb_cg_event_get(cg_of(impl), id, &e);
	if (r < 0)
		return r;
	*name = e.name;
	*long_name = e.long_name;
	*formula = e.formula;
	return 0;
}

static int64_t n_function_count(const void *impl)
{
	return profdb_cg_function_count(cg_of(impl));
}

/* (the writer asks for it per function and per call site: the names
 * without profdb_cg_function_get's record) */
static int n_function(const void *impl, uint32_t fn, profdb__native_fn *out)
{
	const profdb_cg *cg = cg_of(impl);
	if (fn >= cg->n_fns)
		return profdb__fail(-ENOENT, "callgrind: no function %" PRIu32, fn);
	const cg_fn *k = &cg->fns[fn];
	*out = (profdb__native_fn){cg_name_at(cg, k->ob), cg_name_at(cg, k->fl), cg_name_at(cg, k->fn),
	                           k->ob, k->fl, k->fn};
	return 0;
}

static int n_function_keys(const void *impl, uint32_t fn, uint32_t keys[3])
{
	const profdb_cg *cg = cg_of(impl);
	if (fn >= cg->n_fns)
		return profdb__fail(-ENOENT, "callgrind: no function %" PRIu32, fn);
	const cg_fn *k = &cg->fns[fn];
	keys[0] = k->ob;
	keys[1] = k->fl;
	keys[2] = k->fn;
	return 0;
}

static int64_t n_name_keys(const void *impl)
{
	return cg_of(impl)->n_names;
}

static int n_records_new(const void *impl, uint32_t profile, uint32_t fn, void **out)
{
	profdb_cg_detail *d;
	int r = profdb_cg_detail_new(&d, cg_of(impl), profile == PROFDB_NONE ? PROFDB_CG_ALL : profile,
	                             fn);
	*out = r < 0 ? NULL : d;
	return r;
}

static int n_records_renew(const void *impl, uint32_t profile, uint32_t fn, void *old,
                           void **out)
{
	profdb_cg_detail *d;
	int r = profdb__cg_detail_renew(&d, cg_of(impl),
	                                profile == PROFDB_NONE ? PROFDB_CG_ALL : profile, fn, old);
	*out = r < 0 ? NULL : d;
	return r;
}

static void n_records_free(void *records)
{
	profdb_cg_detail_free(records);
}

static size_t n_records_room(const void *records)
{
	return profdb__cg_detail_room(records);
}

static int64_t n_record_count(const void *records, int kind)
{
	switch (kind) {
	case PROFDB__NATIVE_LINE: return profdb_cg_detail_line_count(records);
	case PROFDB__NATIVE_CALL: return profdb_cg_detail_call_count(records);
	case PROFDB__NATIVE_JUMP: return profdb_cg_detail_jump_count(records);
	default: return -EINVAL;
	}
}

static int line_at(const profdb_cg_detail *d, uint32_t i, profdb__native_row *out)
{
	profdb_cg_line ln;
	int r = profdb_cg_detail_line_at(d, i, &ln);
	if (r < 0)
		return r;
	uint64_t line, instr;
	const uint64_t *self;
	profdb__cg_detail_row(d, i, &out->file_key, &line, &instr, &self);
	out->file = ln.file;
	out->line = ln.line;
	out->instr = ln.instr;
	out->costs = ln.self;
	return 0;
}

static uint32_t n_lines(const void *records, uint32_t first, uint32_t n, profdb__native_line *out)
{
	const profdb_cg_detail *d = records;
	int64_t count = profdb_cg_detail_line_count(d);
	if (count < 0 || first >= count)
		return 0;
	if (n > count - first)
		n = (uint32_t)(count - first);
	/* (the rows read in place: a call per row would cost as much as the copy) */
	const profdb_cg *cg = d->cg;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = profdb__cg_detail_kept(d, first + i);
		const dline *l = &d->lines[k];
		out[i] = (profdb__native_line){cg_name_at(cg, l->src), l->src, l->nz, l->line, l->instr,
		                               d->cost + (size_t)k * d->ne};
	}
	return n;
}

static void n_line_sums(const void *records, const uint64_t **sum, const uint64_t **wraps)
{
	const profdb_cg_detail *d = records;
	*sum = d->sum;
	*wraps = d->sum_carry;
}

/* A call site and a jump read in place, as line rows are (the public
 * accessors give the same values, and the message for an index past the
 * end). */
static int call_at(const profdb_cg_detail *d, uint32_t i, profdb__native_row *out)
{
	if (i >= d->n_calls) {
		profdb_cg_callsite none;
		return profdb_cg_detail_call_at(d, i, &none);
	}
	const dcall *c = &d->calls[i];
	out->file = cg_name_at(d->cg, c->src);
	out->line = c->line;
	out->instr = c->instr;
	out->costs = d->call_cost + (size_t)i * d->ne;
	out->callee = c->callee;
	out->profile = c->profile;
	out->count = c->count;
	out->file_key = c->src;
	return 0;
}

static int jump_at(const profdb_cg_detail *d, uint32_t i, profdb__native_row *out)
{
	if (i >= d->n_jumps) {
		profdb_cg_jump none;
		return profdb_cg_detail_jump_at(d, i, &none);
	}
	const djump *j = &d->jumps[i];
	out->file = cg_name_at(d->cg, j->to_file);
	out->line = j->from_line;
	out->instr = j->from_instr;
	out->count = j->count;
	out->to_function = cg_name_at(d->cg, j->to_function);
	out->to_line = j->to_line;
	out->to_instr = j->to_instr;
	out->conditional = j->conditional;
	out->executed = j->executed;
	out->file_key = j->to_file;
	out->to_function_key = j->to_function;
	return 0;
}

/* A copy (native_table.copy): the detail decoder's runs, call sites
 * and jumps given to the writer's sink (@p ctx) as native records. */
static profdb__native_lines native_lines(const profdb_cg *cg, const cg_run *r)
{
	return (profdb__native_lines){cg_name_at(cg, r->src), r->src, r->from_instr, r->from_line,
	                              r->instr, r->line, r->last_instr, r->last_line, r->text,
	                              r->pos_len, r->len};
}

static int copy_run(void *ctx, const profdb_cg_detail *d, const cg_run *run)
{
	const profdb__native_sink *sink = ctx;
	profdb__native_lines l = native_lines(d->cg, run);
	return sink->lines(sink->ctx, &l);
}

static int copy_call(void *ctx, const profdb_cg_detail *d, uint32_t i, const cg_run *cost)
{
	const profdb__native_sink *sink = ctx;
	profdb__native_row row = {.costs = NULL};
	profdb__native_lines l = native_lines(d->cg, cost);
	int r = call_at(d, i, &row);
	return r < 0 ? r : sink->call(sink->ctx, &row, &l);
}

static int copy_jump(void *ctx, const profdb_cg_detail *d, uint32_t i)
{
	const profdb__native_sink *sink = ctx;
	profdb__native_row row = {.costs = NULL};
	int r = jump_at(d, i, &row);
	return r < 0 ? r : sink->jump(sink->ctx, &row);
}

static int n_copy(const void *impl, uint32_t profile, uint32_t fn, const uint32_t *cols,
                  size_t n_cols, int instr, const profdb__native_sink *sink, void *old,
                  void **out)
{
	profdb_cg_detail *d;
	cg_copy copy = {copy_run, copy_call, copy_jump, (void *)sink, cols, n_cols, instr};
	int r = profdb__cg_detail_copy(&d, cg_of(impl), profile == PROFDB_NONE ? PROFDB_CG_ALL : profile,
	                               fn, old, &copy);
	*out = r < 0 ? NULL : d;
	return r;
}

static int n_record_at(const void *records, int kind, uint32_t i, profdb__native_row *out)
{
	static const profdb__native_row none = {{"", 0}, 0, 0, NULL, 0, 0, 0, {"", 0}, 0, 0, 0, 0,
	                                        0, 0};
	*out = none;
	switch (kind) {
	case PROFDB__NATIVE_LINE: return line_at(records, i, out);
	case PROFDB__NATIVE_CALL: return call_at(records, i, out);
	case PROFDB__NATIVE_JUMP: return jump_at(records, i, out);
	default: return -EINVAL;
	}
}

const profdb__native_table profdb__cgq_native_records = {
	.event = n_event,
	.function_count = n_function_count,
	.function = n_function,
	.function_keys = n_function_keys,
	.records_new = n_records_new,
	.records_renew = n_records_renew,
	.records_free = n_records_free,
	.records_room = n_records_room,
	.record_count = n_record_count,
	.record_at = n_record_at,
	.lines = n_lines,
	.line_sums = n_line_sums,
	.copy = n_copy,
	.name_keys = n_name_keys,
};

/* ---- the call graph ------------------------------------------------------------------ */

/* Profile PROFDB_NONE of the graph table is the reader's PROFDB_CG_ALL. */
static uint32_t profile_of(uint32_t profile)
{
	return profile == PROFDB_NONE ? PROFDB_CG_ALL : profile;
}

static int g_totals(const void *impl, uint32_t profile, const uint64_t **out)
{
	return profdb_cg_totals(cg_of(impl), profile_of(profile), out);
}

static int g_self(const void *impl, uint32_t profile, uint32_t fn, const uint64_t **out)
{
	return profdb_cg_self(cg_of(impl), profile_of(profile), fn, out);
}

static int g_inclusive(const void *impl, uint32_t profile, uint32_t fn, const uint64_t **out)
{
	return profdb_cg_inclusive(cg_of(impl), profile_of(profile), fn, out);
}

static int g_cycle_inclusive(const void *impl, uint32_t profile, uint32_t fn,
                             const uint64_t **out)
{
	uint32_t c;
	int r = profdb_cg_function_cycle(cg_of(impl), fn, &c);
	if (r <= 0)
		return r;
	r = profdb_cg_cycle_inclusive(cg_of(impl), profile_of(profile), c, out);
	return r < 0 ? r : 1;
}

static int g_inclusive_metric(const void *impl, uint32_t fn, uint32_t m, uint64_t *inc,
                              uint64_t *cycle)
{
	return profdb__cg_inclusive_event(cg_of(impl), fn, m, inc, cycle);
}

static int64_t g_call_count(const void *impl)
{
	return profdb_cg_call_count(cg_of(impl));
}

static int g_call(const void *impl, uint32_t profile, uint32_t i, profdb__graph_call *out)
{
	profdb_cg_call c;
	int r = profdb_cg_call_get(cg_of(impl), profile_of(profile), i, &c);
	if (r < 0)
		return r;
	out->caller = c.caller;
	out->callee = c.callee;
	out->costs = c.inclusive;
	out->count = c.count;
	return r;
}

/* profdb__graph_table.lines: a row of lines.c as the common model's. */
typedef struct line_walk {
	const profdb_cg *cg;
	profdb__graph_row_fn visit;
	void *ud;
} line_walk;

static int visit_row(void *ud, uint32_t id, const cgl_row *row, uint32_t n,
                     const uint32_t *profiles, const uint64_t *costs)
{
	const line_walk *w = ud;
	const profdb_cg *cg = w->cg;
	profdb__graph_row out = {id, {cg->names[row->src].p, cg->names[row->src].len}, row->line,
	                         row->instr, row->has_instr, n, profiles, costs};
	return w->visit(w->ud, &out);
}

static int g_lines(const void *impl, uint32_t fn, profdb__graph_row_fn visit, void *ud)
{
	const cg_query *q = impl;
	if (!q->lines)
		return -ENOTSUP;
	if (fn >= q->cg->n_fns)
		return profdb__fail(-ENOENT, "callgrind: no function %" PRIu32, fn);
	line_walk w = {q->cg, visit, ud};
	return profdb__cgl_each(q->lines, fn, visit_row, &w);
}

const profdb__graph_table profdb__cgq_graph = {
	.function_count = n_function_count,
	.function = n_function,
	.totals = g_totals,
	.self = g_self,
	.inclusive = g_inclusive,
	.cycle_inclusive = g_cycle_inclusive,
	.inclusive_metric = g_inclusive_metric,
	.call_count = g_call_count,
	.call = g_call,
	.lines = g_lines,
};
