/* Callgrind public API: open (one file, a group of sibling files, caller
 * buffers; gzip decompressed once when zlib is available), close and the
 * getters. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "callgrind-internal.h"
#include "profdb-config.h"

#include "core/gunzip-internal.h"

static uint64_t inflate_limit(const profdb_cg *cg)
{
	return cg->opts.max_memory && cg->opts.max_memory < CG_MAX_INFLATED ? cg->opts.max_memory
	                                                                     : CG_MAX_INFLATED;
}

static int load_text(profdb_cg *cg, cg_file *f)
{
	const unsigned char *base;
	int r = profdb__range(&f->in, 0, f->in.size, "callgrind text", &base);
	if (r < 0)
		return r;
	if (profdb__is_gzip(base, f->in.size)) {
		unsigned char *text;
		uint64_t n;
		r = profdb__gunzip_alloc(base, f->in.size, f->label, inflate_limit(cg),
		                         "options.max_memory, at most 2 GiB of Callgrind text",
		                         &text, &n);
		if (r < 0)
			return r;
		f->inflated = text;
		f->size = n;
		f->text = (const char *)text;
	} else {
		f->text = (const char *)base;
		f->size = f->in.size;
	}
	return 0;
}

profdb_cg *profdb__cg_new(uint32_t n_files, const profdb_options *opts)
{
	profdb_cg *cg = calloc(1, sizeof *cg);
	if (!cg)
		return NULL;
	cg->files = calloc(n_files ? n_files : 1, sizeof *cg->files);
	if (!cg->files) {
		free(cg);
		return NULL;
	}
	/* The cost tables have n_events columns; with no events yet they hold
	 * one dummy cell, so that row + i * 0 never offsets a NULL pointer. */
	cg->p_totals = calloc(1, sizeof *cg->p_totals);
	cg->p_summary = calloc(1, sizeof *cg->p_summary);
	cg->p_totline = calloc(1, sizeof *cg->p_totline);
	cg->row_narrow = calloc(1, sizeof(uint64_t));   /* (no rows yet: self-rows.c) */
	cg->crow_cost = calloc(1, sizeof *cg->crow_cost);
	profdb__options_copy(&cg->opts, opts);
	profdb__once_init(&cg->calls_once);
	profdb__once_init(&cg->blks_once);
	if (!cg->p_totals || !cg->p_summary || !cg->p_totline || !cg->row_narrow || !cg->crow_cost) {
		free(cg->p_totals);
		free(cg->p_summary);
		free(cg->p_totline);
		free(cg->row_narrow);
		free(cg->crow_cost);
		free(cg->files);
		profdb__once_destroy(&cg->calls_once);
		profdb__once_destroy(&cg->blks_once);
		free(cg);
		return NULL;
	}
	return cg;
}

/* Scan every file (already opened into cg->files), then build the model. */
/* A table that the open leaves final, held for the handle's life: its
 * doubling slack (up to half of it) is returned. */
static void trim(void **p, size_t *cap, uint32_t n, size_t elem)
{
	if (n == 0 || n >= *cap)
		return;
	void *q = realloc(*p, (size_t)n * elem);
	if (q) {
		*p = q;
		*cap = n;
	}
}

