/* profdb_mpi_open and profdb_mpi_stats_new (profdb-mpi.h): the profile
 * selection cut into contiguous ranges balanced by value bytes, each range
 * folded by profdb_stats_new on its rank, the parts reduced (tree) or
 * continued rank after rank (chain). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


#include "mpi-internal.h"

PROFDB_EXPORT int profdb_mpi_open(profdb **ret, const char *path, const profdb_options *opts,
                                  const profdb_mpi_options *mo, MPI_Comm comm)
{
	profdb_mpi_options o;
	int e = pm_copy_options(mo, &o);
	if (ret)
		*ret = NULL;
	if (e == 0 && (!ret || !path))
		e = pm_fail(-EINVAL, "profdb_mpi_open: NULL argument");
	if (e == 0 && pm_fault(&o, comm, "open"))
		e = pm_fail(-EIO, "%s: injected fault (PROFDB_MPI_FAULT) while opening", path);
	if (e == 0 && (e = profdb_open(ret, path, opts)) < 0)
		e = pm_fail(e, "%s", profdb_error_message());
	if ((e = pm_agree(comm, e)) < 0 && ret) {
		profdb_close(*ret);
		*ret = NULL;
	}
	return e;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The selection, as profdb_stats_new makes it (doc/model.md "Statistics
 * over profiles"): the caller's profiles sorted, or every non-summary one;
 * the caller's metrics, or every metric that can have stored values in
 * them. Every rank computes the same, so every part uses the same metrics
 * (a part without the summary profile would otherwise drop its ids). */
static int selection(const profdb *db, const profdb_stats_options *so, uint32_t **prof,
                     size_t *np, uint32_t **met, size_t *nm)
{
	int64_t n = so->profiles ? (int64_t)so->n_profiles : profdb_profiles_select(db, NULL, NULL, 0);
	int has_summary = 0;
	if (n < 0)
		return pm_fail((int)n, "%s", profdb_error_message());
	if (!(*prof = malloc(((size_t)n + 1) * sizeof **prof)))
		return pm_fail(-ENOMEM, "out of memory");
	if (so->profiles)
		memcpy(*prof, so->profiles, (size_t)n * sizeof **prof);
	else
		profdb_profiles_select(db, NULL, *prof, (size_t)n);
	qsort(*prof, (size_t)n, sizeof **prof, cmp_u32);
	*np = (size_t)n;
	for (size_t i = 0; i < *np; i++) {
		profdb_profile p;
		int e = profdb_profile_at(db, (*prof)[i], &p);
		if (e < 0)
			return pm_fail(e, "%s", profdb_error_message());
		has_summary |= p.is_summary;
	}
	int64_t c = so->metrics ? (int64_t)so->n_metrics : profdb_metric_count(db);
	if (c < 0)
		return pm_fail((int)c, "%s", profdb_error_message());
	if (!(*met = malloc(((size_t)c + 1) * sizeof **met)))
		return pm_fail(-ENOMEM, "out of memory");
	*nm = 0;
	for (int64_t i = 0; i < c; i++) {
		profdb_metric m;
		if (so->metrics) {
			(*met)[(*nm)++] = so->metrics[i];
			continue;
		}
		int e = profdb_metric_at(db, (uint32_t)i, &m);
		if (e < 0)
			return pm_fail(e, "%s", profdb_error_message());
		if (m.kind == PROFDB_METRIC_DERIVED || !m.has_data ||
		    (m.kind == PROFDB_METRIC_SUMMARY && !has_summary))
			continue;
		(*met)[(*nm)++] = m.id;
	}
	return 0;
}

/* Value-block bytes per selected profile where the format tells them
 * without reading the blocks (profdb_profile_bytes: HPCToolkit 4.0's
 * profile table); NULL otherwise (the partition is then by count). */
static uint64_t *weights(const profdb *db, const uint32_t *prof, size_t n)
{
	uint64_t *w = malloc((n + 1) * sizeof *w);
	for (size_t i = 0; w && i < n; i++) {
		if (profdb_profile_bytes(db, prof[i], &w[i]) < 0) {
			free(w);
			return NULL;
		}
		w[i]++;   /* an empty profile still costs its turn */
	}
	return w;
}

/* This rank's part: profdb_stats_new over @p prof (continuing @p start),
 * exported into @p out. */
