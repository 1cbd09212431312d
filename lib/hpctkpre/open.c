/* Opening a pre-release database: find the files (or take the caller's
 * buffers), tell them apart by magic, check magic, version and footer of each
 * .db file, then decode the metadata and the section tables. A folder
 * with experiment.xml and no .db file is an old database (mdb.c). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpctkpre-internal.h"

static const struct {
	const char *file;     /* name in a database directory */
	const char *magic;    /* 16 bytes */
	const char *footer;   /* as written on a little-endian host, or NULL */
	const char *footer_be;
} files[PRE_NFILES] = {
	[PRE_PROFILE] = {"profile.db", "HPCPROF-profdb__", "tfBDFORP", "PROFDBft"},
	[PRE_CCT] = {"cct.db", "HPCPROF-cctdb___", "rtfBDTCC", "CCTDBftr"},
	/* trace.db: TRACDBft is defined by the writer but never written. */
	[PRE_TRACE] = {"trace.db", "HPCPROF-tracedb_", NULL, NULL},
	[PRE_META] = {"experiment.xml", NULL, NULL, NULL},
};

#define DRAFT_MAGIC "HPCTOOLKIT_expmt"

const char *profdb__hpctkpre_file_name(int f)
{
	return f >= 0 && f < PRE_NFILES ? files[f].file : "?";
}

int profdb__hpctkpre_require(const profdb_hpctkpre *db, int f)
{
	if (!db)
		return profdb__fail(-EINVAL, "NULL database handle");
	if (!db->present[f])
		return profdb__fail(-ENOENT, "the pre-release database has no %s",
		                    f == PRE_META ? "experiment.xml or meta.db" : files[f].file);
	return 0;
}

int profdb__hpctkpre_require_data(const profdb_hpctkpre *db, int f)
{
	if (db && db->old)
		return profdb__fail(-ENOTSUP, "an old experiment.xml database (*.metric-db, "
		                    "experiment-N.mdb, *.hpctrace, experiment.mt) has no %s: its "
		                    "profiles, values and traces are read through the common query "
		                    "interface (profdb_open)", files[f].file);
	return profdb__hpctkpre_require(db, f);
}

int profdb__hpctkpre_section(const profdb__input *in, uint64_t header, uint64_t off,
                             uint64_t size, const char *what)
{
	if (size && off < header)
		return profdb__fail(-EBADMSG, "%s: %s at 0x%" PRIx64 " overlaps the file header "
		                    "(0x%" PRIx64 " bytes)", in->name, what, off, header);
	return profdb__range(in, off, size, what, NULL);
}

/* The header of each .db file (doc/FORMATS.md, "Layout as read"): a count
 * at 0x12, the section count at 0x16 and the first section, which holds
 * count fixed-size records. */
static const struct db_header {
	const char *what;        /* the header, in messages */
	uint64_t size;           /* bytes the header has */
	unsigned min_sec;
	uint32_t rec;            /* record size of the first section */
	const char *items, *array, *section, *sections;
} headers[PRE_META] = {
	[PRE_PROFILE] = {"profile.db header", PRE_PROFILE_HDR_SIZE, 2, PRE_PI_SIZE, "profiles",
	                 "profile info array", "Profile Info section",
	                 "profile infos, identifier tuples"},
	[PRE_CCT] = {"cct.db header", PRE_CCT_HDR_SIZE, 1, PRE_CI_SIZE, "contexts",
	             "context info array", "Context Info section", "context infos"},
	[PRE_TRACE] = {"trace.db header", PRE_TRACE_HDR_SIZE, 1, PRE_TH_SIZE, "traces",
	               "trace header array", "Trace Header section", "trace headers"},
};

/* Header of .db file @p f: *count and the first section's offset, after
 * checking that the section holds count records inside the file. */
