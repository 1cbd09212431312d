/* Old HPCToolkit databases (experiment.xml with .metric-db records, loose
 * or packed into experiment-1.mdb) through profdb_open: the writer's
 * sample read back value by value and scan by scan, its tree, profiles and
 * printed summary; detection by folder content; truncated and flipped
 * copies of every record header and of the XML give errors naming the
 * file. Skipped (visibly) in a build without expat. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profdb-config.h"   /* PROFDB_HAVE_EXPAT */
#include "profdb/profdb.h"
#include "writer.h"

TestSuite(xmldb, .timeout = 120);

#ifdef PROFDB_HAVE_EXPAT
#define NEEDS_EXPAT() ((void)0)
#else
#define NEEDS_EXPAT() cr_skip_test("built without expat: experiment.xml cannot be read")
#endif

static const char *const THREAD0 = "1.app-000000-000-7f000001-100-0.metric-db";

static void make_dir(char *dir, int packed)
{
	cr_assert(mkdtemp(dir));
	cr_assert_eq(tw_xmldb_write_dir(dir, packed), 0);
}

static void remove_dir(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	rewind(f);
	unsigned char *p = malloc(*size ? *size : 1);
	cr_assert(p);
	cr_assert_eq(fread(p, 1, *size, f), *size);
	fclose(f);
	return p;
}

static void spit(const char *path, const void *p, size_t size)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f, "%s", path);
	cr_assert_eq(fwrite(p, 1, size, f), size);
	fclose(f);
}

/* Every cell of both threads, the printed summary, the tree and the
 * profiles of the sample written with tw_xmldb_write_dir @p flags. */
