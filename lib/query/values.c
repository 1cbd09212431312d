/* The public value and trace functions of the common query interface, and
 * the profdb_values cursor, a thin owner of the backend's profdb__cursor. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "query-internal.h"

struct profdb_values {
	const profdb *db;
	profdb__cursor cur;
	int state;     /* 0 running, 1 at the end, < 0 the error it stopped at */
};

static int notsup(const profdb *db, const char *what)
{
	return profdb__fail(-ENOTSUP, "%s: not available for %s databases", what,
	                    profdb_format_name(db->be->format));
}

static void none(profdb_number *out)
{
	memset(out, 0, sizeof *out);
	out->type = PROFDB_TYPE_NONE;
}

/* -ENOENT for a context id that is neither a tree node nor carries values.
 * Only that answer counts: a tree that cannot be read (a damaged meta.db)
 * leaves the id unchecked, so that the stored values stay readable one by
 * one as they are by a scan of everything. */
static int unknown_context(const profdb *db, uint32_t context, const char *fn)
{
	int r = profdb__query_check_context(db, context, fn);
	return r == -ENOENT ? r : 0;
}

/* A lookup's answer @p r with the context checked only when nothing was
 * found: a stored value proves its context exists, so the hit path costs
 * no tree lookup (on HPCToolkit 4.0 that lookup fills a context record,
 * several times the cost of the value itself); a backend that checks the
 * id itself (values_check_ids) is not asked twice. */
static int found_or_unknown(const profdb *db, int r, uint32_t context, const char *fn)
{
	if (r == 0 && !db->be->values_check_ids) {
		int u = unknown_context(db, context, fn);
		if (u < 0)
			return u;
	}
	return r;
}

PROFDB_EXPORT int profdb_value(const profdb *db, uint32_t profile, uint32_t context,
                               uint32_t metric, profdb_number *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_value: NULL argument");
	none(out);
	if (!db->be->value)
		return notsup(db, "values");
	int r = profdb__query_check_profile(db, profile, "profdb_value");
	if (r >= 0)
		r = found_or_unknown(db, db->be->value(db->impl, profile, context, metric, out),
		                     context, "profdb_value");
	return r;
}

static int scoped(const profdb *db, uint32_t profile, uint32_t context, uint32_t metric,
                  int inclusive, profdb_number *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_%s: NULL argument",
		                    inclusive ? "inclusive" : "exclusive");
	none(out);
	if (!db->be->scoped)
		return notsup(db, inclusive ? "inclusive values" : "exclusive values");
	const char *fn = inclusive ? "profdb_inclusive" : "profdb_exclusive";
	int r = profdb__query_check_profile(db, profile, fn);
	if (r >= 0)
		r = found_or_unknown(db, db->be->scoped(db->impl, profile, context, metric,
		                                        inclusive, out), context, fn);
	if (r <= 0)
		none(out);   /* nothing there, or an error: no stale number */
	return r;
}

PROFDB_EXPORT int profdb_inclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out)
{
	return scoped(db, profile, context, metric, 1, out);
}

PROFDB_EXPORT int profdb_exclusive(const profdb *db, uint32_t profile, uint32_t context,
                                   uint32_t metric, profdb_number *out)
{
	return scoped(db, profile, context, metric, 0, out);
}

/* ---- the cursor ------------------------------------------------------------ */

PROFDB_EXPORT int profdb_values_new(profdb_values **ret, const profdb *db, profdb_scan scan,
                                    uint32_t key)
{
	if (ret)
		*ret = NULL;
	if (!db || !ret)
		return profdb__fail(-EINVAL, "profdb_values_new: NULL argument");
	if (scan != PROFDB_SCAN_ALL && scan != PROFDB_SCAN_PROFILE && scan != PROFDB_SCAN_CONTEXT)
		return profdb__fail(-EINVAL, "profdb_values_new: unknown scan %d", (int)scan);
	if (!db->be->cursor_begin || !db->be->cursor_next)
		return notsup(db, "value scans");
	int r;
	if (scan == PROFDB_SCAN_PROFILE &&
	    (r = profdb__query_check_profile(db, key, "profdb_values_new")) < 0)
		return r;
	if (scan == PROFDB_SCAN_CONTEXT &&
	    (r = unknown_context(db, key, "profdb_values_new")) < 0)
		return r;
	profdb_values *it = calloc(1, sizeof *it);
	if (!it)
		return profdb__fail(-ENOMEM, "out of memory");
	it->db = db;
	it->cur.scan = scan;
	it->cur.key = scan == PROFDB_SCAN_ALL ? 0 : key;
	r = db->be->cursor_begin(db->impl, &it->cur);
	if (r < 0) {
		profdb_values_free(it);
		return r;
	}
	*ret = it;
	return 0;
}