static int fold_part(const profdb *db, const profdb_stats_options *so, const uint32_t *prof,
                     size_t np, const uint32_t *met, size_t nm, const pm_list *start, pm_list *out)
{
	profdb_stats_acc *st_accs = NULL, *accs = NULL;
	size_t n_start = 0;
	profdb_stats *st = NULL;
	pm_rec rec;
	size_t pos = 0;
	int e = 0;
	if (start && start->n && !(st_accs = malloc(start->n * sizeof *st_accs)))
		return pm_fail(-ENOMEM, "out of memory");
	while (start && pm_list_next(start, &pos, &rec))
		st_accs[n_start++] = rec.acc;
	profdb_stats_options o = *so;
	o.size = sizeof o;
	o.profiles = prof;
	o.n_profiles = np;
	o.metrics = met;
	o.n_metrics = nm;
	o.start = st_accs;
	o.n_start = n_start;
	if ((e = profdb_stats_new(&st, db, &o)) < 0) {
		e = pm_fail(e, "%s", profdb_error_message());
		goto out;
	}
	int64_t n = profdb_stats_accs(st, NULL, 0);
	if (n > 0 && !(accs = malloc((size_t)n * sizeof *accs))) {
		e = pm_fail(-ENOMEM, "out of memory for %" PRId64 " rows", n);
		goto out;
	}
	profdb_stats_accs(st, accs, (size_t)(n > 0 ? n : 0));
	for (int64_t i = 0; e == 0 && i < n; i++) {
		unsigned char key[8];
		pm_stats_key(key, accs[i].metric, accs[i].context);
		e = pm_list_append(out, key, sizeof key, &accs[i]);
	}
out:
	profdb_stats_free(st);
	free(st_accs);
	free(accs);
	return e;
}

/* The result, finished over all @p n_profiles selected profiles (a
 * profile without a value counts as 0 for the metrics that add, as on one
 * process). */
static int finish(const pm_list *l, const profdb *db, uint64_t n_profiles, profdb_stats **ret)
{
	profdb_stats_acc *accs = malloc((l->n + 1) * sizeof *accs);
	pm_rec rec;
	size_t pos = 0, n = 0;
	if (!accs)
		return pm_fail(-ENOMEM, "out of memory for %" PRIu64 " rows", l->n);
	while (pm_list_next(l, &pos, &rec))
		accs[n++] = rec.acc;
	int e = profdb_stats_from_accs_over(ret, accs, n, db, n_profiles);
	free(accs);
	return e < 0 ? pm_fail(e, "%s", profdb_error_message()) : 0;
}

PROFDB_EXPORT int profdb_mpi_stats_new(profdb_stats **ret, const profdb *db,
                                       const profdb_stats_options *opts,
                                       const profdb_mpi_options *mo, MPI_Comm comm)
{
	profdb_mpi_options o;
	profdb_stats_options so = PROFDB_STATS_OPTIONS_INIT;
	uint32_t *prof = NULL, *met = NULL;
	uint64_t *w = NULL;
	size_t np = 0, nm = 0, lo = 0, hi = 0;
	pm_list mine = {0}, start = {0};
	int rank, size, e = pm_copy_options(mo, &o);
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (ret)
		*ret = NULL;
	if (e == 0 && (!ret || !db))
		e = pm_fail(-EINVAL, "profdb_mpi_stats_new: NULL argument");
	if (e == 0 && opts) {
		if (opts->size < sizeof(size_t) || opts->size > sizeof so)
			e = pm_fail(-EINVAL, "profdb_mpi_stats_new: options.size %zu is not one this "
			            "library knows", opts->size);
		else
			memcpy(&so, opts, opts->size);
		so.size = sizeof so;
	}
	if (e == 0 && so.start)
		e = pm_fail(-EINVAL, "profdb_mpi_stats_new: options.start must be NULL");
	if (e == 0)
		e = selection(db, &so, &prof, &np, &met, &nm);
	if (e == 0) {
		w = weights(db, prof, np);
		pm_partition(w, np, rank, size, &lo, &hi);
		if (pm_fault(&o, comm, "read"))
			e = pm_fail(-EIO, "profiles %zu-%zu: injected fault (PROFDB_MPI_FAULT) while "
			            "reading them", lo, hi);
	}
	if (o.order == PROFDB_MPI_FIXED) {
		/* Agree on the set-up first, so the chain starts on every rank or
		 * on none; then the chain passes data or a failure marker. */
		if ((e = pm_agree(comm, e)) < 0)
			goto out;
		e = pm_chain_recv(&start, comm);
		if (e == 0)
			e = fold_part(db, &so, prof + lo, hi - lo, met, nm, &start, &mine);
		int s = pm_chain_send(&mine, e, comm);
		if ((e = pm_agree(comm, e < 0 ? e : s)) < 0)
			goto out;
		e = pm_move(&mine, size - 1, 0, comm);   /* agreed below */
	} else {
		if (e == 0)
			e = fold_part(db, &so, prof + lo, hi - lo, met, nm, NULL, &mine);
		if ((e = pm_agree(comm, e)) < 0)
			goto out;
		if ((e = pm_tree_reduce(&mine, comm)) < 0)
			MPI_Abort(comm, 1);   /* a half-done reduction cannot be agreed */
	}
	if (rank == 0 && e == 0)
		e = finish(&mine, db, np, ret);
	e = pm_agree(comm, e);
	if (e < 0 && ret) {
		profdb_stats_free(*ret);
		*ret = NULL;
	}
out:
	pm_list_free(&mine);
	pm_list_free(&start);
	free(prof);
	free(met);
	free(w);
	return e;
}
