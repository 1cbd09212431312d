/* Callgrind public API: open (mapping or caller buffer, gzip decompressed
 * once when zlib is available), close and the getters. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cg-internal.h"
#include "profdb-cg-config.h"

#if PROFDB_CG_HAVE_ZLIB
#include <zlib.h>
#endif

static int is_gzip(const unsigned char *p, uint64_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

#if PROFDB_CG_HAVE_ZLIB
/* Decompress every gzip member of @p src into one malloc'ed buffer. */
static int inflate_all(profdb_cg *cg, const unsigned char *src, uint64_t n)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return profdb__fail(-ENOMEM, "%s: cannot start zlib", cg->label);
	uint64_t cap = n < CG_MAX_INFLATED / 4 ? n * 4 + 4096 : CG_MAX_INFLATED;
	if (cap > CG_MAX_INFLATED)
		cap = CG_MAX_INFLATED;
	unsigned char *buf = malloc((size_t)cap);
	uint64_t done = 0, in_done = 0;
	int r = 0;
	if (!buf) {
		r = profdb__fail(-ENOMEM, "%s: cannot allocate %" PRIu64 " bytes", cg->label, cap);
		goto out;
	}
	for (;;) {
		if (done == cap) {
			if (cap >= CG_MAX_INFLATED) {
				r = profdb__fail(-EFBIG,
				                 "%s: decompressed text exceeds the limit of %" PRIu64
				                 " bytes",
				                 cg->label, CG_MAX_INFLATED);
				goto out;
			}
			uint64_t nc = cap * 2 > CG_MAX_INFLATED ? CG_MAX_INFLATED : cap * 2;
			unsigned char *q = realloc(buf, (size_t)nc);
			if (!q) {
				r = profdb__fail(-ENOMEM, "%s: cannot allocate %" PRIu64 " bytes",
				                 cg->label, nc);
				goto out;
			}
			buf = q;
			cap = nc;
		}
		uint64_t in_left = n - in_done;
		z.next_in = (Bytef *)(uintptr_t)(src + in_done);
		z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
		uint64_t out_left = cap - done;
		z.next_out = buf + done;
		z.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
		uInt ai = z.avail_in, ao = z.avail_out;
		int zr = inflate(&z, Z_NO_FLUSH);
		in_done += ai - z.avail_in;
		done += ao - z.avail_out;
		if (zr == Z_STREAM_END) {
			if (in_done == n || !is_gzip(src + in_done, n - in_done))
				break;  /* trailing bytes that are not a member: ignored */
			inflateReset(&z);
			continue;
		}
		if (zr == Z_BUF_ERROR && in_done == n && z.avail_out != 0) {
			r = profdb__fail(-ENODATA,
			                 "%s: gzip stream truncated at compressed offset %" PRIu64,
			                 cg->label, in_done);
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			r = profdb__fail(zr == Z_MEM_ERROR ? -ENOMEM : -EBADMSG,
			                 "%s: corrupt gzip data near compressed offset %" PRIu64 ": %s",
			                 cg->label, in_done, z.msg ? z.msg : "error");
			goto out;
		}
	}
	cg->inflated = buf;
	cg->inflated_size = (size_t)done;
	buf = NULL;
out:
	free(buf);
	inflateEnd(&z);
	return r;
}
#endif

static int cg_open_common(profdb_cg *cg)
{
	const unsigned char *base;
	int r = profdb__range(&cg->in, 0, cg->in.size, "callgrind text", &base);
	if (r < 0)
		return r;
	if (is_gzip(base, cg->in.size)) {
#if PROFDB_CG_HAVE_ZLIB
		r = inflate_all(cg, base, cg->in.size);
		if (r < 0)
			return r;
		cg->text = cg->inflated ? (const char *)cg->inflated : "";
		cg->text_size = cg->inflated_size;
#else
		return profdb__fail(-ENOTSUP, "%s: gzip file, but profdb was built without zlib",
		                    cg->label);
#endif
	} else {
		cg->text = (const char *)base;
		cg->text_size = cg->in.size;
	}
	r = profdb__cg_parse(cg);
	if (r < 0)
		return r;
	return profdb__cg_finish(cg);
}

