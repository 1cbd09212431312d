/* The common views (profdb_profile_view, profdb_context_view,
 * profdb_trace_view; include/profdb/query.h).
 *
 * A backend that can point a view into its input (HPCToolkit 4.0 planes,
 * trace lines) answers through its own entry. Every other view is
 * materialised here, once, from the backend's cursor or trace_at, into a
 * block the handle keeps until profdb_close(): the records are sorted by
 * key, checked for duplicates, and their bytes are counted against
 * options.max_memory. Two threads asking for the same view at once may both
 * build it; the first to install its block wins and the other's is freed,
 * so every caller sees the same memory. */
#include <stdlib.h>
#include <string.h>

#include "core/table-internal.h"
#include "query-internal.h"

/* Record layouts of materialised views (16 bytes, 8-aligned, so a numpy
 * dtype can take them with aligned fields). */
enum {
	STRIDE = 16,
	INDEX_KEY = 0, INDEX_START = 8,             /* {u32 key, pad, u64 start} */
	VALUE_KEY = 0, VALUE_TAG = 4, VALUE = 8,    /* {u32 key, u8 type, pad, 8 bytes} */
	TRACE_TIME = 0, TRACE_CONTEXT = 8           /* {u64 time, u32 context, pad} */
};

enum view_kind { PROFILE_VIEW = 1, CONTEXT_VIEW = 2, TRACE_VIEW = 3 };

typedef struct block {
	uint64_t key;                /* kind << 32 | profile or context */
	profdb_view index, records;  /* index unused by traces */
	unsigned char *mem;
} block;

struct profdb__views {
	pthread_mutex_t lock;
	block **blocks;              /* installed blocks; never move once built */
	size_t n, cap;
	profdb__hindex by_key;
	uint64_t bytes;              /* materialised so far */
};

int profdb__views_new(profdb__views **out)
{
	profdb__views *v = calloc(1, sizeof *v);
	if (!v)
		return profdb__fail(-ENOMEM, "out of memory");
	int r = profdb__hindex_init(&v->by_key, 0);
	if (r < 0) {
		free(v);
		return r;
	}
	pthread_mutex_init(&v->lock, NULL);
	*out = v;
	return 0;
}

void profdb__views_free(profdb__views *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		free(v->blocks[i]->mem);
		free(v->blocks[i]);
	}
	free(v->blocks);
	profdb__hindex_free(&v->by_key);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

static uint64_t block_hash(const void *ctx, uint32_t e)
{
	return profdb__mix64(((const profdb__views *)ctx)->blocks[e]->key);
}

static int block_eq(const void *ctx, uint32_t e, const void *key)
{
	return ((const profdb__views *)ctx)->blocks[e]->key == *(const uint64_t *)key;
}

/* The installed block for @p key, or NULL. */
static const block *lookup(profdb__views *v, uint64_t key)
{
	pthread_mutex_lock(&v->lock);
	uint32_t e1 = *profdb__hindex_slot(&v->by_key, profdb__mix64(key), block_eq, v, &key);
	const block *b = e1 ? v->blocks[e1 - 1] : NULL;
	pthread_mutex_unlock(&v->lock);
	return b;
}

/* Install @p b (built by this thread) unless another thread was first;
 * returns the block every caller must use and frees the loser. */
static int install(const profdb *db, block *b, uint64_t bytes, const block **out)
{
	profdb__views *v = db->views;
	uint64_t limit = db->opts.max_memory ? db->opts.max_memory : PROFDB_DEFAULT_MAX_MEMORY;
	int r = 0;
	pthread_mutex_lock(&v->lock);
	uint32_t *slot = profdb__hindex_slot(&v->by_key, profdb__mix64(b->key), block_eq, v, &b->key);
	if (*slot) {
		*out = v->blocks[*slot - 1];
	} else if (bytes > limit || v->bytes > limit - bytes) {
		r = profdb__fail(-EFBIG, "views: %llu bytes materialised would exceed max_memory "
		                 "(%llu bytes)", (unsigned long long)(v->bytes + bytes),
		                 (unsigned long long)limit);
	} else if ((r = profdb__grow((void **)&v->blocks, &v->cap, v->n + 1, sizeof *v->blocks)) == 0) {
		v->blocks[v->n] = b;
		*slot = (uint32_t)++v->n;
		v->bytes += bytes;
		r = profdb__hindex_added(&v->by_key, block_hash, v);
		*out = b;
		b = NULL;
	}
	pthread_mutex_unlock(&v->lock);
	if (b) {
		free(b->mem);
		free(b);
	}
	return r;
}

