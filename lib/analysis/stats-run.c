/* The parallel pass of profdb_stats_new() (stats-internal.h says why it is
 * split by context range).
 *
 * Phase 1, parallel over contiguous chunks of the profile list: fetch each
 * profile's views (this validates HPCToolkit blocks on first use, the
 * costly part of a first call) and its largest context id.
 * Between the phases the caller chooses the row layout (dense by id, or
 * the sorted distinct ids), checks memory and cuts the rows into tiles.
 * Phase 2, parallel over stripes of tiles taken from a shared counter: for
 * each tile, for each profile in ascending order, the profile's contexts
 * in the tile and their values. HPCToolkit 4.0 value blocks (10-byte
 * records, U16 metric id, little-endian F64) take a fast path of plain
 * loads on a little-endian host; every other view goes through the
 * generic inline readers of profdb/common.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/search-internal.h"
#include "core/table-internal.h"
#include "stats-internal.h"

/* Accumulator bytes per tile: small enough to stay in a core's L2. */
#define TILE_BYTES (128u * 1024u)
/* Stripes per thread, for dynamic balance. */
#define STRIPES_PER_THREAD 8
/* Metric ids above this have no slot table (every format's ids are small). */
#define MAX_METRIC_ID (1u << 24)

typedef struct run {
	const profdb *db;
	const uint32_t *profiles;
	size_t n_profiles;
	profdb_view *idx, *val;       /* per profile */
	uint32_t *last_ctx;           /* per profile: largest context id, or NONE if empty */
	uint32_t *slot_of;            /* metric id -> slot + 1, 0 = not asked */
	uint32_t max_metric;
	profdb__acc *acc;
	size_t n_slots;
	uint64_t n_rows, rows_per_tile, n_tiles, n_stripes;
	const uint32_t *ids;          /* sorted distinct context ids, or NULL (dense) */
	const profdb_stats_acc *start;  /* the states the folds continue from */
	size_t n_start;
	_Atomic uint64_t next_stripe, done_bytes;
	uint64_t total_bytes;
	atomic_int cancel;
	unsigned threads;
} run;

typedef struct worker {
	run *r;
	unsigned t;
	int err;
	char msg[512];
	uint64_t *cursor;             /* phase 2: per profile, next index record */
} worker;

static inline void acc_add(profdb__acc *a, double v, uint32_t p)
{
	PROFDB__ACC_ADD(a, v, p);
}

/* ---- phase 1: views ------------------------------------------------------- */

static void keep_error(worker *w, int err)
{
	w->err = err;
	snprintf(w->msg, sizeof w->msg, "%s", profdb_error_message());
}

static void *phase1(void *arg)
{
	worker *w = arg;
	run *r = w->r;
	size_t lo = r->n_profiles * w->t / r->threads, hi = r->n_profiles * (w->t + 1) / r->threads;
	for (size_t i = lo; i < hi; i++) {
		int e = profdb_profile_view(r->db, r->profiles[i], &r->idx[i], &r->val[i]);
		if (e < 0) {
			keep_error(w, e);
			return NULL;
		}
		r->last_ctx[i] = r->idx[i].count
		               ? (uint32_t)profdb_view_key(&r->idx[i], r->idx[i].count - 1) : PROFDB_NONE;
		if (atomic_load_explicit(&r->cancel, memory_order_relaxed))
			return NULL;
	}
	return NULL;
}

/* ---- phase 2: accumulate ---------------------------------------------------- */

static int is_fast(const profdb_view *idx, const profdb_view *val)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return !idx->big_endian && idx->stride == 12 && idx->key_offset == 0 &&
	       idx->key_type == PROFDB_FIELD_U32 && idx->value_offset == 4 &&
	       idx->value_type == PROFDB_FIELD_U64 && !val->big_endian && val->stride == 10 &&
	       val->key_offset == 0 && val->key_type == PROFDB_FIELD_U16 &&
	       val->value_offset == 2 && val->value_type == PROFDB_FIELD_F64;
