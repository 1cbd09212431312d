/* Opening an HPCToolkit 4.0 database: find the files, check each file's
 * magic, version, footer and section table, and nothing deeper. Everything
 * whose cost grows with the database is checked lazily on first use. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpctk4-internal.h"

static const struct {
	const char *file;     /* name in a database directory */
	const char *kind;     /* 4 magic bytes after "HPCTOOLKIT" */
	const char *footer;   /* last 8 bytes */
} files[PROFDB_HPCTK_NFILES] = {
	[PROFDB_HPCTK_META] = {"meta.db", "meta", "_meta.db"},
	[PROFDB_HPCTK_PROFILE] = {"profile.db", "prof", "_prof.db"},
	[PROFDB_HPCTK_CCT] = {"cct.db", "ctxt", "__ctx.db"},
	[PROFDB_HPCTK_TRACE] = {"trace.db", "trce", "trace.db"},
};

int profdb__hpctk_require(const profdb_hpctk *db, profdb_hpctk_file f)
{
	if (!db)
		return profdb__fail(-EINVAL, "NULL database handle");
	if (!db->present[f])
		return profdb__fail(-ENOENT, "the database has no %s", files[f].file);
	return 0;
}

/* Which file a buffer is, from its magic; -1 if none. */
static int classify(const unsigned char *p, uint64_t size)
{
	if (size < 14 || memcmp(p, "HPCTOOLKIT", 10) != 0)
		return -1;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++)
		if (memcmp(p + 10, files[f].kind, 4) == 0)
			return f;
	return -1;
}

static int check_header(profdb_hpctk *db, profdb_hpctk_file f)
{
	const profdb__input *in = &db->in[f];
	const unsigned char *p;
	int r = profdb__range(in, 0, HL_FILE_MAGIC, "file header", &p);
	if (r < 0)
		return r;
	if (memcmp(p, "HPCTOOLKIT", 10) != 0 || memcmp(p + 10, files[f].kind, 4) != 0) {
		if (memcmp(p, "HPCPROF-", 8) == 0 || memcmp(p, "HPCTOOLKIT_expmt", 16) == 0)
			return profdb__fail(-EPROTONOSUPPORT,
			                    "%s: pre-release HPCToolkit format (magic \"%.16s\"), "
			                    "not a 4.0 %s", in->name, (const char *)p, files[f].file);
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: bad magic at offset 0x0: expected \"HPCTOOLKIT%s\"",
		                    in->name, files[f].kind);
	}
	if (hl_file_major(p) != 4)
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: major version %u at offset 0xe is not supported (4 is)",
		                    in->name, hl_file_major(p));
	if (hl_file_minor(p) > 0)
		profdb__warn(&db->opts, "%s: minor version 4.%u is newer than 4.0; reading the "
		             "4.0 fields through the stored strides", in->name, hl_file_minor(p));
	/* The footer comes first in the real readers too: a file cut short
	 * loses it, which tells truncation apart from corruption. */
	const unsigned char *foot;
	if (in->size < 24)
		return profdb__fail(-ENODATA, "%s: %" PRIu64 " bytes is too short for a 4.0 file",
		                    in->name, in->size);
	r = profdb__range(in, in->size - 8, 8, "footer", &foot);
	if (r < 0)
		return r;
	/* Compare the copy read at open, not the mapping: touching the last
	 * page would fault it in (and keep it resident) for nothing. */
	if (memcmp(in->tail, files[f].footer, 8) != 0)
		return profdb__fail(-ENODATA,
		                    "%s: footer at offset 0x%" PRIx64 " is not \"%s\" "
		                    "(truncated or not a complete file)",
		                    in->name, in->size - 8, files[f].footer);
	return 0;
}

static int finish_open(profdb_hpctk *db)
{
	int r = 0;
	int any = 0;
	for (int f = 0; f < PROFDB_HPCTK_NFILES && r >= 0; f++)
		if (db->present[f]) {
			any = 1;
			r = check_header(db, (profdb_hpctk_file)f);
		}
	if (r < 0)
		return r;
	if (!any)
		return profdb__fail(-ENOENT, "no HPCToolkit 4.0 file given");
	if (db->present[PROFDB_HPCTK_META] && (r = profdb__hpctk_meta_open(db)) < 0)
		return r;
	if (db->present[PROFDB_HPCTK_PROFILE] && (r = profdb__hpctk_profile_open(db)) < 0)
		return r;
	if (db->present[PROFDB_HPCTK_CCT] && (r = profdb__hpctk_cct_open(db)) < 0)
		return r;
	if (db->present[PROFDB_HPCTK_TRACE] && (r = profdb__hpctk_trace_open(db)) < 0)
		return r;
	return profdb__hpctk_cross_check(db);
}

static profdb_hpctk *alloc_db(const profdb_options *opts)
{
	profdb_hpctk *db = calloc(1, sizeof *db);
	if (!db)
		return NULL;
	profdb__options_copy(&db->opts, opts);
	profdb__once_init(&db->metrics_once);
	profdb__once_init(&db->tree_once);
	profdb__once_init(&db->checked_once);
	return db;
}

PROFDB_EXPORT void profdb_hpctk_close(profdb_hpctk *db)
{
	if (!db)
		return;
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		profdb__input_close(&db->in[f]);
		free(db->names[f]);
	}
	profdb__once_destroy(&db->metrics_once);
	profdb__once_destroy(&db->tree_once);
	profdb__once_destroy(&db->checked_once);
	free(db->metric_tab);
	free(db->props);
	free(db->sums);
	free(db->nodes);
	profdb__block_state_free(&db->ok);
	free(db);
}