/* ---- values ---------------------------------------------------------------- */

/* One value on its way into a view: (outer, inner) are (context, metric) for
 * a profile view and (metric, profile) for a context view. */
typedef struct item {
	uint32_t outer, inner;
	profdb_number value;
} item;

static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->outer != y->outer)
		return x->outer < y->outer ? -1 : 1;
	return x->inner < y->inner ? -1 : x->inner > y->inner;
}

/* Every entry of a profile's (or context's) scan, sorted. */
static int collect(const profdb *db, profdb_scan scan, uint32_t key, item **out, size_t *n)
{
	profdb__cursor cur;
	memset(&cur, 0, sizeof cur);
	cur.scan = scan;
	cur.key = key;
	int r = db->be->cursor_begin(db->impl, &cur);
	item *items = NULL;
	size_t cap = 0, k = 0;
	int sorted = 1;
	profdb_entry e;
	while (r >= 0) {
		memset(&e, 0, sizeof e);
		if ((r = db->be->cursor_next(db->impl, &cur, &e)) <= 0)
			break;
		if ((r = profdb__grow((void **)&items, &cap, k + 1, sizeof *items)) < 0)
			break;
		item it = {scan == PROFDB_SCAN_PROFILE ? e.context : e.metric,
		           scan == PROFDB_SCAN_PROFILE ? e.metric : e.profile, e.value};
		if (k > 0 && item_cmp(&items[k - 1], &it) >= 0)
			sorted = 0;
		items[k++] = it;
	}
	if (db->be->cursor_free)
		db->be->cursor_free(db->impl, &cur);
	if (r < 0) {
		free(items);
		return r;
	}
	if (!sorted)
		qsort(items, k, sizeof *items, item_cmp);
	for (size_t i = 1; i < k; i++)
		if (item_cmp(&items[i - 1], &items[i]) == 0) {
			free(items);
			return profdb__fail(-EBADMSG, "%s: %s %u stores two values for %s %u and "
			                    "%s %u", profdb_format_name(db->be->format),
			                    scan == PROFDB_SCAN_PROFILE ? "profile" : "context", key,
			                    scan == PROFDB_SCAN_PROFILE ? "context" : "metric",
			                    items[i].outer,
			                    scan == PROFDB_SCAN_PROFILE ? "metric" : "profile",
			                    items[i].inner);
		}
	*out = items;
	*n = k;
	return 0;
}