static int cg_load(profdb_cg *cg)
{
	cg_build b;
	memset(&b, 0, sizeof b);
	int r = 0;
	for (uint32_t i = 0; i < cg->n_files && r >= 0; i++) {
#ifdef PROFDB_HAVE_ZLIB
		/* gzip, more than one thread: inflate and scan at the same time */
		const unsigned char *base;
		cg_file *f = &cg->files[i];
		if (cg->opts.threads != 1 &&
		    profdb__range(&f->in, 0, f->in.size, "callgrind text", &base) >= 0 &&
		    profdb__is_gzip(base, f->in.size)) {
			r = profdb__cg_parse_gz(cg, i, &b, base, f->in.size, inflate_limit(cg));
			if (r != 1)
				continue;
		}
#endif
		r = load_text(cg, &cg->files[i]);
		if (r >= 0)
			r = profdb__cg_parse(cg, i, &b);
	}
	if (r >= 0) {
		trim((void **)&cg->calls, &cg->cap_calls, cg->n_calls, sizeof *cg->calls);
		/* The lookup tables die before the 64-bit self costs are made and
		 * the model is built: less peak memory. */
		profdb__tmap_free(&b.name_map);
		profdb__tmap_free(&b.fn_map);
		free(b.fn_by_name);
		free(b.row_of_fn);
		b.fn_by_name = NULL;
		b.row_of_fn = NULL;
		b.n_fn_by_name = b.room_fn_by_name = b.n_row_of_fn = b.room_row_of_fn = 0;
		r = profdb__cg_self_final(cg);
		if (r >= 0)
			r = profdb__cg_finish(cg, &b);
	}
	profdb__cg_build_free(&b);
	return r;
}

/* NAME[.seq][-thread]: the numeric suffixes callgrind appends. Returns the
 * length of NAME. */
static size_t split_name(const char *s, cg_file *f)
{
	size_t n = strlen(s), i = n;
	f->has_seq = f->has_thread = 0;
	while (i > 0 && cg_is_digit(s[i - 1]))
		i--;
	if (i < n && i > 0 && s[i - 1] == '-' && n - i <= 9) {
		f->thread = strtoull(s + i, NULL, 10);
		f->has_thread = 1;
		n = i - 1;
		i = n;
		while (i > 0 && cg_is_digit(s[i - 1]))
			i--;
	}
	/* valgrind's default name callgrind.out.<pid> ends in the pid, not in
	 * a dump number (dumps are callgrind.out.<pid>.<n>) */
	static const char dflt[] = "callgrind.out";
	size_t dl = sizeof dflt - 1;
	int is_pid = i > dl && memcmp(s + i - 1 - dl, dflt, dl) == 0 &&
	             (i - 1 == dl || s[i - 2 - dl] == '/');
	if (i < n && i > 0 && s[i - 1] == '.' && n - i <= 9 && !is_pid) {
		f->seq = strtoull(s + i, NULL, 10);
		f->has_seq = 1;
		n = i - 1;
	}
	return n;
}

int profdb__cg_names_member(const char *path)
{
	const char *base = profdb__base_name(path);
	cg_file tmp;
	return split_name(base, &tmp) < strlen(base);
}

static int cmp_files(const void *a, const void *b)
{
	const cg_file *x = a, *y = b;
	uint64_t sx = x->has_seq ? x->seq : UINT64_MAX, sy = y->has_seq ? y->seq : UINT64_MAX;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	uint64_t tx = x->has_thread ? x->thread : 0, ty = y->has_thread ? y->thread : 0;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(x->label, y->label);
}

