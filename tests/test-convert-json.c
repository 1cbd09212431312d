/* The folded, speedscope and Chrome writers (lib/convert, doc/CONVERT.md)
 * on the writer's hand-made HPCToolkit database, whose values and trace
 * are known (tests/writer/writer.h), and their refusals. The real samples
 * are checked by convert_json_check.py. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "profdb/profdb.h"
#ifdef HAVE_TEST_WRITER
#include "writer/writer.h"
#endif

TestSuite(convert_json, .timeout = 60);

typedef struct sink {
	char *p;
	size_t len;
	int fail_with;
} sink;

static int to_mem(const void *data, size_t len, void *ud)
{
	sink *s = ud;
	if (s->fail_with)
		return s->fail_with;
	s->p = realloc(s->p, s->len + len + 1);
	cr_assert_not_null(s->p);
	memcpy(s->p + s->len, data, len);
	s->len += len;
	s->p[s->len] = 0;
	return 0;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Callgrind (no traces) from memory: two functions, main calls work. */
static const char cg_text[] =
	"events: Ir\nfn=main\n1 10\ncfn=work\ncalls=2 5\n2 30\nfn=work\n5 30\n";

Test(convert_json, refusals)
{
	profdb *db;
	profdb_input in = {"callgrind.out.1", cg_text, sizeof cg_text - 1};
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	sink s = {0};
	o.format = PROFDB_CONVERT_CHROME;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -ENOTSUP);
	cr_assert(strstr(profdb_error_message(), "no trace"));
	uint32_t m[2] = {0, 0};
	o.metrics = m, o.n_metrics = 1;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL);
	o.format = PROFDB_CONVERT_FOLDED, o.n_metrics = 2;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL);
	m[0] = 99, o.n_metrics = 1;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL);
	/* Callgrind folded: the integers add up to the total (40). */
	m[0] = 0;
	free(s.p), s = (sink){0};
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), 0, "%s", profdb_error_message());
	cr_assert_str_eq(s.p, "main;work 30\nmain 10\n");
	/* The callback's error stops the conversion. */
	sink bad = {NULL, 0, -EIO};
	cr_assert_eq(profdb_convert(db, &o, to_mem, &bad), -EIO);
	free(s.p);
	profdb_close(db);
}

#ifdef HAVE_TEST_WRITER
typedef struct files {
	tw_blob b[TW_NFILES];
	profdb_input in[TW_NFILES];
	size_t n;
} files;

static profdb *open_sample(files *f)
{
	static const char *const names[TW_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	memset(f, 0, sizeof *f);
	cr_assert_eq(tw_hpctk4_write(&d, f->b), 0);
	for (int k = 0; k < TW_NFILES; k++)
		if (f->b[k].data)
			f->in[f->n++] = (profdb_input){names[k], f->b[k].data, f->b[k].size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, f->in, f->n, NULL), 0, "%s", profdb_error_message());
	return db;
}

static char *convert(profdb *db, profdb_convert_format fmt, const uint32_t *metric)
{
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	sink s = {0};
	o.format = fmt;
	o.metrics = metric, o.n_metrics = metric ? 1 : 0;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), 0, "%s", profdb_error_message());
	return s.p;
}

/* Folded: the summary's CPUTIME (5.375 in all), a frame per function,
 * the entry points as "<...>", inlined helper a frame of its own. A
 * metric that does not add up is refused (the real Cube samples' min and
 * max metrics, in convert_json_check.py's refusals). */
Test(convert_json, folded)
{
	files f;
	profdb *db = open_sample(&f);
	char *out = convert(db, PROFDB_CONVERT_FOLDED, NULL);
	cr_assert_str_eq(out, "<main thread>;main;compute;memcpy 0.25\n"
	                      "<main thread>;main;compute;helper 0.5\n"
	                      "<main thread>;main;compute 3\n"
	                      "<main thread>;main 1.5\n"
	                      "<unknown entry>;<unknown function> libc.so.6+0x2000 0.125\n");
	free(out);
	/* A summary statistic that adds up, over the summary profile. */
	uint32_t m = 5;
	out = convert(db, PROFDB_CONVERT_FOLDED, &m);
	cr_assert_not_null(out);
	free(out);
	sink s = {0};
	free(s.p);
	profdb_close(db);
	for (int k = 0; k < TW_NFILES; k++)
		tw_blob_free(&f.b[k]);
}

/* Chrome: trace 0's six samples 1 µs apart from the first; context 0 (idle)
 * closes every slice; the last sample lasts nothing. */
Test(convert_json, chrome)
{
	files f;
	profdb *db = open_sample(&f);
	char *out = convert(db, PROFDB_CONVERT_CHROME, NULL);
	cr_assert(strstr(out, "\"epoch_ns\":\"1700000000000001000\""));
	cr_assert(strstr(out, "{\"ph\":\"B\",\"name\":\"compute\",\"pid\":1,\"tid\":1,\"ts\":1.000}"));
	cr_assert(strstr(out, "{\"ph\":\"E\",\"name\":\"<main thread>\",\"pid\":1,\"tid\":1,"
	                      "\"ts\":2.000}"));
	cr_assert(strstr(out, "{\"ph\":\"E\",\"name\":\"helper\",\"pid\":1,\"tid\":1,\"ts\":5.000}"));
	cr_assert_eq(count(out, "\"ph\":\"B\""), 8);
	cr_assert_eq(count(out, "\"ph\":\"E\""), 8);
	cr_assert_eq(count(out, "\"thread_name\""), 1);   /* profile 2's trace is empty */
	free(out);
	profdb_close(db);
	for (int k = 0; k < TW_NFILES; k++)
		tw_blob_free(&f.b[k]);
}

/* speedscope: a sampled profile per thread (totals 3.75 and 1.625) and an
 * evented one for the trace, balanced. */
Test(convert_json, speedscope)
{
	files f;
	profdb *db = open_sample(&f);
	char *out = convert(db, PROFDB_CONVERT_SPEEDSCOPE, NULL);
	cr_assert(strstr(out, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
	cr_assert(strstr(out, "\"samples\":[[0,1,2,3],[0,1,2,4],[0,1,2],[0,1]],"
	                      "\"weights\":[0.25,0.5,2,1],\"endValue\":3.75"), "%s", out);
	cr_assert(strstr(out, "\"weights\":[1,0.5,0.125],\"endValue\":1.625"));
	cr_assert(strstr(out, "\"unit\":\"seconds\""));
	cr_assert_eq(count(out, "\"type\":\"evented\""), 1);
	cr_assert_eq(count(out, "{\"type\":\"O\""), 8);
	cr_assert_eq(count(out, "{\"type\":\"C\""), 8);
	cr_assert(strstr(out, "\"endValue\":5000,\"events\""));
	free(out);
	profdb_close(db);
	for (int k = 0; k < TW_NFILES; k++)
		tw_blob_free(&f.b[k]);
}
#endif

TC_MAIN