static void check_sample(const profdb *db, int flags)
{
	profdb_about a;
	cr_assert_eq(profdb_get_about(db, &a), 0);
	cr_assert_eq(a.format, PROFDB_FORMAT_HPCTK_XML);
	cr_assert_str_eq(profdb_format_name(a.format), "hpctoolkit-xml");
	cr_assert_eq(profdb_profile_count(db), 3);
	cr_assert_eq(profdb_context_count(db), 6);
	for (uint32_t t = 0; t < 2; t++) {
		profdb_profile p;
		profdb_str kind;
		uint64_t v;
		cr_assert_eq(profdb_profile_at(db, t + 1, &p), 0);
		cr_assert_eq(p.is_summary, 0);
		cr_assert_eq(p.n_identity, 2);
		uint32_t rank, thread;
		tw_xmldb_identity(t, flags, &rank, &thread);
		cr_assert_eq(profdb_profile_identity(db, t + 1, 1, &kind, &v), 0);
		cr_assert(kind.len == 6 && memcmp(kind.ptr, "thread", 6) == 0);
		cr_assert_eq(v, thread, "layout %d: profile %u is thread %llu", flags, t + 1,
		             (unsigned long long)v);
		for (uint32_t r = 0; r < TW_XMLDB_ROWS; r++)
			for (uint32_t k = 0; k < 2; k++) {
				profdb_number n;
				double want = tw_xmldb_value(t, r, k);
				int rc = profdb_value(db, t + 1, r + 1, k, &n);
				cr_assert_eq(rc, want != 0, "thread %u row %u metric %u: %d", t, r, k, rc);
				if (rc == 1)
					cr_assert(n.type == PROFDB_TYPE_F64 && n.as.f64 == want);
			}
	}
	/* The printed summary is the threads' sum, at every context. */
	profdb_profile s;
	cr_assert_eq(profdb_profile_at(db, 0, &s), 0);
	cr_assert_eq(s.is_summary, 1);
	for (uint32_t r = 0; r < TW_XMLDB_ROWS; r++)
		for (uint32_t k = 0; k < 2; k++) {
			profdb_number n;
			double want = tw_xmldb_value(0, r, k) + tw_xmldb_value(1, r, k);
			int rc = profdb_value(db, 0, r + 1, k + 2, &n);
			cr_assert_eq(rc, want != 0, "summary row %u metric %u", r, k + 2);
			if (rc == 1)
				cr_assert(n.as.f64 == want, "summary row %u metric %u: %g", r, k + 2, n.as.f64);
		}
	profdb_metric m;
	cr_assert_eq(profdb_metric_get(db, 2, &m), 0);
	cr_assert_eq(m.kind, PROFDB_METRIC_SUMMARY);
	cr_assert_eq(m.combine, PROFDB_COMBINE_SUM);
	cr_assert(strstr(m.description.ptr, "significant digits"));
	cr_assert_eq(profdb_metric_get(db, 0, &m), 0);
	cr_assert_eq(m.kind, PROFDB_METRIC_INCLUSIVE);
	cr_assert_eq(m.exclusive_id, 1);
	/* The tree: root id 1, PF 2 > C 3 > Pr 4 (inlined: a lexical scope of
	 * its frame, named by the inlined procedure) > L 5 > S 6. */
	static const struct {
		uint32_t id, parent;
		profdb_relation rel;
		profdb_context_type type;
	} tree[] = {
		{1, PROFDB_NONE, PROFDB_RELATION_NONE, PROFDB_CTX_ROOT},
		{2, PROFDB_NONE, PROFDB_RELATION_NONE, PROFDB_CTX_FUNCTION},
		{3, 2, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LINE},
		{4, 3, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LINE},
		{5, 4, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LOOP},
		{6, 5, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LINE},
		{7, 2, PROFDB_RELATION_LEXICAL, PROFDB_CTX_LINE},
	};
	for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
		profdb_context c;
		cr_assert_eq(profdb_context_get(db, tree[i].id, &c), 0, "context %u", tree[i].id);
		cr_assert_eq(c.parent, tree[i].parent, "context %u", tree[i].id);
		cr_assert_eq(c.relation, tree[i].rel, "context %u", tree[i].id);
		cr_assert_eq(c.type, tree[i].type, "context %u", tree[i].id);
	}
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, 4, &c), 0);
	cr_assert(c.function.len == 4 && memcmp(c.function.ptr, "work", 4) == 0);
	cr_assert_eq(c.line, 20);
	cr_assert_eq(profdb_context_get(db, 8, &c), -ENOENT);
}

/* Every scan returns what profdb_value answers, each value once. */
static void check_scans(const profdb *db)
{
	int seen = 0;
	profdb_values *it;
	profdb_entry e;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
	while (profdb_values_next(it, &e) == 1) {
		profdb_number n;
		cr_assert_eq(profdb_value(db, e.profile, e.context, e.metric, &n), 1);
		cr_assert(n.as.f64 == e.value.as.f64);
		seen++;
	}
	profdb_values_free(it);
	profdb_counts k;
	cr_assert_eq(profdb_get_counts(db, &k), 0);
	cr_assert_eq(k.values, seen);
	int by_ctx = 0;
	for (uint32_t c = 1; c <= TW_XMLDB_ROWS; c++) {
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, c), 0);
		uint32_t last_p = 1;
		while (profdb_values_next(it, &e) == 1) {
			cr_assert_eq(e.context, c);
			cr_assert_geq(e.profile, last_p);   /* never 0, the printed summary */
			last_p = e.profile;
			by_ctx++;
		}
		profdb_values_free(it);
	}
	/* 10 non-zero cells per thread, 10 printed values (the summary's,
	 * which a scan by context leaves out) */
	cr_assert_eq(seen, 30, "%d values", seen);
	cr_assert_eq(by_ctx, 20);
}

Test(xmldb, loose_files)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	check_sample(db, 0);
	check_scans(db);
	profdb_close(db);
	/* A member's path opens its folder. */
	snprintf(path, sizeof path, "%s/experiment.xml", dir);
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
	check_sample(db, 0);
	profdb_close(db);
	snprintf(path, sizeof path, "%s/%s", dir, THREAD0);
	cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
	profdb_close(db);
	remove_dir(dir);
}

