/* meta.db: section table, general properties, identifier names, load
 * modules, source files and functions. The metric table (metrics.c) and the
 * context tree (tree.c) are decoded lazily. */
#include <inttypes.h>
#include <string.h>

#include "hpctk4-internal.h"

#define META_HEADER 0x90

/* Read the {size, pointer} pair at @p at of a file header and check the
 * section lies between the header and the footer, aligned as the spec says. */
int profdb__hpctk_section_read(const profdb__input *in, uint64_t at, uint64_t header_end,
                       unsigned align, const char *what, hpctk_section *out)
{
	const unsigned char *p;
	int r = profdb__range(in, at, 16, what, &p);
	if (r < 0)
		return r;
	out->size = profdb__le64(p);
	out->off = profdb__le64(p + 8);
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
	int r = section_header(in, s, 0x0e, what, &p);
	if (r < 0)
		return r;
	*ptr = profdb__le64(p);
	*count = profdb__le32(p + 8);
	*stride = profdb__le16(p + 0x0c);
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
		r = profdb__hpctk_section_read(in, 0x10 + 16 * (uint64_t)i, META_HEADER, i == 4 ? 1 : 8,
		                       names[i], secs[i]);
		if (r < 0)
			return r;
	}

	/* Dev-stage detection must precede any stride check: its szMetric (24)
	 * is below the final minimum (32). */
	if (db->metrics_sec.size > 0) {
		r = section_header(in, &db->metrics_sec, 0x0f, "Metrics section", &p);
		if (r < 0)
			return r;
		db->layout = p[0x0c] == 24 ? PROFDB_HPCTK_DEVSTAGE : PROFDB_HPCTK_FINAL;
	}

	if ((r = table_header(in, &db->modules_sec, 0x10, "Modules section", &db->p_modules,
	                      &db->n_modules, &db->sz_module)) < 0 ||
	    (r = table_header(in, &db->files_sec, 0x10, "Files section", &db->p_files,
	                      &db->n_files, &db->sz_file)) < 0 ||
	    (r = table_header(in, &db->functions_sec, 0x28, "Functions section",
	                      &db->p_functions, &db->n_functions, &db->sz_function)) < 0)
		return r;

	if (db->context.size == 0)
		return 0;
	if (db->layout == PROFDB_HPCTK_DEVSTAGE) {
		r = section_header(in, &db->context, 0x10, "Context section", &p);
		if (r < 0)
			return r;
		db->sz_entries = profdb__le64(p);
		db->p_entries = profdb__le64(p + 8);
		return profdb__hpctk_array(in, &db->context, db->p_entries, db->sz_entries, 1,
		                   "root context array");
	}
	r = section_header(in, &db->context, 0x0b, "Context section", &p);
	if (r < 0)
		return r;
	db->p_entries = profdb__le64(p);
	db->n_entries = profdb__le16(p + 8);
	db->sz_entry = p[0x0a];
	if (db->sz_entry < 0x20)
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

static int string_in(const profdb_hpctk *db, const hpctk_section *s, uint64_t ptr,
                     const char *what, const char **out)
{
	const profdb__input *in = &db->in[PROFDB_HPCTK_META];
	return profdb__string(in, s->off, s->off + s->size, ptr, what, out);
}

