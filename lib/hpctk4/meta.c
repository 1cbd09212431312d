/* meta.db: section table, general properties, identifier names, load
 * modules, source files and functions. The metric table (metrics.c) and the
 * context tree (tree.c) are decoded lazily. */
#include <inttypes.h>
#include <string.h>

#include "hpctk4-internal.h"

/* Read the {size, pointer} pair at @p at of a file header and check the
 * section lies between the header and the footer, aligned as the spec says. */
int profdb__hpctk_section_read(const profdb__input *in, uint64_t at, uint64_t header_end,
                       unsigned align, const char *what, hpctk_section *out)
{
	const unsigned char *p;
	int r = profdb__range(in, at, 16, what, &p);
	if (r < 0)
		return r;
	out->size = hl_section_size(p);
	out->off = hl_section_ptr(p);
	if (out->size == 0)
		return 0;
	if (out->off % align != 0)
		return profdb__fail(-EBADMSG,
		                    "%s: %s pointer 0x%" PRIx64 " (header offset 0x%" PRIx64
		                    ") is not %u-byte aligned", in->name, what, out->off, at, align);
	return profdb__span(in, header_end, in->size - 8, out->off, out->size, what, NULL);
}

/* The header of a section: at least @p min bytes of it must exist. */
static int section_header(const profdb__input *in, const hpctk_section *s, uint64_t min,
                          const char *what, const unsigned char **p)
{
	if (s->size < min)
		return profdb__fail(-EBADMSG,
		                    "%s: %s at 0x%" PRIx64 " is %" PRIu64 " bytes, its header "
		                    "needs %" PRIu64, in->name, what, s->off, s->size, min);
	return profdb__range(in, s->off, min, what, p);
}

/* An array of count x stride bytes at ptr, inside section s. */
int profdb__hpctk_array(const profdb__input *in, const hpctk_section *s, uint64_t ptr,
                uint64_t count, uint64_t stride, const char *what)
{
	uint64_t bytes;
	int r = profdb__mul(in, count, stride, what, &bytes);
	if (r < 0 || bytes == 0)
		return r;
	return profdb__span(in, s->off, s->off + s->size, ptr, bytes, what, NULL);
}

/* The table headers of Modules, Files and Functions share one shape. */
static int table_header(const profdb__input *in, const hpctk_section *s, unsigned min_stride,
                        const char *what, uint64_t *ptr, uint32_t *count, uint32_t *stride)
{
	const unsigned char *p;
	*ptr = 0;
	*count = 0;
	*stride = min_stride;
	if (s->size == 0)
		return 0;
	int r = section_header(in, s, HL_TABLE, what, &p);
	if (r < 0)
		return r;
	*ptr = hl_table_ptr(p);
	*count = hl_table_count(p);
	*stride = hl_table_stride(p);
	if (*stride < min_stride)
		return profdb__fail(-EBADMSG,
		                    "%s: %s stride %" PRIu32 " at 0x%" PRIx64 " is below the "
		                    "minimum %u", in->name, what, *stride, s->off + 0x0c, min_stride);
	return profdb__hpctk_array(in, s, *ptr, *count, *stride, what);
}