Test(xmldb, packed_file)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX";
	make_dir(dir, 1);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	check_sample(db, 1);
	check_scans(db);
	profdb_close(db);
	remove_dir(dir);
}

/* A record's path opens its folder through either API, whatever its name
 * before the suffix: a packed file named just ".mdb" is one the folder's
 * listing reads, so opening it by name opens that folder too. */
Test(xmldb, member_path_by_suffix_alone)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", from[600], to[600];
	make_dir(dir, 1);
	snprintf(from, sizeof from, "%s/experiment-1.mdb", dir);
	snprintf(to, sizeof to, "%s/.mdb", dir);
	cr_assert_eq(rename(from, to), 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, to, NULL), 0, "%s", profdb_error_message());
	check_sample(db, 1);
	profdb_close(db);
	profdb_hpctkpre *h;
	cr_assert_eq(profdb_hpctkpre_open(&h, to, NULL), 0, "%s", profdb_error_message());
	profdb_hpctkpre_info info;
	cr_assert_eq(profdb_hpctkpre_get_info(h, &info), 0);
	cr_assert_eq(info.n_contexts, 6);
	profdb_hpctkpre_close(h);
	remove_dir(dir);
}

/* The same files as caller buffers (profdb_open_inputs). */
Test(xmldb, buffers)
{
	NEEDS_EXPAT();
	for (int packed = 0; packed < 2; packed++) {
		char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
		make_dir(dir, packed);
		static const char *const loose[2] = {"1.app-000000-000-7f000001-100-0.metric-db",
		                                     "1.app-000000-001-7f000001-100-0.metric-db"};
		profdb_input in[3];
		size_t n = packed ? 2 : 3;
		in[0].name = "experiment.xml";
		in[0].data = tw_xmldb_sample_xml();
		in[0].size = strlen(tw_xmldb_sample_xml());
		for (size_t k = 1; k < n; k++) {
			in[k].name = packed ? "experiment-1.mdb" : loose[k - 1];
			snprintf(path, sizeof path, "%s/%s", dir, in[k].name);
			in[k].data = slurp(path, &in[k].size);
		}
		profdb *db;
		cr_assert_eq(profdb_open_inputs(&db, in, n, NULL), 0, "%s", profdb_error_message());
		check_sample(db, packed);
		check_scans(db);
		profdb_close(db);
		/* records without their experiment.xml */
		cr_assert_eq(profdb_open_inputs(&db, in + 1, n - 1, NULL), -EINVAL);
		for (size_t k = 1; k < n; k++)
			free((void *)in[k].data);
		remove_dir(dir);
	}
}

/* experiment.xml alone: the printed values are the only profile. */
Test(xmldb, xml_alone)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, 0);
	snprintf(path, sizeof path, "%s/%s", dir, THREAD0);
	unlink(path);
	snprintf(path, sizeof path, "%s/1.app-000000-001-7f000001-100-0.metric-db", dir);
	unlink(path);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	cr_assert_eq(profdb_profile_count(db), 1);
	profdb_number n;
	cr_assert_eq(profdb_value(db, 0, 6, 3, &n), 1);
	cr_assert(n.as.f64 == 22.5);
	profdb_close(db);
	remove_dir(dir);
}

/* Replace @p file of @p dir by @p bytes and open @p dir with @p flags. */
static int replace_and_open(const char *dir, const char *file, const unsigned char *bytes,
                            size_t size, uint32_t flags, profdb **db)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	spit(path, bytes, size);
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	*db = NULL;
	return profdb_open(db, dir, &o);
}

