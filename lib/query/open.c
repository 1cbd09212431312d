/* profdb_open() and profdb_open_inputs(): decide the format from the bytes
 * (and, for directories, from which files are there), then let the
 * backend open it.
 *
 * Directory rules, in order (doc/model.md, "Detection"):
 *  1. experiment.xml next to *.metric-db files or a packed *.mdb: the old
 *     HPCToolkit database (releases up to 2022.05);
 *  2. meta.db, then profile.db, cct.db, trace.db: the first one present
 *     decides, by its magic (4.0 "HPCTOOLKIT...", draft
 *     "HPCTOOLKIT_expmt", pre-release "HPCPROF-...");
 *  3. experiment.xml without any of those: an old database whose values
 *     are the ones the XML prints (hpcprof run without metric-db output);
 *  4. a .hpcrun or .hpctrace file: a measurements directory.
 * experiment.xml, experiment.mt, a .metric-db or an .mdb file, or a
 * .hpctrace beside experiment.xml, named alone opens its folder by these
 * rules.
 * A file is read up to PROFDB__QUERY_HEAD bytes and offered to each backend's
 * sniff() in registry order; an empty file, to each backend's sniff_empty()
 * (which may judge it by the files beside it). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "query-internal.h"
#include "../core/gunzip-internal.h"

/* ---- reading heads ------------------------------------------------------- */

static int read_head(const char *path, unsigned char *buf, size_t *n)
{
	return profdb__read_head(path, buf, PROFDB__QUERY_HEAD, n);
}

static const profdb__backend *sniff(const unsigned char *head, size_t n, const char *name)
{
	const profdb__backend *const *be = profdb__query_backends(NULL);
	for (; *be; be++)
		if ((*be)->sniff && (*be)->sniff(head, n, name))
			return *be;
	return NULL;
}

/* An empty file no backend's sniff() can judge: a backend may claim it
 * from the files beside it (Callgrind: the empty base file of a
 * --separate-threads set). */
static const profdb__backend *sniff_empty(const char *path)
{
	const profdb__backend *const *be = profdb__query_backends(NULL);
	for (; *be; be++)
		if ((*be)->sniff_empty && (*be)->sniff_empty(path))
			return *be;
	return NULL;
}

/* Room for the first bytes a gzip head inflates to, then no more. */
static int head_room(void *ud, uint64_t done, unsigned char **out, size_t *space)
{
	static _Thread_local unsigned char scratch[4096];
	(void)ud;
	if (done >= sizeof scratch)
		return -ECANCELED;   /* enough: the data inflate */
	*out = scratch + done;
	*space = sizeof scratch - (size_t)done;
	return 0;
}

/* A gzip input no backend accepted: say whether its gzip data are
 * damaged (and where), or what they inflate to. */
static int unsupported_gzip(const char *what, const unsigned char *head, size_t n,
                            const char *desc)
{
	uint64_t got;
	int r = profdb__gunzip(head, n, what, head_room, NULL, &got);
	if (r == -EBADMSG || r == -ENOTSUP)
		return r;   /* the message names the damage, or the missing zlib */
	if (got == 0 && n >= 12 && (head[3] & 4))
		return profdb__fail(-EBADMSG, "%s: found %s whose header declares an extra field "
		                    "(FEXTRA) of %u bytes, and nothing inflates after it: a damaged "
		                    "gzip header", what, desc, head[10] | (unsigned)head[11] << 8);
	if (got == 0)
		return profdb__fail(-EBADMSG, "%s: found %s, and nothing inflates from its first %zu "
		                    "bytes: a damaged gzip header", what, desc, n);
	return profdb__fail(-EPROTONOSUPPORT, "%s: found %s, which inflates to data that are not "
	                    "a supported profile; expected %s", what, desc, profdb__query_expected);
}

/* The message for an input no backend accepted. */
static int unsupported(const char *what, const unsigned char *head, size_t n, const char *name)
{
	char desc[160];
	profdb__query_describe(head, n, desc, sizeof desc);
	int readable;
	const char *resembles = profdb__query_resembles(head, n, name, &readable);
	if (profdb__is_gzip(head, n))
		return unsupported_gzip(what, head, n, desc);
	if (!resembles)
		return profdb__fail(-EPROTONOSUPPORT, "%s: not a supported profile: found %s; "
		                    "expected %s", what, desc, profdb__query_expected);
	if (readable)
		return profdb__fail(-EPROTONOSUPPORT,
		                    "%s: found %s, which resembles the %s format but is not a "
		                    "valid file of it (nor of any other supported format)", what,
		                    desc, resembles);
	return profdb__fail(-ENOTSUP,
	                    "%s: found %s, which looks like the %s format, but this build of "
	                    "profdb has no reader for it", what, desc, resembles);
}

