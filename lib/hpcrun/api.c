/* Public accessors of an open hpcrun set: profiles, header pairs, id tuples,
 * metrics, load modules, CCT nodes and values. Everything decodes the
 * mapping on access; the node index and the inclusive table are lazy. */
#include <inttypes.h>
#include <string.h>

#include "hpcrun-internal.h"

int profdb__hpcrun_profile(const profdb_hpcrun *h, uint32_t i, const hr_profile **out)
{
	if (!h)
		return profdb__fail(-EINVAL, "NULL hpcrun handle");
	if (i >= h->n_profiles)
		return profdb__fail(-ENOENT, "hpcrun profile %" PRIu32 " does not exist (%zu profiles)",
		                    i, h->n_profiles);
	*out = &h->profiles[i];
	return 0;
}

int profdb__hpcrun_is_real(const hr_metric *m)
{
	return m->val_fmt != 1;
}

PROFDB_EXPORT int profdb_hpcrun_version(const profdb_hpcrun *h, uint8_t *major, uint8_t *minor)
{
	if (!h)
		return profdb__fail(-EINVAL, "NULL hpcrun handle");
	if (!h->any_profile)
		return profdb__fail(-ENOENT, "the set holds trace files only");
	if (major)
		*major = h->major;
	if (minor)
		*minor = h->minor;
	return !h->mixed;
}

PROFDB_EXPORT int64_t profdb_hpcrun_profile_count(const profdb_hpcrun *h)
{
	if (!h)
		return profdb__fail(-EINVAL, "NULL hpcrun handle");
	return (int64_t)h->n_profiles;
}

PROFDB_EXPORT int profdb_hpcrun_profile_get(const profdb_hpcrun *h, uint32_t profile,
                                            profdb_hpcrun_profile *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_profile_get: NULL output");
	memset(out, 0, sizeof *out);
	out->index = profile;
	out->name = p->stem;
	out->has_profile = p->file != NULL;
	out->has_trace = p->trace != NULL;
	out->epoch = p->epoch;
	out->n_epochs = p->n_epochs;
	out->rank = p->rank;
	out->thread = p->thread;
	out->host_id = p->host_id;
	out->pid = p->pid;
	out->generation = p->generation;
	if (!p->file)
		return 0;
	out->major = p->file->major;
	out->minor = p->file->minor;
	out->n_attrs = p->file->n_attrs;
	out->n_ids = p->n_ids;
	out->n_metrics = p->n_metrics;
	out->n_modules = p->n_modules;
	out->n_nodes = p->n_nodes;
	out->n_values = p->node_size == 19 ? p->n_vals : p->n_nodes * p->n_metrics;
	out->has_metric_trailer = p->has_trailer;
	out->logical_unwind = p->lush;
	out->epoch_flags = p->epoch_flags;
	out->granularity = p->granularity;
	out->ra_offset = p->ra_offset;
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_attr_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                         profdb_hpcrun_attr *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_attr_get: NULL output");
	if (!p->file || i >= p->file->n_attrs)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no header pair %" PRIu32, profile,
		                    i);
	const hr_nv *a = &p->file->attrs[i];
	out->name = a->name.p;
	out->name_len = a->name.len;
	out->value = a->value.p;
	out->value_len = a->value.len;
	return 0;
}

/* The dictionary name of an id kind: a linear scan of the (8-entry)
 * dictionary, validated at open. */
static void kind_name(const hr_profile *p, uint16_t kind, profdb_hpcrun_id *out)
{
	hr_cur c = {&p->file->in, p->dict_off, p->dict_off, p->dict_end};
	for (uint32_t k = 0; k < p->n_dict; k++) {
		uint16_t kd;
		hr_str s;
		if (profdb__hpcrun_u16(&c, "id-tuple dictionary kind", &kd) < 0 ||
		    profdb__hpcrun_str(&c, "id-tuple dictionary name", &s) < 0)
			return;
		if (kd == kind) {
			out->kind_name = s.p;
			out->kind_name_len = s.len;
			return;
		}
	}
}