static int db_header(const profdb_hpctkpre *db, int f, const unsigned char **h,
                     uint32_t *count, uint64_t *off)
{
	const struct db_header *k = &headers[f];
	const profdb__input *in = &db->in[f];
	uint64_t need;
	int r = profdb__range(in, 0, k->size, k->what, h);
	if (r < 0)
		return r;
	*count = pre_db_count(*h);
	*off = pre_db_sec0_off(*h);
	uint64_t size = pre_db_sec0_size(*h);
	uint16_t nsec = pre_db_num_sec(*h);
	if (nsec < k->min_sec)
		return profdb__fail(-EBADMSG, "%s: header at 0x16 lists %u sections, %s needs %u (%s)",
		                    in->name, nsec, files[f].file, k->min_sec, k->sections);
	if ((r = profdb__mul(in, *count, k->rec, k->array, &need)) < 0)
		return r;
	if (need > size)
		return profdb__fail(-EBADMSG, "%s: %" PRIu32 " %s (0x12) need %" PRIu64 " bytes but "
		                    "the %s (0x18) has %" PRIu64, in->name, *count, k->items, need,
		                    k->section, size);
	return profdb__hpctkpre_section(in, k->size, *off, size, k->section);
}

/* The section tables of the present .db files. */
static int read_headers(profdb_hpctkpre *db)
{
	const unsigned char *h;
	int r;
	if (db->present[PRE_PROFILE]) {
		if ((r = db_header(db, PRE_PROFILE, &h, &db->n_profiles, &db->pi_off)) < 0)
			return r;
		db->idt_off = pre_profile_sec1_off(h);
		db->idt_size = pre_profile_sec1_size(h);
		if ((r = profdb__hpctkpre_section(&db->in[PRE_PROFILE], PRE_PROFILE_HDR_SIZE,
		                                  db->idt_off, db->idt_size,
		                                  "Identifier Tuple section")) < 0)
			return r;
	}
	if (db->present[PRE_CCT] && (r = db_header(db, PRE_CCT, &h, &db->n_ctx, &db->ci_off)) < 0)
		return r;
	if (db->present[PRE_TRACE]) {
		if ((r = db_header(db, PRE_TRACE, &h, &db->n_traces, &db->th_off)) < 0)
			return r;
		db->min_time = pre_trace_min_ts(h);
		db->max_time = pre_trace_max_ts(h);
	}
	return 0;
}

/* Which .db file a buffer is, from its magic: PRE_* or -1. */
static int classify(const unsigned char *p, uint64_t size)
{
	if (size < 16)
		return -1;
	for (int f = 0; f < PRE_META; f++)
		if (memcmp(p, files[f].magic, 16) == 0)
			return f;
	if (memcmp(p, DRAFT_MAGIC, 16) == 0)
		return PRE_META;
	return -1;
}

static int check_db(profdb_hpctkpre *db, int f)
{
	const profdb__input *in = &db->in[f];
	if (in->size < PRE_DB_HDR || memcmp(in->base, files[f].magic, PRE_DB_MAGIC_SIZE) != 0) {
		if (in->size >= 16 && memcmp(in->base, "HPCTOOLKIT", 10) == 0)
			return profdb__fail(-EPROTONOSUPPORT,
			                    "%s: an HPCToolkit 4.0 file (magic \"%.14s\"), not a "
			                    "pre-release %s: open it with profdb_hpctk_open",
			                    in->name, (const char *)in->base, files[f].file);
		if (in->size < 16 || memcmp(in->base, files[f].magic, 16) != 0)
			return profdb__fail(-EPROTONOSUPPORT,
			                    "%s: bad magic at offset 0x0: expected \"%s\"", in->name,
			                    files[f].magic);
		return profdb__fail(-ENODATA, "%s: %" PRIu64 " bytes is too short for a header",
		                    in->name, in->size);
	}
	uint8_t major = pre_db_major(in->base), minor = pre_db_minor(in->base);
	/* Real files say 1.0; the pre-release document says 4.0 for the same
	 * layout. Anything else is a layout we have never seen. */
	if (major != 1 && major != 4)
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: version %u.%u at offset 0x10 is not supported (1.0 as "
		                    "real files have it, or 4.0 as the document says)",
		                    in->name, major, minor);
	if (minor != 0)
		profdb__warn(&db->opts, "%s: minor version %u.%u is newer than any known; reading "
		             "the %u.0 layout", in->name, major, minor, major);
	if (!files[f].footer)
		return 0;
	/* The footer is a u64 constant written in host order: x86 files read
	 * it byte-reversed. A file without it is cut short (or not finished). */
	if (in->size < 0x20 || (memcmp(in->tail, files[f].footer, 8) != 0 &&
	                        memcmp(in->tail, files[f].footer_be, 8) != 0))
		return profdb__fail(-ENODATA,
		                    "%s: footer at offset 0x%" PRIx64 " is not \"%s\" or \"%s\" "
		                    "(truncated or not a complete file)", in->name,
		                    in->size >= 8 ? in->size - 8 : 0, files[f].footer,
		                    files[f].footer_be);
	return 0;
}