#else
	(void)idx; (void)val;
	return 0;
#endif
}

/* The row of context id @p c within rows [r0, r1) of a sparse layout. */
static uint64_t sparse_row(const uint32_t *ids, uint64_t r0, uint64_t r1, uint32_t c)
{
	return profdb__lower_u32(ids, (size_t)r0, (size_t)r1, c);
}

/* Profile number @p i (its index p): its contexts from index record *cur
 * with id < @p end (UINT64_MAX: to the last), rows [r0, r1). */
static uint64_t one_profile(run *r, size_t i, uint64_t *cur, uint64_t end, uint64_t r0,
                            uint64_t r1)
{
	const profdb_view *idx = &r->idx[i], *val = &r->val[i];
	const uint32_t p = r->profiles[i], *slot_of = r->slot_of, maxm = r->max_metric;
	const size_t ns = r->n_slots;
	uint64_t k = *cur, first = k;
	if (is_fast(idx, val)) {
		const unsigned char *ib = idx->base, *vb = val->base;
		for (; k < idx->count; k++) {
			uint32_t c;
			uint64_t s, e;
			memcpy(&c, ib + 12 * k, 4);
			if (c >= end)
				break;
			memcpy(&s, ib + 12 * k + 4, 8);
			if (k + 1 < idx->count)
				memcpy(&e, ib + 12 * (k + 1) + 4, 8);
			else
				e = val->count;
			profdb__acc *row = r->acc + ns * (r->ids ? profdb__lower_u32(r->ids, (size_t)r0, (size_t)r1, c) : c);
			for (const unsigned char *q = vb + 10 * s, *qe = vb + 10 * e; q < qe; q += 10) {
				uint16_t m;
				double v;
				memcpy(&m, q, 2);
				memcpy(&v, q + 2, 8);
				uint32_t sl = m <= maxm ? slot_of[m] : 0;
				if (sl)
					acc_add(row + sl - 1, v, p);
			}
		}
	} else {
		for (; k < idx->count; k++) {
			uint64_t c = profdb_view_key(idx, k);
			if (c >= end)
				break;
			profdb_view run_v = profdb_view_run(idx, k, val);
			profdb__acc *row = r->acc + ns * (r->ids ? sparse_row(r->ids, r0, r1, (uint32_t)c) : c);
			PROFDB_VIEW_FOREACH(&run_v, j) {
				uint64_t m = profdb_view_key(&run_v, j);
				profdb_number n = profdb_view_value(&run_v, j);
				uint32_t sl = m <= maxm ? slot_of[m] : 0;
				if (sl && n.type != PROFDB_TYPE_NONE)
					acc_add(row + sl - 1, profdb_number_to_double(n), p);
			}
		}
	}
	*cur = k;
	/* bytes of values consumed, for progress */
	if (k == first)
		return 0;
	uint64_t a = profdb_view_value(idx, first).as.u64;
	uint64_t b = k < idx->count ? profdb_view_value(idx, k).as.u64 : val->count;
	return (b - a) * val->stride;
}

static uint64_t row_ctx(const run *r, uint64_t row)
{
	return r->ids ? r->ids[row] : row;
}

