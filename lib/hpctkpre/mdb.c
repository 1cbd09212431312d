/* Old HPCToolkit databases (hpcprof and hpcprof-mpi releases up to
 * 2022.05): experiment.xml, which holds the metric tables, the tree and
 * the summary values it prints in <M n= v=/> elements, plus the values of
 * each thread as a .metric-db record, either one file per thread or all
 * records packed into one experiment-N.mdb (doc/FORMATS.md, "Old
 * experiment.xml databases").
 *
 * A record is a 32-byte header ("HPCPROF-metricdb__" "00.10" "b", u32
 * rows, u32 metrics, big-endian) and rows x metrics big-endian f64, dense:
 * row r holds context r + 1, column k the <MetricDB db-id="k">. The rows
 * are read in place from the mapping; a zero cell is "not stored"
 * (doc/model.md). Checked at open: every header, that the rows lie inside
 * their file, and, once the XML is parsed, the row and column counts
 * against the tree and the metric table. The traces beside them (*.hpctrace,
 * experiment.mt) are read by xtrace.c; here each joins the profile of its
 * rank and thread. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"
#include "../core/backend-internal.h"
#include "../core/search-internal.h"



/* The record at @p off of input @p file, ending at or before @p end. */
static int read_record(profdb_hpctkpre *db, uint32_t file, uint64_t off, uint64_t end,
                       pre_mdb *out)
{
	const profdb__input *in = &db->o.in[file];
	const unsigned char *h;
	uint64_t cells, bytes;
	int r = profdb__span(in, 0, end, off, PRE_MDB_HDR, "metric-db header", &h);
	if (r < 0)
		return r;
	if (memcmp(h, PRE_MDB_MAGIC, PRE_MDB_MAGIC_LEN) != 0)
		return profdb__fail(-EBADMSG, "%s: metric-db header at 0x%" PRIx64 ": magic is not "
		                    "\"" PRE_MDB_MAGIC "\"", in->name, off);
	if (memcmp(h + PRE_MDB_MAGIC_LEN, PRE_MDB_VERSION "b", 6) != 0)
		return profdb__fail(-EPROTONOSUPPORT, "%s: metric-db header at 0x%" PRIx64 ": version "
		                    "\"%.5s%c\" at 0x%" PRIx64 " is not \"" PRE_MDB_VERSION "b\" (the only "
		                    "one hpcprof wrote)", in->name, off, (const char *)h + PRE_MDB_MAGIC_LEN,
		                    h[PRE_MDB_ENDIAN] >= 0x20 && h[PRE_MDB_ENDIAN] < 0x7f ?
		                    h[PRE_MDB_ENDIAN] : '?', off + PRE_MDB_MAGIC_LEN);
	memset(out, 0, sizeof *out);
	out->n_rows = pre_mdb_rows(h);
	out->n_metrics = pre_mdb_metrics(h);
	if ((r = profdb__mul(in, out->n_rows, out->n_metrics, "metric-db rows", &cells)) < 0 ||
	    (r = profdb__mul(in, cells, 8, "metric-db rows", &bytes)) < 0)
		return r;
	if ((r = profdb__span(in, 0, end, off + PRE_MDB_HDR, bytes, "metric-db rows", &h)) < 0)
		return r;
	out->rows = bytes ? h : NULL;
	out->file = file;
	out->offset = off;
	return 0;
}

void profdb__hpctkpre_old_identity(const char *name, const char *suffix, int *has_id,
                                   uint32_t *rank, uint32_t *thread)
{
	const char *field[6];
	size_t len = strlen(name) - strlen(suffix);
	int k = 0;
	*has_id = 0;
	for (size_t i = len; i-- > 0 && k < 5;)
		if (name[i] == '-')
			field[k++] = name + i + 1;
	if (k < 5)
		return;
	unsigned long v[2];
	for (int j = 0; j < 2; j++) {
		const char *s = field[4 - j];
		char *e;
		if (*s < '0' || *s > '9')
			return;
		v[j] = strtoul(s, &e, 10);
		if (*e != '-' || v[j] > UINT32_MAX)
			return;
	}
	*has_id = 1;
	*rank = (uint32_t)v[0];
	*thread = (uint32_t)v[1];
}