/* A buffer in the META slot: draft meta.db or experiment.xml? */
static int meta_kind(const profdb__input *in)
{
	if (in->size >= 16 && memcmp(in->base, DRAFT_MAGIC, 16) == 0)
		return PROFDB_HPCTKPRE_META_DRAFT;
	if (in->size >= 14 && memcmp(in->base, "HPCTOOLKITmeta", 14) == 0)
		return -1;
	return PROFDB_HPCTKPRE_META_XML;
}

static int finish_open(profdb_hpctkpre *db)
{
	int r, any = 0;
	for (int f = 0; f < PRE_META; f++)
		if (db->present[f]) {
			any = 1;
			if ((r = check_db(db, f)) < 0)
				return r;
		}
	if (db->present[PRE_META]) {
		any = 1;
		db->meta_kind = meta_kind(&db->in[PRE_META]);
		if (db->meta_kind < 0)
			return profdb__fail(-EPROTONOSUPPORT,
			                    "%s: an HPCToolkit 4.0 meta.db, not a draft meta.db "
			                    "(HPCTOOLKIT_expmt) or experiment.xml: open the directory "
			                    "with profdb_hpctk_open", db->in[PRE_META].name);
	}
	if (!any)
		return profdb__fail(-ENOENT, "no pre-release HPCToolkit file given");
	if ((r = read_headers(db)) < 0)
		return r;
	if (db->meta_kind == PROFDB_HPCTKPRE_META_XML && (r = profdb__hpctkpre_xml_parse(db)) < 0)
		return r;
	if (db->meta_kind == PROFDB_HPCTKPRE_META_DRAFT &&
	    (r = profdb__hpctkpre_draft_parse(db)) < 0)
		return r;
	if ((r = profdb__hpctkpre_meta_finish(db)) < 0 || (r = profdb__hpctkpre_cross_check(db)) < 0)
		return r;
	if (db->old && (r = profdb__hpctkpre_old_finish(db)) < 0)
		return r;
	/* One "validated" byte per block, bounded by the blocks' table sizes
	 * (checked inside the files above). */
	return profdb__block_state_alloc(&db->ok, db->n_profiles, db->n_ctx, db->n_traces);
}

static profdb_hpctkpre *alloc_db(const profdb_options *opts)
{
	profdb_hpctkpre *db = calloc(1, sizeof *db);
	if (!db)
		return NULL;
	profdb__options_copy(&db->opts, opts);
	atomic_init(&db->warned_zero_cct, false);
	return db;
}

PROFDB_EXPORT void profdb_hpctkpre_close(profdb_hpctkpre *db)
{
	if (!db)
		return;
	for (int f = 0; f < PRE_NFILES; f++) {
		profdb__input_close(&db->in[f]);
		free(db->names[f]);
	}
	free(db->arena);
	free(db->metrics);
	for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++)
		free(db->tab[t]);
	free(db->nodes);
	free(db->node_keys);
	free(db->metric_keys);
	profdb__hpctkpre_old_free(db);
	profdb__block_state_free(&db->ok);
	free(db);
}

static int add_file(profdb_hpctkpre *db, int f, const char *path)
{
	char *name = strdup(path);
	if (!name)
		return profdb__fail(-ENOMEM, "out of memory");
	db->names[f] = name;
	int r = profdb__input_open(&db->in[f], path, name, db->opts.flags);
	if (r < 0)
		return r;
	db->present[f] = 1;
	return 0;
}

