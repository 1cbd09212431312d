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
	size_t cap_props, cap_sums;
} decoder;

static int str(decoder *d, uint64_t ptr, const char *what, profdb_str *out)
{
	const char *s;
	int r = profdb__string(d->in, d->lo, d->hi, ptr, what, &s);
	if (r == 0)
		*out = profdb__hpctk_str(s);
	return r;
}

static int rec(decoder *d, uint64_t off, uint64_t size, const char *what,
               const unsigned char **p)
{
	return profdb__span(d->in, d->lo, d->hi, off, size, what, p);
}

/* Dev-stage scopes have only a name; map the three names in use. */
static int is(profdb_str s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.ptr, lit, s.len) == 0;
}

static void scope_from_name(profdb_str name, uint8_t *type, uint8_t *prop_index)
{
	*prop_index = 255;
	if (is(name, "point"))
		*type = PROFDB_SCOPE_POINT;
	else if (is(name, "execution"))
		*type = PROFDB_SCOPE_EXECUTION;
	else if (is(name, "function")) {
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
	int r = profdb__grow((void **)&db->props, &d->cap_props, (size_t)props, sizeof *db->props);
	return r < 0 ? r : profdb__grow((void **)&db->sums, &d->cap_sums, (size_t)sums,
	                                sizeof *db->sums);
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

/* One scope instance (@p is_sum 0) or summary (1) of a final-layout
 * metric, at @p at, with its scope from the scope table. */
static int decode_final_entry(decoder *d, uint64_t at, int is_sum, uint64_t p_scopes,
                              uint32_t n_scopes, unsigned sz_scope)
{
	profdb_hpctk *db = d->db;
	const unsigned char *x, *ps;
	uint32_t scope;
	profdb_str scope_name;
	int r;
	if ((r = rec(d, at, is_sum ? HL_SUMMARY : HL_SCOPE_INST, is_sum ? "summary" : "scope instance",
	             &x)) < 0 ||
	    (r = profdb__hpctk_index_of(db, PROFDB_HPCTK_META, p_scopes, n_scopes, sz_scope,
	                                is_sum ? hl_summary_scope(x) : hl_inst_scope(x),
	                                "scope pointer", &scope)) < 0 ||
	    (r = rec(d, p_scopes + (uint64_t)scope * sz_scope, HL_SCOPE, "scope", &ps)) < 0 ||
	    (r = str(d, hl_scope_name(ps), "scope name", &scope_name)) < 0)
		return r;
	if (!is_sum) {
		profdb_hpctk_prop *pr = &db->props[d->n_props++];
		pr->scope = scope_name;
		pr->scope_type = hl_scope_type(ps);
		pr->prop_index = hl_scope_prop_index(ps);
		pr->prop_metric_id = hl_inst_prop_id(x);
		return 0;
	}
	profdb_hpctk_summary *s = &db->sums[d->n_sums++];
	s->scope = scope_name;
	s->scope_type = hl_scope_type(ps);
	s->combine = hl_summary_combine(x);
	s->stat_metric_id = hl_summary_stat_id(x);
	return str(d, hl_summary_formula(x), "summary formula", &s->formula);
}

static int decode_final(decoder *d, const unsigned char *h)
{
	profdb_hpctk *db = d->db;
	if (d->hi - d->lo < HL_METRICS_FINAL)
		return profdb__fail(-EBADMSG, "%s: Metrics section at 0x%" PRIx64
		                    " is shorter than its 0x1b-byte header", d->in->name, d->lo);
	uint64_t p_metrics = hl_metrics_ptr(h);
	uint32_t n = hl_metrics_count(h);
	unsigned sz_metric = hl_metrics_sz_metric(h), sz_inst = hl_metrics_sz_inst(h);
	unsigned sz_sum = hl_metrics_sz_summary(h);
	uint64_t p_scopes = hl_metrics_scopes(h);
	unsigned n_scopes = hl_metrics_n_scopes(h), sz_scope = hl_metrics_sz_scope(h);
	if (sz_metric < HL_METRIC || sz_inst < HL_SCOPE_INST || sz_sum < HL_SUMMARY ||
	    sz_scope < HL_SCOPE)
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
		const unsigned char *md;
		hpctk_metric *hm = &db->metric_tab[m];
		if ((r = rec(d, p_metrics + (uint64_t)m * sz_metric, sz_metric, "metric", &md)) < 0 ||
		    (r = str(d, hl_metric_name(md), "metric name", &hm->name)) < 0)
			return r;
		uint64_t p_inst = hl_metric_insts(md), p_sums = hl_metric_summaries(md);
		uint32_t n_inst = hl_metric_n_insts(md), n_sums = hl_metric_n_summaries(md);
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
			if ((r = decode_final_entry(d, at, is_sum, p_scopes, n_scopes, sz_scope)) < 0)
				return r;
		}
	}
	db->n_metrics = n;
	return 0;
}

/* The summaries of one dev-stage scope. */
static int decode_dev_summaries(decoder *d, const profdb_hpctk_prop *pr, uint64_t p_sums,
                                uint32_t n_sums, unsigned sz_sum)
{
	for (uint32_t k = 0; k < n_sums; k++) {
		const unsigned char *ss;
		profdb_hpctk_summary *su = &d->db->sums[d->n_sums++];
		int r;
		if ((r = rec(d, p_sums + (uint64_t)k * sz_sum, sz_sum, "summary", &ss)) < 0 ||
		    (r = str(d, hl_dsummary_formula(ss), "summary formula", &su->formula)) < 0)
			return r;
		su->scope = pr->scope;
		su->scope_type = pr->scope_type;
		su->combine = hl_dsummary_combine(ss);
		su->stat_metric_id = hl_dsummary_stat_id(ss);
	}
	return 0;
}