static int add_record(profdb_hpctkpre *db, const pre_mdb *m, size_t *cap)
{
	int r = profdb__grow((void **)&db->o.mdb, cap, (size_t)db->o.n_mdb + 1, sizeof *m);
	if (r < 0)
		return r;
	db->o.mdb[db->o.n_mdb++] = *m;
	return 0;
}

/* A damaged record: an error, or in tolerant mode a warning and no profile. */
static int damaged(const profdb_hpctkpre *db, int r, const char *name)
{
	return profdb__tolerate(&db->opts, r, NULL, "the thread of %s", name);
}

static int read_loose(profdb_hpctkpre *db, uint32_t file, size_t *cap)
{
	const profdb__input *in = &db->o.in[file];
	pre_mdb m;
	int r = read_record(db, file, 0, in->size, &m);
	if (r == 0 && PRE_MDB_HDR + (uint64_t)m.n_rows * m.n_metrics * 8 != in->size)
		r = profdb__fail(-EBADMSG, "%s: %" PRIu64 " bytes, but its header (%" PRIu32 " rows "
		                 "of %" PRIu32 " metrics) says %" PRIu64, in->name, in->size, m.n_rows,
		                 m.n_metrics, PRE_MDB_HDR + (uint64_t)m.n_rows * m.n_metrics * 8);
	if (r < 0)
		return damaged(db, r, in->name);
	m.name = in->name;
	m.trace = PROFDB_NONE;
	profdb__hpctkpre_old_identity(in->name, ".metric-db", &m.has_id, &m.rank, &m.thread);
	return add_record(db, &m, cap);
}

static int read_packed(profdb_hpctkpre *db, uint32_t file, size_t *cap)
{
	const profdb__input *in = &db->o.in[file];
	const unsigned char *h, *e;
	uint64_t bytes;
	int r = profdb__range(in, 0, PRE_PACK_HDR, "packed metric-db header", &h);
	if (r < 0)
		return r;
	uint32_t n = pre_pack_count(h);
	if ((r = profdb__mul(in, n, PRE_PACK_ENTRY, "packed metric-db offset table", &bytes)) < 0 ||
	    (r = profdb__range(in, PRE_PACK_HDR, bytes, "packed metric-db offset table", &e)) < 0)
		return r;
	for (uint32_t i = 0; i < n; i++, e += PRE_PACK_ENTRY) {
		pre_mdb m;
		uint64_t off = pre_pack_offset(e);
		if (off < PRE_PACK_HDR + bytes)
			r = profdb__fail(-EBADMSG, "%s: record %" PRIu32 " at 0x%" PRIx64 " overlaps the "
			                 "offset table", in->name, i, off);
		else
			r = read_record(db, file, off, in->size, &m);
		if (r < 0) {
			if ((r = damaged(db, r, in->name)) < 0)
				return r;
			continue;
		}
		m.name = in->name;
		m.has_id = 1;
		m.rank = pre_pack_rank(e);
		m.thread = pre_pack_thread(e);
		m.trace = PROFDB_NONE;
		if ((r = add_record(db, &m, cap)) < 0)
			return r;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The order of records and traces: those with a (rank, thread) first, by
 * rank, then thread; 0 when both have the same identity. */
static int cmp_identity(int x_has, uint32_t x_rank, uint32_t x_thread, int y_has,
                        uint32_t y_rank, uint32_t y_thread)
{
	if (x_has != y_has)
		return y_has - x_has;
	if (x_rank != y_rank)
		return x_rank < y_rank ? -1 : 1;
	if (x_thread != y_thread)
		return x_thread < y_thread ? -1 : 1;
	return 0;
}

static int cmp_mdb(const void *a, const void *b)
{
	const pre_mdb *x = a, *y = b;
	int c = cmp_identity(x->has_id, x->rank, x->thread, y->has_id, y->rank, y->thread);
	if (c == 0)
		c = strcmp(x->name, y->name);
	return c ? c : (x->offset > y->offset) - (x->offset < y->offset);
}

/* The .metric-db, .mdb, .hpctrace and .mt files of @p dir, sorted by name. */
static int list_files(profdb_hpctkpre *db, const char *dir)
{
	DIR *d = opendir(dir);
	size_t cap = 0;
	if (!d)
		return profdb__fail(-errno, "%s: cannot read the directory: %s", dir, strerror(errno));
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d))) {
		if (profdb__hpctkpre_old_file(de->d_name) == PRE_FILE_NONE)
			continue;
		char *full;
		if (asprintf(&full, "%s/%s", dir, de->d_name) < 0) {
			r = profdb__fail(-ENOMEM, "out of memory");
			break;
		}
		if ((r = profdb__grow((void **)&db->o.names, &cap, (size_t)db->o.n_in + 1,
		                      sizeof *db->o.names)) < 0) {
			free(full);
			break;
		}
		db->o.names[db->o.n_in++] = full;
	}
	closedir(d);
	if (r == 0 && db->o.n_in)
		qsort(db->o.names, db->o.n_in, sizeof *db->o.names, cmp_name);
	return r;
}