static void *phase2(void *arg)
{
	worker *w = arg;
	run *r = w->r;
	const profdb_options *o = &r->db->opts;
	for (;;) {
		uint64_t k = atomic_fetch_add(&r->next_stripe, 1);
		if (k >= r->n_stripes || atomic_load_explicit(&r->cancel, memory_order_relaxed))
			return NULL;
		uint64_t t0 = r->n_tiles * k / r->n_stripes, t1 = r->n_tiles * (k + 1) / r->n_stripes;
		uint64_t start = row_ctx(r, t0 * r->rows_per_tile);
		for (size_t i = 0; i < r->n_profiles; i++) {
			uint64_t pos = 0;
			if (r->idx[i].count)
				profdb_view_seek(&r->idx[i], start, &pos);
			w->cursor[i] = pos;
		}
		for (uint64_t t = t0; t < t1; t++) {
			uint64_t r0 = t * r->rows_per_tile, r1 = r0 + r->rows_per_tile;
			if (r1 > r->n_rows)
				r1 = r->n_rows;
			uint64_t end = r1 < r->n_rows ? row_ctx(r, r1) : UINT64_MAX, bytes = 0;
			for (size_t i = 0; i < r->n_profiles; i++)
				bytes += one_profile(r, i, &w->cursor[i], end, r0, r1);
			uint64_t done = atomic_fetch_add(&r->done_bytes, bytes) + bytes;
			/* Only the calling thread reports: the callback need not be
			 * reentrant, and it runs where the caller expects it. */
			if (w->t == 0 && o->progress && o->progress(done, r->total_bytes, o->progress_userdata)) {
				atomic_store(&r->cancel, 1);
				return NULL;
			}
		}
	}
}

/* Run @p fn on r->threads workers (the caller is worker 0). */
static int parallel(run *r, worker *w, void *(*fn)(void *))
{
	pthread_t th[256];
	int started[256] = {0};
	for (unsigned t = 0; t < r->threads; t++) {
		w[t].r = r;
		w[t].t = t;
		w[t].err = 0;
	}
	for (unsigned t = 1; t < r->threads; t++)
		started[t] = pthread_create(&th[t], NULL, fn, &w[t]) == 0;
	fn(&w[0]);
	for (unsigned t = 1; t < r->threads; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			fn(&w[t]);   /* no thread to spare: run its share here */
	}
	for (unsigned t = 0; t < r->threads; t++)
		if (w[t].err) {
			profdb__set_message(w[t].msg);
			return w[t].err;
		}
	if (atomic_load(&r->cancel))
		return profdb__fail(-ECANCELED, "profdb_stats_new: cancelled by the progress callback");
	return 0;
}

/* ---- the row layout ---------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The sorted distinct context ids of every selected profile, through an
 * open-addressing set (memory O(distinct contexts)). */
#define EMPTY UINT64_MAX

static uint64_t *set_grow(uint64_t *set, uint64_t cap, uint64_t nc)
{
	uint64_t *ns = malloc(nc * sizeof *ns);
	if (!ns)
		return NULL;
	memset(ns, 0xff, nc * sizeof *ns);
	for (uint64_t j = 0; set && j < cap; j++)
		if (set[j] != EMPTY) {
			uint64_t h = (set[j] * UINT64_C(0x9E3779B97F4A7C15)) >> 20 & (nc - 1);
			while (ns[h] != EMPTY)
				h = (h + 1) & (nc - 1);
			ns[h] = set[j];
		}
	free(set);
	return ns;
}

static int distinct_ids(run *r, uint64_t limit, uint32_t **out, uint64_t *n_out)
{
	uint64_t cap = 1024, n = 0;
	uint64_t *set = set_grow(NULL, 0, cap);
	if (!set)
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
	/* profile n_profiles stands for the start states' contexts */
	for (size_t i = 0; i <= r->n_profiles; i++)
		for (uint64_t k = 0; k < (i < r->n_profiles ? r->idx[i].count : r->n_start); k++) {
			uint64_t c = i < r->n_profiles ? profdb_view_key(&r->idx[i], k)
			                               : r->start[k].context;
			if (2 * (n + 1) > cap) {
				uint64_t *ns = 2 * cap * sizeof *set > limit ? NULL : set_grow(set, cap, 2 * cap);
				if (!ns) {
					int big = 2 * cap * sizeof *set > limit;
					free(set);
					return big ? profdb__fail(-EFBIG, "profdb_stats_new: the set of context "
					                          "ids would exceed max_memory (%" PRIu64
					                          " bytes)", limit)
					           : profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
				}
				set = ns;
				cap *= 2;
			}
			uint64_t h = (c * UINT64_C(0x9E3779B97F4A7C15)) >> 20 & (cap - 1);
			while (set[h] != EMPTY && set[h] != c)
				h = (h + 1) & (cap - 1);
			if (set[h] == EMPTY) {
				set[h] = c;
				n++;
			}
		}
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	if (!ids) {
		free(set);
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
	}
	uint64_t k = 0;
	for (uint64_t j = 0; j < cap; j++)
		if (set[j] != EMPTY)
			ids[k++] = (uint32_t)set[j];
	free(set);
	qsort(ids, k, sizeof *ids, cmp_u32);
	*out = ids;
	*n_out = n;
	return 0;
}

