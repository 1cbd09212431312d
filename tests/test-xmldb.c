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
 * profiles of the sample. */
static void check_sample(const profdb *db, int packed)
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
		cr_assert_eq(profdb_profile_get(db, t + 1, &p), 0);
		cr_assert_eq(p.is_summary, 0);
		cr_assert_eq(p.n_identity, 2);
		cr_assert_eq(profdb_profile_identity(db, t + 1, 1, &kind, &v), 0);
		cr_assert(kind.len == 6 && memcmp(kind.ptr, "thread", 6) == 0);
		cr_assert_eq(v, t, "%s: profile %u is thread %llu", packed ? "packed" : "loose", t + 1,
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
	cr_assert_eq(profdb_profile_get(db, 0, &s), 0);
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
		uint32_t last_p = 0;
		while (profdb_values_next(it, &e) == 1) {
			cr_assert_eq(e.context, c);
			cr_assert_geq(e.profile, last_p);
			last_p = e.profile;
			by_ctx++;
		}
		profdb_values_free(it);
	}
	cr_assert_eq(by_ctx, seen);
	/* 10 non-zero cells per thread, 10 printed values */
	cr_assert_eq(seen, 30, "%d values", seen);
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

/* Open @p dir after @p file was replaced by @p bytes: an error naming the
 * file (0 means it opened; then the caller decides). */
static int open_damaged(const char *dir, const char *file, const unsigned char *bytes,
                        size_t size, uint32_t flags)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	spit(path, bytes, size);
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = flags;
	profdb *db = NULL;
	int r = profdb_open(&db, dir, &o);
	if (r == 0) {
		profdb_counts k;
		cr_assert_geq(profdb_get_counts(db, &k), 0);
		profdb_close(db);
	} else {
		cr_assert(r == -EBADMSG || r == -ENODATA || r == -EPROTONOSUPPORT, "%s: %d %s", file, r,
		          profdb_error_message());
		cr_assert(strstr(profdb_error_message(), file), "%s: %s", file, profdb_error_message());
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
