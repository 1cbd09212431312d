/* The folded, speedscope and Chrome writers (lib/convert, doc/CONVERT.md)
 * on the writer's hand-made HPCToolkit database, whose values and trace
 * are known (tests/writer/writer.h), and their refusals. The real samples
 * are checked by convert_json_check.py. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fixtures-hpctk4.h"
#include "profdb-config.h"
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
	profdb *db = tc_open_mem("callgrind.out.1", cg_text, sizeof cg_text - 1);
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
	/* A timeline needs traces. */
	o.format = PROFDB_CONVERT_TIMELINE, o.n_metrics = 0;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &bad), -ENOTSUP);
	cr_assert(strstr(profdb_error_message(), "no trace"));
	free(s.p);
	profdb_close(db);
}

/* The time syntax of `profdb trace` and `convert --window`: exact. */
Test(convert_json, time_parse)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} good[] = {{"0", 0}, {"42", 42}, {"1.5s", 1500000000}, {"200ms", 200000000},
	            {"30us", 30000}, {"100ns", 100}, {"0.000000001s", 1}, {"2.5us", 2500},
	            {"18446744073709551615", UINT64_MAX}, {"18446744073.709551615s", UINT64_MAX}};
	static const char *const bad[] = {"", "s", "-1", "1.5", "1x", "1.5.2s", "0.0000000001s",
	                                  "1.5ns", "18446744073709551616", "18446744074s", " 1s",
	                                  "1s ", "1e3ns"};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		uint64_t ns = 7;
		cr_assert_eq(profdb_time_parse(good[i].text, &ns), 0, "%s: %s", good[i].text,
		             profdb_error_message());
		cr_assert_eq(ns, good[i].ns, "%s", good[i].text);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t ns = 7;
		cr_assert_eq(profdb_time_parse(bad[i], &ns), -EINVAL, "'%s' read", bad[i]);
		cr_assert_eq(ns, 7, "'%s' left the output", bad[i]);
	}
	uint64_t ns;
	cr_assert_eq(profdb_time_parse(NULL, &ns), -EINVAL);
	cr_assert_eq(profdb_time_parse("1s", NULL), -EINVAL);
}

#ifdef HAVE_TEST_WRITER
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
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
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
	tc_hpctk4_free(&f);
}

/* SVG: the frames of the folded stacks above, merged per call path, each
 * with its inclusive value and its own part; the root holds the total. */
Test(convert_json, svg)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
	char *out = convert(db, PROFDB_CONVERT_SVG, NULL);
	static const char *const frames[] = {
		"data-d=\"0\" data-v=\"5.375\" data-s=\"0\" data-n=\"all\"",
		"data-d=\"1\" data-v=\"5.25\" data-s=\"0\" data-n=\"&lt;main thread&gt;\"",
		"data-d=\"2\" data-v=\"5.25\" data-s=\"1.5\" data-n=\"main\"",
		"data-d=\"3\" data-v=\"3.75\" data-s=\"3\" data-n=\"compute\"",
		"data-d=\"4\" data-v=\"0.25\" data-s=\"0.25\" data-n=\"memcpy\"",
		"data-d=\"4\" data-v=\"0.5\" data-s=\"0.5\" data-n=\"helper\"",
		"data-d=\"1\" data-v=\"0.125\" data-s=\"0\" data-n=\"&lt;unknown entry&gt;\"",
	};
	const char *at = out;
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		const char *p = strstr(at, frames[i]);
		cr_assert_not_null(p, "frame %zu (%s) in order", i, frames[i]);
		at = p;
	}
	cr_assert_eq(count(out, "<g class=\"f\""), 8);
	cr_assert(strstr(out, "<title>compute\n3.75 seconds (69.77 %)</title>"), "%s", out);
	cr_assert(strstr(out, "<![CDATA["), "the script is inline");
	cr_assert_null(strstr(out, "href"), "nothing is fetched");
	free(out);
	/* A minimum width above memcpy's (0.25 / 5.375 x 1200 = 56 px) merges
	 * it into compute, whose own part then holds it. */
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	sink s = {0};
	o.format = PROFDB_CONVERT_SVG, o.min_width = 60;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), 0, "%s", profdb_error_message());
	cr_assert(strstr(s.p, "data-v=\"3.75\" data-s=\"3.25\" data-n=\"compute\""), "%s", s.p);
	cr_assert_null(strstr(s.p, "data-n=\"memcpy\""));
	free(s.p);
	o.min_width = -1;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL);
	profdb_close(db);
	tc_hpctk4_free(&f);
}

/* Chrome: trace 0's six samples 1 µs apart from the first; context 0 (idle)
 * closes every slice; the last sample lasts nothing. */
Test(convert_json, chrome)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
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
	tc_hpctk4_free(&f);
}