static int finish_open(profdb_cg **ret, profdb_cg *cg, int r)
{
	if (r >= 0)
		r = cg_load(cg);
	if (r < 0) {
		profdb_cg_close(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

PROFDB_EXPORT int profdb_cg_open(profdb_cg **ret, const char *path, const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_open: ret is NULL");
	*ret = NULL;
	if (!path)
		return profdb__fail(-EINVAL, "profdb_cg_open: path is NULL");
	int opts_ok = profdb__options_check(opts, "profdb_cg_open");
	if (opts_ok < 0)
		return opts_ok;
	profdb_cg *cg = profdb__cg_new(1, opts);
	if (!cg || !(cg->files[0].label = strdup(path))) {
		profdb_cg_close(cg);
		return profdb__fail(-ENOMEM, "%s: out of memory", path);
	}
	cg->n_files = 1;
	int r = profdb__input_open(&cg->files[0].in, path, cg->files[0].label, cg->opts.flags);
	return finish_open(ret, cg, r);
}

PROFDB_EXPORT int profdb_cg_open_group(profdb_cg **ret, const char *path,
                                       const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_open_group: ret is NULL");
	*ret = NULL;
	if (!path)
		return profdb__fail(-EINVAL, "profdb_cg_open_group: path is NULL");
	int opts_ok = profdb__options_check(opts, "profdb_cg_open_group");
	if (opts_ok < 0)
		return opts_ok;
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dlen;
	char *dir = strndup(path, dlen ? dlen : 0);
	if (!dir)
		return profdb__fail(-ENOMEM, "%s: out of memory", path);
	DIR *dh = opendir(dlen ? dir : ".");
	if (!dh) {
		free(dir);
		return profdb_cg_open(ret, path, opts);
	}
	/* NAME: the base name, or the base name without .N/-N when NAME exists. */
	cg_file tmp;
	size_t nlen = split_name(base, &tmp);
	char *name = strndup(base, nlen);
	if (!name) {
		closedir(dh);
		free(dir);
		return profdb__fail(-ENOMEM, "%s: out of memory", path);
	}
	int name_exists = 0;
	struct dirent *de;
	char **found = NULL;
	uint32_t n_found = 0;
	size_t cap_found = 0;
	int r = 0;
	while ((de = readdir(dh)) != NULL) {
		if (strcmp(de->d_name, name) == 0)
			name_exists = 1;
		size_t l = split_name(de->d_name, &tmp);
		if (l != nlen || strncmp(de->d_name, name, nlen) != 0)
			continue;
		if (n_found >= CG_MAX_FILES) {
			r = profdb__fail(-E2BIG, "%s: more than %u files in the group", path,
			                 CG_MAX_FILES);
			break;
		}
		if ((r = profdb__cg_grow((void **)&found, &cap_found, (uint64_t)n_found + 1,
		                         sizeof *found)) < 0)
			break;
		if (!(found[n_found] = strdup(de->d_name))) {
			r = profdb__fail(-ENOMEM, "%s: out of memory", path);
			break;
		}
		n_found++;
	}
	closedir(dh);
	profdb_cg *cg = NULL;
	if (r >= 0 && (!name_exists || n_found <= 1)) {
		/* No group (or the base named a file that is not the stem). */
		r = 1;
	} else if (r >= 0) {
		cg = profdb__cg_new(n_found, opts);
		if (!cg)
			r = profdb__fail(-ENOMEM, "%s: out of memory", path);
		for (uint32_t i = 0; r >= 0 && i < n_found; i++) {
			cg_file *f = &cg->files[i];
			size_t need = dlen + strlen(found[i]) + 1;
			if (!(f->label = malloc(need))) {
				r = profdb__fail(-ENOMEM, "%s: out of memory", path);
				break;
			}
			memcpy(f->label, path, dlen);
			strcpy(f->label + dlen, found[i]);
			split_name(found[i], f);
			cg->n_files++;
		}
		if (r >= 0)
			qsort(cg->files, cg->n_files, sizeof *cg->files, cmp_files);
		for (uint32_t i = 0; r >= 0 && i < cg->n_files; i++)
			r = profdb__input_open(&cg->files[i].in, cg->files[i].label, cg->files[i].label,
			                       cg->opts.flags);
	}
	for (uint32_t i = 0; i < n_found; i++)
		free(found[i]);
	free(found);
	free(name);
	free(dir);
	if (r == 1)
		return profdb_cg_open(ret, path, opts);
	if (r < 0) {
		profdb_cg_close(cg);
		return r;
	}
	return finish_open(ret, cg, r);
}

PROFDB_EXPORT int profdb_cg_open_mem(profdb_cg **ret, const void *data, size_t size,
                                     const profdb_options *opts)
{
	profdb_input in = {"<memory>", data, size};
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_open_mem: ret is NULL");
	*ret = NULL;
	if (!data && size)
		return profdb__fail(-EINVAL, "profdb_cg_open_mem: data is NULL");
	return profdb_cg_open_inputs(ret, &in, 1, opts);
}

PROFDB_EXPORT int profdb_cg_open_inputs(profdb_cg **ret, const profdb_input *inputs, size_t n,
                                        const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_open_inputs: ret is NULL");
	*ret = NULL;
	if ((!inputs && n) || n > CG_MAX_FILES)
		return profdb__fail(-EINVAL, "profdb_cg_open_inputs: bad inputs (at most %u)",
		                    CG_MAX_FILES);
	int opts_ok = profdb__options_check(opts, "profdb_cg_open_inputs");
	if (opts_ok < 0)
		return opts_ok;
	for (size_t i = 0; i < n; i++)
		if (!inputs[i].data && inputs[i].size)
			return profdb__fail(-EINVAL, "profdb_cg_open_inputs: input %zu has no data", i);
	profdb_cg *cg = profdb__cg_new((uint32_t)n, opts);
	if (!cg)
		return profdb__fail(-ENOMEM, "callgrind: out of memory");
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		cg_file *f = &cg->files[i];
		const char *nm = inputs[i].name ? inputs[i].name : "<memory>";
		if (!(f->label = strdup(nm))) {
			r = profdb__fail(-ENOMEM, "callgrind: out of memory");
			break;
		}
		cg->n_files++;
		split_name(nm, f);
		profdb__input_mem(&f->in, inputs[i].data ? inputs[i].data : "", inputs[i].size,
		                  f->label);
	}
	if (r >= 0 && n > 1)
		qsort(cg->files, cg->n_files, sizeof *cg->files, cmp_files);
	/* The input's name pointer was set before the sort moved the label
	 * pointers along with it; both move together, so nothing to fix. */
	return finish_open(ret, cg, r);
}

void profdb__cg_free_tables(profdb_cg *cg)
{
	free(cg->events);
	free(cg->profiles);
	free(cg->cols);
	free(cg->p_totals);
	free(cg->p_summary);
	free(cg->p_totline);
	free(cg->names);
	free(cg->fns);
	if (!cg->self_alias)
		free(cg->self);
	free(cg->rows);
	free(cg->row_cost);
	free(cg->row_narrow);
	free(cg->row_wide);
	free(cg->crows);
	free(cg->crow_cost);
	if (!cg->edge_alias) {
		free(cg->edges);
		free(cg->edge_cost);
	}
	free(cg->calls);
	free(cg->ccost);
	free(cg->blk_first);
	profdb__cg_blk_free(cg);
	free(cg->totals);
	free(cg->summary);
	free(cg->totline);
	free(cg->zero);
	if (cg->incl_once) {
		for (uint32_t i = 0; i < cg->n_incl; i++) {
			if (cg->incl && (i == 0 || cg->incl[i] != cg->incl[0]))   /* (an alias) */
				free(cg->incl[i]);
			profdb__once_destroy(&cg->incl_once[i]);
		}
	}
	free(cg->incl);
	free(cg->incl_once);
	free(cg->fn_cycle);
}

PROFDB_EXPORT void profdb_cg_close(profdb_cg *cg)
{
	if (!cg)
		return;
	for (uint32_t i = 0; i < cg->n_files; i++) {
		profdb__input_close(&cg->files[i].in);
		profdb__cg_file_ids_free(&cg->files[i]);
		if (cg->files[i].inflated_map)
			munmap(cg->files[i].inflated, cg->files[i].inflated_map);
		else
			free(cg->files[i].inflated);
		free(cg->files[i].label);
	}
	free(cg->files);
	profdb__cg_free_tables(cg);
	profdb__once_destroy(&cg->calls_once);
	profdb__once_destroy(&cg->blks_once);
	free(cg);
}

PROFDB_EXPORT int64_t profdb_cg_event_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_event_count: NULL handle");
	return cg->n_events;
}

PROFDB_EXPORT int profdb_cg_event_get(const profdb_cg *cg, uint32_t i, profdb_cg_event *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_event_get: NULL argument");
	if (i >= cg->n_events)
		return profdb__fail(-ENOENT, "callgrind: no event %" PRIu32 " (%" PRIu32 " events)", i,
		                    cg->n_events);
	const cg_event *e = &cg->events[i];
	out->name = cg_name_str(e->name);
	out->long_name = cg_name_str(e->long_name);
	out->formula = e->n_terms ? cg_name_str(e->formula) : (profdb_str){"", 0};
	return 0;
}

PROFDB_EXPORT int64_t profdb_cg_profile_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_profile_count: NULL handle");
	return cg->n_profiles;
}