int profdb__hpctkpre_old_file(const char *name)
{
	static const char *const suffix[PRE_FILE_NONE] = {".metric-db", ".mdb", ".hpctrace", ".mt"};
	for (int k = 0; k < PRE_FILE_NONE; k++)
		if (profdb__ends_with(name, suffix[k]))
			return k;
	return PRE_FILE_NONE;
}

/* What an input holds: by its name (profdb__hpctkpre_old_file), else by
 * its magic; a packed file by the magic of its first entry. */
static int input_kind(const profdb__input *in)
{
	int k = profdb__hpctkpre_old_file(in->name);
	if (k != PRE_FILE_NONE)
		return k;
	if (in->size >= 12 && memcmp(in->base, "HPCRUN-trace", 12) == 0)
		return PRE_FILE_TRACE;
	if (in->size >= PRE_MDB_MAGIC_LEN && memcmp(in->base, PRE_MDB_MAGIC, PRE_MDB_MAGIC_LEN) == 0)
		return PRE_FILE_RECORD;
	if (in->size >= PRE_PACK_HDR + PRE_PACK_ENTRY) {
		uint64_t off = pre_pack_offset(in->base + PRE_PACK_HDR);
		if (off <= in->size && in->size - off >= 12 && memcmp(in->base + off, "HPCRUN-trace",
		                                                      12) == 0)
			return PRE_FILE_PACKED_TRACE;
	}
	return PRE_FILE_PACKED;
}

/* Profile k + 1 of record k: its label. */
static void name_profiles(profdb_hpctkpre *db)
{
	for (uint32_t i = 0; i < db->o.n_mdb; i++) {
		pre_mdb *m = &db->o.mdb[i];
		if (m->has_id)
			snprintf(m->label, sizeof m->label, "rank %" PRIu32 " thread %" PRIu32, m->rank,
			         m->thread);
		else
			snprintf(m->label, sizeof m->label, "%.47s", profdb__base_name(m->name));
	}
}