static profdb_cg *cg_new(const char *label, const profdb_options *opts)
{
	profdb_cg *cg = calloc(1, sizeof *cg);
	if (!cg)
		return NULL;
	cg->label = strdup(label);
	if (!cg->label) {
		free(cg);
		return NULL;
	}
	profdb__options_copy(&cg->opts, opts);
	profdb__once_init(&cg->incl_once);
	return cg;
}

PROFDB_EXPORT int profdb_cg_open(profdb_cg **ret, const char *path, const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_open: ret is NULL");
	*ret = NULL;
	if (!path)
		return profdb__fail(-EINVAL, "profdb_cg_open: path is NULL");
	profdb_cg *cg = cg_new(path, opts);
	if (!cg)
		return profdb__fail(-ENOMEM, "%s: out of memory", path);
	int r = profdb__input_open(&cg->in, path, cg->label, cg->opts.flags);
	if (r >= 0)
		r = cg_open_common(cg);
	if (r < 0) {
		profdb_cg_close(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

PROFDB_EXPORT int profdb_cg_open_mem(profdb_cg **ret, const void *data, size_t size,
                                     const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_cg_open_mem: ret is NULL");
	*ret = NULL;
	if (!data && size)
		return profdb__fail(-EINVAL, "profdb_cg_open_mem: data is NULL");
	profdb_cg *cg = cg_new("<memory>", opts);
	if (!cg)
		return profdb__fail(-ENOMEM, "<memory>: out of memory");
	profdb__input_mem(&cg->in, data, size, cg->label);
	int r = cg_open_common(cg);
	if (r < 0) {
		profdb_cg_close(cg);
		return r;
	}
	*ret = cg;
	return 0;
}

PROFDB_EXPORT void profdb_cg_close(profdb_cg *cg)
{
	if (!cg)
		return;
	profdb__input_close(&cg->in);
	free(cg->inflated);
	free(cg->events);
	free(cg->names);
	profdb__cg_map_free(&cg->name_map);
	profdb__cg_map_free(&cg->id_map);
	free(cg->fns);
	free(cg->self);
	profdb__cg_map_free(&cg->fn_map);
	free(cg->calls);
	free(cg->call_incl);
	profdb__cg_map_free(&cg->call_map);
	free(cg->lines);
	free(cg->line_cost);
	profdb__cg_map_free(&cg->line_map);
	free(cg->totals);
	free(cg->file_summary);
	free(cg->file_totals);
	free(cg->incl);
	profdb__once_destroy(&cg->incl_once);
	free(cg->label);
	free(cg);
}

PROFDB_EXPORT int profdb_cg_event_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_event_count: NULL handle");
	return (int)cg->n_events;
}

PROFDB_EXPORT int profdb_cg_event_get(const profdb_cg *cg, uint32_t i, profdb_cg_event *out)
{
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_event_get: NULL argument");
	if (i >= cg->n_events)
		return profdb__fail(-ENOENT, "%s: no event %" PRIu32 " (%" PRIu32 " events)",
		                    cg->label, i, cg->n_events);
	const cg_event *e = &cg->events[i];
	out->name = e->name.p;
	out->name_len = e->name.len;
	out->long_name = e->long_name.len ? e->long_name.p : NULL;
	out->long_name_len = e->long_name.len;
	return 0;
}

PROFDB_EXPORT int profdb_cg_part_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_part_count: NULL handle");
	return (int)(cg->n_parts > INT32_MAX ? INT32_MAX : cg->n_parts);
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
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_function_get: NULL argument");
	if (i >= cg->n_fns)
		return profdb__fail(-ENOENT, "%s: no function %" PRIu32, cg->label, i);
	const cg_fn *f = &cg->fns[i];
	out->name = cg->names[f->fn].p;
	out->name_len = cg->names[f->fn].len;
	out->object = cg->names[f->ob].p;
	out->object_len = cg->names[f->ob].len;
	out->file = cg->names[f->fl].p;
	out->file_len = cg->names[f->fl].len;
	out->self = cg->self + (size_t)i * cg->n_events;
	out->n_lines = f->n_lines;
	return 0;
}

PROFDB_EXPORT int profdb_cg_function_line(const profdb_cg *cg, uint32_t fn, uint32_t i,
                                          profdb_cg_line *out)
{
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_function_line: NULL argument");
	if (fn >= cg->n_fns)
		return profdb__fail(-ENOENT, "%s: no function %" PRIu32, cg->label, fn);
	const cg_fn *f = &cg->fns[fn];
	if (i >= f->n_lines)
		return profdb__fail(-ENOENT, "%s: function %" PRIu32 " has no line row %" PRIu32,
		                    cg->label, fn, i);
	uint32_t k = f->line_first + i;
	const cg_line *l = &cg->lines[k];
	out->file = cg->names[l->file].p;
	out->file_len = cg->names[l->file].len;
	out->line = l->line;
	out->self = cg->line_cost + (size_t)k * cg->n_events;
	return 0;
}

PROFDB_EXPORT int64_t profdb_cg_call_count(const profdb_cg *cg)
{
	if (!cg)
		return profdb__fail(-EINVAL, "profdb_cg_call_count: NULL handle");
	return cg->n_calls;
}

PROFDB_EXPORT int profdb_cg_call_get(const profdb_cg *cg, uint32_t i, profdb_cg_call *out)
{
	if (!cg || !out)
		return profdb__fail(-EINVAL, "profdb_cg_call_get: NULL argument");
	if (i >= cg->n_calls)
		return profdb__fail(-ENOENT, "%s: no call edge %" PRIu32, cg->label, i);
	out->caller = cg->calls[i].caller;
	out->callee = cg->calls[i].callee;
	out->count = cg->calls[i].count;
	out->inclusive = cg->call_incl + (size_t)i * cg->n_events;
	return 0;
}

PROFDB_EXPORT int profdb_cg_totals(const profdb_cg *cg, const uint64_t **costs)
{
	if (!cg || !costs)
		return profdb__fail(-EINVAL, "profdb_cg_totals: NULL argument");
	*costs = cg->n_events ? cg->totals : NULL;
	return 0;
}

PROFDB_EXPORT int profdb_cg_summary(const profdb_cg *cg, int which, const uint64_t **costs)
{
	if (!cg || !costs || (which != PROFDB_CG_SUMMARY && which != PROFDB_CG_TOTALS))
		return profdb__fail(-EINVAL, "profdb_cg_summary: bad argument");
	int has = which == PROFDB_CG_SUMMARY ? cg->has_summary : cg->has_totals;
	*costs = has ? (which == PROFDB_CG_SUMMARY ? cg->file_summary : cg->file_totals) : NULL;
	return has;
}

PROFDB_EXPORT int profdb_cg_inclusive(const profdb_cg *cg, uint32_t fn, const uint64_t **costs)
{
	if (!cg || !costs)
		return profdb__fail(-EINVAL, "profdb_cg_inclusive: NULL argument");
	if (fn >= cg->n_fns)
		return profdb__fail(-ENOENT, "%s: no function %" PRIu32, cg->label, fn);
	profdb_cg *m = (profdb_cg *)(uintptr_t)cg;  /* lazily built, once */
	int r = profdb__once_run(&m->incl_once, profdb__cg_build_inclusive, m);
	if (r < 0)
		return r;
	*costs = cg->incl + (size_t)fn * cg->n_events;
	return 0;
}