PROFDB_EXPORT int profdb_cg_profile_get(const profdb_cg *cg, uint32_t i, profdb_cg_profile *out)
{
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_profile_get: NULL argument");
	if (i >= cg->n_profiles)
		return profdb__fail(-ENOENT, "callgrind: no profile %" PRIu32 " (%" PRIu32 " profiles)",
		                    i, cg->n_profiles);
	const cg_profile *p = &cg->profiles[i];
	const cg_file *f = &cg->files[p->file];
	size_t ne = cg->n_events;
	memset(out, 0, sizeof *out);
	out->file = (profdb_str){f->label, strlen(f->label)};
	out->file_index = p->file;
	out->has_part = p->has_part;
	out->has_thread = p->has_thread;
	out->has_pid = p->has_pid;
	out->part = p->part;
	out->thread = p->thread;
	out->pid = p->pid;
	out->has_dump = f->has_seq;
	out->dump = f->seq;
	out->trigger = cg_name_str(p->trigger);
	out->cmd = cg_name_str(p->cmd);
	out->totals = ne ? cg->p_totals + i * ne : cg->zero;
	out->summary = ne && p->has_summary ? cg->p_summary + i * ne : NULL;
	out->totals_line = ne && p->has_totals ? cg->p_totline + i * ne : NULL;
	return 0;
}