static int decode_devstage(decoder *d, const unsigned char *h)
{
	profdb_hpctk *db = d->db;
	uint64_t p_metrics = hl_metrics_ptr(h);
	uint32_t n = hl_metrics_count(h);
	unsigned sz_metric = hl_metrics_sz_metric(h), sz_scope = hl_metrics_sz_inst(h);
	unsigned sz_sum = hl_metrics_sz_summary(h);
	if (sz_metric < HL_METRIC_DEV || sz_scope < HL_SCOPE_DEV || sz_sum < HL_SUMMARY_DEV)
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
		const unsigned char *md, *ps;
		hpctk_metric *hm = &db->metric_tab[m];
		if ((r = rec(d, p_metrics + (uint64_t)m * sz_metric, sz_metric, "metric", &md)) < 0 ||
		    (r = str(d, hl_dmetric_name(md), "metric name", &hm->name)) < 0)
			return r;
		uint32_t n_scopes = hl_dmetric_n_scopes(md);
		uint64_t p_scopes = hl_dmetric_scopes(md);
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
			    (r = str(d, hl_dscope_name(ps), "scope name", &pr->scope)) < 0)
				return r;
			scope_from_name(pr->scope, &pr->scope_type, &pr->prop_index);
			pr->prop_metric_id = hl_dscope_prop_id(ps);
			uint32_t n_sums = hl_dscope_n_summaries(ps);
			uint64_t p_sums = hl_dscope_summaries(ps);
			if ((r = profdb__hpctk_array(d->in, &sec, p_sums, n_sums, sz_sum, "summary array")) < 0)
				return r;
			total_sums += n_sums;
			if ((r = check_total(d, total_props, total_sums)) < 0 ||
			    (r = decode_dev_summaries(d, pr, p_sums, n_sums, sz_sum)) < 0)
				return r;
		}
		hm->n_sums = d->n_sums - hm->first_sum;
	}
	db->n_metrics = n;
	return 0;
}

/* The sets of ids the decoded table defines. */
static void fill_ids(profdb_hpctk *db)
{
	for (uint32_t i = 0; i < db->n_metrics; i++) {
		const hpctk_metric *m = &db->metric_tab[i];
		for (uint32_t k = 0; k < m->n_props; k++) {
			uint16_t id = db->props[m->first_prop + k].prop_metric_id;
			db->prop_ids[id >> 3] |= (uint8_t)(1u << (id & 7));
		}
		for (uint32_t k = 0; k < m->n_sums; k++) {
			uint16_t id = db->sums[m->first_sum + k].stat_metric_id;
			db->stat_ids[id >> 3] |= (uint8_t)(1u << (id & 7));
		}
	}
}

static int build(void *arg)
{
	profdb_hpctk *db = arg;
	decoder d = {db, &db->in[PROFDB_HPCTK_META], db->metrics_sec.off,
	             db->metrics_sec.off + db->metrics_sec.size, 0, 0, 0, 0};
	const unsigned char *h;
	if (db->metrics_sec.size == 0)
		return 0;
	int r = rec(&d, d.lo, HL_METRICS_DEV, "Metrics section header", &h);
	if (r < 0)
		return r;
	r = db->layout == PROFDB_HPCTK_DEVSTAGE ? decode_devstage(&d, h) : decode_final(&d, h);
	if (r == 0)
		fill_ids(db);
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
	return profdb__hpctk_meta_once(db, db ? &db->metrics_once : NULL, build);
}

int profdb__hpctk_metric_ids(const profdb_hpctk *db)
{
	return ensure(db);
}

PROFDB_EXPORT int64_t profdb_hpctk_metric_count(const profdb_hpctk *db)
{
	int r = ensure(db);
	return r < 0 ? r : (int64_t)db->n_metrics;
}

static int metric(const profdb_hpctk *db, uint32_t m, const void *out, const hpctk_metric **hm)
{
	int r = ensure(db);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_metric_*: NULL output");
	if (m >= db->n_metrics)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " does not exist (%" PRIu32 " metrics)",
		                    m, db->n_metrics);
	*hm = &db->metric_tab[m];
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_metric_at(const profdb_hpctk *db, uint32_t m,
                                         profdb_hpctk_metric *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	const hpctk_metric *hm = NULL;
	int r = metric(db, m, out, &hm);
	if (r < 0)
		return r;
	out->name = hm->name;
	out->n_props = hm->n_props;
	out->n_summaries = hm->n_sums;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_metric_prop_at(const profdb_hpctk *db, uint32_t m, uint32_t i,
                                              profdb_hpctk_prop *out)
{
	const hpctk_metric *hm = NULL;
	int r = metric(db, m, out, &hm);
	if (r < 0)
		return r;
	if (i >= hm->n_props)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " has no scope %" PRIu32, m, i);
	*out = db->props[hm->first_prop + i];
	memset(out->reserved, 0, sizeof out->reserved);   /* the table's are not cleared */
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_metric_summary_at(const profdb_hpctk *db, uint32_t m,
                                                 uint32_t i, profdb_hpctk_summary *out)
{
	const hpctk_metric *hm = NULL;
	int r = metric(db, m, out, &hm);
	if (r < 0)
		return r;
	if (i >= hm->n_sums)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " has no summary %" PRIu32, m, i);
	*out = db->sums[hm->first_sum + i];
	memset(out->reserved, 0, sizeof out->reserved);   /* the table's are not cleared */
	return 0;
}
