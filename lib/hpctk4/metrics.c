/* meta.db Performance Metrics section, decoded once (lazily) into small
 * tables of pointers into the mapping. The final and dev-stage layouts differ
 * completely here (doc/FORMATS.md); both end up as metric -> props, sums. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctk4-internal.h"

typedef struct decoder {
	profdb_hpctk *db;
	const profdb__input *in;
	uint64_t lo, hi;          /* the Metrics section */
	uint32_t n_props, n_sums; /* filled so far */
	uint64_t cap_props, cap_sums;
} decoder;

static int str(decoder *d, uint64_t ptr, const char *what, const char **out)
{
	return profdb__string(d->in, d->lo, d->hi, ptr, what, out);
}

static int rec(decoder *d, uint64_t off, uint64_t size, const char *what,
               const unsigned char **p)
{
	return profdb__span(d->in, d->lo, d->hi, off, size, what, p);
}

/* Dev-stage scopes have only a name; map the three names in use. */
static void scope_from_name(const char *name, uint8_t *type, uint8_t *prop_index)
{
	*prop_index = 255;
	if (strcmp(name, "point") == 0)
		*type = PROFDB_SCOPE_POINT;
	else if (strcmp(name, "execution") == 0)
		*type = PROFDB_SCOPE_EXECUTION;
	else if (strcmp(name, "function") == 0) {
		*type = PROFDB_SCOPE_TRANSITIVE;
		*prop_index = 0;
	} else
		*type = PROFDB_SCOPE_UNKNOWN;
}

/* Reserve storage. The totals are bounded by the section size (each entry
 * occupies at least 16 bytes of it), so a small file cannot make us
 * allocate much; the check is in the callers. */
static int reserve(decoder *d, uint64_t props, uint64_t sums)
{
	profdb_hpctk *db = d->db;
	if (props > d->cap_props) {
		uint64_t cap = props > 2 * (uint64_t)d->cap_props ? props : 2 * (uint64_t)d->cap_props;
		void *n = realloc(db->props, cap * sizeof *db->props);
		if (!n)
			return profdb__fail(-ENOMEM, "out of memory");
		db->props = n;
		d->cap_props = cap;
	}
	if (sums > d->cap_sums) {
		uint64_t cap = sums > 2 * (uint64_t)d->cap_sums ? sums : 2 * (uint64_t)d->cap_sums;
		void *n = realloc(db->sums, cap * sizeof *db->sums);
		if (!n)
			return profdb__fail(-ENOMEM, "out of memory");
		db->sums = n;
		d->cap_sums = cap;
	}
	return 0;
}

/* Entries beyond what the section can hold mean shared or overlapping
 * arrays: reject, which also bounds memory by the input size. */
static int check_total(decoder *d, uint64_t props, uint64_t sums)
{
	if (props + sums > (d->hi - d->lo) / 16 + 1 || props + sums > UINT32_MAX)
		return profdb__fail(-EBADMSG,
		                    "%s: Metrics section at 0x%" PRIx64 ": %" PRIu64 " scopes and %" PRIu64 " "
		                    "summaries cannot fit in %" PRIu64 " bytes (overlapping arrays)",
		                    d->in->name, d->lo, props, sums, d->hi - d->lo);
	return reserve(d, props, sums);
}

