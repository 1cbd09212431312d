/* Callgrind: what the open leaves to a second read of the text.
 *
 * The open keeps the self costs of every (profile, function) and the
 * functions, names and profiles. Two larger tables wait until a query
 * needs them, because the commonest uses of a profile never do:
 *  - the call rows (per profile and call edge, a count and a cost row),
 *    then the edges: for inclusive costs, call edges and the context
 *    tree, not for a ranking by self cost or the totals. In a 69 MB
 *    profile they are 106 164 rows, 13.5 MB with their hash index;
 *  - the segments of each function (runs of body lines in which the
 *    current file and the jump-target names do not change) and the call
 *    sites, which detail.c re-reads for line/instruction detail: with
 *    inlined code a segment ends at almost every fi=/fe= line, 321 848
 *    segments of 56 bytes in that profile.
 *
 * The first query that needs one of them reads the texts again, with the
 * same scanner, into a scratch handle that keeps it (keep_calls or
 * keep_segs), and takes it over. The scan is deterministic: it numbers
 * functions and profiles as the open did, which is checked (-EIO: the
 * text changed under the handle). An error the open did not look for is
 * found then: a call count or call cost over 64 bits fails the query that
 * needs the calls, with the file, line and offset, and every later one.
 * Warnings were given by the open and are not repeated, and the open's
 * progress hook is not called. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind-internal.h"

/* The scratch handle of a second read of @p cg's texts. */
static profdb_cg *scratch(const profdb_cg *cg, int calls, int segs)
{
	profdb_options opts = cg->opts;
	opts.warn = NULL;
	/* a query is not the open: no progress to report, and a cancel would
	 * fail every later query of the handle */
	opts.progress = NULL;
	profdb_cg *s = profdb__cg_new(cg->n_files, &opts);
	if (!s)
		return NULL;
	/* the texts are the handle's; the scan writes only flags of its copy */
	memcpy(s->files, cg->files, cg->n_files * sizeof *s->files);
	s->n_files = cg->n_files;
	s->keep_calls = calls;
	s->keep_segs = segs;
	return s;
}

static void scratch_free(profdb_cg *s)
{
	free(s->files);
	profdb__cg_free_tables(s);
	profdb__once_destroy(&s->calls_once);
	profdb__once_destroy(&s->segs_once);
	free(s);
}

/* Read the texts again into @p s; 0, or < 0 (also when the read found
 * other functions or profiles than the open). */
static int read_again(const profdb_cg *cg, profdb_cg *s)
{
	cg_build b;
	memset(&b, 0, sizeof b);
	int r = 0;
	for (uint32_t i = 0; i < s->n_files && r >= 0; i++)
		r = profdb__cg_parse(s, i, &b);
	profdb__cg_build_free(&b);
	if (r >= 0 && (s->n_fns != cg->n_fns || s->n_profiles != cg->n_profiles ||
	               s->n_events != cg->n_stored))
		r = profdb__fail(-EIO, "%s: the second read of the text found %" PRIu32
		                 " functions in %" PRIu32 " profiles, the first %" PRIu32 " in %" PRIu32
		                 " (was the file changed while open?)", cg->files[0].label, s->n_fns,
		                 s->n_profiles, cg->n_fns, cg->n_profiles);
	return r < 0 ? r : 0;
}

/* The call rows, as the open would have kept them, then the edges. */
static int read_calls(void *arg)
{
	profdb_cg *cg = arg;
	profdb_cg *s = scratch(cg, 1, 0);
	if (!s)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	/* the derived events' columns (zero), then their values */
	int r = read_again(cg, s);
	if (r >= 0)
		r = profdb__cg_widen(s, cg->n_events);
	if (r >= 0) {
		free(cg->crows);       /* the open's empty ones */
		free(cg->crow_cost);
		cg->crows = s->crows;
		cg->crow_cost = s->crow_cost;
		cg->n_crows = s->n_crows;
		cg->cap_crows = s->cap_crows;
		s->crows = NULL;
		s->crow_cost = NULL;
		if (cg->n_events != cg->n_stored)
			for (uint32_t i = 0; i < cg->n_crows; i++)
				profdb__cg_derive(cg, cg->crow_cost + (size_t)i * cg->n_events);
		r = profdb__cg_finish_calls(cg);
	}
	scratch_free(s);
	return r;
}

/* The segments and call sites. */
static int read_segments(void *arg)
{
	profdb_cg *cg = arg;
	profdb_cg *s = scratch(cg, 0, 1);
	if (!s)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	int r = read_again(cg, s);
	if (r >= 0 && !(cg->seg_first = malloc(((size_t)cg->n_fns + 1) * sizeof *cg->seg_first)))
		r = profdb__fail(-ENOMEM, "callgrind: out of memory");
	if (r >= 0) {
		for (uint32_t f = 0; f < cg->n_fns; f++)
			cg->seg_first[f] = f < s->cap_fn_segs ? s->fn_segs[f].first : CG_EMPTY;
		cg->segs = s->segs;
		cg->n_segs = s->n_segs;
		cg->sites = s->sites;
		cg->n_sites = s->n_sites;
		s->segs = NULL;
		s->sites = NULL;
	}
	scratch_free(s);
	return r;
}

/* The once-guards make the one write visible to every reader. */
int profdb__cg_calls(const profdb_cg *cg)
{
	profdb_cg *m = (profdb_cg *)(uintptr_t)cg;
	return m->keep_calls ? 0 : profdb__once_run(&m->calls_once, read_calls, m);
}

int profdb__cg_segments(const profdb_cg *cg)
{
	profdb_cg *m = (profdb_cg *)(uintptr_t)cg;
	return profdb__once_run(&m->segs_once, read_segments, m);
}