static int open_dir(profdb_hpctkpre *db, const char *path)
{
	char *full;
	int r;
	for (int f = 0; f < PRE_NFILES; f++) {
		if (asprintf(&full, "%s/%s", path, files[f].file) < 0)
			return profdb__fail(-ENOMEM, "out of memory");
		/* A draft database would have meta.db instead of experiment.xml. */
		r = profdb__entry_present(full);
		if (f == PRE_META && r == 0) {
			free(full);
			if (asprintf(&full, "%s/meta.db", path) < 0)
				return profdb__fail(-ENOMEM, "out of memory");
			r = profdb__entry_present(full);
		}
		if (r > 0)
			r = add_file(db, f, full);
		free(full);
		if (r < 0)
			return r;
	}
	/* experiment.xml without profile.db: an old database, whose values
	 * are the XML's own and those of its .metric-db records (if any). */
	if (!db->present[PRE_PROFILE] && !db->present[PRE_CCT] && !db->present[PRE_TRACE] &&
	    db->present[PRE_META] && meta_kind(&db->in[PRE_META]) == PROFDB_HPCTKPRE_META_XML)
		return profdb__hpctkpre_old_open(db, path);
	if (!db->present[PRE_PROFILE] && !db->present[PRE_META])
		return profdb__fail(-ENOENT, "%s: no profile.db, experiment.xml or meta.db in this "
		                    "directory", path);
	return 0;
}

static int member_of_folder(const char *path)
{
	int k = profdb__hpctkpre_old_file(path);
	return strcmp(profdb__base_name(path), "experiment.xml") == 0 || k == PRE_FILE_RECORD ||
	       k == PRE_FILE_PACKED;
}

static int open_file(profdb_hpctkpre *db, const char *path)
{
	profdb__input in;
	char *name = strdup(path);
	if (!name)
		return profdb__fail(-ENOMEM, "out of memory");
	int r = profdb__input_open(&in, path, name, db->opts.flags);
	if (r < 0) {
		free(name);
		return r;
	}
	int f = classify(in.base, in.size);
	if (f < 0) {
		size_t n = strlen(path);
		int xml = n >= 4 && strcmp(path + n - 4, ".xml") == 0;
		profdb__input_close(&in);
		free(name);
		if (xml)
			return profdb__fail(-EPROTONOSUPPORT,
			                    "%s: an XML file that is not the experiment.xml of a database "
			                    "folder: open the folder", path);
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: not a pre-release HPCToolkit file (magic at offset 0x0 is "
		                    "not HPCPROF-profdb__/cctdb___/tracedb_ or HPCTOOLKIT_expmt)",
		                    path);
	}
	db->in[f] = in;
	db->names[f] = name;
	db->present[f] = 1;
	return 0;
}

/* The last step of every open: after the files are in (@p r the result so
 * far), finish the database and hand it out, or close it on any error. */