static int decode_final(decoder *d, const unsigned char *h)
{
	profdb_hpctk *db = d->db;
	if (d->hi - d->lo < 0x1b)
		return profdb__fail(-EBADMSG, "%s: Metrics section at 0x%" PRIx64
		                    " is shorter than its 0x1b-byte header", d->in->name, d->lo);
	uint64_t p_metrics = profdb__le64(h);
	uint32_t n = profdb__le32(h + 8);
	unsigned sz_metric = h[0x0c], sz_inst = h[0x0d], sz_sum = h[0x0e];
	uint64_t p_scopes = profdb__le64(h + 0x10);
	unsigned n_scopes = profdb__le16(h + 0x18), sz_scope = h[0x1a];
	if (sz_metric < 0x20 || sz_inst < 0x10 || sz_sum < 0x18 || sz_scope < 0x10)
		return profdb__fail(-EBADMSG,
		                    "%s: Metrics section at 0x%" PRIx64 ": strides %u/%u/%u/%u are "
		                    "below the minimum 32/16/24/16", d->in->name, d->lo, sz_metric,
		                    sz_inst, sz_sum, sz_scope);
	hpctk_section sec = {d->lo, d->hi - d->lo};
	int r;
	if ((r = profdb__hpctk_array(d->in, &sec, p_metrics, n, sz_metric, "metric array")) < 0 ||
	    (r = profdb__hpctk_array(d->in, &sec, p_scopes, n_scopes, sz_scope, "scope array")) < 0)
		return r;
	db->metric_tab = calloc(n ? n : 1, sizeof *db->metric_tab);
	if (!db->metric_tab)
		return profdb__fail(-ENOMEM, "out of memory");
	uint64_t total_props = 0, total_sums = 0;
	for (uint32_t m = 0; m < n; m++) {
		const unsigned char *md, *x;
		hpctk_metric *hm = &db->metric_tab[m];
		if ((r = rec(d, p_metrics + (uint64_t)m * sz_metric, sz_metric, "metric", &md)) < 0 ||
		    (r = str(d, profdb__le64(md), "metric name", &hm->name)) < 0)
			return r;
		uint64_t p_inst = profdb__le64(md + 8), p_sums = profdb__le64(md + 0x10);
		uint32_t n_inst = profdb__le16(md + 0x18), n_sums = profdb__le16(md + 0x1a);
		if ((r = profdb__hpctk_array(d->in, &sec, p_inst, n_inst, sz_inst, "scope instance array")) < 0 ||
		    (r = profdb__hpctk_array(d->in, &sec, p_sums, n_sums, sz_sum, "summary array")) < 0)
			return r;
		total_props += n_inst;
		total_sums += n_sums;
		if ((r = check_total(d, total_props, total_sums)) < 0)
			return r;
		hm->first_prop = d->n_props;
		hm->n_props = n_inst;
		hm->first_sum = d->n_sums;
		hm->n_sums = n_sums;
		for (uint32_t i = 0; i < n_inst + n_sums; i++) {
			int is_sum = i >= n_inst;
			uint64_t at = is_sum ? p_sums + (uint64_t)(i - n_inst) * sz_sum
			                     : p_inst + (uint64_t)i * sz_inst;
			if ((r = rec(d, at, is_sum ? 0x18 : 0x10, is_sum ? "summary" : "scope instance",
			             &x)) < 0)
				return r;
			uint32_t scope;
			const unsigned char *ps;
			const char *scope_name;
			if ((r = profdb__hpctk_index_of(db, PROFDB_HPCTK_META, p_scopes, n_scopes, sz_scope,
			                        profdb__le64(x), "scope pointer", &scope)) < 0 ||
			    (r = rec(d, p_scopes + (uint64_t)scope * sz_scope, 0x10, "scope", &ps)) < 0 ||
			    (r = str(d, profdb__le64(ps), "scope name", &scope_name)) < 0)
				return r;
			if (!is_sum) {
				profdb_hpctk_prop *pr = &db->props[d->n_props++];
				pr->scope = scope_name;
				pr->scope_type = ps[8];
				pr->prop_index = ps[9];
				pr->prop_metric_id = profdb__le16(x + 8);
			} else {
				profdb_hpctk_summary *s = &db->sums[d->n_sums++];
				s->scope = scope_name;
				s->scope_type = ps[8];
				s->combine = x[0x10];
				s->stat_metric_id = profdb__le16(x + 0x12);
				if ((r = str(d, profdb__le64(x + 8), "summary formula", &s->formula)) < 0)
					return r;
			}
		}
	}
	db->n_metrics = n;
	return 0;
}

static int decode_devstage(decoder *d, const unsigned char *h)
{
	profdb_hpctk *db = d->db;
	uint64_t p_metrics = profdb__le64(h);
	uint32_t n = profdb__le32(h + 8);
	unsigned sz_metric = h[0x0c], sz_scope = h[0x0d], sz_sum = h[0x0e];
	if (sz_metric < 0x18 || sz_scope < 0x18 || sz_sum < 0x10)
		return profdb__fail(-EBADMSG,
		                    "%s: Metrics section at 0x%" PRIx64 ": dev-stage strides "
		                    "%u/%u/%u are below the minimum 24/24/16", d->in->name, d->lo,
		                    sz_metric, sz_scope, sz_sum);
	hpctk_section sec = {d->lo, d->hi - d->lo};
	int r = profdb__hpctk_array(d->in, &sec, p_metrics, n, sz_metric, "metric array");
	if (r < 0)
		return r;
	db->metric_tab = calloc(n ? n : 1, sizeof *db->metric_tab);
	if (!db->metric_tab)
		return profdb__fail(-ENOMEM, "out of memory");
	uint64_t total_props = 0, total_sums = 0;
	for (uint32_t m = 0; m < n; m++) {
		const unsigned char *md, *ps, *ss;
		hpctk_metric *hm = &db->metric_tab[m];
		if ((r = rec(d, p_metrics + (uint64_t)m * sz_metric, sz_metric, "metric", &md)) < 0 ||
		    (r = str(d, profdb__le64(md), "metric name", &hm->name)) < 0)
			return r;
		uint32_t n_scopes = profdb__le16(md + 8);
		uint64_t p_scopes = profdb__le64(md + 0x10);
		if ((r = profdb__hpctk_array(d->in, &sec, p_scopes, n_scopes, sz_scope, "scope array")) < 0)
			return r;
		total_props += n_scopes;
		if ((r = check_total(d, total_props, total_sums)) < 0)
			return r;
		hm->first_prop = d->n_props;
		hm->n_props = n_scopes;
		hm->first_sum = d->n_sums;
		for (uint32_t s = 0; s < n_scopes; s++) {
			profdb_hpctk_prop *pr = &db->props[d->n_props++];
			if ((r = rec(d, p_scopes + (uint64_t)s * sz_scope, sz_scope, "scope", &ps)) < 0 ||
			    (r = str(d, profdb__le64(ps), "scope name", &pr->scope)) < 0)
				return r;
			scope_from_name(pr->scope, &pr->scope_type, &pr->prop_index);
			pr->prop_metric_id = profdb__le16(ps + 0x0a);
			uint32_t n_sums = profdb__le16(ps + 8);
			uint64_t p_sums = profdb__le64(ps + 0x10);
			if ((r = profdb__hpctk_array(d->in, &sec, p_sums, n_sums, sz_sum, "summary array")) < 0)
				return r;
			total_sums += n_sums;
			if ((r = check_total(d, total_props, total_sums)) < 0)
				return r;
			for (uint32_t k = 0; k < n_sums; k++) {
				profdb_hpctk_summary *su = &db->sums[d->n_sums++];
				if ((r = rec(d, p_sums + (uint64_t)k * sz_sum, sz_sum, "summary", &ss)) < 0 ||
				    (r = str(d, profdb__le64(ss), "summary formula", &su->formula)) < 0)
					return r;
				su->scope = pr->scope;
				su->scope_type = pr->scope_type;
				su->combine = ss[8];
				su->stat_metric_id = profdb__le16(ss + 0x0a);
			}
		}
		hm->n_sums = d->n_sums - hm->first_sum;
	}
	db->n_metrics = n;
	return 0;
}