/* Timeline: trace 0's six samples 1 us apart (contexts 5, 13, 0, 14, 10,
 * 13: main, compute, idle, memcpy, helper, compute) over 10 columns of
 * 0.5001 us: two columns per sample, none for idle; the last sample ends
 * the row. Depth 2 colours by main wherever a frame runs. Profile 2's
 * empty trace is an empty row. */
Test(convert_json, timeline)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	sink s = {0};
	o.format = PROFDB_CONVERT_TIMELINE, o.width = 10;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), 0, "%s", profdb_error_message());
	static const char *const rects[] = {
		"<rect x=\"240\" width=\"2\" height=\"19\" fill=\"#", "data-fn=\"main\"/>",
		"<rect x=\"242\" width=\"2\"", "data-fn=\"compute\"/>",
		"<rect x=\"246\" width=\"2\"", "data-fn=\"memcpy\"/>",
		"<rect x=\"248\" width=\"2\"", "data-fn=\"helper\"/>",
	};
	const char *at = s.p;
	for (size_t i = 0; i < sizeof rects / sizeof rects[0]; i++) {
		const char *p = strstr(at, rects[i]);
		cr_assert_not_null(p, "%s in order in %s", rects[i], s.p);
		at = p;
	}
	cr_assert_eq(count(s.p, "<g class=\"row\""), 2);
	cr_assert_eq(count(s.p, "<g class=\"row\" data-profile=\"2\""), 1);
	cr_assert_eq(count(s.p, "<rect "), 4 + 4, "four runs and four legend keys");
	cr_assert(strstr(s.p, "data-start-ns=\"1700000000000001000\" data-from-ns=\"0\" "
	                      "data-to-ns=\"5001\""), "%s", s.p);
	cr_assert(strstr(s.p, "(1 without samples)"));
	cr_assert_null(strstr(s.p, "href"), "nothing is fetched");
	free(s.p), s = (sink){0};
	/* depth 2 (main) over [1 us, 3 us): compute's columns, idle, memcpy's */
	o.depth = 2, o.from_ns = 1000, o.to_ns = 3000, o.width = 4;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), 0, "%s", profdb_error_message());
	cr_assert(strstr(s.p, "<rect x=\"240\" width=\"2\""), "%s", s.p);
	cr_assert_eq(count(s.p, "data-fn=\"main\""), 2, "a run and its legend key: %s", s.p);
	free(s.p), s = (sink){0};
	/* a window that ends before it starts, or starts after the last sample */
	o.from_ns = 3000, o.to_ns = 3000;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL);
	o.from_ns = 6000, o.to_ns = 0;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL);
	cr_assert(strstr(profdb_error_message(), "after the last sample"), "%s",
	          profdb_error_message());
	o.from_ns = 0;
	uint32_t m = 1;
	o.metrics = &m, o.n_metrics = 1;
	cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -EINVAL, "traces carry no metric");
	cr_assert_eq(s.len, 0);
	free(s.p);
	profdb_close(db);
	tc_hpctk4_free(&f);
}

/* speedscope: a sampled profile per thread (totals 3.75 and 1.625) and an
 * evented one for the trace, balanced. */
Test(convert_json, speedscope)
{
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(NULL, &f);
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
	tc_hpctk4_free(&f);
}
/* A metric that does not add up is refused by every stack format with
 * -ENOTSUP and a message naming the metric and its rule; @p what is the
 * rule's word in the message ("min", "max", "none"). */
static void check_refused(profdb *db, uint32_t metric, const char *what)
{
	static const profdb_convert_format fmts[] = {PROFDB_CONVERT_FOLDED,
	                                             PROFDB_CONVERT_SPEEDSCOPE, PROFDB_CONVERT_SVG};
	profdb_metric m;
	cr_assert_eq(profdb_metric_get(db, metric, &m), 0, "%s", profdb_error_message());
	for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		sink s = {0};
		char rule[64], name[64];
		o.format = fmts[i];
		o.metrics = &metric, o.n_metrics = 1;
		cr_assert_eq(profdb_convert(db, &o, to_mem, &s), -ENOTSUP, "metric %u (%s)",
		             (unsigned)metric, what);
		const char *msg = profdb_error_message();
		snprintf(rule, sizeof rule, "combines by %s", what);
		cr_assert(strstr(msg, rule), "metric %u: %s", (unsigned)metric, msg);
		cr_assert(strstr(msg, "adds up"), "%s", msg);
		snprintf(name, sizeof name, "'%.*s'", (int)m.name.len, m.name.ptr);
		cr_assert(m.name.len && strstr(msg, name), "the message names the metric: %s", msg);
		cr_assert_eq(s.len, 0, "nothing written before the refusal");
		free(s.p);
	}
}