static int finish_or_close(profdb_hpctkpre *db, int r, profdb_hpctkpre **ret)
{
	if (r >= 0)
		r = finish_open(db);
	if (r < 0) {
		profdb_hpctkpre_close(db);
		return r;
	}
	*ret = db;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_open(profdb_hpctkpre **ret, const char *path,
                                       const profdb_options *opts)
{
	struct stat st;
	if (ret)
		*ret = NULL;
	if (!ret || !path)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_open: NULL argument");
	int opts_ok = profdb__options_check(opts, "profdb_hpctkpre_open");
	if (opts_ok < 0)
		return opts_ok;
	if (stat(path, &st) < 0)
		return profdb__fail(-errno, "%s: %s", path, strerror(errno));
	profdb_hpctkpre *db = alloc_db(opts);
	if (!db)
		return profdb__fail(-ENOMEM, "out of memory");
	int r;
	if (S_ISDIR(st.st_mode)) {
		r = open_dir(db, path);
	} else if (member_of_folder(path)) {
		/* experiment.xml and the .metric-db/.mdb files are read with their
		 * folder: one of them alone is not a database. */
		char *dir = strdup(path);
		if (!dir) {
			profdb_hpctkpre_close(db);
			return profdb__fail(-ENOMEM, "out of memory");
		}
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		r = open_dir(db, !slash ? "." : dir[0] ? dir : "/");
		free(dir);
	} else {
		r = open_file(db, path);
	}
	return finish_or_close(db, r, ret);
}

PROFDB_EXPORT int profdb_hpctkpre_open_mem(profdb_hpctkpre **ret,
                                           const profdb_input files_in[PROFDB_HPCTKPRE_NFILES],
                                           const profdb_options *opts)
{
	if (ret)
		*ret = NULL;
	if (!ret || !files_in)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_open_mem: NULL argument");
	int opts_ok = profdb__options_check(opts, "profdb_hpctkpre_open_mem");
	if (opts_ok < 0)
		return opts_ok;
	profdb_hpctkpre *db = alloc_db(opts);
	if (!db)
		return profdb__fail(-ENOMEM, "out of memory");
	for (int f = 0; f < PRE_NFILES; f++) {
		const profdb_input *in = &files_in[f];
		if (!in->data)
			continue;
		const char *name = in->name ? in->name : files[f].file;
		if (!in->name && f == PRE_META && in->size >= 16 &&
		    memcmp(in->data, DRAFT_MAGIC, 16) == 0)
			name = "meta.db";
		profdb__input_mem(&db->in[f], in->data, in->size, name);
		db->present[f] = 1;
	}
	return finish_or_close(db, 0, ret);
}

int profdb__hpctkpre_open_old_mem(profdb_hpctkpre **ret, const profdb_input *xml,
                                  const profdb_input *records, size_t n,
                                  const profdb_options *opts)
{
	*ret = NULL;
	profdb_hpctkpre *db = alloc_db(opts);
	if (!db)
		return profdb__fail(-ENOMEM, "out of memory");
	profdb__input_mem(&db->in[PRE_META], xml->data, xml->size,
	                  xml->name ? xml->name : "experiment.xml");
	db->present[PRE_META] = 1;
	int r = profdb__hpctkpre_old_open_mem(db, records, n);
	return finish_or_close(db, r, ret);
}

PROFDB_EXPORT int profdb_hpctkpre_version(const profdb_hpctkpre *db, profdb_hpctkpre_file which,
                                          uint8_t *major, uint8_t *minor)
{
	if (!db || !major || !minor || (unsigned)which >= PRE_NFILES)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_version: bad argument");
	*major = *minor = 0;
	int r = profdb__hpctkpre_require(db, which);
	if (r < 0)
		return r;
	unsigned ma = 0, mi = 0;
	if ((int)which != PRE_META || db->meta_kind == PROFDB_HPCTKPRE_META_DRAFT) {
		ma = pre_db_major(db->in[which].base);   /* same place in the draft meta.db */
		mi = pre_db_minor(db->in[which].base);
	} else if (db->meta_version) {
		/* "4.0": parsed leniently; anything else reads as 0.0 */
		if (sscanf(db->meta_version, "%3u.%3u", &ma, &mi) < 1)
			ma = mi = 0;
	}
	*major = (uint8_t)ma;
	*minor = (uint8_t)mi;
	return 0;
}

PROFDB_EXPORT int profdb_hpctkpre_get_info(const profdb_hpctkpre *db, profdb_hpctkpre_info *out)
{
	if (!db || !out)
		return profdb__fail(-EINVAL, "profdb_hpctkpre_get_info: NULL argument");
	memset(out, 0, sizeof *out);
	out->meta_kind = db->meta_kind;
	out->title = profdb__hpctkpre_str(db->title);
	out->n_metrics = db->n_metrics;
	out->n_contexts = db->n_nodes;
	out->n_profiles = db->n_profiles;
	out->n_ctx_slots = db->n_ctx;
	out->n_traces = db->n_traces;
	for (int t = 0; t < PROFDB_HPCTKPRE_NTABLES; t++)
		out->n_table[t] = db->n_tab[t];
	out->min_time = db->min_time;
	out->max_time = db->max_time;
	return 0;
}