/* ---- the handle ------------------------------------------------------------ */

static int finish(profdb **ret, const profdb__backend *be, void *impl, const profdb_options *o)
{
	profdb *db = calloc(1, sizeof *db);
	if (!db || profdb__views_new(&db->views) < 0) {
		free(db);
		be->close(impl);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	db->be = be;
	db->impl = impl;
	profdb__once_init(&db->edges_once);
	profdb__metric_data_init(db);
	profdb__options_copy(&db->opts, o);
	*ret = db;
	return 0;
}

static int open_with(profdb **ret, const profdb__backend *be, const char *path,
                     const profdb_options *opts)
{
	void *impl = NULL;
	if (!be->open_path)
		return profdb__fail(-ENOTSUP, "%s: the %s backend cannot open paths", path,
		                    profdb_format_name(be->format));
	int r = be->open_path(&impl, path, opts);
	if (r < 0)
		return r;
	return finish(ret, be, impl, opts);
}

/* The old HPCToolkit database (experiment.xml with .metric-db files or a
 * packed experiment-N.mdb, or experiment.xml alone) in folder @p dir. */
static int old_format(profdb **ret, const char *dir, const char *what,
                      const profdb_options *opts)
{
	const profdb__backend *be = profdb__query_xml_backend();
	if (!be)
		return profdb__fail(-ENOTSUP, "%s: an HPCToolkit experiment.xml database, but this "
		                    "build of profdb has no reader for it", what);
	return open_with(ret, be, dir, opts);
}

/* ---- directories ----------------------------------------------------------- */

typedef struct dir_scan {
	int has_xml, has_metric_db;
	char *hpcrun;          /* first .hpcrun/.hpctrace entry (malloc'ed) */
	uint64_t entries;
	char sample[3][64];    /* a few names, for the message */
	unsigned n_sample;
} dir_scan;

static int scan_dir(const char *path, dir_scan *s)
{
	memset(s, 0, sizeof *s);
	DIR *d = opendir(path);
	if (!d)
		return profdb__fail(-errno, "%s: cannot read the directory: %s", path,
		                    strerror(errno));
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		s->entries++;
		if (s->n_sample < 3)
			snprintf(s->sample[s->n_sample++], sizeof s->sample[0], "%.63s", n);
		if (strcmp(n, "experiment.xml") == 0)
			s->has_xml = 1;
		else if (profdb__ends_with(n, ".metric-db") || profdb__ends_with(n, ".mdb"))
			s->has_metric_db = 1;
		else if (!s->hpcrun && (profdb__ends_with(n, ".hpcrun") ||
		                        profdb__ends_with(n, ".hpctrace"))) {
			s->hpcrun = strdup(n);
			if (!s->hpcrun) {
				closedir(d);
				return profdb__fail(-ENOMEM, "out of memory");
			}
		}
	}
	closedir(d);
	return 0;
}

/* Offer @p dir/@p name to the backends; 1 opened, 0 absent, < 0 error. */
static int try_member(profdb **ret, const char *dir, const char *name,
                      const profdb_options *opts)
{
	unsigned char head[PROFDB__QUERY_HEAD];
	size_t n;
	char *full;
	if (asprintf(&full, "%s/%s", dir, name) < 0)
		return profdb__fail(-ENOMEM, "out of memory");
	/* Absent is "try the next rule"; a FIFO, a link that cannot be
	 * followed or a file that cannot be read is an error naming it. */
	int r = profdb__path_problem(full);
	if (r <= 0) {
		free(full);
		return r;
	}
	r = read_head(full, head, &n);
	if (r == 0) {
		const profdb__backend *be = sniff(head, n, name);
		r = be ? open_with(ret, be, dir, opts) : unsupported(full, head, n, name);
		if (r == 0)
			r = 1;
	}
	free(full);
	return r;
}