/* A damaged file's error: one of the format errors, naming the file. */
static void expect_named_error(int r, const char *file)
{
	cr_assert(r == -EBADMSG || r == -ENODATA || r == -EPROTONOSUPPORT, "%s: %d %s", file, r,
	          profdb_error_message());
	cr_assert(strstr(profdb_error_message(), file), "%s: %s", file, profdb_error_message());
}

/* Open @p dir after @p file was replaced by @p bytes: an error naming the
 * file (0 means it opened; then the caller decides). */
static int open_damaged(const char *dir, const char *file, const unsigned char *bytes,
                        size_t size, uint32_t flags)
{
	profdb *db;
	int r = replace_and_open(dir, file, bytes, size, flags, &db);
	if (r == 0) {
		profdb_counts k;
		cr_assert_geq(profdb_get_counts(db, &k), 0);
		profdb_close(db);
	} else {
		expect_named_error(r, file);
	}
	return r;
}

Test(xmldb, metric_db_truncated_and_flipped)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, 0);
	snprintf(path, sizeof path, "%s/%s", dir, THREAD0);
	size_t size;
	unsigned char *orig = slurp(path, &size);
	/* every truncation is refused in strict mode, read without the thread
	 * in tolerant mode */
	for (size_t n = 0; n < size; n++) {
		cr_assert_lt(open_damaged(dir, THREAD0, orig, n, 0), 0, "length %zu opened", n);
		cr_assert_eq(open_damaged(dir, THREAD0, orig, n, PROFDB_OPEN_TOLERANT), 0);
	}
	/* every flipped header byte: magic, version, row and metric counts */
	unsigned char *copy = malloc(size);
	for (size_t i = 0; i < 32; i++) {
		memcpy(copy, orig, size);
		copy[i] ^= 0x40;
		cr_assert_lt(open_damaged(dir, THREAD0, copy, size, 0), 0, "flip at %zu opened", i);
	}
	/* a value flipped is a value, not damage */
	memcpy(copy, orig, size);
	copy[40] ^= 0x01;
	cr_assert_eq(open_damaged(dir, THREAD0, copy, size, 0), 0);
	free(copy);
	free(orig);
	remove_dir(dir);
}

/* A record whose header claims 2^32 - 2 rows of no metrics holds no cell
 * (its size, the header alone, agrees): a tolerant open keeps it, every
 * scan passes over it at once rather than row by row, and its rows are
 * no contexts. */
Test(xmldb, metric_db_rows_of_no_metrics, .timeout = 5)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, 0);
	snprintf(path, sizeof path, "%s/%s", dir, THREAD0);
	size_t size;
	unsigned char *orig = slurp(path, &size);
	unsigned char hdr[32];
	memcpy(hdr, orig, 24);   /* magic and version */
	memcpy(hdr + 24, "\xff\xff\xff\xfe\0\0\0\0", 8);   /* rows, metrics (big-endian) */
	profdb *db;
	cr_assert_lt(replace_and_open(dir, THREAD0, hdr, sizeof hdr, 0, &db), 0);
	cr_assert_eq(replace_and_open(dir, THREAD0, hdr, sizeof hdr, PROFDB_OPEN_TOLERANT, &db), 0,
	             "%s", profdb_error_message());
	profdb_values *it;
	profdb_entry e;
	int all = 0, by_profile = 0, by_ctx = 0;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
	while (profdb_values_next(it, &e) == 1)
		all++;
	profdb_values_free(it);
	for (uint32_t p = 0; p < (uint32_t)profdb_profile_count(db); p++) {
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_PROFILE, p), 0);
		while (profdb_values_next(it, &e) == 1)
			by_profile++;
		profdb_values_free(it);
	}
	for (uint32_t c = 1; c <= TW_XMLDB_ROWS; c++) {
		cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_CONTEXT, c), 0);
		while (profdb_values_next(it, &e) == 1)
			by_ctx++;
		profdb_values_free(it);
	}
	/* the other thread's 10 cells, and the 10 printed values but by context */
	cr_assert_eq(all, 20, "%d values", all);
	/* and its rows make no contexts: only the other thread's are there */
	profdb_context c;
	cr_assert_eq(profdb_context_get(db, TW_XMLDB_ROWS, &c), 0);
	cr_assert_eq(profdb_context_get(db, TW_XMLDB_ROWS + 1, &c), -ENOENT);
	cr_assert_eq(profdb_context_get(db, UINT32_MAX - 1, &c), -ENOENT);
	cr_assert_eq(by_profile, 20, "%d values", by_profile);
	cr_assert_eq(by_ctx, 10, "%d values", by_ctx);
	profdb_close(db);
	free(orig);
	remove_dir(dir);
}

