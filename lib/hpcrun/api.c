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

/* The checks the accessors below make first (profdb_hpcrun_node_at checks
 * its node before the output), in this order: profile @p profile of @p h
 * exists, then the output @p out is not NULL (the message names the
 * public function @p fn). */
static int profile_and_output(const profdb_hpcrun *h, uint32_t profile, const void *out,
                              const char *fn, const hr_profile **p)
{
	int r = profdb__hpcrun_profile(h, profile, p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "%s: NULL output", fn);
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_version(const profdb_hpcrun *h, uint8_t *major, uint8_t *minor)
{
	if (!h)
		return profdb__fail(-EINVAL, "NULL hpcrun handle");
	if (!major || !minor)
		return profdb__fail(-EINVAL, "profdb_hpcrun_version: NULL output");
	*major = *minor = 0;
	if (!h->any_profile)
		return profdb__fail(-ENOENT, "the set holds trace files only");
	*major = h->major;
	*minor = h->minor;
	return !h->mixed;
}

PROFDB_EXPORT int64_t profdb_hpcrun_profile_count(const profdb_hpcrun *h)
{
	if (!h)
		return profdb__fail(-EINVAL, "NULL hpcrun handle");
	return (int64_t)h->n_profiles;
}

PROFDB_EXPORT int profdb_hpcrun_profile_at(const profdb_hpcrun *h, uint32_t profile,
                                            profdb_hpcrun_profile *out)
{
	const hr_profile *p = NULL;
	int r = profile_and_output(h, profile, out, "profdb_hpcrun_profile_at", &p);
	if (r < 0)
		return r;
	memset(out, 0, sizeof *out);
	out->index = profile;
	out->name.ptr = p->stem;
	out->name.len = strlen(p->stem);
	out->has_profile = p->file != NULL;
	out->has_trace = p->trace != NULL;
	out->epoch = p->epoch;
	out->n_epochs = p->n_epochs;
	out->rank = p->rank;
	out->thread = p->thread;
	out->host_id = p->host_id;
	out->pid = p->pid;
	out->generation = p->generation;
	out->trace_flags = p->trace ? p->trace->flags : 0;
	if (!p->file)
		return 0;
	out->major = p->file->major;
	out->minor = p->file->minor;
	out->n_attrs = p->file->n_attrs;
	out->n_ids = p->n_ids;
	out->n_metrics = p->n_metrics;
	out->n_modules = p->n_modules;
	out->n_nodes = p->n_nodes;
	out->n_values = p->node_size == HR_NODE4_SIZE ? p->n_vals : p->n_nodes * p->n_metrics;
	out->has_metric_trailer = p->has_trailer;
	out->logical_unwind = p->lush;
	out->epoch_flags = p->epoch_flags;
	out->granularity = p->granularity;
	out->ra_offset = p->ra_offset;
	return 0;
}

static profdb_str str_of(hr_str s)
{
	profdb_str r = {"", 0};
	if (s.p && s.len) {
		r.ptr = s.p;
		r.len = s.len;
	}
	return r;
}

PROFDB_EXPORT int profdb_hpcrun_attr_at(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                        profdb_hpcrun_attr *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const hr_profile *p = NULL;
	int r = profile_and_output(h, profile, out, "profdb_hpcrun_attr_at", &p);
	if (r < 0)
		return r;
	if (!p->file || i >= p->file->n_attrs)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no header pair %" PRIu32, profile,
		                    i);
	const hr_nv *a = &p->file->attrs[i];
	out->name = str_of(a->name);
	out->value = str_of(a->value);
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
			out->kind_name = str_of(s);
			return;
		}
	}
}