static int open_dir(profdb **ret, const char *path, const profdb_options *opts)
{
	static const char *const dbs[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	dir_scan s;
	int r = scan_dir(path, &s);
	if (r < 0)
		return r;
	if (s.has_xml && s.has_metric_db) {
		r = old_format(ret, path, path, opts);
		goto out;
	}
	for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++)
		if ((r = try_member(ret, path, dbs[i], opts)) != 0)
			goto out;
	if (s.has_xml) {
		r = old_format(ret, path, path, opts);
		goto out;
	}
	if (s.hpcrun && (r = try_member(ret, path, s.hpcrun, opts)) != 0)
		goto out;
	if (s.entries == 0) {
		r = profdb__fail(-EPROTONOSUPPORT, "%s: the directory is empty; expected %s", path,
		                 profdb__query_expected_dir);
	} else {
		char names[3 * 70] = "";
		size_t k = 0;
		for (unsigned i = 0; i < s.n_sample; i++)
			k += (size_t)snprintf(names + k, sizeof names - k, "%s\"%s\"", i ? ", " : "",
			                      s.sample[i]);
		r = profdb__fail(-EPROTONOSUPPORT,
		                 "%s: no profile found in this directory (%llu entries: %s%s); "
		                 "expected %s", path, (unsigned long long)s.entries, names,
		                 s.entries > s.n_sample ? ", ..." : "", profdb__query_expected_dir);
	}
out:
	free(s.hpcrun);
	return r < 0 ? r : 0;
}

/* ---- public ---------------------------------------------------------------- */

/* Whether experiment.xml is in the folder of file @p path (a .hpctrace
 * there is a trace of that database, not of an hpcrun measurement). */
static int beside_xml(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *xml;
	if (asprintf(&xml, "%.*sexperiment.xml", slash ? (int)(slash - path + 1) : 0, path) < 0)
		return 0;
	struct stat st;
	int r = stat(xml, &st) == 0 && S_ISREG(st.st_mode);
	free(xml);
	return r;
}

PROFDB_EXPORT int profdb_open(profdb **ret, const char *path, const profdb_options *opts)
{
	struct stat st;
	if (ret)
		*ret = NULL;
	if (!ret || !path)
		return profdb__fail(-EINVAL, "profdb_open: NULL argument");
	int rc = profdb__options_check(opts, "profdb_open");
	if (rc < 0)
		return rc;
	if (stat(path, &st) < 0) {
		int e = errno, r = profdb__path_problem(path);   /* names a broken link */
		return r < 0 ? r : profdb__fail(-e, "%s: %s", path, strerror(e));
	}
	if (S_ISDIR(st.st_mode))
		return open_dir(ret, path, opts);
	if (!S_ISREG(st.st_mode)) {
		int r = profdb__path_problem(path);   /* names what it is: a FIFO, ... */
		return r < 0 ? r : profdb__fail(-EINVAL, "%s: not a regular file", path);
	}

	const char *name = profdb__base_name(path);
	if (profdb__ends_with(name, ".metric-db") || profdb__ends_with(name, ".mdb") ||
	    strcmp(name, "experiment.xml") == 0 || strcmp(name, "experiment.mt") == 0 ||
	    (profdb__ends_with(name, ".hpctrace") && beside_xml(path))) {
		/* A member of a database folder: the folder decides. */
		char *dir = strdup(path);
		if (!dir)
			return profdb__fail(-ENOMEM, "out of memory");
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		int r = open_dir(ret, slash ? (dir[0] ? dir : "/") : ".", opts);
		free(dir);
		return r;
	}
	unsigned char head[PROFDB__QUERY_HEAD];
	size_t n;
	int r = read_head(path, head, &n);
	if (r < 0)
		return r;
	const profdb__backend *be = sniff(head, n, name);
	if (!be && n == 0)
		be = sniff_empty(path);
	if (be)
		return open_with(ret, be, path, opts);
	return unsupported(path, head, n, name);
}

/* A trace an old experiment.xml database may hold: *.hpctrace, an
 * experiment.mt, or a buffer with hpcrun's trace magic. */
static int old_trace_input(const profdb_input *in)
{
	const char *name = in->name ? in->name : "";
	return profdb__ends_with(name, ".hpctrace") || profdb__ends_with(name, ".mt") ||
	       (in->size >= 12 && memcmp(in->data, "HPCRUN-trace", 12) == 0);
}

