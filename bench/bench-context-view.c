/* bench-context-view — the two ways to give an HPCToolkit 4.0 database's
 * values by context, measured on the same database:
 *
 *   copy       profdb_context_view(): every profile's values, the summary
 *              profile's included, built on first use into 16-byte
 *              records the handle keeps (cct.db lacks the summary values)
 *   zero-copy  profdb_hpctk_context_plane(): cct.db's plane in the
 *              mapping (thread profiles only), with the summary values
 *              from the summary profile's plane in profile.db (a second
 *              view, also in the mapping)
 *
 *   bench-context-view DATABASE copy|zero-copy [RUNS]
 *
 * (one design per process, so that the peak RSS is that design's).
 * Each run opens the database, takes the view of every context id once
 * ("first views": for the copy, building them), then looks up every
 * stored value through the views the way a client does (metric in the
 * index, then profile in the run) and closes. Printed: the
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

/* One run of the copy design; the phases' CPU seconds in first/look. */
static int run_copy(const char *path, uint32_t n_ids, double *first, double *look, tally *t)
{
	profdb *db;
	profdb_view ix, v;
	if (profdb_open(&db, path, NULL) < 0)
		return -1;
	double t0 = cpu_now();
	for (uint32_t c = 0; c < n_ids; c++)
		(void)profdb_context_view(db, c, &ix, &v);   /* -ENOENT: an id without a node */
	double t1 = cpu_now();
	for (uint32_t c = 0; c < n_ids; c++)
		if (profdb_context_view(db, c, &ix, &v) == 0)
			look_up_all(&ix, &v, t);
	*look = cpu_now() - t1;
	*first = t1 - t0;
	profdb_close(db);
	return 0;
}

static int run_zero_copy(const char *path, uint32_t n_ids, double *first, double *look,
                         tally *t)
{
	profdb_hpctk *db;
	profdb_view ix, v, six, sv;
	if (profdb_hpctk_open(&db, path, NULL) < 0)
		return -1;
	double t0 = cpu_now();
	int r = profdb_hpctk_profile_plane(db, 0, &six, &sv);   /* profile 0: the summary */
	for (uint32_t c = 0; c < n_ids; c++)
		(void)profdb_hpctk_context_plane(db, c, &ix, &v);
	double t1 = cpu_now();
	for (uint32_t c = 0; r == 0 && c < n_ids; c++) {
		if (profdb_hpctk_context_plane(db, c, &ix, &v) == 0)
			look_up_all(&ix, &v, t);
		look_up_summary(&six, &sv, c, t);
	}
	*look = cpu_now() - t1;
	*first = t1 - t0;
	profdb_hpctk_close(db);
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
