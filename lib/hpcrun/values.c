/* The values of CCT nodes as profdb_views: 04.00 sparse runs point into the
 * mapping; 02.00/03.00 dense values (no metric index stored) are copied
 * once per profile into 12-byte records the handle owns. Lookups of one
 * value and the inclusive values build on these views. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpcrun-internal.h"

typedef struct dense_arg {
	const profdb_hpcrun *h;
	hr_profile *p;
} dense_arg;

/* Copy every dense value (bit-for-bit: the bytes as stored) next to its
 * metric index. */
static int build_dense(void *arg)
{
	dense_arg *a = arg;
	hr_profile *p = a->p;
	const profdb__input *in = &p->file->in;
	uint64_t bytes;
	int r = profdb__hpcrun_table_bytes(a->h, p, HR_DENSE_REC, "dense value views", &bytes);
	if (r < 0)
		return r;
	unsigned char *d = malloc(bytes ? (size_t)bytes : 1);
	if (!d)
		return profdb__fail(-ENOMEM, "%s: cannot allocate the dense value views (%" PRIu64
		                    " bytes)", in->name, bytes);
	for (uint64_t i = 0; i < p->n_nodes; i++) {
		const unsigned char *v;
		r = profdb__range(in, p->cct_off + i * p->node_size + p->val_at,
		                      (uint64_t)p->n_metrics * 8, "dense values", &v);
		if (r < 0) {
			free(d);
			return r;
		}
		unsigned char *o = d + i * p->n_metrics * HR_DENSE_REC;
		for (uint32_t m = 0; m < p->n_metrics; m++, o += HR_DENSE_REC) {
			memcpy(o, v + (uint64_t)m * 8, 8);
			o[8] = (unsigned char)(m >> 24);
			o[9] = (unsigned char)(m >> 16);
			o[10] = (unsigned char)(m >> 8);
			o[11] = (unsigned char)m;
		}
	}
	p->dense = d;
	return 0;
}

static void view_init(profdb_view *v, const unsigned char *base, uint64_t count,
                      uint32_t stride, uint8_t key_type)
{
	memset(v, 0, sizeof *v);
	v->base = count ? base : NULL;
	v->count = count;
	v->stride = stride;
	v->key_offset = 8;
	v->key_type = key_type;
	v->value_offset = 0;
	v->value_type = PROFDB_FIELD_U64;
	v->big_endian = 1;
}

int profdb__hpcrun_node_values(const profdb_hpcrun *h, const hr_profile *p, uint32_t index,
                               profdb_view *out)
{
	const profdb__input *in = &p->file->in;
	const unsigned char *e, *base;
	int r;
	memset(out, 0, sizeof *out);
	if (p->node_size != HR_NODE4_SIZE) {
		if (!p->n_metrics)
			return 0;
		dense_arg a = {h, (hr_profile *)p};
		if ((r = profdb__once_run((profdb__once *)&p->dense_once, build_dense, &a)) < 0)
			return r;
		view_init(out, p->dense + (uint64_t)index * p->n_metrics * HR_DENSE_REC, p->n_metrics,
		          HR_DENSE_REC, PROFDB_FIELD_U32);
		return 1;
	}
	uint32_t j = p->tree.run[index];
	if (j == PROFDB_NONE)
		return 0;
	/* this entry and the next give [start, end), checked with the tree */
	if ((r = profdb__range(in, p->sidx_off + (uint64_t)j * HR_SIDX_SIZE, 2 * HR_SIDX_SIZE,
	                       "sparse node index entry", &e)) < 0)
		return r;
	uint64_t start = hr_sidx_start(e), count = hr_sidx_start(e + HR_SIDX_SIZE) - start;
	if (!count)
		return 0;
	if ((r = profdb__range(in, p->vals_off + start * HR_SVAL_SIZE, count * HR_SVAL_SIZE,
	                       "sparse values", &base)) < 0)
		return r;
	view_init(out, base, count, HR_SVAL_SIZE, PROFDB_FIELD_U16);
	return 1;
}

int profdb__hpcrun_raw_row(const profdb_hpcrun *h, const hr_profile *p, uint32_t index,
                           uint64_t *row)
{
	const unsigned char *v;
	profdb_view run;
	int r;
	if (p->node_size != HR_NODE4_SIZE) {
		if ((r = profdb__range(&p->file->in, p->cct_off + (uint64_t)index * p->node_size +
		                       p->val_at, (uint64_t)p->n_metrics * 8, "dense values", &v)) < 0)
			return r;
		for (uint32_t m = 0; m < p->n_metrics; m++)
			row[m] = profdb__be64(v + (uint64_t)m * 8);
		return 0;
	}
	if ((r = profdb__hpcrun_node_values(h, p, index, &run)) < 0)
		return r;
	PROFDB_VIEW_FOREACH(&run, k)
		row[profdb_view_key(&run, k)] = profdb_view_value(&run, k).as.u64;
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_values(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                       profdb_view *out)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpcrun_values: NULL output");
	return profdb__hpcrun_node_values(h, p, index, out);
}

PROFDB_EXPORT int profdb_hpcrun_value(const profdb_hpcrun *h, uint32_t profile, uint32_t index,
                                      uint32_t metric, uint64_t *bits)
{
	const hr_profile *p = NULL;
	profdb_view run;
	uint64_t k;
	int r = profdb__hpcrun_node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (!bits)
		return profdb__fail(-EINVAL, "profdb_hpcrun_value: NULL output");
	*bits = 0;
	if (metric >= p->n_metrics)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no metric %" PRIu32, profile,
		                    metric);
	if ((r = profdb__hpcrun_node_values(h, p, index, &run)) <= 0)
		return r;
	/* the run's metrics strictly increase (checked with the tree) */
	if ((r = profdb_view_find(&run, metric, &k)) <= 0)
		return r;
	*bits = profdb_view_value(&run, k).as.u64;
	return 1;
}

PROFDB_EXPORT int profdb_hpcrun_inclusive(const profdb_hpcrun *h, uint32_t profile,
                                          uint32_t index, uint32_t metric, uint64_t *bits)
{
	const hr_profile *p = NULL;
	int r = profdb__hpcrun_node_ready(h, profile, index, &p);
	if (r < 0)
		return r;
	if (!bits)
		return profdb__fail(-EINVAL, "profdb_hpcrun_inclusive: NULL output");
	*bits = 0;
	if (metric >= p->n_metrics)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no metric %" PRIu32, profile,
		                    metric);
	if ((r = profdb__hpcrun_inclusive_table(h, p)) < 0)
		return r;
	uint64_t v = p->incl[(uint64_t)index * p->n_metrics + metric];
	*bits = v;
	/* -0.0 counts as zero for a real metric. */
	if (profdb__hpcrun_is_real(&p->metrics[metric]))
		return (v & ~(UINT64_C(1) << 63)) != 0;
	return v != 0;
}