PROFDB_EXPORT int64_t profdb_cg_function_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_function_count: NULL handle");
	return cg->n_fns;
}

PROFDB_EXPORT int profdb_cg_function_get(const profdb_cg *cg, uint32_t i,
                                         profdb_cg_function *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_function_get: NULL argument");
	if (i >= cg->n_fns)
		return profdb__fail(-ENOENT, "callgrind: no function %" PRIu32, i);
	const cg_fn *f = &cg->fns[i];
	out->name = cg_name_at(cg, f->fn);
	out->object = cg_name_at(cg, f->ob);
	out->file = cg_name_at(cg, f->fl);
	out->self = cg->self + (size_t)i * cg->n_events;
	return 0;
}

static int check_pf(const profdb_cg *cg, uint32_t profile, uint32_t fn, const char *what)
{
	if (fn >= cg->n_fns)
		return profdb__fail(-ENOENT, "%s: no function %" PRIu32, what, fn);
	if (profile != PROFDB_CG_ALL && profile >= cg->n_profiles)
		return profdb__fail(-ENOENT, "%s: no profile %" PRIu32, what, profile);
	return 0;
}

PROFDB_EXPORT int profdb_cg_self(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                 const uint64_t **costs)
{
	if (!cg || !costs)
		return profdb__fail(-EINVAL, "profdb_cg_self: NULL argument");
	int r = check_pf(cg, profile, fn, "profdb_cg_self");
	if (r < 0)
		return r;
	if (profile == PROFDB_CG_ALL) {
		*costs = cg->self + (size_t)fn * cg->n_events;
		return 1;
	}
	uint32_t row = profdb__cg_find_row(cg, profile, fn);
	*costs = row == CG_EMPTY ? cg->zero : cg->row_cost + (size_t)row * cg->n_events;
	return row != CG_EMPTY;
}

typedef struct incl_arg {
	profdb_cg *cg;
	uint32_t k;
} incl_arg;

static int run_cycles(void *arg)
{
	profdb_cg *cg = arg;
	int r = profdb__cg_calls(cg);
	return r < 0 ? r : profdb__cg_find_cycles(cg);
}

/* The cycles found (once), or an error. */
static int cycles_found(const profdb_cg *cg)
{
	return profdb__once_run(&cg->incl_once[cg->n_profiles + 1], run_cycles, (void *)(uintptr_t)cg);
}