PROFDB_EXPORT int profdb_hpcrun_id_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                       profdb_hpcrun_id *out)
{
	const hr_profile *p = NULL;
	const unsigned char *e;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_id_get: NULL output");
	if (!p->file || i >= p->n_ids)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no id tuple element %" PRIu32,
		                    profile, i);
	if ((r = profdb__range(&p->file->in, p->tuple_off + (uint64_t)i * 18, 18,
	                       "id tuple element", &e)) < 0)
		return r;
	memset(out, 0, sizeof *out);
	uint16_t k = profdb__be16(e);
	out->kind = k & 0x3fff;
	out->interpretation = (uint8_t)(k >> 14);
	out->physical = profdb__be64(e + 2);
	out->logical = profdb__be64(e + 10);
	kind_name(p, out->kind, out);
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_metric_get(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                           profdb_hpcrun_metric *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_metric_get: NULL output");
	if (i >= p->n_metrics)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no metric %" PRIu32 " (%" PRIu32
		                    " metrics)", profile, i, p->n_metrics);
	const hr_metric *m = &p->metrics[i];
	memset(out, 0, sizeof *out);
	out->name = m->name.p;
	out->name_len = m->name.len;
	out->description = m->desc.p;
	out->description_len = m->desc.len;
	out->formula = m->formula.p;
	out->formula_len = m->formula.len;
	out->format = m->format.p;
	out->format_len = m->format.len;
	out->period = m->period;
	out->type = m->type;
	out->value_type = m->val_type;
	out->value_format = m->val_fmt;
	out->move2proc = m->move2proc;
	out->show = m->show;
	out->show_percent = m->show_percent;
	out->partner = m->partner;
	out->packed_flags = m->packed;
	out->raw_flags = m->flags;
	out->is_real = profdb__hpcrun_is_real(m);
	out->has_trailer = m->has_trailer;
	out->is_frequency = m->is_frequency;
	out->is_multiplexed = m->is_multiplexed;
	out->threshold_mean = profdb__f64_bits(m->threshold_bits);
	out->num_samples = m->num_samples;
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_module_get(const profdb_hpcrun *h, uint32_t profile,
                                           uint32_t i, profdb_hpcrun_module *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_module_get: NULL output");
	if (i >= p->n_modules)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no load module %" PRIu32,
		                    profile, i);
	out->id = p->modules[i].id;
	out->name = p->modules[i].name.p;
	out->name_len = p->modules[i].name.len;
	out->flags = p->modules[i].flags;
	return 0;
}

PROFDB_EXPORT int64_t profdb_hpcrun_node_count(const profdb_hpcrun *h, uint32_t profile)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0 || (r = profdb__hpcrun_tree(h, p)) < 0)
		return r;
	return p->file ? (int64_t)p->n_nodes : 0;
}

/* Profile + validated tree + node index in range. */
static int node_ready(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                      const hr_profile **out)
{
	int r = profdb__hpcrun_profile(h, profile, out);
	if (r < 0 || (r = profdb__hpcrun_tree(h, *out)) < 0)
		return r;
	if (!(*out)->file || index >= (*out)->n_nodes)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no CCT node %" PRIu32, profile,
		                    index);
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_node_get(const profdb_hpcrun *h, uint32_t profile,
                                         uint32_t index, profdb_hpcrun_node *out)
{
	const hr_profile *p = NULL;
	const unsigned char *rec;
	int r = node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_node_get: NULL output");
	if ((r = profdb__hpcrun_node_at(p, index, &rec)) < 0)
		return r;
	const hr_tree *t = &p->tree;
	memset(out, 0, sizeof *out);
	int32_t sid = profdb__hpcrun_node_sid(p, rec);
	out->index = index;
	out->stored_id = sid;
	out->id = (uint32_t)(sid < 0 ? -sid : sid);
	out->parent_id = profdb__be32(rec + 4);
	out->parent = t->parent[index];
	out->first_child = t->first_child[index];
	out->next_sibling = t->next_sibling[index];
	out->module = t->module[index];
	unsigned at = 8;
	if (p->lush) {
		out->lush_assoc = profdb__be32(rec + at);
		at += 4;
	}
	out->lm_id = profdb__be16(rec + at);
	out->offset = profdb__be64(rec + at + 2);
	if (p->lush)
		out->lip = rec + at + 10;
	if (p->node_size == 19)
		out->flags = rec[18];
	out->pos = p->cct_off + (uint64_t)index * p->node_size;
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_node_find(const profdb_hpcrun *h, uint32_t profile, uint32_t id,
                                          uint32_t *index)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_profile(h, profile, &p);
	if (r < 0 || (r = profdb__hpcrun_tree(h, p)) < 0)
		return r;
	if (!p->file || p->n_nodes == 0)
		return 0;
	uint32_t i = profdb__hpcrun_find_id(p, id);
	if (i == PROFDB_NONE)
		return 0;
	if (index)
		*index = i;
	return 1;
}