static int cmp_trace(const void *a, const void *b)
{
	const pre_xtrace *x = a, *y = b;
	int c = cmp_identity(x->has_id, x->rank, x->thread, y->has_id, y->rank, y->thread);
	if (c)
		return c;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

static int same_thread(int has_id, uint32_t rank, uint32_t thread, const pre_mdb *m)
{
	return has_id && m->has_id && m->rank == rank && m->thread == thread;
}

/* Record i sorts before the trace's (rank, thread): records without an
 * identity sort first. */
typedef struct record_key {
	const pre_mdb *mdb;
	const pre_xtrace *x;
} record_key;

static int record_before(const void *ctx, size_t i)
{
	const record_key *k = ctx;
	const pre_mdb *m = &k->mdb[i];
	const pre_xtrace *x = k->x;
	return m->has_id && (m->rank < x->rank || (m->rank == x->rank && m->thread < x->thread));
}

/* Each trace joins the record of its rank and thread (the records are
 * sorted); a trace without one (hpcprof writes no .metric-db by default)
 * gets a profile of its own, without values. Two traces of one thread:
 * an error, or in tolerant mode the second one is left out. */
static int link_traces(profdb_hpctkpre *db, size_t *cap)
{
	pre_old *o = &db->o;
	uint32_t n_records = o->n_mdb;
	if (o->n_tr)
		qsort(o->tr, o->n_tr, sizeof *o->tr, cmp_trace);
	for (uint32_t t = 0; t < o->n_tr; t++) {
		const pre_xtrace *x = &o->tr[t];
		const char *name = o->in[x->file].name;
		if (t > 0 && x->has_id && o->tr[t - 1].has_id && o->tr[t - 1].rank == x->rank &&
		    o->tr[t - 1].thread == x->thread) {
			int r = profdb__fail(-EBADMSG, "%s: a second trace of rank %" PRIu32 " thread %"
			                     PRIu32 " (trace at 0x%" PRIx64 ")", name, x->rank, x->thread,
			                     x->offset);
			if ((r = profdb__tolerate(&db->opts, r, NULL, "that trace")) < 0)
				return r;
			continue;
		}
		record_key key = {o->mdb, x};
		size_t lo = x->has_id ? profdb__lower_bound(0, n_records, &key, record_before) : 0;
		if (lo < n_records && same_thread(x->has_id, x->rank, x->thread, &o->mdb[lo])) {
			o->mdb[lo].trace = t;
			continue;
		}
		pre_mdb m = {0};
		m.name = name;
		m.file = x->file;
		m.offset = x->offset;
		m.has_id = x->has_id;
		m.rank = x->rank;
		m.thread = x->thread;
		m.trace = t;
		m.trace_only = 1;
		int r = add_record(db, &m, cap);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Read the records and traces of the inputs db->o.in[0 .. n_in-1], then
 * sort the records, join the traces to them and name the profiles. */
static int read_inputs(profdb_hpctkpre *db)
{
	size_t cap = 0;
	int r = 0;
	for (uint32_t i = 0; i < db->o.n_in && r == 0; i++) {
		switch (input_kind(&db->o.in[i])) {
		case PRE_FILE_RECORD: r = read_loose(db, i, &cap); break;
		case PRE_FILE_PACKED: r = read_packed(db, i, &cap); break;
		case PRE_FILE_TRACE: r = profdb__hpctkpre_old_read_trace(db, i, 0); break;
		default: r = profdb__hpctkpre_old_read_trace(db, i, 1); break;
		}
	}
	if (r < 0)
		return r;
	if (db->o.n_mdb)
		qsort(db->o.mdb, db->o.n_mdb, sizeof *db->o.mdb, cmp_mdb);
	uint32_t n_records = db->o.n_mdb;
	if ((r = link_traces(db, &cap)) < 0)
		return r;
	if (db->o.n_mdb > n_records)
		qsort(db->o.mdb, db->o.n_mdb, sizeof *db->o.mdb, cmp_mdb);
	name_profiles(db);
	return 0;
}

int profdb__hpctkpre_old_open(profdb_hpctkpre *db, const char *dir)
{
	db->old = 1;
	int r = list_files(db, dir);
	if (r < 0)
		return r;
	db->o.in = calloc(db->o.n_in ? db->o.n_in : 1, sizeof *db->o.in);
	if (!db->o.in)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < db->o.n_in; i++)
		if ((r = profdb__input_open(&db->o.in[i], db->o.names[i], db->o.names[i],
		                            db->opts.flags)) < 0)
			return r;
	return read_inputs(db);
}

int profdb__hpctkpre_old_open_mem(profdb_hpctkpre *db, const profdb_input *records, size_t n)
{
	db->old = 1;
	if (n > UINT32_MAX)
		return profdb__fail(-EINVAL, "%zu .metric-db buffers", n);
	db->o.in = calloc(n ? n : 1, sizeof *db->o.in);
	db->o.names = calloc(n ? n : 1, sizeof *db->o.names);
	if (!db->o.in || !db->o.names)
		return profdb__fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char *name = records[i].name ? strdup(records[i].name) : NULL;
		if (!name && (records[i].name || asprintf(&name, "metric-db input %zu", i) < 0))
			return profdb__fail(-ENOMEM, "out of memory");
		db->o.names[i] = name;
		db->o.n_in = (uint32_t)i + 1;
		profdb__input_mem(&db->o.in[i], records[i].data, records[i].size, name);
	}
	return read_inputs(db);
}

void profdb__hpctkpre_old_free(profdb_hpctkpre *db)
{
	for (uint32_t i = 0; i < db->o.n_in; i++) {
		if (db->o.in)
			profdb__input_close(&db->o.in[i]);
		free(db->o.names[i]);
	}
	free(db->o.in);
	free(db->o.names);
	free(db->o.mdb);
	free(db->o.svals);
	free(db->o.column_metric);
	free(db->o.metric_columns);
	free(db->o.tr);
	free(db->o.its);
}

static const char *xml_name(const profdb_hpctkpre *db)
{
	return db->in[PRE_META].name ? db->in[PRE_META].name : "experiment.xml";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_sval(const void *a, const void *b)
{
	const pre_sval *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return (x->metric > y->metric) - (x->metric < y->metric);
}

/* Column k of a row holds <MetricDB db-id="k">:
 * every column claimed by exactly one entry. */
static int map_columns(profdb_hpctkpre *db)
{
	pre_old *o = &db->o;
	uint32_t n = 0;
	for (uint32_t i = 0; i < db->n_metrics; i++)
		n += !db->metrics[i].is_summary;
	o->n_columns = n;
	o->column_metric = malloc((n ? n : 1) * sizeof *o->column_metric);
	o->metric_columns = malloc((n ? n : 1) * sizeof *o->metric_columns);
	if (!o->column_metric || !o->metric_columns)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t k = 0; k < n; k++) {
		o->column_metric[k] = PROFDB_NONE;
		o->metric_columns[k] = k;
	}
	for (uint32_t i = 0; i < db->n_metrics; i++) {
		const pre_metric *m = &db->metrics[i];
		if (m->is_summary)
			continue;
		int64_t col = m->db_id;
		if (col < 0) {
			/* no column: fine while no record needs one */
			if (o->n_mdb)
				return profdb__fail(-EBADMSG, "%s: <MetricDB i=\"%" PRIu32 "\"> has no db-id, "
				                    "the column of its values in the .metric-db records",
				                    xml_name(db), m->id);
			continue;
		}
		if (col >= (int64_t)n || o->column_metric[col] != PROFDB_NONE)
			return profdb__fail(-EBADMSG, "%s: <MetricDB i=\"%" PRIu32 "\"> names column %"
			                    PRId64 " of %" PRIu32 " (db-id past the table, or taken "
			                    "twice)", xml_name(db), m->id, col, n);
		o->column_metric[col] = m->id;
	}
	/* the columns in increasing metric id order, for the scans */
	uint64_t *pairs = malloc((n ? n : 1) * sizeof *pairs);
	if (!pairs)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t k = 0; k < n; k++)
		pairs[k] = (uint64_t)o->column_metric[k] << 32 | k;
	qsort(pairs, n, sizeof *pairs, cmp_u64);
	for (uint32_t k = 0; k < n; k++)
		o->metric_columns[k] = (uint32_t)pairs[k];
	free(pairs);
	return 0;
}

