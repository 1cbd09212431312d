/* The common query interface (lib/query): the handle every format hides
 * behind, the backend registry and the detection helpers shared by the
 * files of this folder. */
#ifndef PROFDB_QUERY_QUERY_H
#define PROFDB_QUERY_QUERY_H

#include "../core/backend-internal.h"
#include "profdb/analysis.h"

/* The views materialised for a handle (views.c). */
typedef struct profdb__views profdb__views;
int profdb__views_new(profdb__views **out);
void profdb__views_free(profdb__views *v);

struct profdb {
	const profdb__backend *be;
	void *impl;                 /* the backend's handle */
	profdb_options opts;        /* the caller's options, size-normalised */
	profdb__views *views;       /* materialised views, kept until close */
	/* The backend's profile count once it answered (0: not asked yet),
	 * so that checking a profile index costs no call per lookup. */
	_Atomic int64_t n_profiles;
	/* The call edges (edges.c), built on first use. */
	profdb__once edges_once;
	struct profdb__edges *edges;
	/* Which metrics have a non-zero stored value (metric-data.c), built
	 * once on first use. */
	profdb__once metric_data_once;
	struct profdb__metric_data *metric_data;
};

/* Free what edges.c built for @p db (NULL is a no-op). */
void profdb__edges_free(struct profdb__edges *e);

/* metric-data.c: set up and free the handle's metric data. */
void profdb__metric_data_init(profdb *db);
void profdb__metric_data_free(profdb *db);

/* The one range check of a profile index, made by every public function
 * that takes one before it calls the backend (which may then rely on it):
 * 0, or -ENOENT naming @p fn, the index and the count (or the count's own
 * error). */
int profdb__query_check_profile(const profdb *db, uint32_t profile, const char *fn);

/* The one existence check of a context id, made by every public function
 * that takes one: the id must be one profdb_context_get() answers (a tree
 * node, or an id with stored values), so that an unknown id is -ENOENT
 * from the values, the scans and the views alike, never "not stored".
 * 0, or the backend's code (-ENOENT, or what building the tree met). */
int profdb__query_check_context(const profdb *db, uint32_t context, const char *fn);

/* The backends this build has, in detection order (registry.c). The list
 * ends with NULL; *n (may be NULL) gets the count. */
const profdb__backend *const *profdb__query_backends(size_t *n);
/* The backend that reads HPCToolkit's experiment.xml databases (the
 * pre-release one), or NULL when this build has none. */
const profdb__backend *profdb__query_xml_backend(void);

/* How many leading bytes detection reads from a file (enough for a tar
 * header's "ustar" magic at offset 257 and a few text lines). */
#define PROFDB__QUERY_HEAD 4096

/* A short human description of what @p head looks like ("HPCToolkit 4.0
 * meta.db (magic HPCTOOLKITmeta)", "gzip data", "text beginning
 * \"...\"") for error messages. Writes at most @p cap bytes to @p buf. */
void profdb__query_describe(const unsigned char *head, size_t n, char *buf, size_t cap);

/* For an input no backend accepted: the name of the format its magic
 * number or its text resembles, or NULL for none; *readable = 1 when this build
 * has a backend for that format (the input is then a damaged file of it),
 * else 0. */
const char *profdb__query_resembles(const unsigned char *head, size_t n, const char *name,
                                   int *readable);

/* What the formats this library knows look like, for "expected ..." in
 * error messages. */
extern const char profdb__query_expected[];
extern const char profdb__query_expected_dir[];

#endif
