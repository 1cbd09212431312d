/* The public functions of the common query interface that describe a
 * database: format, counts, metrics, contexts, profiles. Each checks its
 * arguments, then calls the backend; an optional entry a backend leaves
 * NULL answers -ENOTSUP. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <stddef.h>
#include <profdb/profdb.h>   /* every struct of struct-sizes-internal.h */

#include "query-internal.h"
#include "struct-sizes-internal.h"

/* A struct the library fills keeps its size across versions and ends in
 * its reserved space (no tail padding a later field could need). */
#define SIZE_IS(type, size)                                                            \
	_Static_assert(sizeof(void *) != 8 || sizeof(type) == (size), #type " size");  \
	_Static_assert(offsetof(type, reserved) + sizeof(((type *)0)->reserved) == sizeof(type), \
	               #type " ends in its reserved space");
PROFDB__STRUCT_SIZES(SIZE_IS)
#undef SIZE_IS

#define CHECK_DB(db, fn)                                                           \
	do {                                                                       \
		if (!(db))                                                         \
			return profdb__fail(-EINVAL, fn ": NULL database handle"); \
	} while (0)

/* CHECK_DB, then the outputs: @p outs is false when one of them is NULL. */
#define CHECK_DB_OUT(db, outs, fn)                                                 \
	do {                                                                       \
		CHECK_DB(db, fn);                                                  \
		if (!(outs))                                                       \
			return profdb__fail(-EINVAL, fn ": NULL output");          \
	} while (0)

static int notsup(const profdb *db, const char *what)
{
	return profdb__fail(-ENOTSUP, "%s: not available for %s databases", what,
	                    profdb_format_name(db->be->format));
}

int profdb__query_check_profile(const profdb *db, uint32_t profile, const char *fn)
{
	int64_t n = atomic_load_explicit(&db->n_profiles, memory_order_relaxed);
	if (n <= 0) {
		n = db->be->profile_count ? db->be->profile_count(db->impl) : 0;
		if (n < 0)
			return (int)n;
		/* a handle is read-only after open: its count never changes */
		atomic_store_explicit(&((profdb *)db)->n_profiles, n, memory_order_relaxed);
	}
	if (profile >= (uint64_t)n)
		return profdb__fail(-ENOENT, "%s: profile %" PRIu32 " does not exist (the %s "
		                    "database has %lld profiles)", fn, profile,
		                    profdb_format_name(db->be->format), (long long)n);
	return 0;
}

int profdb__query_check_context(const profdb *db, uint32_t context, const char *fn)
{
	if (!db->be->context_get)
		return profdb__fail(-ENOENT, "%s: context %" PRIu32 " does not exist (the %s "
		                    "database has no contexts)", fn, context,
		                    profdb_format_name(db->be->format));
	if (db->be->context_known)
		return db->be->context_known(db->impl, context);
	profdb_context c;
	return db->be->context_get(db->impl, context, &c);
}

PROFDB_EXPORT const char *profdb_format_name(profdb_format format)
{
	switch (format) {
	case PROFDB_FORMAT_HPCTK4: return "hpctoolkit-4.0";
	case PROFDB_FORMAT_HPCTK_PRE: return "hpctoolkit-prerelease";
	case PROFDB_FORMAT_HPCTK_DRAFT: return "hpctoolkit-draft";
	case PROFDB_FORMAT_HPCTK_XML: return "hpctoolkit-xml";
	case PROFDB_FORMAT_HPCRUN: return "hpcrun";
	case PROFDB_FORMAT_CUBE: return "cube";
	case PROFDB_FORMAT_CALLGRIND: return "callgrind";
	default: return "unknown";
	}
}

PROFDB_EXPORT int profdb_get_about(const profdb *db, profdb_about *out)
{
	CHECK_DB_OUT(db, out, "profdb_get_about");
	memset(out, 0, sizeof *out);
	out->format = db->be->format;
	out->version = out->title = profdb__str(NULL);
	if (!db->be->about)
		return 0;
	return db->be->about(db->impl, out);
}

PROFDB_EXPORT int profdb_get_counts(const profdb *db, profdb_counts *out)
{
	CHECK_DB_OUT(db, out, "profdb_get_counts");
	memset(out, 0, sizeof *out);
	if (!db->be->counts)
		return notsup(db, "counts");
	return db->be->counts(db->impl, out);
}

PROFDB_EXPORT int profdb_get_header_counts(const profdb *db, profdb_counts *out)
{
	CHECK_DB_OUT(db, out, "profdb_get_header_counts");
	memset(out, 0, sizeof *out);
	if (db->be->header_counts)
		return db->be->header_counts(db->impl, out);
	if (!db->be->counts)
		return notsup(db, "counts");
	return db->be->counts(db->impl, out);
}

PROFDB_EXPORT double profdb_number_to_double(profdb_number n)
{
	switch (n.type) {
	case PROFDB_TYPE_U64: return (double)n.as.u64;
	case PROFDB_TYPE_I64: return (double)n.as.i64;
	case PROFDB_TYPE_F64: return n.as.f64;
	default: return 0.0;
	}
}

/* ---- metrics --------------------------------------------------------------- */

PROFDB_EXPORT int64_t profdb_metric_count(const profdb *db)
{
	CHECK_DB(db, "profdb_metric_count");
	if (!db->be->metric_count)
		return 0;
	return db->be->metric_count(db->impl);
}

/* What every backend's answer gets: a field added after the backend was
 * written reads as its zero (a backend need not know it), and a scale the
 * backend left at 0 means "no factor" (1), so that multiplying by it is
 * always right. On failure *out is all zero. */
static int metric_done(int r, profdb_metric *out)
{
	if (r < 0) {
		memset(out, 0, sizeof *out);
		out->name = out->unit = out->description = out->statistic = profdb__str(NULL);
		return r;
	}
	if (out->scale == 0)
		out->scale = 1;
	return r;
}

PROFDB_EXPORT int profdb_metric_at(const profdb *db, uint32_t index, profdb_metric *out)
{
	CHECK_DB_OUT(db, out, "profdb_metric_at");
	if (!db->be->metric_at)
		return profdb__fail(-ENOENT, "metric %" PRIu32 " does not exist (no metrics)", index);
	memset(out, 0, sizeof *out);
	return metric_done(db->be->metric_at(db->impl, index, out), out);
}

PROFDB_EXPORT int profdb_metric_get(const profdb *db, uint32_t id, profdb_metric *out)
{
	CHECK_DB_OUT(db, out, "profdb_metric_get");
	if (db->be->metric_get) {
		memset(out, 0, sizeof *out);
		return metric_done(db->be->metric_get(db->impl, id, out), out);
	}
	int64_t n = profdb_metric_count(db);
	if (n < 0)
		return (int)n;
	for (int64_t i = 0; i < n; i++) {
		int r = profdb_metric_at(db, (uint32_t)i, out);
		if (r < 0)
			return r;
		if (out->id == id)
			return 0;
	}
	return profdb__fail(-ENOENT, "no metric with id %" PRIu32, id);
}

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int same_name(profdb_str name, const char *key, size_t klen, int fold)
{
	if (name.len != klen)
		return 0;
	if (!fold)
		return memcmp(name.ptr, key, klen) == 0;
	for (size_t i = 0; i < klen; i++)
		if (ascii_lower((unsigned char)name.ptr[i]) != ascii_lower((unsigned char)key[i]))
			return 0;
	return 1;
}

/* Several ids may share a name (HPCToolkit stores one id per propagation
 * scope of a metric): prefer the one a user most likely means. */
static int preference(profdb_metric_kind k)
{
	switch (k) {
	case PROFDB_METRIC_INCLUSIVE: return 0;
	case PROFDB_METRIC_EXCLUSIVE: return 1;
	case PROFDB_METRIC_POINT: return 2;
	case PROFDB_METRIC_OTHER: return 3;
	case PROFDB_METRIC_SUMMARY: return 4;
	default: return 5;
	}
}

/* Decimal id: digits only, no sign, fits in 32 bits. */
static int parse_id(const char *s, uint32_t *id)
{
	uint64_t v = 0;
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return 0;
	}
	*id = (uint32_t)v;
	return 1;
}

PROFDB_EXPORT int profdb_metric_find(const profdb *db, const char *key, profdb_metric *out)
{
	CHECK_DB(db, "profdb_metric_find");
	if (!key || !out)
		return profdb__fail(-EINVAL, "profdb_metric_find: NULL argument");
	int64_t n = profdb_metric_count(db);
	if (n < 0)
		return (int)n;
	size_t klen = strlen(key);
	for (int fold = 0; fold < 2; fold++) {
		int best = -1;
		profdb_metric m;
		for (int64_t i = 0; i < n; i++) {
			int r = profdb_metric_at(db, (uint32_t)i, &m);
			if (r < 0)
				return r;
			if (!same_name(m.name, key, klen, fold))
				continue;
			int p = preference(m.kind);
			if (best < 0 || p < best) {
				best = p;
				*out = m;
			}
		}
		if (best >= 0)
			return 0;
	}
	uint32_t id;
	if (parse_id(key, &id)) {
		int r = profdb_metric_get(db, id, out);
		if (r != -ENOENT)
			return r;
	}
	return profdb__fail(-ENOENT, "no metric named or numbered \"%s\"", key);
}

/* ---- contexts -------------------------------------------------------------- */

PROFDB_EXPORT int64_t profdb_context_count(const profdb *db)
{
	CHECK_DB(db, "profdb_context_count");
	if (!db->be->context_count)
		return 0;
	return db->be->context_count(db->impl);
}

PROFDB_EXPORT int profdb_context_root(const profdb *db, uint32_t *id)
{
	CHECK_DB_OUT(db, id, "profdb_context_root");
	if (!db->be->context_root)
		return profdb__fail(-ENOENT, "the database has no calling-context tree");
	return db->be->context_root(db->impl, id);
}

PROFDB_EXPORT int profdb_context_get(const profdb *db, uint32_t id, profdb_context *out)
{
	CHECK_DB_OUT(db, out, "profdb_context_get");
	memset(out, 0, sizeof *out);   /* reserved bytes too, whatever the backend fills */
	if (!db->be->context_get)
		return profdb__fail(-ENOENT, "context %" PRIu32 " does not exist (no contexts)", id);
	return db->be->context_get(db->impl, id, out);
}

/* ---- profiles -------------------------------------------------------------- */

PROFDB_EXPORT int64_t profdb_profile_count(const profdb *db)
{
	CHECK_DB(db, "profdb_profile_count");
	if (!db->be->profile_count)
		return 0;
	return db->be->profile_count(db->impl);
}

PROFDB_EXPORT int profdb_profile_at(const profdb *db, uint32_t index, profdb_profile *out)
{
	CHECK_DB_OUT(db, out, "profdb_profile_at");
	memset(out, 0, sizeof *out);   /* reserved bytes too, whatever the backend fills */
	if (!db->be->profile_get)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " does not exist (no profiles)", index);
	int r = profdb__query_check_profile(db, index, "profdb_profile_at");
	return r < 0 ? r : db->be->profile_get(db->impl, index, out);
}