static int build(void *arg)
{
	profdb_hpctk *db = arg;
	decoder d = {db, &db->in[PROFDB_HPCTK_META], db->metrics_sec.off,
	             db->metrics_sec.off + db->metrics_sec.size, 0, 0, 0, 0};
	const unsigned char *h;
	if (db->metrics_sec.size == 0)
		return 0;
	int r = rec(&d, d.lo, 0x0f, "Metrics section header", &h);
	if (r < 0)
		return r;
	r = db->layout == PROFDB_HPCTK_DEVSTAGE ? decode_devstage(&d, h) : decode_final(&d, h);
	if (r < 0) {
		free(db->metric_tab);
		free(db->props);
		free(db->sums);
		db->metric_tab = NULL;
		db->props = NULL;
		db->sums = NULL;
		db->n_metrics = 0;
	}
	return r;
}

static int ensure(const profdb_hpctk *db)
{
	int r = profdb__hpctk_require(db, PROFDB_HPCTK_META);
	if (r < 0)
		return r;
	/* The handle is logically const; the once object serialises the build. */
	profdb_hpctk *mut = (profdb_hpctk *)db;
	return profdb__once_run(&mut->metrics_once, build, mut);
}

PROFDB_EXPORT int profdb_hpctk_metric_count(const profdb_hpctk *db)
{
	int r = ensure(db);
	return r < 0 ? r : (int)(db->n_metrics > INT32_MAX ? INT32_MAX : db->n_metrics);
}

static int metric(const profdb_hpctk *db, uint32_t m, const hpctk_metric **out)
{
	int r = ensure(db);
	if (r < 0)
		return r;
	if (m >= db->n_metrics)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " does not exist (%" PRIu32 " metrics)",
		                    m, db->n_metrics);
	*out = &db->metric_tab[m];
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_metric_get(const profdb_hpctk *db, uint32_t m,
                                          profdb_hpctk_metric *out)
{
	const hpctk_metric *hm = NULL;
	int r = metric(db, m, &hm);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_metric_get: NULL output");
	out->name = hm->name;
	out->n_props = hm->n_props;
	out->n_summaries = hm->n_sums;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_metric_prop(const profdb_hpctk *db, uint32_t m, uint32_t i,
                                           profdb_hpctk_prop *out)
{
	const hpctk_metric *hm = NULL;
	int r = metric(db, m, &hm);
	if (r < 0)
		return r;
	if (i >= hm->n_props || !out)
		return profdb__fail(out ? -ENOENT : -EINVAL, "metric %" PRIu32 " has no scope %" PRIu32,
		                    m, i);
	*out = db->props[hm->first_prop + i];
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_metric_summary(const profdb_hpctk *db, uint32_t m, uint32_t i,
                                              profdb_hpctk_summary *out)
{
	const hpctk_metric *hm = NULL;
	int r = metric(db, m, &hm);
	if (r < 0)
		return r;
	if (i >= hm->n_sums || !out)
		return profdb__fail(out ? -ENOENT : -EINVAL,
		                    "metric %" PRIu32 " has no summary %" PRIu32, m, i);
	*out = db->sums[hm->first_sum + i];
	return 0;
}