PROFDB_EXPORT int profdb_hpctk_open(profdb_hpctk **ret, const char *path,
                                    const profdb_options *opts)
{
	struct stat st;
	int r;

	if (ret)
		*ret = NULL;   /* "NULL on failure", bad arguments included */
	if (!ret || !path)
		return profdb__fail(-EINVAL, "profdb_hpctk_open: NULL argument");
	int opts_ok = profdb__options_check(opts, "profdb_hpctk_open");
	if (opts_ok < 0)
		return opts_ok;
	if (stat(path, &st) < 0)
		return profdb__fail(-errno, "%s: %s", path, strerror(errno));
	profdb_hpctk *db = alloc_db(opts);
	if (!db)
		return profdb__fail(-ENOMEM, "out of memory");

	if (S_ISDIR(st.st_mode)) {
		for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
			char *full;
			if (asprintf(&full, "%s/%s", path, files[f].file) < 0) {
				r = profdb__fail(-ENOMEM, "out of memory");
				goto fail;
			}
			if ((r = profdb__entry_present(full)) <= 0) {
				free(full);
				if (r < 0)
					goto fail;
				continue;
			}
			db->names[f] = full;
			r = profdb__input_open(&db->in[f], full, full, db->opts.flags);
			if (r < 0)
				goto fail;
			db->present[f] = 1;
		}
		if (!db->present[PROFDB_HPCTK_META] && !db->present[PROFDB_HPCTK_PROFILE]) {
			r = profdb__fail(-ENOENT, "%s: no meta.db or profile.db in this directory",
			                 path);
			goto fail;
		}
	} else {
		profdb__input in;
		char *name = strdup(path);
		if (!name) {
			r = profdb__fail(-ENOMEM, "out of memory");
			goto fail;
		}
		r = profdb__input_open(&in, path, name, db->opts.flags);
		if (r < 0) {
			free(name);
			goto fail;
		}
		int f = classify(in.base, in.size);
		if (f < 0) {
			profdb__input_close(&in);
			free(name);
			r = profdb__fail(-EPROTONOSUPPORT,
			                 "%s: not an HPCToolkit 4.0 file (magic at offset 0x0 is not "
			                 "HPCTOOLKITmeta/prof/ctxt/trce)", path);
			goto fail;
		}
		db->in[f] = in;
		db->names[f] = name;
		db->present[f] = 1;
	}
	r = finish_open(db);
	if (r < 0)
		goto fail;
	*ret = db;
	return 0;
fail:
	profdb_hpctk_close(db);
	return r;
}

PROFDB_EXPORT int profdb_hpctk_open_mem(profdb_hpctk **ret,
                                        const profdb_input inputs[PROFDB_HPCTK_NFILES],
                                        const profdb_options *opts)
{
	if (ret)
		*ret = NULL;   /* "NULL on failure", bad arguments included */
	if (!ret || !inputs)
		return profdb__fail(-EINVAL, "profdb_hpctk_open_mem: NULL argument");
	int opts_ok = profdb__options_check(opts, "profdb_hpctk_open_mem");
	if (opts_ok < 0)
		return opts_ok;
	profdb_hpctk *db = alloc_db(opts);
	if (!db)
		return profdb__fail(-ENOMEM, "out of memory");
	for (int f = 0; f < PROFDB_HPCTK_NFILES; f++) {
		if (!inputs[f].data)
			continue;
		const char *name = inputs[f].name ? inputs[f].name : files[f].file;
		if (!(db->names[f] = strdup(name))) {
			profdb_hpctk_close(db);
			return profdb__fail(-ENOMEM, "out of memory");
		}
		profdb__input_mem(&db->in[f], inputs[f].data, inputs[f].size, db->names[f]);
		db->present[f] = 1;
	}
	int r = finish_open(db);
	if (r < 0) {
		profdb_hpctk_close(db);
		return r;
	}
	*ret = db;
	return 0;
}

PROFDB_EXPORT int profdb_hpctk_has(const profdb_hpctk *db, profdb_hpctk_file which)
{
	if (!db || (unsigned)which >= PROFDB_HPCTK_NFILES)
		return profdb__fail(-EINVAL, "profdb_hpctk_has: NULL handle or bad file %d", (int)which);
	return db->present[which];
}

PROFDB_EXPORT int profdb_hpctk_version(const profdb_hpctk *db, profdb_hpctk_file which,
                                       uint8_t *major, uint8_t *minor)
{
	if (!db || (unsigned)which >= PROFDB_HPCTK_NFILES || !major || !minor)
		return profdb__fail(-EINVAL, "profdb_hpctk_version: bad argument");
	int r = profdb__hpctk_require(db, which);
	if (r < 0)
		return r;
	*major = hl_file_major(db->in[which].base);
	*minor = hl_file_minor(db->in[which].base);
	return 0;
}

PROFDB_EXPORT profdb_hpctk_layout profdb_hpctk_get_layout(const profdb_hpctk *db)
{
	return db ? db->layout : PROFDB_HPCTK_FINAL;
}

int profdb__hpctk_index_of(const profdb_hpctk *db, profdb_hpctk_file f, uint64_t base,
                   uint32_t count, uint32_t stride, uint64_t ptr, const char *what,
                   uint32_t *index)
{
	uint64_t delta = ptr - base;
	if (ptr < base || stride == 0 || delta % stride != 0 || delta / stride >= count)
		return profdb__fail(-EBADMSG,
		                    "%s: %s 0x%" PRIx64 " is not an element of the array at 0x%"
		                    PRIx64 " (%" PRIu32 " x %" PRIu32 " bytes)",
		                    db->in[f].name, what, ptr, base, count, stride);
	*index = (uint32_t)(delta / stride);
	return 0;
}