static void put_le(unsigned char *p, uint64_t x, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

static profdb_view make_view(const unsigned char *base, uint64_t count, uint8_t key_type,
                             uint8_t value_offset, uint8_t value_type)
{
	profdb_view v;
	memset(&v, 0, sizeof v);
	v.base = count ? base : NULL;
	v.count = count;
	v.stride = STRIDE;
	v.key_type = key_type;
	v.value_offset = value_offset;
	v.value_type = value_type;
	v.tag_offset = value_type == PROFDB_FIELD_TAGGED ? VALUE_TAG : 0;
	return v;
}

/* The field type of a number's type; TAGGED when the items mix types. */
static uint8_t value_field(const item *items, size_t n)
{
	static const uint8_t field[] = {
		[PROFDB_TYPE_U64] = PROFDB_FIELD_U64, [PROFDB_TYPE_I64] = PROFDB_FIELD_I64,
		[PROFDB_TYPE_F64] = PROFDB_FIELD_F64};
	for (size_t i = 0; i < n; i++)
		if (items[i].value.type != items[0].value.type ||
		    (unsigned)items[i].value.type > PROFDB_TYPE_F64 ||
		    items[i].value.type == PROFDB_TYPE_NONE)
			return PROFDB_FIELD_TAGGED;
	return n ? field[items[0].value.type] : PROFDB_FIELD_F64;
}

/* Build the (index, records) block of sorted items. */
static int build_values(uint64_t key, const item *items, size_t n, block **out,
                        uint64_t *bytes)
{
	size_t runs = 0;
	for (size_t i = 0; i < n; i++)
		runs += i == 0 || items[i].outer != items[i - 1].outer;
	if (n > SIZE_MAX / STRIDE / 2)
		return profdb__fail(-ENOMEM, "views: %zu values are too many", n);
	block *b = calloc(1, sizeof *b);
	unsigned char *mem = malloc((runs + n) * STRIDE + 1);
	if (!b || !mem) {
		free(b);
		free(mem);
		return profdb__fail(-ENOMEM, "out of memory (view of %zu values)", n);
	}
	profdb__advise_big(mem, (runs + n) * STRIDE);
	memset(mem, 0, (runs + n) * STRIDE);
	unsigned char *idx = mem, *rec = mem + runs * STRIDE;
	size_t r = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || items[i].outer != items[i - 1].outer) {
			put_le(idx + r * STRIDE + INDEX_KEY, items[i].outer, 4);
			put_le(idx + r * STRIDE + INDEX_START, i, 8);
			r++;
		}
		unsigned char *p = rec + i * STRIDE;
		uint64_t bits;
		memcpy(&bits, &items[i].value.as, 8);
		put_le(p + VALUE_KEY, items[i].inner, 4);
		p[VALUE_TAG] = (unsigned char)items[i].value.type;
		put_le(p + VALUE, bits, 8);
	}
	b->key = key;
	b->mem = mem;
	b->index = make_view(idx, runs, PROFDB_FIELD_U32, INDEX_START, PROFDB_FIELD_U64);
	b->records = make_view(rec, n, PROFDB_FIELD_U32, VALUE, value_field(items, n));
	*out = b;
	*bytes = (runs + n) * STRIDE;
	return 0;
}

static int values_view(const profdb *db, enum view_kind kind, uint32_t key,
                       profdb_view *index, profdb_view *records)
{
	uint64_t k = (uint64_t)kind << 32 | key;
	const block *b = lookup(db->views, k);
	if (!b) {
		item *items = NULL;
		size_t n = 0;
		block *nb = NULL;
		uint64_t bytes = 0;
		int r = collect(db, kind == PROFILE_VIEW ? PROFDB_SCAN_PROFILE : PROFDB_SCAN_CONTEXT,
		                key, &items, &n);
		if (r < 0)
			return r;
		r = build_values(k, items, n, &nb, &bytes);
		free(items);
		if (r < 0 || (r = install(db, nb, bytes, &b)) < 0)
			return r;
	}
	*index = b->index;
	*records = b->records;
	return 0;
}

/* Check the arguments, try the backend's own view, else materialise. */
static int values_entry(const profdb *db, enum view_kind kind, uint32_t key,
                        profdb_view *index, profdb_view *records, const char *fn)
{
	if (!db || !index || !records)
		return profdb__fail(-EINVAL, "%s: NULL argument", fn);
	memset(index, 0, sizeof *index);
	memset(records, 0, sizeof *records);
	int r;
	if (kind == PROFILE_VIEW) {
		if ((r = profdb__query_check_profile(db, key, fn)) < 0)
			return r;
	} else if ((r = profdb__query_check_context(db, key, fn)) < 0) {
		return r;
	}
	int (*own)(const void *, uint32_t, profdb_view *, profdb_view *) =
		kind == PROFILE_VIEW ? db->be->profile_view : db->be->context_view;
	if (own && (r = own(db->impl, key, index, records)) != PROFDB__VIEW_FALLBACK)
		return r;
	if (!db->be->cursor_begin || !db->be->cursor_next)
		return profdb__fail(-ENOTSUP, "%s: not available for %s databases", fn,
		                    profdb_format_name(db->be->format));
	return values_view(db, kind, key, index, records);
}