Test(xmldb, packed_truncated)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, 1);
	snprintf(path, sizeof path, "%s/experiment-1.mdb", dir);
	size_t size;
	unsigned char *orig = slurp(path, &size);
	/* the 8-byte end marker is not needed; anything shorter cuts a record */
	for (size_t n = 0; n + 8 < size; n++)
		cr_assert_lt(open_damaged(dir, "experiment-1.mdb", orig, n, 0), 0, "length %zu", n);
	free(orig);
	remove_dir(dir);
}

Test(xmldb, xml_truncated_and_flipped)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX";
	make_dir(dir, 0);
	const char *xml = tw_xmldb_sample_xml();
	size_t size = strlen(xml);
	for (size_t n = 0; n < size; n += 7)
		cr_assert_lt(open_damaged(dir, "experiment.xml", (const unsigned char *)xml, n, 0), 0,
		             "length %zu opened", n);
	/* a flipped byte either still parses (a name, a digit) or is refused
	 * with the file named: open_damaged checks both */
	char *copy = malloc(size);
	for (size_t i = 0; i < size; i += 3) {
		memcpy(copy, xml, size);
		copy[i] ^= 0x20;
		open_damaged(dir, "experiment.xml", (const unsigned char *)copy, size, 0);
	}
	free(copy);
	remove_dir(dir);
}

/* ---- traces ------------------------------------------------------------------ */

/* The trace of the sample's thread t is profile t + 1's: every sample's
 * time and context (it 60 is S 6, it 70 is S 7), seeks, the view, and
 * none for the summary. */
static void check_traces(const profdb *db, int flags)
{
	profdb_counts k;
	cr_assert_eq(profdb_get_counts(db, &k), 0);
	cr_assert_eq(k.traces, 2);
	cr_assert_eq(k.samples, 7);
	cr_assert_eq(profdb_trace_length(db, 0), 0, "the printed summary has no trace");
	for (uint32_t t = 0; t < 2; t++) {
		const tw_hpctrace_rec *recs;
		size_t n;
		uint32_t rank, thread;
		tw_xmldb_trace(t, &recs, &n);
		tw_xmldb_identity(t, flags, &rank, &thread);
		profdb_str kind;
		uint64_t v;
		cr_assert_eq(profdb_profile_identity(db, t + 1, 0, &kind, &v), 0);
		cr_assert_eq(v, rank, "profile %u: rank %llu", t + 1, (unsigned long long)v);
		cr_assert_eq(profdb_profile_identity(db, t + 1, 1, &kind, &v), 0);
		cr_assert_eq(v, thread, "profile %u: thread %llu", t + 1, (unsigned long long)v);
		cr_assert_eq(profdb_trace_length(db, t + 1), (int64_t)n, "profile %u", t + 1);
		profdb_view view;
		cr_assert_eq(profdb_trace_view(db, t + 1, &view), 0, "%s", profdb_error_message());
		cr_assert_eq(view.count, n);
		for (size_t i = 0; i < n; i++) {
			profdb_sample s;
			cr_assert_eq(profdb_trace_sample_at(db, t + 1, i, &s), 0);
			cr_assert_eq(s.time_ns, recs[i].time, "thread %u sample %zu", t, i);
			cr_assert_eq(s.context, recs[i].cct_id / 10, "thread %u sample %zu: context %u", t,
			             i, s.context);
			cr_assert_eq(profdb_view_key(&view, i), s.time_ns);
			cr_assert_eq(profdb_view_value(&view, i).as.u64, s.context);
		}
		profdb_sample s;
		cr_assert_eq(profdb_trace_sample_at(db, t + 1, n, &s), -ENOENT);
		uint64_t at;
		size_t first = 0;   /* the first sample at recs[1]'s time */
		while (recs[first].time < recs[1].time)
			first++;
		cr_assert_eq(profdb_trace_seek(db, t + 1, recs[1].time, &at), 0);
		cr_assert_eq(at, first);
		cr_assert_eq(profdb_trace_seek(db, t + 1, recs[n - 1].time + 1, &at), 0);
		cr_assert_eq(at, n);
		cr_assert_eq(profdb_trace_seek(db, t + 1, 0, &at), 0);
		cr_assert_eq(at, 0);
	}
}