PROFDB_EXPORT int profdb_open_inputs(profdb **ret, const profdb_input *inputs, size_t n,
                                     const profdb_options *opts)
{
	if (ret)
		*ret = NULL;
	if (!ret || !inputs || n == 0)
		return profdb__fail(-EINVAL, "profdb_open_inputs: %s",
		                    n == 0 && ret && inputs ? "no inputs" : "NULL argument");
	int rc = profdb__options_check(opts, "profdb_open_inputs");
	if (rc < 0)
		return rc;
	const profdb__backend *chosen = NULL;
	size_t chosen_at = 0;
	/* .metric-db records, or experiment.xml with traces: the old
	 * experiment.xml database, whose traces are not an hpcrun set */
	int old = 0, xml = 0, traces = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = inputs[i].name ? inputs[i].name : "";
		if (!inputs[i].data && inputs[i].size)
			return profdb__fail(-EINVAL, "profdb_open_inputs: input %zu (\"%s\") has no data "
			                    "but %zu bytes", i, name, inputs[i].size);
		if (profdb__ends_with(name, ".metric-db") || profdb__ends_with(name, ".mdb") ||
		    (inputs[i].size >= 16 && memcmp(inputs[i].data, "HPCPROF-metricdb", 16) == 0))
			old = 1;
		xml |= strcmp(profdb__base_name(name), "experiment.xml") == 0;
		traces |= old_trace_input(&inputs[i]);
	}
	old |= xml && traces;
	for (size_t i = 0; i < n; i++) {
		const char *name = inputs[i].name ? profdb__base_name(inputs[i].name) : "";
		if (old && old_trace_input(&inputs[i]))
			continue;   /* a trace of the old database */
		size_t k = inputs[i].size < PROFDB__QUERY_HEAD ? inputs[i].size : PROFDB__QUERY_HEAD;
		const unsigned char *head = inputs[i].data ? inputs[i].data : (const unsigned char *)"";
		const profdb__backend *be = sniff(head, k, name);
		if (!be)
			continue;   /* a companion file (experiment.xml, ...): the backend sorts it */
		if (chosen && be != chosen)
			return profdb__fail(-EINVAL,
			                    "profdb_open_inputs: the inputs mix formats: \"%s\" is %s, "
			                    "\"%s\" is %s", inputs[chosen_at].name ? inputs[chosen_at].name
			                    : "", profdb_format_name(chosen->format), name,
			                    profdb_format_name(be->format));
		if (!chosen) {
			chosen = be;
			chosen_at = i;
		}
	}
	if (old) {
		const profdb__backend *x = profdb__query_xml_backend();
		if (!x)
			return profdb__fail(-ENOTSUP, "profdb_open_inputs: .metric-db records of an "
			                    "HPCToolkit experiment.xml database, but this build of profdb "
			                    "has no reader for them");
		if (chosen && chosen != x)
			return profdb__fail(-EINVAL, "profdb_open_inputs: the inputs mix formats: "
			                    ".metric-db records and \"%s\", which is %s",
			                    inputs[chosen_at].name ? inputs[chosen_at].name : "",
			                    profdb_format_name(chosen->format));
		chosen = x;
	}
	if (!chosen) {
		const char *name = inputs[0].name ? inputs[0].name : "input 0";
		size_t k = inputs[0].size < PROFDB__QUERY_HEAD ? inputs[0].size : PROFDB__QUERY_HEAD;
		const unsigned char *head = inputs[0].data ? inputs[0].data : (const unsigned char *)"";
		return unsupported(name, head, k, profdb__base_name(name));
	}
	if (!chosen->open_inputs)
		return profdb__fail(-ENOTSUP, "the %s backend cannot open memory buffers",
		                    profdb_format_name(chosen->format));
	void *impl = NULL;
	int r = chosen->open_inputs(&impl, inputs, n, opts);
	if (r < 0)
		return r;
	return finish(ret, chosen, impl, opts);
}

PROFDB_EXPORT void profdb_close(profdb *db)
{
	if (!db)
		return;
	db->be->close(db->impl);
	profdb__views_free(db->views);
	profdb__edges_free(db->edges);
	profdb__once_destroy(&db->edges_once);
	profdb__metric_data_free(db);
	free(db);
}