int profdb__hpctk_meta_open(profdb_hpctk *db)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_META];
	static const char *const names[8] = {"General section", "IdNames section",
		"Metrics section", "Context section", "Strings section", "Modules section",
		"Files section", "Functions section"};
	hpctk_section *secs[8] = {&db->general, &db->idnames, &db->metrics_sec, &db->context,
		&db->strings, &db->modules_sec, &db->files_sec, &db->functions_sec};
	const unsigned char *p;
	int r;

	for (int i = 0; i < 8; i++) {
		r = profdb__hpctk_section_read(in, 0x10 + 16 * (uint64_t)i, HL_META_HEADER, i == 4 ? 1 : 8,
		                       names[i], secs[i]);
		if (r < 0)
			return r;
	}

	/* Dev-stage detection must precede any stride check: its szMetric (24)
	 * is below the final minimum (32). */
	if (db->metrics_sec.size > 0) {
		r = section_header(in, &db->metrics_sec, HL_METRICS_DEV, "Metrics section", &p);
		if (r < 0)
			return r;
		db->layout = hl_metrics_sz_metric(p) == HL_METRIC_DEV ? PROFDB_HPCTK_DEVSTAGE
		                                                      : PROFDB_HPCTK_FINAL;
	}

	if ((r = table_header(in, &db->modules_sec, HL_MODULE, "Modules section", &db->p_modules,
	                      &db->n_modules, &db->sz_module)) < 0 ||
	    (r = table_header(in, &db->files_sec, HL_FILE, "Files section", &db->p_files,
	                      &db->n_files, &db->sz_file)) < 0 ||
	    (r = table_header(in, &db->functions_sec, HL_FUNCTION, "Functions section",
	                      &db->p_functions, &db->n_functions, &db->sz_function)) < 0)
		return r;

	if (db->context.size == 0)
		return 0;
	if (db->layout == PROFDB_HPCTK_DEVSTAGE) {
		r = section_header(in, &db->context, HL_CONTEXTS_DEV, "Context section", &p);
		if (r < 0)
			return r;
		db->sz_entries = hl_dcontexts_size(p);
		db->p_entries = hl_dcontexts_roots(p);
		return profdb__hpctk_array(in, &db->context, db->p_entries, db->sz_entries, 1,
		                   "root context array");
	}
	r = section_header(in, &db->context, HL_CONTEXTS_FINAL, "Context section", &p);
	if (r < 0)
		return r;
	db->p_entries = hl_contexts_entries(p);
	db->n_entries = hl_contexts_n_entries(p);
	db->sz_entry = hl_contexts_sz_entry(p);
	if (db->sz_entry < HL_ENTRY)
		return profdb__fail(-EBADMSG,
		                    "%s: entry point stride %" PRIu32 " at 0x%" PRIx64
		                    " is below the minimum 32", in->name, db->sz_entry,
		                    db->context.off + 0x0a);
	return profdb__hpctk_array(in, &db->context, db->p_entries, db->n_entries, db->sz_entry,
	                   "entry point array");
}

static int need_meta(const profdb_hpctk *db)
{
	return profdb__hpctk_require(db, PROFDB_HPCTK_META);
}

int profdb__hpctk_meta_once(const profdb_hpctk *db, const profdb__once *once,
                            int (*build)(void *))
{
	int r = need_meta(db);
	if (r < 0)
		return r;
	return profdb__once_run((profdb__once *)once, build, (profdb_hpctk *)db);
}

static int string_in(const profdb_hpctk *db, const hpctk_section *s, uint64_t ptr,
                     const char *what, profdb_str *out)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_META];
	const char *c;
	int r = profdb__string(in, s->off, s->off + s->size, ptr, what, &c);
	if (r == 0)
		*out = profdb__hpctk_str(c);
	return r;
}

PROFDB_EXPORT int profdb_hpctk_title(const profdb_hpctk *db, profdb_str *title,
                                     profdb_str *description)
{
	const unsigned char *p;
	profdb_str t, d;
	if (!title || !description)
		return profdb__fail(-EINVAL, "profdb_hpctk_title: NULL output");
	int r = need_meta(db);
	if (r < 0)
		return r;
	r = section_header(&db->in[PROFDB_HPCTK_META], &db->general, HL_GENERAL, "General section",
	                   &p);
	if (r < 0)
		return r;
	if ((r = string_in(db, &db->general, hl_general_title(p), "title", &t)) < 0 ||
	    (r = string_in(db, &db->general, hl_general_description(p), "description", &d)) < 0)
		return r;
	*title = t;
	*description = d;
	return 0;
}

PROFDB_EXPORT int64_t profdb_hpctk_id_kind_count(const profdb_hpctk *db)
{
	const unsigned char *p;
	int r = need_meta(db);
	if (r < 0)
		return r;
	if (db->idnames.size == 0)
		return 0;
	r = section_header(&db->in[PROFDB_HPCTK_META], &db->idnames, HL_IDNAMES, "IdNames section",
	                   &p);
	return r < 0 ? r : hl_idnames_count(p);
}

PROFDB_EXPORT int profdb_hpctk_id_kind_at(const profdb_hpctk *db, uint32_t kind,
                                          profdb_str *name)
{
	const profdb__input *in;
	const unsigned char *p, *q;
	int64_t n = profdb_hpctk_id_kind_count(db);
	if (n < 0)
		return (int)n;
	if (!name)
		return profdb__fail(-EINVAL, "profdb_hpctk_id_kind_at: NULL output");
	if (kind >= (uint64_t)n)
		return profdb__fail(-ENOENT, "identifier kind %" PRIu32 " is not defined (%" PRId64
		                    " kinds)", kind, n);
	in = &db->in[PROFDB_HPCTK_META];
	int r = profdb__range(in, db->idnames.off, HL_IDNAMES, "IdNames section", &p);
	if (r < 0)
		return r;
	uint64_t at = hl_idnames_names(p) + 8 * (uint64_t)kind;
	r = profdb__span(in, db->idnames.off, db->idnames.off + db->idnames.size, at, 8,
	                 "identifier name pointer", &q);
	if (r < 0)
		return r;
	return string_in(db, &db->idnames, profdb__le64(q), "identifier name", name);
}

