/* The converters (profdb/convert.h) under the fuzzer: drive-query.c calls
 * fuzz_convert_run() on every handle it opened. Every writer reads the
 * handle through its own paths (the Callgrind writer decodes line details
 * into recycled records, pprof encodes samples into compression chunks,
 * the tree formats walk the views), so each is driven here. Invariants:
 *  - every format returns 0, a documented errno with a message, or the
 *    sink's own -ECANCELED once the output passes MAX_OUTPUT;
 *  - the sink is never handed an empty or NULL buffer, nor one over 64 KiB
 *    (profdb_write_fn's promise);
 *  - the same conversion with the writers' helper threads and without
 *    (profdb_options.threads 1 and 2 at the open: the caller's choice)
 *    writes the same bytes: the output does not depend on scheduling
 *    (inputs of at most FUZZ_CONVERT_FEW_PROFILES profiles);
 *  - a complete Callgrind output, combined or a part per profile, opens
 *    again with profdb_cg_open_mem() in strict mode: whatever the input held, the writer emits a valid text
 *    (names that would read as something else are its problem). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drive-query.h"
#include "profdb/callgrind.h"
#include "profdb/convert.h"

#define CALL FUZZ_CALL

enum {
	MAX_OUTPUT = 4u << 20,   /* bytes written per conversion before the sink stops it */
	MAX_BUFFER = 64u << 10,  /* profdb_write_fn's largest buffer */
};

typedef struct sink {
	unsigned char *data;
	size_t len, cap;
	int stopped;   /* the sink returned -ECANCELED */
} sink;

static int sink_write(const void *data, size_t len, void *userdata)
{
	sink *s = userdata;
	QUERY_CHECK(data != NULL && len > 0, "the writer handed %zu bytes at %p", len, data);
	QUERY_CHECK(len <= MAX_BUFFER, "the writer handed %zu bytes, over 64 KiB", len);
	if (len > MAX_OUTPUT - s->len) {
		s->stopped = 1;
		return -ECANCELED;
	}
	if (s->len + len > s->cap) {
		size_t cap = s->cap ? s->cap : 65536;
		while (cap < s->len + len)
			cap *= 2;
		unsigned char *p = realloc(s->data, cap);
		if (!p)
			abort();
		s->data = p;
		s->cap = cap;
	}
	memcpy(s->data + s->len, data, len);
	s->len += len;
	return 0;
}

/* One conversion into @p s (@p separate: Callgrind's one part per
 * profile); the result, checked. */
static int convert_into(const profdb *db, profdb_convert_format f, int separate, sink *s)
{
	memset(s, 0, sizeof *s);
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	o.format = f;
	o.separate = separate;
	fuzz_clear_message();
	int r = profdb_convert(db, &o, sink_write, s);
	if (r == -ECANCELED && s->stopped)
		return r;
	QUERY_CHECK(!s->stopped, "the sink stopped the writer, which returned %d", r);
	return (int)fuzz_result(r, "profdb_convert", __FILE__, __LINE__);
}

/* The Callgrind text the writer made opens again, strictly. */
static void reopen_callgrind(const sink *s)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	profdb_cg *cg = NULL;
	int r = profdb_cg_open_mem(&cg, s->data, s->len, &o);
	QUERY_CHECK(r == 0 || r == -ENOMEM, "profdb's own Callgrind output (%zu bytes) does not open: %d %s",
	            s->len, r, profdb_error_message());
	profdb_cg_close(cg);
}

void fuzz_convert_run(const profdb *db, const profdb *db1)
{
	int64_t np = profdb_profile_count(db);
	int few = np >= 0 && np <= FUZZ_CONVERT_FEW_PROFILES;
	if (!few)
		db1 = NULL;
	static const profdb_convert_format formats[] = {
		PROFDB_CONVERT_FOLDED, PROFDB_CONVERT_SPEEDSCOPE, PROFDB_CONVERT_CHROME,
		PROFDB_CONVERT_CALLGRIND, PROFDB_CONVERT_PPROF, PROFDB_CONVERT_SVG,
		PROFDB_CONVERT_TIMELINE,
	};
	/* the formats, then Callgrind again with a part per profile */
	for (size_t i = 0; i < sizeof formats / sizeof *formats + few; i++) {
		int separate = i == sizeof formats / sizeof *formats;
		profdb_convert_format f = separate ? PROFDB_CONVERT_CALLGRIND : formats[i];
		sink a, b;
		int ra = convert_into(db, f, separate, &a);
		if (db1) {
			int rb = convert_into(db1, f, separate, &b);
			if (ra != -ENOMEM && rb != -ENOMEM && !a.stopped && !b.stopped) {
				QUERY_CHECK(ra == rb, "%s: %d with helper threads, %d without",
				            profdb_convert_format_name(f), ra, rb);
				QUERY_CHECK(ra < 0 || (a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len))),
				            "%s: %zu bytes with helper threads, %zu without, not the same",
				            profdb_convert_format_name(f), a.len, b.len);
			}
			free(b.data);
		}
		if (ra == 0 && f == PROFDB_CONVERT_CALLGRIND)
			reopen_callgrind(&a);
		free(a.data);
	}
}