Test(xmldb, traces_loose_and_packed)
{
	NEEDS_EXPAT();
	static const int layouts[] = {
		TW_XMLDB_TRACES, TW_XMLDB_TRACES | TW_XMLDB_PACKED, TW_XMLDB_TRACES | TW_XMLDB_RANKS,
		TW_XMLDB_TRACES | TW_XMLDB_PACKED | TW_XMLDB_RANKS,
	};
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
		char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
		make_dir(dir, layouts[i]);
		profdb *db;
		cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
		check_sample(db, layouts[i]);
		check_scans(db);
		check_traces(db, layouts[i]);
		profdb_close(db);
		/* a trace file named alone opens its folder */
		uint32_t rank, thread;
		tw_xmldb_identity(0, layouts[i], &rank, &thread);
		if (layouts[i] & TW_XMLDB_PACKED)
			snprintf(path, sizeof path, "%s/experiment.mt", dir);
		else
			snprintf(path, sizeof path, "%s/1.app-%06u-%03u-7f000001-%u-0.hpctrace", dir, rank,
			         thread, 100 + rank);
		cr_assert_eq(profdb_open(&db, path, NULL), 0, "%s", profdb_error_message());
		check_traces(db, layouts[i]);
		profdb_close(db);
		remove_dir(dir);
	}
}

/* Several ranks in a packed file: the kind word says several processes
 * and threads, and each record keeps its table entry's rank and thread. */
Test(xmldb, packed_ranks)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, TW_XMLDB_PACKED | TW_XMLDB_RANKS);
	snprintf(path, sizeof path, "%s/experiment-1.mdb", dir);
	size_t size;
	unsigned char *b = slurp(path, &size);
	cr_assert_eq(b[3], 3, "kind word %u", b[3]);
	free(b);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	check_sample(db, TW_XMLDB_PACKED | TW_XMLDB_RANKS);
	profdb_profile p;
	cr_assert_eq(profdb_profile_at(db, 2, &p), 0);
	cr_assert(p.name.len == 15 && memcmp(p.name.ptr, "rank 1 thread 2", 15) == 0, "%.*s",
	          (int)p.name.len, p.name.ptr);
	profdb_close(db);
	remove_dir(dir);
}

/* Traces without .metric-db records (hpcprof's default): each trace is a
 * profile of its own, without values. */
Test(xmldb, traces_alone)
{
	NEEDS_EXPAT();
	for (int packed = 0; packed < 2; packed++) {
		char dir[] = "/tmp/profdb-xmldb-XXXXXX";
		int flags = TW_XMLDB_TRACES | TW_XMLDB_NO_RECORDS | (packed ? TW_XMLDB_PACKED : 0);
		make_dir(dir, flags);
		profdb *db;
		cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
		cr_assert_eq(profdb_profile_count(db), 3);
		check_traces(db, flags);
		profdb_number n;
		cr_assert_eq(profdb_value(db, 1, 6, 0, &n), 0, "a trace's profile has no values");
		cr_assert_eq(profdb_value(db, 0, 6, 3, &n), 1, "the printed summary stays");
		profdb_close(db);
		remove_dir(dir);
	}
}