static int run_inclusive(void *arg)
{
	incl_arg *a = arg;
	int r = cycles_found(a->cg);
	if (r == 0 && a->k > a->cg->n_profiles)   /* an event's column */
		return profdb__cg_build_inclusive_event(a->cg, a->k - profdb__cg_event_table(a->cg, 0));
	if (r == 0 && a->k != 0) {   /* a profile's table may alias table 0 */
		incl_arg all = {a->cg, 0};
		r = profdb__once_run(&a->cg->incl_once[0], run_inclusive, &all);
	}
	return r < 0 ? r : profdb__cg_build_inclusive(a->cg, a->k);
}

/* Table k built (once), or an error. */
static int inclusive_table(const profdb_cg *cg, uint32_t k)
{
	incl_arg a = {(profdb_cg *)(uintptr_t)cg, k};  /* lazily built, once */
	return profdb__once_run(&cg->incl_once[k], run_inclusive, &a);
}

int profdb__cg_inclusive_event(const profdb_cg *cg, uint32_t fn, uint32_t e, uint64_t *inc,
                               uint64_t *cycle)
{
	if (fn >= cg->n_fns || e >= cg->n_events)
		return profdb__fail(-ENOENT, "callgrind: no function %" PRIu32 " or event %" PRIu32,
		                    fn, e);
	/* the whole table, when a caller already had it built, holds the
	 * column (the same values: cycles.c adds each column alone) */
	uint32_t k = profdb__cg_event_table(cg, e), stride = 1;
	if (profdb__once_ok(&cg->incl_once[0]))
		k = 0, stride = cg->n_events;
	int r = inclusive_table(cg, k);
	if (r < 0)
		return r;
	const uint64_t *col = cg->incl[k] + (k == 0 ? e : 0);
	*inc = col[(size_t)fn * stride];
	uint32_t c = cg->fn_cycle[fn];
	if (c)
		*cycle = col[((size_t)cg->n_fns + c - 1) * stride];
	return c != 0;
}

PROFDB_EXPORT int profdb_cg_inclusive(const profdb_cg *cg, uint32_t profile, uint32_t fn,
                                      const uint64_t **costs)
{
	if (!cg || !costs)
		return profdb__fail(-EINVAL, "profdb_cg_inclusive: NULL argument");
	int r = check_pf(cg, profile, fn, "profdb_cg_inclusive");
	if (r < 0)
		return r;
	uint32_t row = 0;
	if (profile != PROFDB_CG_ALL) {
		row = profdb__cg_find_row(cg, profile, fn);
		if (row == CG_EMPTY) {
			*costs = cg->zero;
			return 0;
		}
	}
	uint32_t k = profile == PROFDB_CG_ALL ? 0 : profile + 1;
	r = inclusive_table(cg, k);
	if (r < 0)
		return r;
	size_t ne = cg->n_events;
	*costs = k == 0 ? cg->incl[0] + (size_t)fn * ne
	                : cg->incl[k] + (size_t)(row - cg->profiles[profile].row_first) * ne;
	return 1;
}

PROFDB_EXPORT int64_t profdb_cg_cycle_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_cycle_count: NULL handle");
	int r = cycles_found(cg);
	return r < 0 ? (int64_t)r : (int64_t)cg->n_cycles;
}

PROFDB_EXPORT int profdb_cg_function_cycle(const profdb_cg *cg, uint32_t fn, uint32_t *cycle)
{
	if (!cg || !cycle)
		return profdb__fail(-EINVAL, "profdb_cg_function_cycle: NULL argument");
	int r = check_pf(cg, PROFDB_CG_ALL, fn, "profdb_cg_function_cycle");
	if (r < 0 || (r = cycles_found(cg)) < 0)
		return r;
	*cycle = cg->fn_cycle[fn];
	return *cycle != 0;
}