/* Rows, tiles and accumulators, within max_memory. */
static int layout(run *r, profdb__stats_pass *out)
{
	uint64_t limit = profdb__stats_limit(r->db), max_ctx = 0, widest = 0;
	int any = 0;
	for (size_t i = 0; i < r->n_profiles; i++) {
		if (r->last_ctx[i] == PROFDB_NONE)
			continue;
		any = 1;
		max_ctx = r->last_ctx[i] > max_ctx ? r->last_ctx[i] : max_ctx;
		widest = r->idx[i].count > widest ? r->idx[i].count : widest;
	}
	for (size_t k = 0; k < r->n_start; k++) {
		any = 1;
		max_ctx = r->start[k].context > max_ctx ? r->start[k].context : max_ctx;
	}
	widest = r->n_start > widest ? r->n_start : widest;
	/* Dense when the id range is within a small factor of the contexts one
	 * profile alone has: sparse ids (HPCToolkit's run about 2:1) stay dense. */
	if (!any)
		r->n_rows = 0;
	else if (max_ctx + 1 <= 8 * widest + 65536)
		r->n_rows = max_ctx + 1;
	else {
		int e = distinct_ids(r, limit, &out->ids, &r->n_rows);
		if (e < 0)
			return e;
		r->ids = out->ids;
	}
	uint64_t row_bytes = (uint64_t)r->n_slots * sizeof(profdb__acc);
	if (row_bytes && r->n_rows > (limit - (r->ids ? r->n_rows * 4 : 0)) / row_bytes)
		return profdb__fail(-EFBIG, "profdb_stats_new: %" PRIu64 " contexts x %zu metrics of "
		                    "accumulators would exceed max_memory (%" PRIu64 " bytes)",
		                    r->n_rows, r->n_slots, limit);
	if (r->n_rows && r->n_slots &&
	    !(r->acc = calloc(r->n_rows * r->n_slots, sizeof *r->acc)))
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory for %" PRIu64
		                    " accumulators", r->n_rows * r->n_slots);
	profdb__advise_big(r->acc, r->n_rows * r->n_slots * sizeof *r->acc);
	for (size_t k = 0; k < r->n_start && r->acc; k++) {
		const profdb_stats_acc *s = &r->start[k];
		uint64_t row = r->ids ? sparse_row(r->ids, 0, r->n_rows, s->context) : s->context;
		profdb__acc *a = &r->acc[row * r->n_slots + r->slot_of[s->metric] - 1];
		a->sum = s->sum;
		a->mean = s->mean;
		a->m2 = s->m2;
		a->min = s->min;
		a->max = s->max;
		a->count = (uint32_t)s->count;
		a->first_profile = s->first_profile;
		a->min_profile = s->min_profile;
		a->max_profile = s->max_profile;
	}
	r->rows_per_tile = row_bytes ? TILE_BYTES / row_bytes : 1;
	if (r->rows_per_tile == 0)
		r->rows_per_tile = 1;
	r->n_tiles = (r->n_rows + r->rows_per_tile - 1) / r->rows_per_tile;
	r->n_stripes = (uint64_t)r->threads * STRIPES_PER_THREAD;
	if (r->n_stripes > r->n_tiles)
		r->n_stripes = r->n_tiles;
	out->acc = r->acc;
	out->n_rows = r->n_rows;
	return 0;
}