/* The traces as caller buffers, beside experiment.xml alone. */
Test(xmldb, trace_buffers)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, TW_XMLDB_TRACES | TW_XMLDB_NO_RECORDS);
	static const char *const names[2] = {"1.app-000000-000-7f000001-100-0.hpctrace",
	                                     "1.app-000000-001-7f000001-100-0.hpctrace"};
	profdb_input in[3] = {{"experiment.xml", tw_xmldb_sample_xml(),
	                       strlen(tw_xmldb_sample_xml())}};
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[k]);
		in[k + 1].name = names[k];
		in[k + 1].data = slurp(path, &in[k + 1].size);
	}
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, in, 3, NULL), 0, "%s", profdb_error_message());
	check_traces(db, 0);
	profdb_close(db);
	for (int k = 0; k < 2; k++)
		free((void *)in[k + 1].data);
	remove_dir(dir);
}

/* Open @p dir after @p file was replaced by @p bytes, then read every
 * trace: 0, or the first error, whose message names the file. */
static int open_and_trace(const char *dir, const char *file, const unsigned char *bytes,
                          size_t size, uint32_t flags)
{
	profdb *db;
	int r = replace_and_open(dir, file, bytes, size, flags, &db);
	for (uint32_t p = 0; r == 0 && p < (uint32_t)profdb_profile_count(db); p++) {
		int64_t n = profdb_trace_length(db, p);
		profdb_sample s;
		r = n < 0 ? (int)n : 0;
		for (int64_t i = 0; r == 0 && i < n; i++)
			r = profdb_trace_sample_at(db, p, (uint64_t)i, &s);
	}
	profdb_close(db);
	if (r < 0)
		expect_named_error(r, file);
	return r;
}

Test(xmldb, hpctrace_truncated_and_flipped)
{
	NEEDS_EXPAT();
	static const char *const file = "1.app-000000-000-7f000001-100-0.hpctrace";
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, TW_XMLDB_TRACES);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	size_t size;
	unsigned char *orig = slurp(path, &size);
	cr_assert_eq(size, 32 + 3 * 12);
	/* a cut header or sample is refused in strict mode; a cut at a
	 * sample's end leaves a shorter trace; tolerant mode reads on */
	for (size_t n = 0; n < size; n++) {
		int whole = n >= 32 && (n - 32) % 12 == 0;
		int r = open_and_trace(dir, file, orig, n, 0);
		cr_assert(whole ? r == 0 : r < 0, "length %zu: %d", n, r);
		cr_assert_eq(open_and_trace(dir, file, orig, n, PROFDB_OPEN_TOLERANT), 0, "length %zu",
		             n);
	}
	unsigned char *copy = malloc(size);
	/* magic and version */
	for (size_t i = 0; i < 24; i++) {
		memcpy(copy, orig, size);
		copy[i] ^= 0x40;
		cr_assert_lt(open_and_trace(dir, file, copy, size, 0), 0, "flip at %zu read", i);
	}
	/* the DATA_CENTRIC flag: 16-byte samples, the last one cut */
	memcpy(copy, orig, size);
	copy[31] ^= 0x01;
	cr_assert_eq(open_and_trace(dir, file, copy, size, 0), -ENODATA);
	/* a sample's id that no node has, a time out of order */
	memcpy(copy, orig, size);
	copy[32 + 11] ^= 0x40;
	cr_assert_eq(open_and_trace(dir, file, copy, size, 0), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "it attribute"), "%s", profdb_error_message());
	cr_assert_eq(open_and_trace(dir, file, copy, size, PROFDB_OPEN_TOLERANT), 0);
	memcpy(copy, orig, size);
	copy[32 + 12] ^= 0x40;
	cr_assert_eq(open_and_trace(dir, file, copy, size, 0), -EBADMSG);
	cr_assert(strstr(profdb_error_message(), "sorted"), "%s", profdb_error_message());
	free(copy);
	free(orig);
	remove_dir(dir);
}

