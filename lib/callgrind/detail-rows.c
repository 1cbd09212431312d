/* A decoded detail's rows, call sites and jumps (detail.c decodes them):
 * the public accessors and the Callgrind writer's. */
#include <inttypes.h>

#include "detail-internal.h"
#include "lines-internal.h"

/* The costs of row @p i. */
static const uint64_t *cost_of(const profdb_cg_detail *d, uint32_t i)
{
	return d->cost + (size_t)profdb__cg_detail_kept(d, i) * d->ne;
}

PROFDB_EXPORT int64_t profdb_cg_detail_line_count(const profdb_cg_detail *d)
{
	if (!d)
		return profdb__fail(-EINVAL, "profdb_cg_detail_line_count: NULL argument");
	return d->n_lines;
}

PROFDB_EXPORT int profdb_cg_detail_line_at(const profdb_cg_detail *d, uint32_t i,
                                           profdb_cg_line *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!d || !out)
		return profdb__fail(-EINVAL, "profdb_cg_detail_line_at: NULL argument");
	if (i >= d->n_lines)
		return profdb__fail(-ENOENT, "callgrind: no line row %" PRIu32 " (%" PRIu32 " rows)", i,
		                    d->n_lines);
	const dline *l = &d->lines[profdb__cg_detail_kept(d, i)];
	out->file = cg_name_at(d->cg, l->src);
	out->line = l->line;
	out->instr = l->instr;
	out->self = cost_of(d, i);
	return 0;
}

PROFDB_EXPORT int64_t profdb_cg_detail_jump_count(const profdb_cg_detail *d)
{
	if (!d)
		return profdb__fail(-EINVAL, "profdb_cg_detail_jump_count: NULL argument");
	return d->n_jumps;
}

PROFDB_EXPORT int profdb_cg_detail_jump_at(const profdb_cg_detail *d, uint32_t i,
                                           profdb_cg_jump *out)
{
	if (!d || !out)
		return profdb__fail(-EINVAL, "profdb_cg_detail_jump_at: NULL argument");
	if (i >= d->n_jumps)
		return profdb__fail(-ENOENT, "callgrind: no jump %" PRIu32 " (%" PRIu32 " jumps)", i,
		                    d->n_jumps);
	const djump *j = &d->jumps[i];
	*out = (profdb_cg_jump){j->profile, j->from_line, j->from_instr,
	                        cg_name_at(d->cg, j->to_file), cg_name_at(d->cg, j->to_function),
	                        j->to_line, j->to_instr, j->conditional, j->count, j->executed, {0, 0}};
	return 0;
}

PROFDB_EXPORT int64_t profdb_cg_detail_call_count(const profdb_cg_detail *d)
{
	if (!d)
		return profdb__fail(-EINVAL, "profdb_cg_detail_call_count: NULL argument");
	return d->n_calls;
}

PROFDB_EXPORT int profdb_cg_detail_call_at(const profdb_cg_detail *d, uint32_t i,
                                           profdb_cg_callsite *out)
{
	if (!d || !out)
		return profdb__fail(-EINVAL, "profdb_cg_detail_call_at: NULL argument");
	if (i >= d->n_calls)
		return profdb__fail(-ENOENT, "callgrind: no call site %" PRIu32 " (%" PRIu32 " calls)",
		                    i, d->n_calls);
	const dcall *c = &d->calls[i];
	*out = (profdb_cg_callsite){c->profile, c->callee, c->line, c->instr, cg_name_at(d->cg, c->src),
	                            c->count, d->call_cost + (size_t)i * d->ne, {0, 0}};
	return 0;
}

void profdb__cg_detail_row(const profdb_cg_detail *d, uint32_t i, uint32_t *src,
                           uint64_t *line, uint64_t *instr, const uint64_t **self)
{
	uint32_t k = profdb__cg_detail_kept(d, i);
	*src = d->lines[k].src;
	*line = d->lines[k].line;
	*instr = d->lines[k].instr;
	*self = d->cost + (size_t)k * d->ne;
}

const profdb_cg *profdb__cg_detail_cg(const profdb_cg_detail *d)
{
	return d->cg;
}