/* HPCToolkit 4.0 summary statistics: a minimum, a maximum, and a count
 * (formula "1", which combines by no rule). The sample's metrics plus a
 * third with only these statistics. */
Test(convert_json, refuses_min_max_none)
{
	static const tw_propagation cpu_props[] = {{0, 0}, {1, 1}, {2, 2}};
	static const tw_summary cpu_sums[] = {{0, "$$", 0, 0}, {1, "$$", 0, 1}, {2, "$$", 0, 2}};
	static const tw_propagation cyc_props[] = {{2, 3}, {3, 4}};
	static const tw_summary cyc_sums[] = {{2, "$$", 0, 3}, {2, "$$", 2, 4}, {3, "$$", 0, 5}};
	static const tw_summary lat_sums[] = {{2, "$$", 1, 6}, {2, "$$", 2, 7}, {2, "1", 0, 8}};
	static const tw_metric metrics[] = {
		{"CPUTIME (sec)", 3, cpu_props, 3, cpu_sums},
		{"cycles", 2, cyc_props, 3, cyc_sums},
		{"latency", 0, NULL, 3, lat_sums},
	};
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	d.metrics = metrics, d.n_metrics = 3;
	tc_hpctk4_files f;
	profdb *db = tc_hpctk4_open(&d, &f);
	profdb_metric m;
	cr_assert_eq(profdb_metric_get(db, 6, &m), 0, "%s", profdb_error_message());
	cr_assert_eq(m.combine, PROFDB_COMBINE_MIN);
	check_refused(db, 6, "min");
	cr_assert_eq(profdb_metric_get(db, 7, &m), 0);
	cr_assert_eq(m.combine, PROFDB_COMBINE_MAX);
	check_refused(db, 7, "max");
	cr_assert_eq(profdb_metric_get(db, 8, &m), 0);
	cr_assert_eq(m.combine, PROFDB_COMBINE_NONE, "a count does not add up");
	check_refused(db, 8, "none");
	/* The default metric is still the first that adds up. */
	char *out = convert(db, PROFDB_CONVERT_FOLDED, NULL);
	cr_assert(strstr(out, "<main thread>;main;compute 3\n"), "%s", out);
	free(out);
	profdb_close(db);
	tc_hpctk4_free(&f);
}

/* ---- speedscope's per-profile stacks against a view per profile ---------------------- */

/* The JSON array of numbers at *p ('[' ... ']'), each number's text
 * appended to @p out as "TEXT\0"; *p moves past the ']'. */
static size_t number_texts(const char **p, char *out, size_t cap)
{
	size_t n = 0, len = 0;
	cr_assert_eq(**p, '[');
	for ((*p)++; **p != ']'; n++) {
		size_t k = strcspn(*p, ",]");
		cr_assert_lt(len + k + 1, cap);
		memcpy(out + len, *p, k);
		out[len + k] = 0;
		len += k + 1;
		*p += k;
		if (**p == ',')
			(*p)++;
	}
	(*p)++;
	return n;
}

/* Every sampled profile of speedscope's output, written back as folded
 * lines, equals `folded` of that profile alone: the one context walk of
 * lib/convert/stacks-ctx.c against profdb_tree_new() per profile. */