PROFDB_EXPORT int64_t profdb_hpctk_module_count(const profdb_hpctk *db)
{
	int r = need_meta(db);
	return r < 0 ? r : (int64_t)db->n_modules;
}

PROFDB_EXPORT int64_t profdb_hpctk_file_count(const profdb_hpctk *db)
{
	int r = need_meta(db);
	return r < 0 ? r : (int64_t)db->n_files;
}

PROFDB_EXPORT int64_t profdb_hpctk_function_count(const profdb_hpctk *db)
{
	int r = need_meta(db);
	return r < 0 ? r : (int64_t)db->n_functions;
}

/* Record i of a table checked at open; @p out is the caller's output. */
static int record(const profdb_hpctk *db, int table, uint32_t i, const void *out,
                  const unsigned char **p)
{
	static const char *const what[3] = {"load module", "source file", "function"};
	int r = need_meta(db);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "%s lookup: NULL output", what[table]);
	uint64_t base = table == 0 ? db->p_modules : table == 1 ? db->p_files : db->p_functions;
	uint32_t count = table == 0 ? db->n_modules : table == 1 ? db->n_files : db->n_functions;
	uint32_t stride = table == 0 ? db->sz_module : table == 1 ? db->sz_file : db->sz_function;
	if (i >= count)
		return profdb__fail(-ENOENT, "%s %" PRIu32 " does not exist (%" PRIu32 " entries)",
		                    what[table], i, count);
	return profdb__range(&db->in[PROFDB_HPCTK_META], base + (uint64_t)i * stride, stride,
	                     what[table], p);
}

PROFDB_EXPORT int profdb_hpctk_module_at(const profdb_hpctk *db, uint32_t i, profdb_str *path)
{
	const unsigned char *p;
	int r = record(db, 0, i, path, &p);
	if (r < 0)
		return r;
	return string_in(db, &db->strings, hl_module_path(p), "load module path", path);
}

PROFDB_EXPORT int profdb_hpctk_file_at(const profdb_hpctk *db, uint32_t i, profdb_str *path,
                                       int *copied)
{
	const unsigned char *p;
	int r = record(db, 1, i, copied ? (const void *)path : NULL, &p);
	if (r < 0)
		return r;
	*copied = hl_file_flags(p) & 1;
	return string_in(db, &db->strings, hl_file_path(p), "source file path", path);
}

int profdb__hpctk_module_index(const profdb_hpctk *db, uint64_t ptr, uint32_t *out)
{
	return profdb__hpctk_index_of(db, PROFDB_HPCTK_META, db->p_modules, db->n_modules, db->sz_module,
	                      ptr, "load module pointer", out);
}

int profdb__hpctk_file_index(const profdb_hpctk *db, uint64_t ptr, uint32_t *out)
{
	return profdb__hpctk_index_of(db, PROFDB_HPCTK_META, db->p_files, db->n_files, db->sz_file, ptr,
	                      "source file pointer", out);
}

int profdb__hpctk_function_index(const profdb_hpctk *db, uint64_t ptr, uint32_t *out)
{
	return profdb__hpctk_index_of(db, PROFDB_HPCTK_META, db->p_functions, db->n_functions,
	                      db->sz_function, ptr, "function pointer", out);
}

PROFDB_EXPORT int profdb_hpctk_function_at(const profdb_hpctk *db, uint32_t i,
                                           profdb_hpctk_function *out)
{
	const unsigned char *p;
	int r = record(db, 2, i, out, &p);
	if (r < 0)
		return r;
	profdb_hpctk_function f = {.name = {"", 0}, .module = PROFDB_NONE, .file = PROFDB_NONE,
	                           .offset = hl_function_offset(p), .line = hl_function_line(p)};
	uint64_t name = hl_function_name(p), mod = hl_function_module(p), file = hl_function_file(p);
	if (name && (r = string_in(db, &db->strings, name, "function name", &f.name)) < 0)
		return r;
	if (mod && (r = profdb__hpctk_module_index(db, mod, &f.module)) < 0)
		return r;
	if (file && (r = profdb__hpctk_file_index(db, file, &f.file)) < 0)
		return r;
	*out = f;
	return 0;
}