PROFDB_EXPORT int profdb_cg_cycle_inclusive(const profdb_cg *cg, uint32_t profile,
                                            uint32_t cycle, const uint64_t **costs)
{
	if (!cg || !costs)
		return profdb__fail(-EINVAL, "profdb_cg_cycle_inclusive: NULL argument");
	if (profile != PROFDB_CG_ALL && profile >= cg->n_profiles)
		return profdb__fail(-ENOENT, "profdb_cg_cycle_inclusive: no profile %" PRIu32, profile);
	uint32_t k = profile == PROFDB_CG_ALL ? 0 : profile + 1;
	int r = cycles_found(cg);
	if (r < 0 || (r = inclusive_table(cg, k)) < 0)
		return r;
	if (cycle == 0 || cycle > cg->n_cycles)
		return profdb__fail(-ENOENT, "profdb_cg_cycle_inclusive: no cycle %" PRIu32, cycle);
	size_t rows = k == 0 ? cg->n_fns : cg->profiles[profile].n_rows;
	*costs = cg->incl[k] + (rows + cycle - 1) * cg->n_events;
	return 1;
}

PROFDB_EXPORT int64_t profdb_cg_call_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_call_count: NULL handle");
	int r = profdb__cg_calls(cg);
	return r < 0 ? (int64_t)r : (int64_t)cg->n_edges;
}

PROFDB_EXPORT int profdb_cg_call_get(const profdb_cg *cg, uint32_t profile, uint32_t i,
                                     profdb_cg_call *out)
{
	if (out)   /* every byte, the reserved ones too */
		memset(out, 0, sizeof *out);
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_call_get: NULL argument");
	int r = profdb__cg_calls(cg);
	if (r < 0)
		return r;
	if (i >= cg->n_edges)
		return profdb__fail(-ENOENT, "callgrind: no call edge %" PRIu32, i);
	if (profile != PROFDB_CG_ALL && profile >= cg->n_profiles)
		return profdb__fail(-ENOENT, "callgrind: no profile %" PRIu32, profile);
	size_t ne = cg->n_events;
	out->caller = cg->edges[i].caller;
	out->callee = cg->edges[i].callee;
	if (profile == PROFDB_CG_ALL) {
		out->count = cg->edges[i].count;
		out->inclusive = cg->edge_cost + (size_t)i * ne;
		return 1;
	}
	const cg_profile *p = &cg->profiles[profile];
	profdb_view v = profdb__cg_u32_view(cg->crows + p->crow_first, p->n_crows,
	                                    sizeof *cg->crows, offsetof(cg_crow, edge));
	uint64_t k;
	if (profdb_view_find(&v, i, &k) == 1) {
		size_t lo = p->crow_first + k;
		out->count = cg->crows[lo].count;
		out->inclusive = cg->crow_cost + (size_t)lo * ne;
		return 1;
	}
	out->count = 0;
	out->inclusive = cg->zero;
	return 0;
}

PROFDB_EXPORT int profdb_cg_totals(const profdb_cg *cg, uint32_t profile, const uint64_t **costs)
{
	if (!cg || !costs)
		return profdb__fail(-EINVAL, "profdb_cg_totals: NULL argument");
	if (profile != PROFDB_CG_ALL && profile >= cg->n_profiles)
		return profdb__fail(-ENOENT, "callgrind: no profile %" PRIu32, profile);
	if (!cg->n_events)
		*costs = cg->zero;
	else
		*costs = profile == PROFDB_CG_ALL ? cg->totals
		                                  : cg->p_totals + (size_t)profile * cg->n_events;
	return 0;
}

PROFDB_EXPORT int profdb_cg_summary(const profdb_cg *cg, int which, const uint64_t **costs)
{
	if (!cg || !costs || (which != PROFDB_CG_SUMMARY && which != PROFDB_CG_TOTALS))
		return profdb__fail(-EINVAL, "profdb_cg_summary: bad argument");
	int has = which == PROFDB_CG_SUMMARY ? cg->has_summary : cg->has_totals;
	*costs = has ? (which == PROFDB_CG_SUMMARY ? cg->summary : cg->totline) : cg->zero;
	return has;
}