static void same_stacks(profdb *db)
{
	uint32_t sel[64];
	int64_t np = profdb_profiles_select(db, NULL, sel, 64);
	cr_assert(np > 0 && np <= 64);
	char *ss = convert(db, PROFDB_CONVERT_SPEEDSCOPE, NULL);
	/* the frame names (the test inputs need no JSON escapes) */
	const char *names[4096];
	size_t nf = 0;
	const char *f = strstr(ss, "\"shared\":{\"frames\":[");
	cr_assert_not_null(f);
	for (f = strstr(f, "{\"name\":\""); f; f = strstr(f, "{\"name\":\"")) {
		f += 9;
		cr_assert_lt(nf, 4096);
		names[nf++] = f;
		cr_assert_neq(*(strchr(f, '"') - 1), '\\');
	}
	const char *p = ss;
	for (int64_t k = 0; k < np; k++) {
		p = strstr(p, "{\"type\":\"sampled\"");
		cr_assert_not_null(p, "sampled profile %d", (int)k);
		p = strstr(p, "\"samples\":[") + 10;
		/* rebuild the folded text */
		size_t cap = strlen(ss) + 1, len = 0, n = 0;
		char *want = malloc(cap), *w = malloc(cap), *stacks = malloc(cap);
		size_t *stack_end = malloc(cap * sizeof *stack_end);
		cr_assert(want && w && stacks && stack_end);
		for (p++; *p == '['; n++) {   /* one sample: [i,j,...] */
			char idx[4096 * 8];
			size_t depth = number_texts(&p, idx, sizeof idx), at = 0;
			for (size_t d = 0; d < depth; d++) {
				unsigned long fi = strtoul(idx + at, NULL, 10);
				at += strlen(idx + at) + 1;
				cr_assert_lt(fi, nf);
				if (d)
					stacks[len++] = ';';
				for (const char *c = names[fi]; *c != '"'; c++)
					stacks[len++] = *c == ';' ? ':' : *c;
			}
			stack_end[n] = len;
			if (*p == ',')
				p++;
		}
		p = strstr(p, "\"weights\":") + 10;
		cr_assert_eq(number_texts(&p, w, cap), n, "profile %d: weights", (int)k);
		size_t wl = 0, from = 0, wat = 0;
		for (size_t i = 0; i < n; i++) {
			wl += (size_t)sprintf(want + wl, "%.*s %s\n", (int)(stack_end[i] - from),
			                      stacks + from, w + wat);
			from = stack_end[i];
			wat += strlen(w + wat) + 1;
		}
		want[wl] = 0;
		profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
		sink s = {0};
		o.profiles = &sel[k], o.n_profiles = 1;
		cr_assert_eq(profdb_convert(db, &o, to_mem, &s), 0, "%s", profdb_error_message());
		cr_assert_str_eq(want, s.p ? s.p : "", "profile %u", (unsigned)sel[k]);
		free(s.p);
		free(want);
		free(w);
		free(stacks);
		free(stack_end);
	}
	free(ss);
}

/* The writer's sample in both layouts: the final one has a single root
 * context (node 0), dev-stage's top-level contexts hang below a node 0
 * the view makes up. A third thread whose compute() has two children of
 * equal weight (line 8 over helper, loop 12 over memcpy): ties go by
 * context id. */
Test(convert_json, speedscope_stacks_per_profile)
{
	static const tw_id tuple3[] = {{1, 1, 0, 0x7f000101}, {3, 0, 2, 2}};
	static const tw_value values3[] = {
		{0, 2, 2}, {1, 2, 2}, {2, 2, 2}, {3, 2, 2}, {4, 2, 2}, {5, 2, 2}, {7, 2, 2},
		{8, 2, 1}, {9, 2, 1}, {10, 2, 1}, {12, 2, 1}, {13, 2, 1}, {14, 2, 1},
	};
	for (int dev = 0; dev < 2; dev++) {
		tw_hpctk4 d;
		tw_profile prof[4];
		tw_hpctk4_sample(&d);
		cr_assert_eq(d.n_profiles, 3);
		memcpy(prof, d.profiles, 3 * sizeof *prof);
		prof[3] = (tw_profile){0, 2, tuple3, sizeof values3 / sizeof *values3, values3};
		d.profiles = prof, d.n_profiles = 4;
		d.devstage = dev;
		tc_hpctk4_files f;
		profdb *db = tc_hpctk4_open(&d, &f);
		same_stacks(db);
		char *out = convert(db, PROFDB_CONVERT_SPEEDSCOPE, NULL);
		cr_assert(strstr(out, "\"weights\":[1,1],\"endValue\":2}"), "%s", out);
		free(out);
		profdb_close(db);
		tc_hpctk4_free(&f);
	}
}

/* A synthetic database: sparse values (contexts with no stored value take
 * their children's sum), many ties at zero, eight profiles. */
Test(convert_json, speedscope_stacks_per_profile_synthetic)
{
	char dir[] = "/tmp/profdb-convert-json-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(tw_hpctk4_synth_dir(dir, 8, 600, 2, 0.2, 0, 7), 0);
	profdb *db;
	cr_assert_eq(profdb_open(&db, dir, NULL), 0, "%s", profdb_error_message());
	same_stacks(db);
	profdb_close(db);
	static const char *const dbs[] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	char path[sizeof dir + 16];
	for (size_t k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, dbs[k]);
		unlink(path);
	}
	cr_assert_eq(rmdir(dir), 0, "%s left behind", dir);
}

/* Cube: mintime is a MINDOUBLE metric (combine min), and the derived ratio
 * a POSTDERIVED one CubePL would compute (combine none). */
Test(convert_json, refuses_cube_min_and_derived)
{
#ifndef PROFDB_HAVE_CUBE
	cr_skip_test("this build has no Cube reader (expat)");
#else
	tw_blob b;
	cr_assert_eq(tw_cube_write(&b, TW_CUBE_DERIVED, NULL), 0);
	profdb *db = tc_open_mem("sample.cubex", b.data, b.size);
	check_refused(db, 1, "min");
	check_refused(db, 5, "none");
	profdb_close(db);
	tw_blob_free(&b);
#endif
}
#endif

TC_MAIN