PROFDB_EXPORT int profdb_profile_view(const profdb *db, uint32_t profile, profdb_view *index,
                                      profdb_view *values)
{
	return values_entry(db, PROFILE_VIEW, profile, index, values, "profdb_profile_view");
}

PROFDB_EXPORT int profdb_context_view(const profdb *db, uint32_t context, profdb_view *index,
                                      profdb_view *values)
{
	return values_entry(db, CONTEXT_VIEW, context, index, values, "profdb_context_view");
}

/* ---- traces ---------------------------------------------------------------- */

static int build_trace(const profdb *db, uint32_t profile, uint64_t key, block **out,
                       uint64_t *bytes)
{
	int64_t n = db->be->trace_length(db->impl, profile);
	if (n < 0)
		return (int)n;
	if ((uint64_t)n > SIZE_MAX / STRIDE - 1)
		return profdb__fail(-ENOMEM, "views: trace of %lld samples is too long", (long long)n);
	block *b = calloc(1, sizeof *b);
	unsigned char *mem = calloc((size_t)n + 1, STRIDE);
	if (!b || !mem) {
		free(b);
		free(mem);
		return profdb__fail(-ENOMEM, "out of memory (trace of %lld samples)", (long long)n);
	}
	int r = 0;
	uint64_t last = 0;
	for (int64_t i = 0; i < n && r >= 0; i++) {
		profdb_sample s;
		if ((r = db->be->trace_at(db->impl, profile, (uint64_t)i, &s)) < 0)
			break;
		if (i > 0 && s.time_ns < last)
			r = profdb__fail(-EBADMSG, "%s: trace of profile %u goes back in time at "
			                 "sample %lld", profdb_format_name(db->be->format), profile,
			                 (long long)i);
		last = s.time_ns;
		put_le(mem + (size_t)i * STRIDE + TRACE_TIME, s.time_ns, 8);
		put_le(mem + (size_t)i * STRIDE + TRACE_CONTEXT, s.context, 4);
	}
	if (r < 0) {
		free(b);
		free(mem);
		return r;
	}
	b->key = key;
	b->mem = mem;
	b->records = make_view(mem, (uint64_t)n, PROFDB_FIELD_U64, TRACE_CONTEXT, PROFDB_FIELD_U32);
	b->records.key_offset = TRACE_TIME;
	*out = b;
	*bytes = (uint64_t)n * STRIDE;
	return 0;
}

PROFDB_EXPORT int profdb_trace_view(const profdb *db, uint32_t profile, profdb_view *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_trace_view: NULL argument");
	memset(out, 0, sizeof *out);
	if (!db->be->trace_length || !db->be->trace_at)
		return profdb__fail(-ENOTSUP, "profdb_trace_view: %s databases have no traces",
		                    profdb_format_name(db->be->format));
	int r = profdb__query_check_profile(db, profile, "profdb_trace_view");
	if (r < 0)
		return r;
	if (db->be->trace_view && (r = db->be->trace_view(db->impl, profile, out)) !=
	                              PROFDB__VIEW_FALLBACK)
		return r;
	uint64_t key = (uint64_t)TRACE_VIEW << 32 | profile;
	const block *b = lookup(db->views, key);
	if (!b) {
		block *nb = NULL;
		uint64_t bytes = 0;
		if ((r = build_trace(db, profile, key, &nb, &bytes)) < 0 ||
		    (r = install(db, nb, bytes, &b)) < 0)
			return r;
	}
	*out = b->records;
	return 0;
}