PROFDB_EXPORT int profdb_hpcrun_id_at(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                      profdb_hpcrun_id *out)
{
	const hr_profile *p = NULL;
	const unsigned char *e;
	int r = profile_and_output(h, profile, out, "profdb_hpcrun_id_at", &p);
	if (r < 0)
		return r;
	if (!p->file || i >= p->n_ids)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no id tuple element %" PRIu32,
		                    profile, i);
	memset(out, 0, sizeof *out);
	out->kind_name = str_of((hr_str){NULL, 0});
	if ((r = profdb__range(&p->file->in, p->tuple_off + (uint64_t)i * HR_IDT_SIZE,
	                       HR_IDT_SIZE, "id tuple element", &e)) < 0)
		return r;
	uint16_t k = hr_idt_kind(e);
	out->kind = k & 0x3fff;
	out->interpretation = (uint8_t)(k >> 14);
	out->physical = hr_idt_physical(e);
	out->logical = hr_idt_logical(e);
	kind_name(p, out->kind, out);
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_metric_at(const profdb_hpcrun *h, uint32_t profile, uint32_t i,
                                          profdb_hpcrun_metric *out)
{
	const hr_profile *p = NULL;
	int r = profile_and_output(h, profile, out, "profdb_hpcrun_metric_at", &p);
	if (r < 0)
		return r;
	if (i >= p->n_metrics)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no metric %" PRIu32 " (%" PRIu32
		                    " metrics)", profile, i, p->n_metrics);
	const hr_metric *m = &p->metrics[i];
	memset(out, 0, sizeof *out);
	out->name = str_of(m->name);
	out->description = str_of(m->desc);
	out->formula = str_of(m->formula);
	out->format = str_of(m->format);
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

PROFDB_EXPORT int profdb_hpcrun_module_at(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t i, profdb_hpcrun_module *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const hr_profile *p = NULL;
	int r = profile_and_output(h, profile, out, "profdb_hpcrun_module_at", &p);
	if (r < 0)
		return r;
	if (i >= p->n_modules)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no load module %" PRIu32,
		                    profile, i);
	out->id = p->modules[i].id;
	out->name = str_of(p->modules[i].name);
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

int profdb__hpcrun_node_ready(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
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

PROFDB_EXPORT int profdb_hpcrun_node_at(const profdb_hpcrun *h, uint32_t profile,
                                        uint32_t index, profdb_hpcrun_node *out)
{
	const hr_profile *p = NULL;
	const unsigned char *rec;
	int r = profdb__hpcrun_node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_node_at: NULL output");
	if ((r = profdb__hpcrun_node_at(p, index, &rec)) < 0)
		return r;
	const hr_tree *t = &p->tree;
	memset(out, 0, sizeof *out);
	int32_t sid = profdb__hpcrun_node_sid(p, rec);
	out->index = index;
	out->stored_id = sid;
	out->id = (uint32_t)(sid < 0 ? -sid : sid);
	out->parent_id = hr_node_parent(rec);
	out->parent = t->parent[index];
	out->first_child = t->first_child[index];
	out->next_sibling = t->next_sibling[index];
	out->module = t->module[index];
	if (p->lush) {
		out->lush_assoc = hr_node_lush(rec);
		out->lip = hr_node_lip(rec);
	}
	out->lm_id = hr_node_lm(rec, p->lush);
	out->offset = hr_node_ip(rec, p->lush);
	if (p->node_size == HR_NODE4_SIZE)
		out->flags = hr_node4_flags(rec);
	out->pos = p->cct_off + (uint64_t)index * p->node_size;
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_node_find(const profdb_hpcrun *h, uint32_t profile, uint32_t id,
                                          uint32_t *index)
{
	const hr_profile *p = NULL;
	int r = profile_and_output(h, profile, index, "profdb_hpcrun_node_find", &p);
	if (r < 0)
		return r;
	*index = PROFDB_NONE;
	if ((r = profdb__hpcrun_tree(h, p)) < 0)
		return r;
	if (!p->file || p->n_nodes == 0)
		return 0;
	*index = profdb__hpcrun_find_id(p, id);
	return *index != PROFDB_NONE;
}