Test(xmldb, packed_traces_truncated_and_flipped)
{
	NEEDS_EXPAT();
	static const char *const file = "experiment.mt";
	char dir[] = "/tmp/profdb-xmldb-XXXXXX", path[600];
	make_dir(dir, TW_XMLDB_TRACES | TW_XMLDB_PACKED);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	size_t size;
	unsigned char *orig = slurp(path, &size);
	/* without the end marker the file was cut */
	for (size_t n = 0; n < size; n++)
		cr_assert_lt(open_and_trace(dir, file, orig, n, 0), 0, "length %zu", n);
	/* tolerant: a cut inside the traces reads what is whole */
	for (size_t n = 8 + 2 * 16 + 32 * 2 + 12; n < size; n++)
		cr_assert_eq(open_and_trace(dir, file, orig, n, PROFDB_OPEN_TOLERANT), 0, "length %zu",
		             n);
	/* every byte of the table and of the traces' headers */
	unsigned char *copy = malloc(size);
	uint64_t second = 8 + 2 * 16 + 32 + 3 * 12;
	for (size_t i = 0; i < size; i++) {
		int header = i < 8 + 2 * 16 || (i >= 40 && i < 40 + 24) ||
		             (i >= second && i < second + 24);
		if (!header || i < 4 || (i >= 8 && i < 8 + 2 * 16 && (i - 8) % 16 < 8))
			continue;   /* samples, the kind word, ranks and threads: any value is one */
		memcpy(copy, orig, size);
		copy[i] ^= 0x40;
		cr_assert_lt(open_and_trace(dir, file, copy, size, 0), 0, "flip at %zu read", i);
	}
	/* a flipped marker */
	memcpy(copy, orig, size);
	copy[size - 1] ^= 0x01;
	cr_assert_eq(open_and_trace(dir, file, copy, size, 0), -ENODATA);
	free(copy);
	free(orig);
	remove_dir(dir);
}

/* The format's own API shows the tree, not the profiles: those calls say
 * where the values are read. */
Test(xmldb, format_api_refers_to_common_interface)
{
	NEEDS_EXPAT();
	char dir[] = "/tmp/profdb-xmldb-XXXXXX";
	make_dir(dir, TW_XMLDB_TRACES);
	profdb_hpctkpre *db;
	cr_assert_eq(profdb_hpctkpre_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	profdb_hpctkpre_info info;
	cr_assert_eq(profdb_hpctkpre_get_info(db, &info), 0);
	cr_assert_eq(info.n_profiles, 0);
	cr_assert_eq(info.n_contexts, 6);
	profdb_hpctkpre_profile p;
	cr_assert_eq(profdb_hpctkpre_profile_at(db, 0, &p), -ENOTSUP);
	cr_assert(strstr(profdb_error_message(), "common query interface"), "%s",
	          profdb_error_message());
	profdb_view index, values;
	cr_assert_eq(profdb_hpctkpre_profile_view(db, 0, &index, &values), -ENOTSUP);
	cr_assert_eq(profdb_hpctkpre_context_view(db, 2, &index, &values), -ENOTSUP);
	profdb_hpctkpre_trace t;
	cr_assert_eq(profdb_hpctkpre_trace_line_at(db, 0, &t), -ENOTSUP);
	profdb_hpctkpre_context c;
	cr_assert_eq(profdb_hpctkpre_context_get(db, 6, &c), 0);
	cr_assert_eq(c.trace_id, 60);
	profdb_hpctkpre_close(db);
	remove_dir(dir);
}
