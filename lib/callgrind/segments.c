/* Callgrind: the segment index, built on first use.
 *
 * Line/instruction detail, call sites and jumps are decoded from the text
 * on demand (detail.c), from the segments of each function: the byte
 * ranges that hold its cost lines, each with the state (position, source
 * file, pending jump names) at its start. A profile recorded with inlined
 * code changes file at almost every fi=/fe= line, so segments are the
 * largest table a scan could keep (321 848 of 56 bytes for a 69 MB
 * profile, more than all cost rows together), while most uses of a
 * profile (top lists, trees by function, call edges, totals) never read
 * them.
 *
 * So the open does not record them, and the first query that needs them
 * scans the texts again into a scratch handle that does (keep_segs), and
 * takes its segments and call sites. The scan is deterministic: it numbers
 * functions and profiles as the open did, which is checked. Warnings were
 * given by the open and are not repeated, and the open's progress hook is
 * not called. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind-internal.h"

/* The segments of @p cg from a second scan of its texts. */
static int rescan(void *arg)
{
	profdb_cg *cg = arg;
	profdb_options opts = cg->opts;
	opts.warn = NULL;
	/* a detail request is not the open: no progress to report, and a
	 * cancel would fail every later detail request of the handle */
	opts.progress = NULL;
	profdb_cg *s = profdb__cg_new(cg->n_files, &opts);
	if (!s)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	/* the texts are the handle's; the scan writes only flags of its copy */
	memcpy(s->files, cg->files, cg->n_files * sizeof *s->files);
	s->n_files = cg->n_files;
	s->keep_segs = 1;
	cg_build b;
	memset(&b, 0, sizeof b);
	int r = 0;
	for (uint32_t i = 0; i < s->n_files && r >= 0; i++)
		r = profdb__cg_parse(s, i, &b);
	profdb__cg_build_free(&b);
	if (r >= 0 && (s->n_fns != cg->n_fns || s->n_profiles != cg->n_profiles))
		r = profdb__fail(-EIO, "%s: the second read of the text found %" PRIu32
		                 " functions in %" PRIu32 " profiles, the first %" PRIu32 " in %" PRIu32
		                 " (was the file changed while open?)", cg->files[0].label, s->n_fns,
		                 s->n_profiles, cg->n_fns, cg->n_profiles);
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
	free(s->files);
	profdb__cg_free_tables(s);
	profdb__once_destroy(&s->segs_once);
	free(s);
	return r < 0 ? r : 0;
}

int profdb__cg_segments(const profdb_cg *cg)
{
	/* the once makes the one write visible to every reader */
	profdb_cg *m = (profdb_cg *)(uintptr_t)cg;
	return profdb__once_run(&m->segs_once, rescan, m);
}
