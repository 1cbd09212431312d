/* bench-context-view — two designs of an HPCToolkit 4.0 database's
 * values by context, measured on the same database:
 *
 *   copy       every profile's values of the context, the summary
 *              profile's included, materialised on first use into
 *              16-byte records kept until close: what a view over every
 *              profile costs, since cct.db lacks the summary values (built
 *              here from a PROFDB_SCAN_CONTEXT cursor and the summary
 *              profile's run, the way lib/query materialises a view)
 *   zero-copy  profdb_context_view(): cct.db's plane in the mapping
 *              (thread profiles only), with the summary values from
 *              profdb_profile_view() of the summary profile (profile.db's
 *              plane, also in the mapping)
 *
 *   bench-context-view DATABASE copy|zero-copy [RUNS]
 *
 * (one design per process, so that the peak RSS is that design's).
 * Each run opens the database, takes the view of every context id once
 * ("first views": for the copy, building them) and keeps them, then looks
 * up every stored value through the kept views the way a client does
 * (metric in the index, then profile in the run; for the zero-copy
 * design's summary values, the context in the summary profile's index,
 * then the statistic) and closes. Printed: the
 * least CPU time of RUNS runs (default 7) of each phase, ns per lookup,
 * the growth of the peak RSS, and a checksum of the numbers found (the
 * same for both designs: the same numbers, bit for bit, from other
 * places). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <profdb/hpctk.h>
#include <profdb/profdb.h>

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_kib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

/* What the lookups found: their count and the wrapping sum of the
 * numbers' bits, which does not depend on the order they are found in. */
typedef struct tally {
	uint64_t lookups;
	uint64_t bits;
} tally;

static void found(tally *t, profdb_number v)
{
	double d = profdb_number_to_double(v);
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	t->bits += b;
	t->lookups++;
}

/* Look up every record of a per-metric index over (profile, value) runs
 * through the index, as a client asking for (metric, profile) does. */
static void look_up_all(const profdb_view *index, const profdb_view *values, tally *t)
{
	for (uint64_t i = 0; i < index->count; i++) {
		profdb_view run = profdb_view_run(index, i, values);
		uint64_t metric = profdb_view_key(index, i);
		for (uint64_t j = 0; j < run.count; j++) {
			uint64_t at, k;
			if (profdb_view_find(index, metric, &at) != 1)
				continue;
			profdb_view r = profdb_view_run(index, at, values);
			if (profdb_view_find(&r, profdb_view_key(&run, j), &k) == 1)
				found(t, profdb_view_value(&r, k));
		}
	}
}

/* The summary values of context @p ctx: its run in the summary profile's
 * plane (keyed by context), each statistic looked up by id. */
static void look_up_summary(const profdb_view *index, const profdb_view *values, uint32_t ctx,
                            tally *t)
{
	uint64_t at, k;
	if (profdb_view_find(index, ctx, &at) != 1)
		return;
	profdb_view run = profdb_view_run(index, at, values);
	for (uint64_t j = 0; j < run.count; j++)
		if (profdb_view_find(&run, profdb_view_key(&run, j), &k) == 1)
			found(t, profdb_view_value(&run, k));
}

/* ---- the copy design ---- */

typedef struct item {
	uint32_t metric, profile;
	double value;
} item;

static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->profile < y->profile ? -1 : x->profile > y->profile;
}

static void put_le(unsigned char *p, uint64_t x, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

/* A materialised context view: index {u32 metric, pad, u64 start} then
 * records {u32 profile, pad, f64}, 16 bytes each, in one block. */
typedef struct copied {
	profdb_view index, values;
	unsigned char *mem;
} copied;

static profdb_view view16(const unsigned char *base, uint64_t count, uint8_t value_type)
{
	profdb_view v;
	memset(&v, 0, sizeof v);
	v.base = count ? base : NULL;
	v.count = count;
	v.stride = 16;
	v.key_type = PROFDB_FIELD_U32;
	v.value_offset = 8;
	v.value_type = value_type;
	return v;
}

/* Context @p ctx's values in every profile: the cursor's (thread profiles)
 * and the summary profile's run, sorted by (metric, profile). */
static int build_copy(profdb *db, uint32_t summary, const profdb_view *six,
                      const profdb_view *sv, uint32_t ctx, copied *out)
{
	item *items = NULL;
	size_t n = 0, cap = 0;
	profdb_values *it;
	profdb_entry e;
	uint64_t at;
	int r = profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, ctx);
	if (r < 0)
		return r;
	profdb_view run = profdb_view_find(six, ctx, &at) == 1 ? profdb_view_run(six, at, sv)
	                                                       : view16(NULL, 0, PROFDB_FIELD_F64);
	for (uint64_t j = 0;; j++) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			item *more = realloc(items, cap * sizeof *items);
			if (!more) {
				r = -1;
				break;
			}
			items = more;
		}
		if (j < run.count) {
			items[n++] = (item){(uint32_t)profdb_view_key(&run, j), summary,
			                    profdb_number_to_double(profdb_view_value(&run, j))};
			continue;
		}
		if ((r = profdb_values_next(it, &e)) <= 0)
			break;
		items[n++] = (item){e.metric, e.profile, profdb_number_to_double(e.value)};
	}
	profdb_values_free(it);
	if (r < 0) {
		free(items);
		return r;
	}
	qsort(items, n, sizeof *items, item_cmp);
	size_t runs = 0;
	for (size_t i = 0; i < n; i++)
		runs += i == 0 || items[i].metric != items[i - 1].metric;
	unsigned char *mem = calloc(runs + n + 1, 16);
	if (!mem) {
		free(items);
		return -1;
	}
	unsigned char *rec = mem + runs * 16;
	for (size_t i = 0, k = 0; i < n; i++) {
		if (i == 0 || items[i].metric != items[i - 1].metric) {
			put_le(mem + k * 16, items[i].metric, 4);
			put_le(mem + k * 16 + 8, i, 8);
			k++;
		}
		uint64_t bits;
		memcpy(&bits, &items[i].value, 8);
		put_le(rec + i * 16, items[i].profile, 4);
		put_le(rec + i * 16 + 8, bits, 8);
	}
	free(items);
	out->mem = mem;
	out->index = view16(mem, runs, PROFDB_FIELD_U64);
	out->values = view16(rec, n, PROFDB_FIELD_F64);
	return 0;
}