/* Each record against the tree (a row per context id 1 .. max id) and the
 * metric table; a mismatch names both files. */
static int check_records(profdb_hpctkpre *db)
{
	pre_old *o = &db->o;
	int64_t max_id = db->n_nodes ? (int64_t)(db->node_keys[db->n_nodes - 1].key ^
	                                         (UINT64_C(1) << 63)) : 1;
	o->n_rows = 0;
	for (uint32_t i = 0; i < o->n_mdb; i++) {
		const pre_mdb *m = &o->mdb[i];
		int r = 0;
		if (m->trace_only)
			continue;   /* a trace's profile: no values */
		if (m->n_metrics != o->n_columns)
			r = profdb__fail(-EBADMSG, "%s and %s are not of one database: the record at 0x%"
			                 PRIx64 " has %" PRIu32 " metrics per row (header at +0x1c), the "
			                 "XML declares %" PRIu32 " <MetricDB>", o->in[m->file].name,
			                 xml_name(db), m->offset, m->n_metrics, o->n_columns);
		else if ((int64_t)m->n_rows != max_id)
			r = profdb__fail(-EBADMSG, "%s and %s are not of one database: the record at 0x%"
			                 PRIx64 " has %" PRIu32 " rows (header at +0x18), one per context "
			                 "id 1 .. %" PRId64 " of the XML's tree", o->in[m->file].name,
			                 xml_name(db), m->offset, m->n_rows, max_id);
		if (r < 0 && (r = profdb__disagree(&db->opts, r)) < 0)
			return r;
		if (m->n_rows > o->n_rows && m->n_metrics)   /* (rows of no metrics hold nothing) */
			o->n_rows = m->n_rows;
	}
	return 0;
}