PROFDB_EXPORT int profdb_values_next(profdb_values *it, profdb_entry *out)
{
	if (!it || !out)
		return profdb__fail(-EINVAL, "profdb_values_next: NULL argument");
	if (it->state > 0)
		return 0;
	if (it->state < 0)
		return profdb__fail(it->state, "profdb_values_next: the scan stopped at an error");
	memset(out, 0, sizeof *out);
	int r = it->db->be->cursor_next(it->db->impl, &it->cur, out);
	if (r == 0)
		it->state = 1;
	else if (r < 0)
		it->state = r;
	return r;
}

PROFDB_EXPORT int64_t profdb_values_next_block(profdb_values *it, profdb_entry *out, size_t n)
{
	if (!it || !out || n == 0)
		return profdb__fail(-EINVAL, "profdb_values_next_block: %s",
		                    n ? "NULL argument" : "room for no entry");
	if (it->state > 0)
		return 0;
	if (it->state < 0)
		return profdb__fail(it->state, "profdb_values_next_block: the scan stopped at an error");
	if (n > SIZE_MAX / sizeof *out)
		n = SIZE_MAX / sizeof *out;   /* no array holds more */
	const profdb__backend *be = it->db->be;
	int64_t k = 0;
	if (be->cursor_block) {
		k = be->cursor_block(it->db->impl, &it->cur, out, n);
		if (k <= 0)
			it->state = k < 0 ? (int)k : 1;
		return k;
	}
	/* One entry at a time; an error after some entries is kept for the
	 * next call, so that the entries before it are not lost. */
	while ((size_t)k < n) {
		memset(&out[k], 0, sizeof *out);
		int r = be->cursor_next(it->db->impl, &it->cur, &out[k]);
		if (r <= 0) {
			it->state = r < 0 ? r : 1;
			return k ? k : r;
		}
		k++;
	}
	return k;
}

PROFDB_EXPORT void profdb_values_free(profdb_values *it)
{
	if (!it)
		return;
	if (it->db->be->cursor_free)
		it->db->be->cursor_free(it->db->impl, &it->cur);
	free(it);
}

/* ---- traces ---------------------------------------------------------------- */

PROFDB_EXPORT int64_t profdb_trace_length(const profdb *db, uint32_t profile)
{
	if (!db)
		return profdb__fail(-EINVAL, "profdb_trace_length: NULL database handle");
	if (!db->be->trace_length)
		return notsup(db, "traces");
	int r = profdb__query_check_profile(db, profile, "profdb_trace_length");
	return r < 0 ? r : db->be->trace_length(db->impl, profile);
}

PROFDB_EXPORT int profdb_trace_sample_at(const profdb *db, uint32_t profile, uint64_t i,
                                  profdb_sample *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_trace_sample_at: NULL argument");
	memset(out, 0, sizeof *out);   /* reserved bytes too, whatever the backend fills */
	if (!db->be->trace_at)
		return notsup(db, "traces");
	int r = profdb__query_check_profile(db, profile, "profdb_trace_sample_at");
	return r < 0 ? r : db->be->trace_at(db->impl, profile, i, out);
}

PROFDB_EXPORT int profdb_trace_seek(const profdb *db, uint32_t profile, uint64_t time_ns,
                                    uint64_t *index)
{
	if (!db || !index)
		return profdb__fail(-EINVAL, "profdb_trace_seek: NULL argument");
	if (!db->be->trace_seek)
		return notsup(db, "traces");
	int r = profdb__query_check_profile(db, profile, "profdb_trace_seek");
	return r < 0 ? r : db->be->trace_seek(db->impl, profile, time_ns, index);
}

/* "1.5s", "200ms", "30us", "100ns", "42" (ns): exact, or -1. */
static int parse_ns(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"", 1}};
	const char *p = s, *dot = NULL;
	if (*p < '0' || *p > '9')
		return -1;
	for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++)
		if (*p == '.')
			dot = p;
	size_t u = 0;
	while (strcmp(p, units[u].unit) != 0)
		if (!*units[u++].unit)
			return -1;
	uint64_t f = units[u].ns, v = 0;
	if (dot && !*units[u].unit)
		return -1;   /* a fraction needs a unit */
	for (const char *q = s; q < (dot ? dot : p); q++) {
		uint64_t d = (uint64_t)(*q - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > UINT64_MAX / f)
		return -1;
	v *= f;
	for (const char *q = dot ? dot + 1 : p; q < p; q++) {
		f /= 10;
		uint64_t d = (uint64_t)(*q - '0');
		if (!f && d)
			return -1;   /* finer than a nanosecond */
		if (v > UINT64_MAX - d * f)
			return -1;
		v += d * f;
	}
	*out = v;
	return 0;
}

PROFDB_EXPORT int profdb_time_parse(const char *text, uint64_t *ns)
{
	if (!text || !ns)
		return profdb__fail(-EINVAL, "profdb_time_parse: NULL argument");
	uint64_t v;
	if (parse_ns(text, &v) < 0)
		return profdb__fail(-EINVAL, "'%s' is not a time (integer nanoseconds, or a number "
		                    "with s, ms, us or ns; at most 2^64-1 ns, no finer than 1 ns)", text);
	*ns = v;
	return 0;
}