PROFDB_EXPORT int profdb_hpcrun_values(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                       profdb_hpcrun_run *out)
{
	const hr_profile *p = NULL;
	int r = node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_values: NULL output");
	memset(out, 0, sizeof *out);
	const profdb__input *in = &p->file->in;
	if (p->node_size != 19) {
		out->dense = 1;
		out->count = p->n_metrics;
		if (!out->count)
			return 0;
		return profdb__range(in, p->cct_off + (uint64_t)index * p->node_size + p->val_at,
		                     (uint64_t)p->n_metrics * 8, "dense values", &out->p);
	}
	uint32_t j = p->tree.run[index];
	if (j == PROFDB_NONE)
		return 0;
	const unsigned char *e;
	if ((r = profdb__range(in, p->sidx_off + (uint64_t)j * 12, 24, "sparse node index entry",
	                       &e)) < 0)
		return r;
	uint64_t start = profdb__be64(e + 4), end = profdb__be64(e + 16);
	out->count = end - start;
	if (!out->count)
		return 0;
	return profdb__range(in, p->vals_off + start * 10, out->count * 10, "sparse values",
	                     &out->p);
}

PROFDB_EXPORT int profdb_hpcrun_run_at(const profdb_hpcrun_run *run, uint64_t i,
                                       uint32_t *metric, uint64_t *bits)
{
	if (!run || i >= run->count)
		return profdb__fail(run ? -ENOENT : -EINVAL, "value %" PRIu64 " out of range", i);
	const unsigned char *v = run->p + i * (run->dense ? 8 : 10);
	if (metric)
		*metric = run->dense ? (uint32_t)i : profdb__be16(v + 8);
	if (bits)
		*bits = profdb__be64(v);
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_value(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                      uint32_t metric, uint64_t *bits)
{
	profdb_hpcrun_run run;
	int r = profdb_hpcrun_values(h, profile, index, &run);
	if (r < 0)
		return r;
	if (bits)
		*bits = 0;
	if (metric >= h->profiles[profile].n_metrics)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no metric %" PRIu32, profile,
		                    metric);
	if (run.dense) {
		if (bits)
			*bits = profdb__be64(run.p + (uint64_t)metric * 8);
		return 1;
	}
	/* A sparse run's metrics increase (checked with the tree). */
	uint64_t lo = 0, hi = run.count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint32_t m = profdb__be16(run.p + mid * 10 + 8);
		if (m < metric)
			lo = mid + 1;
		else if (m > metric)
			hi = mid;
		else {
			if (bits)
				*bits = profdb__be64(run.p + mid * 10);
			return 1;
		}
	}
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_inclusive(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t index, uint32_t metric, uint64_t *bits)
{
	const hr_profile *p = NULL;
	int r = node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (metric >= p->n_metrics)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no metric %" PRIu32, profile,
		                    metric);
	if ((r = profdb__hpcrun_inclusive_table(h, p)) < 0)
		return r;
	uint64_t v = p->incl[(uint64_t)index * p->n_metrics + metric];
	if (bits)
		*bits = v;
	/* -0.0 counts as zero for a real metric. */
	if (profdb__hpcrun_is_real(&p->metrics[metric]))
		return (v & ~(UINT64_C(1) << 63)) != 0;
	return v != 0;
}