static int check_svals(profdb_hpctkpre *db)
{
	pre_old *o = &db->o;
	uint32_t k;
	for (uint64_t i = 0; i < o->n_svals; i++) {
		const pre_sval *s = &o->svals[i];
		if (!profdb__hpctkpre_metric_index(db, 1, s->metric, &k))
			return profdb__fail(-EBADMSG, "%s: <M n=\"%" PRIu32 "\"> (a value of context %"
			                    PRIu32 ") names no <Metric>", xml_name(db), s->metric, s->ctx);
	}
	if (o->n_svals)
		qsort(o->svals, o->n_svals, sizeof *o->svals, cmp_sval);
	for (uint64_t i = 1; i < o->n_svals; i++)
		if (cmp_sval(&o->svals[i - 1], &o->svals[i]) == 0)
			return profdb__fail(-EBADMSG, "%s: two <M n=\"%" PRIu32 "\"> values for context %"
			                    PRIu32, xml_name(db), o->svals[i].metric, o->svals[i].ctx);
	return 0;
}

int profdb__hpctkpre_old_finish(profdb_hpctkpre *db)
{
	int r;
	if ((r = map_columns(db)) < 0 || (r = check_records(db)) < 0 ||
	    (r = profdb__hpctkpre_old_finish_traces(db)) < 0)
		return r;
	return check_svals(db);
}

typedef struct sval_key {
	const pre_sval *svals;
	pre_sval key;
} sval_key;

static int sval_before(const void *ctx, size_t i)
{
	const sval_key *k = ctx;
	return cmp_sval(&k->svals[i], &k->key) < 0;
}

static int find_sval(const pre_old *o, uint32_t c, uint32_t metric, uint64_t *at)
{
	sval_key k = {o->svals, {c, metric, 0}};
	size_t lo = profdb__lower_bound(0, o->n_svals, &k, sval_before);
	*at = lo;
	return lo < o->n_svals && cmp_sval(&o->svals[lo], &k.key) == 0;
}

int profdb__hpctkpre_old_value(const profdb_hpctkpre *db, uint32_t p, uint32_t c,
                               uint32_t metric, double *v)
{
	const pre_old *o = &db->o;
	uint64_t at;
	if (p == 0) {
		if (!find_sval(o, c, metric, &at))
			return 0;
		*v = o->svals[at].value;
		return 1;
	}
	uint32_t k;
	if (p > o->n_mdb || !profdb__hpctkpre_metric_index(db, 0, metric, &k))
		return 0;
	const pre_mdb *m = &o->mdb[p - 1];
	int64_t col = db->metrics[k].db_id;
	if (col < 0 || c == 0 || c > m->n_rows || col >= (int64_t)m->n_metrics)
		return 0;
	uint64_t cell = (uint64_t)(c - 1) * m->n_metrics + (uint64_t)col;
	uint64_t bits = profdb__be64(m->rows + cell * 8);
	if (bits == 0)
		return 0;   /* a dense zero: not stored */
	memcpy(v, &bits, sizeof *v);
	return 1;
}
