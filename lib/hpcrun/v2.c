/* .hpcrun 02.00 and 03.00: header pairs, then epochs to the end of the file
 * (no footer, no alignment). Each epoch is a profile: its pairs, metric
 * table, load map and CCT of fixed-size records with dense values.
 *
 * The 20-byte metric trailer came in release 2017.10 without a version
 * bump, so a 02.00 file may or may not have it; 03.00 always has it. We
 * parse with the trailer first and, for 02.00, retry without it when that
 * does not reach the end of the file exactly; when both fail, the attempt
 * that got further is reported. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpcrun-internal.h"
#include "../core/table-internal.h"

hr_profile *profdb__hpcrun_new_profile(hr_profile **out, size_t *n, size_t *cap, hr_file *f)
{
	if (profdb__grow((void **)out, cap, *n + 1, sizeof **out) < 0)
		return NULL;
	hr_profile *v = *out;
	memset(&v[*n], 0, sizeof v[*n]);
	v[*n].file = f;
	v[*n].rank = v[*n].thread = v[*n].host_id = v[*n].pid = v[*n].generation = -1;
	return &v[(*n)++];
}

static void drop(hr_profile *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		profdb__hpcrun_profile_free(&v[i]);
	free(v);
}

static int epoch(hr_cur *c, hr_file *f, int trailer, hr_profile *p)
{
	const unsigned char *tag;
	uint64_t at = c->off;
	int r = profdb__hpcrun_take(c, 8, "epoch tag", &tag);
	if (r < 0)
		return r;
	if (memcmp(tag, "EPOCH___", 8) != 0)
		return profdb__fail(-EBADMSG, "%s: expected \"EPOCH___\" at offset 0x%" PRIx64
		                    " (after the previous epoch's CCT)", f->in.name, at);
	if ((r = profdb__hpcrun_u64(c, "epoch flags", &p->epoch_flags)) < 0 ||
	    (r = profdb__hpcrun_u64(c, "epoch granularity", &p->granularity)) < 0 ||
	    (r = profdb__hpcrun_u32(c, "epoch ra-to-callsite offset", &p->ra_offset)) < 0 ||
	    (r = profdb__hpcrun_nvpairs(c, "epoch name/value pairs", &p->epoch_attrs,
	                                &p->n_epoch_attrs)) < 0 ||
	    (r = profdb__hpcrun_metrics(c, trailer, &p->metrics, &p->n_metrics)) < 0 ||
	    (r = profdb__hpcrun_loadmap(c, &p->modules, &p->n_modules, &p->mod_sorted)) < 0 ||
	    (r = profdb__hpcrun_u64(c, "CCT node count", &p->n_nodes)) < 0)
		return r;
	p->has_trailer = trailer;
	p->lush = (int)(p->epoch_flags & 1);
	/* id, parent, [lush assoc], lm id, ip, [lip], one u64 per metric */
	p->val_at = hr_node2_values_at(p->lush);
	uint64_t size = p->val_at + (uint64_t)p->n_metrics * 8, total;
	if (size > UINT32_MAX)
		return profdb__fail(-EBADMSG, "%s: %" PRIu32 " metrics make CCT records of %" PRIu64
		                    " bytes (epoch at 0x%" PRIx64 ")", f->in.name, p->n_metrics, size,
		                    at);
	p->node_size = (uint32_t)size;
	if ((r = profdb__mul(&f->in, p->n_nodes, size, "CCT size", &total)) < 0)
		return r;
	p->cct_off = c->off;
	return profdb__hpcrun_take(c, total, "CCT records", &tag);
}

/* One pass over the whole file; *reached = how far it got. */
static int attempt(hr_file *f, int trailer, hr_profile **out, size_t *n, uint64_t *reached)
{
	hr_cur c = {&f->in, 0, HR_HDR, f->in.size};
	hr_profile *v = NULL;
	size_t nv = 0, cap = 0;
	hr_nv *attrs = NULL;
	uint32_t n_attrs = 0;
	int r = profdb__hpcrun_nvpairs(&c, "file header name/value pairs", &attrs, &n_attrs);
	while (r >= 0 && c.off < f->in.size) {
		hr_profile *p = profdb__hpcrun_new_profile(&v, &nv, &cap, f);
		if (!p) {
			r = -ENOMEM;
			break;
		}
		p->epoch = (uint32_t)(nv - 1);
		r = epoch(&c, f, trailer, p);
	}
	if (r >= 0 && nv == 0)
		r = profdb__fail(-ENODATA, "%s: no epoch after the file header (ends at 0x%" PRIx64
		                 "): truncated", f->in.name, c.off);
	*reached = c.off;
	if (r < 0) {
		drop(v, nv);
		free(attrs);
		return r;
	}
	for (size_t i = 0; i < nv; i++)
		v[i].n_epochs = (uint32_t)nv;
	free(f->attrs);
	f->attrs = attrs;
	f->n_attrs = n_attrs;
	*out = v;
	*n = nv;
	return 0;
}

int profdb__hpcrun_parse_v2(profdb_hpcrun *h, hr_file *f)
{
	hr_profile *v = NULL;
	size_t nv = 0;
	uint64_t far1 = 0, far0 = 0;
	int r = attempt(f, 1, &v, &nv, &far1);
	if (r < 0 && f->major == 2) {
		char first[512];
		int r1 = r;
		strncpy(first, profdb__message(), sizeof first - 1);
		first[sizeof first - 1] = 0;
		r = attempt(f, 0, &v, &nv, &far0);
		if (r < 0 && far1 > far0) {
			profdb__set_message(first);
			r = r1;
		}
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < nv; i++) {
		hr_profile *p = profdb__hpcrun_new_profile(&h->profiles, &h->n_profiles,
		                                           &h->cap_profiles, f);
		if (!p) {
			for (size_t k = i; k < nv; k++)
				profdb__hpcrun_profile_free(&v[k]);
			free(v);
			return -ENOMEM;
		}
		*p = v[i];
	}
	free(v);
	return 0;
}