PROFDB_EXPORT int profdb_hpctk_title(const profdb_hpctk *db, const char **title,
                                     const char **description)
{
	const unsigned char *p;
	const char *t, *d;
	int r = need_meta(db);
	if (r < 0)
		return r;
	r = section_header(&db->in[PROFDB_HPCTK_META], &db->general, 0x10, "General section", &p);
	if (r < 0)
		return r;
	if ((r = string_in(db, &db->general, profdb__le64(p), "title", &t)) < 0 ||
	    (r = string_in(db, &db->general, profdb__le64(p + 8), "description", &d)) < 0)
		return r;
	if (title)
		*title = t;
	if (description)
		*description = d;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_id_kind_count(const profdb_hpctk *db)
{
	const unsigned char *p;
	int r = need_meta(db);
	if (r < 0)
		return r;
	if (db->idnames.size == 0)
		return 0;
	r = section_header(&db->in[PROFDB_HPCTK_META], &db->idnames, 0x09, "IdNames section", &p);
	return r < 0 ? r : p[8];
}

PROFDB_EXPORT int profdb_hpctk_id_kind_name(const profdb_hpctk *db, uint32_t kind,
                                            const char **name)
{
	const profdb__input *in;
	const unsigned char *p, *q;
	int n = profdb_hpctk_id_kind_count(db);
	if (n < 0)
		return n;
	if (!name || kind >= (uint32_t)n)
		return profdb__fail(kind >= (uint32_t)n ? -ENOENT : -EINVAL,
		                    "identifier kind %" PRIu32 " is not defined (%d kinds)", kind, n);
	in = &db->in[PROFDB_HPCTK_META];
	int r = profdb__range(in, db->idnames.off, 8, "IdNames section", &p);
	if (r < 0)
		return r;
	uint64_t at = profdb__le64(p) + 8 * (uint64_t)kind;
	r = profdb__span(in, db->idnames.off, db->idnames.off + db->idnames.size, at, 8,
	                 "identifier name pointer", &q);
	if (r < 0)
		return r;
	return string_in(db, &db->idnames, profdb__le64(q), "identifier name", name);
}

PROFDB_EXPORT int profdb_hpctk_module_count(const profdb_hpctk *db)
{
	int r = need_meta(db);
	return r < 0 ? r : (int)(db->n_modules > INT32_MAX ? INT32_MAX : db->n_modules);
}

PROFDB_EXPORT int profdb_hpctk_file_count(const profdb_hpctk *db)
{
	int r = need_meta(db);
	return r < 0 ? r : (int)(db->n_files > INT32_MAX ? INT32_MAX : db->n_files);
}

PROFDB_EXPORT int profdb_hpctk_function_count(const profdb_hpctk *db)
{
	int r = need_meta(db);
	return r < 0 ? r : (int)(db->n_functions > INT32_MAX ? INT32_MAX : db->n_functions);
}

/* Record i of a table checked at open. */
static int record(const profdb_hpctk *db, uint64_t base, uint32_t count, uint32_t stride,
                  uint32_t i, const char *what, const unsigned char **p)
{
	int r = need_meta(db);
	if (r < 0)
		return r;
	if (i >= count)
		return profdb__fail(-ENOENT, "%s %" PRIu32 " does not exist (%" PRIu32 " entries)",
		                    what, i, count);
	return profdb__range(&db->in[PROFDB_HPCTK_META], base + (uint64_t)i * stride, stride,
	                     what, p);
}

PROFDB_EXPORT int profdb_hpctk_module_path(const profdb_hpctk *db, uint32_t i, const char **path)
{
	const unsigned char *p;
	int r = record(db, db ? db->p_modules : 0, db ? db->n_modules : 0,
	               db ? db->sz_module : 0, i, "load module", &p);
	if (r < 0)
		return r;
	return string_in(db, &db->strings, profdb__le64(p + 8), "load module path", path);
}

PROFDB_EXPORT int profdb_hpctk_file_path(const profdb_hpctk *db, uint32_t i, const char **path,
                                         int *copied)
{
	const unsigned char *p;
	int r = record(db, db ? db->p_files : 0, db ? db->n_files : 0, db ? db->sz_file : 0, i,
	               "source file", &p);
	if (r < 0)
		return r;
	if (copied)
		*copied = profdb__le32(p) & 1;
	return string_in(db, &db->strings, profdb__le64(p + 8), "source file path", path);
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

PROFDB_EXPORT int profdb_hpctk_function_get(const profdb_hpctk *db, uint32_t i,
                                            profdb_hpctk_function *out)
{
	const unsigned char *p;
	int r = record(db, db ? db->p_functions : 0, db ? db->n_functions : 0,
	               db ? db->sz_function : 0, i, "function", &p);
	if (r < 0)
		return r;
	if (!out)
		return profdb__fail(-EINVAL, "profdb_hpctk_function_get: NULL output");
	profdb_hpctk_function f = {NULL, PROFDB_NONE, PROFDB_NONE, profdb__le64(p + 0x10),
	                           profdb__le32(p + 0x20)};
	uint64_t name = profdb__le64(p), mod = profdb__le64(p + 8), file = profdb__le64(p + 0x18);
	if (name && (r = string_in(db, &db->strings, name, "function name", &f.name)) < 0)
		return r;
	if (mod && (r = profdb__hpctk_module_index(db, mod, &f.module)) < 0)
		return r;
	if (file && (r = profdb__hpctk_file_index(db, file, &f.file)) < 0)
		return r;
	*out = f;
	return 0;
}