/* The summary profile's index and its view. */
static int summary_view(profdb *db, uint32_t *summary, profdb_view *six, profdb_view *sv)
{
	int64_t np = profdb_profile_count(db);
	for (uint32_t p = 0; np > 0 && p < (uint64_t)np; p++) {
		profdb_profile pr;
		if (profdb_profile_at(db, p, &pr) == 0 && pr.is_summary) {
			*summary = p;
			return profdb_profile_view(db, p, six, sv);
		}
	}
	return -1;
}

/* One run of the copy design; the phases' CPU seconds in first/look. */
static int run_copy(const char *path, uint32_t n_ids, double *first, double *look, tally *t)
{
	profdb *db;
	profdb_view six, sv;
	uint32_t summary;
	copied *views = calloc(n_ids ? n_ids : 1, sizeof *views);
	if (!views || profdb_open(&db, path, NULL) < 0) {
		free(views);
		return -1;
	}
	double t0 = cpu_now();
	int r = summary_view(db, &summary, &six, &sv);
	for (uint32_t c = 0; r == 0 && c < n_ids; c++)
		(void)build_copy(db, summary, &six, &sv, c, &views[c]);   /* < 0: an id without a node */
	double t1 = cpu_now();
	for (uint32_t c = 0; r == 0 && c < n_ids; c++)
		if (views[c].mem)
			look_up_all(&views[c].index, &views[c].values, t);
	*look = cpu_now() - t1;
	*first = t1 - t0;
	profdb_close(db);
	for (uint32_t c = 0; c < n_ids; c++)
		free(views[c].mem);
	free(views);
	return r;
}

/* ---- the zero-copy design: the common interface's views ---- */

static int run_zero_copy(const char *path, uint32_t n_ids, double *first, double *look,
                         tally *t)
{
	profdb *db;
	profdb_view six, sv;
	uint32_t summary;
	copied *views = calloc(n_ids ? n_ids : 1, sizeof *views);   /* mem stays NULL */
	if (!views || profdb_open(&db, path, NULL) < 0) {
		free(views);
		return -1;
	}
	double t0 = cpu_now();
	int r = summary_view(db, &summary, &six, &sv);
	for (uint32_t c = 0; r == 0 && c < n_ids; c++)   /* -ENOENT: an id without a node */
		(void)profdb_context_view(db, c, &views[c].index, &views[c].values);
	double t1 = cpu_now();
	for (uint32_t c = 0; r == 0 && c < n_ids; c++) {
		look_up_all(&views[c].index, &views[c].values, t);
		look_up_summary(&six, &sv, c, t);
	}
	*look = cpu_now() - t1;
	*first = t1 - t0;
	profdb_close(db);
	free(views);
	return r;
}

int main(int argc, char **argv)
{
	static const char *const names[2] = {"copy", "zero-copy"};
	int design = argc > 2 ? (strcmp(argv[2], names[0]) == 0 ? 0
	                         : strcmp(argv[2], names[1]) == 0 ? 1 : -1) : -1;
	if (argc < 3 || argc > 4 || design < 0) {
		fprintf(stderr, "usage: %s DATABASE copy|zero-copy [RUNS]\n", argv[0]);
		return 2;
	}
	int runs = argc > 3 ? atoi(argv[3]) : 7;
	profdb_hpctk *h;
	if (profdb_hpctk_open(&h, argv[1], NULL) < 0) {
		fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
		return 1;
	}
	int64_t slots = profdb_hpctk_cct_slot_count(h);
	profdb_hpctk_close(h);
	if (slots < 0 || slots > UINT32_MAX) {
		fprintf(stderr, "%s: %s has no cct.db\n", argv[0], argv[1]);
		return 1;
	}
	double best_first = 1e30, best_look = 1e30;
	tally t = {0, 0};
	long rss0 = peak_kib();
	for (int i = 0; i < (runs > 0 ? runs : 1); i++) {
		double first, look;
		t = (tally){0, 0};
		int r = design ? run_zero_copy(argv[1], (uint32_t)slots, &first, &look, &t)
		               : run_copy(argv[1], (uint32_t)slots, &first, &look, &t);
		if (r < 0) {
			fprintf(stderr, "%s: %s failed on %s\n", argv[0], names[design], argv[1]);
			return 1;
		}
		best_first = first < best_first ? first : best_first;
		best_look = look < best_look ? look : best_look;
	}
	printf("context-view %s: ids=%" PRId64 " first_views=%.2fms lookups=%" PRIu64
	       " lookup_ns=%.1f peak_rss_growth=%ldKiB bits=%016" PRIx64 "\n", names[design], slots,
	       best_first * 1e3, t.lookups, best_look * 1e9 / (double)(t.lookups ? t.lookups : 1),
	       peak_kib() - rss0, t.bits);
	return 0;
}