/* ---- the pass ------------------------------------------------------------------ */

static int slots(run *r, const uint32_t *metrics, size_t n_metrics, profdb__stats_pass *out)
{
	r->max_metric = n_metrics ? metrics[n_metrics - 1] : 0;
	if (r->max_metric >= MAX_METRIC_ID)
		return profdb__fail(-EFBIG, "profdb_stats_new: metric id %" PRIu32 " is too large "
		                    "for the slot table", r->max_metric);
	r->slot_of = calloc((size_t)r->max_metric + 1, sizeof *r->slot_of);
	out->metric_ids = malloc((n_metrics ? n_metrics : 1) * sizeof *out->metric_ids);
	if (!r->slot_of || !out->metric_ids)
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
	for (size_t s = 0; s < n_metrics; s++) {
		r->slot_of[metrics[s]] = (uint32_t)s + 1;
		out->metric_ids[s] = metrics[s];
	}
	out->n_slots = r->n_slots = n_metrics;
	return 0;
}

int profdb__stats_run(const profdb *db, const uint32_t *profiles, size_t n_profiles,
                      const uint32_t *metrics, size_t n_metrics, unsigned threads,
                      const profdb_stats_acc *start, size_t n_start, profdb__stats_pass *out)
{
	memset(out, 0, sizeof *out);
	run *r = calloc(1, sizeof *r);
	worker *w = NULL;
	int e = -ENOMEM;
	if (!r)
		return profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
	r->db = db;
	r->profiles = profiles;
	r->n_profiles = n_profiles;
	r->start = start;
	r->n_start = n_start;
	if (threads > 256)
		threads = 256;
	/* Phase 1 needs no more threads than profiles; phase 2 may use more
	 * (one profile with many contexts) and gets r->threads back below. */
	r->threads = threads > n_profiles ? (n_profiles ? (unsigned)n_profiles : 1) : threads;
	r->idx = calloc(n_profiles + 1, sizeof *r->idx);
	r->val = calloc(n_profiles + 1, sizeof *r->val);
	r->last_ctx = calloc(n_profiles + 1, sizeof *r->last_ctx);
	w = calloc(threads, sizeof *w);
	if (!r->idx || !r->val || !r->last_ctx || !w) {
		e = profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
		goto out;
	}
	if ((e = slots(r, metrics, n_metrics, out)) < 0 || (e = parallel(r, w, phase1)) < 0)
		goto out;
	r->threads = threads;
	if ((e = layout(r, out)) < 0)
		goto out;
	if (r->threads > r->n_stripes)
		r->threads = r->n_stripes ? (unsigned)r->n_stripes : 1;
	for (size_t i = 0; i < n_profiles; i++)
		r->total_bytes += r->val[i].count * r->val[i].stride;
	for (unsigned t = 0; t < threads; t++)
		if (!(w[t].cursor = malloc((n_profiles + 1) * sizeof *w[t].cursor))) {
			e = profdb__fail(-ENOMEM, "profdb_stats_new: out of memory");
			goto out;
		}
	if (r->n_slots && r->n_rows)
		e = parallel(r, w, phase2);
out:
	for (unsigned t = 0; w && t < threads; t++)
		free(w[t].cursor);
	free(w);
	free(r->idx);
	free(r->val);
	free(r->last_ctx);
	free(r->slot_of);
	free(r);
	if (e < 0)
		profdb__stats_pass_free(out);
	return e;
}

void profdb__stats_pass_free(profdb__stats_pass *p)
{
	free(p->acc);
	free(p->ids);
	free(p->metric_ids);
	memset(p, 0, sizeof *p);
}