PROFDB_EXPORT int profdb_profile_identity(const profdb *db, uint32_t index, uint32_t i,
                                          profdb_str *kind, uint64_t *value)
{
	CHECK_DB_OUT(db, kind && value, "profdb_profile_identity");
	if (!db->be->profile_identity)
		return profdb__fail(-ENOENT, "profile %" PRIu32 " has no identity entries", index);
	/* the entry index against the profile's own count, for every format */
	profdb_profile p;
	int r = profdb__query_check_profile(db, index, "profdb_profile_identity");
	if (r < 0 || (r = profdb_profile_at(db, index, &p)) < 0)
		return r;
	if (i >= p.n_identity)
		return profdb__fail(-ENOENT, "profdb_profile_identity: profile %" PRIu32 " has %" PRIu32
		                    " identity entries, no entry %" PRIu32, index, p.n_identity, i);
	return db->be->profile_identity(db->impl, index, i, kind, value);
}

/* ---- the format-specific views -------------------------------------------- */

static const void *native_of(const profdb *db, profdb_format f)
{
	if (!db || db->be->format != f)
		return NULL;
	return db->be->native ? db->be->native(db->impl) : db->impl;
}

PROFDB_EXPORT const profdb_hpctk *profdb_get_hpctk(const profdb *db)
{
	return native_of(db, PROFDB_FORMAT_HPCTK4);
}

PROFDB_EXPORT const profdb_cube *profdb_get_cube(const profdb *db)
{
	return native_of(db, PROFDB_FORMAT_CUBE);
}

PROFDB_EXPORT const profdb_cg *profdb_get_cg(const profdb *db)
{
	return native_of(db, PROFDB_FORMAT_CALLGRIND);
}

PROFDB_EXPORT const profdb_hpctkpre *profdb_get_hpctkpre(const profdb *db)
{
	return native_of(db, PROFDB_FORMAT_HPCTK_PRE);   /* the draft meta.db too */
}

PROFDB_EXPORT const profdb_hpcrun *profdb_get_hpcrun(const profdb *db)
{
	return native_of(db, PROFDB_FORMAT_HPCRUN);
}
