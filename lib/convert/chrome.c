/* Chrome Trace Event JSON (doc/CONVERT.md): each trace line is a thread
 * whose call path is a stack of B/E slices; a sample lasts until the next
 * sample of its line. Times are microseconds since the first sample of all
 * lines, written from integer nanoseconds with three decimals. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "profdb/profdb-version.h"
#include "stacks-internal.h"

typedef struct chrome {
	profdb__cv_out *o;
	profdb__cv_frames frames;
	uint64_t t0;
	uint32_t pid, tid;
	int first;                  /* no event written yet */
} chrome;

static void sep(chrome *c)
{
	profdb__cv_puts(c->o, c->first ? "\n" : ",\n");
	c->first = 0;
}

/* "12.345": @p ns nanoseconds as microseconds, exactly. */
static void put_us(profdb__cv_out *o, uint64_t ns)
{
	char frac[5] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
	                (char)('0' + ns % 10), 0};
	profdb__cv_u64(o, ns / 1000);
	profdb__cv_put(o, frac, 4);
}

static int slice(chrome *c, char ph, uint32_t frame, uint64_t t)
{
	profdb__cv_out *o = c->o;
	sep(c);
	profdb__cv_puts(o, "{\"ph\":\"");
	profdb__cv_putc(o, ph);
	profdb__cv_puts(o, "\",\"name\":");
	profdb__cv_json_str(o, profdb__cv_frame_label(&c->frames, frame));
	profdb__cv_puts(o, ",\"pid\":");
	profdb__cv_u64(o, c->pid);
	profdb__cv_puts(o, ",\"tid\":");
	profdb__cv_u64(o, c->tid);
	profdb__cv_puts(o, ",\"ts\":");
	put_us(o, t - c->t0);
	profdb__cv_putc(o, '}');
	return o->err;
}

static int on_open(void *ud, uint32_t frame, uint64_t t) { return slice(ud, 'B', frame, t); }
static int on_close(void *ud, uint32_t frame, uint64_t t) { return slice(ud, 'E', frame, t); }

/* The process a profile belongs to: its identity entries of the kinds
 * that name a process, as `profdb profiles` prints them ("node=0 rank=3"),
 * "process" when it has none. */
static int process_key(const profdb *db, uint32_t profile, profdb__cv_buf *b)
{
	static const char *const kinds[] = {"node", "rank", "pid", "process"};
	profdb_profile p;
	int r = profdb_profile_at(db, profile, &p);
	b->len = 0;
	for (uint32_t i = 0; r >= 0 && i < p.n_identity; i++) {
		profdb_str kind;
		uint64_t v;
		if ((r = profdb_profile_identity(db, profile, i, &kind, &v)) < 0)
			break;
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
			if (kind.len == strlen(kinds[k]) && !strncasecmp(kind.ptr, kinds[k], kind.len)) {
				if ((b->len && (r = profdb__cv_buf_put(b, " ", 1)) < 0) ||
				    (r = profdb__cv_identity_word(b, kind, v)) < 0)
					return r;
			}
	}
	if (r >= 0 && !b->len)
		r = profdb__cv_buf_put(b, "process", 7);
	return r < 0 ? r : 0;
}

/* The metadata events: a name per process and per thread. */
static void put_meta(chrome *c, const char *what, uint32_t pid, uint32_t tid, profdb_str name)
{
	profdb__cv_out *o = c->o;
	sep(c);
	profdb__cv_puts(o, "{\"ph\":\"M\",\"name\":\"");
	profdb__cv_puts(o, what);
	profdb__cv_puts(o, "\",\"pid\":");
	profdb__cv_u64(o, pid);
	profdb__cv_puts(o, ",\"tid\":");
	profdb__cv_u64(o, tid);
	profdb__cv_puts(o, ",\"args\":{\"name\":");
	profdb__cv_json_str(o, name);
	profdb__cv_puts(o, "}}");
}

int profdb__convert_chrome(const profdb *db, const profdb_convert_options *opts, profdb__cv_out *o)
{
	if (opts->n_metrics)
		return profdb__fail(-EINVAL, "profdb_convert: chrome writes the traces, which carry no "
		                    "metric values: give no metric");
	uint32_t *profiles;
	size_t n, lines;
	uint64_t t0, samples;
	int r = profdb__cv_profiles(db, opts, &profiles, &n);
	if (r < 0)
		return r;
	if ((r = profdb__cv_trace_span(db, profiles, n, 1, &t0, &samples, &lines)) < 0) {
		free(profiles);
		return r;
	}
	chrome c = {o, {0}, t0, 0, 0, 1};
	profdb__cv_paths paths = {0};
	paths.db = db, paths.frames = &c.frames;
	profdb__cv_buf keys = {0}, key = {0};   /* the processes met: NUL-separated keys */
	uint32_t n_keys = 0;
	profdb_about about;
	profdb__cv_puts(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"profdb "
	                PROFDB_VERSION_STRING "\",\"title\":");
	profdb__cv_json_str(o, profdb_get_about(db, &about) == 0 ? about.title : (profdb_str){"", 0});
	profdb__cv_puts(o, ",\"epoch_ns\":\"");
	profdb__cv_u64(o, t0);
	profdb__cv_puts(o, "\",\"ts\":\"microseconds since epoch_ns (nanoseconds since the Unix "
	                "epoch, as the profile stores it)\"},\n\"traceEvents\":[");
	uint64_t done = 0;
	profdb__cv_trace_sink sink = {on_open, on_close, &c};
	for (size_t i = 0; i < n && r >= 0; i++) {
		int64_t len = profdb_trace_length(db, profiles[i]);
		if (len <= 0) {
			r = len < 0 ? (int)len : 0;
			continue;
		}
		if ((r = process_key(db, profiles[i], &key)) < 0)
			break;
		/* pid: the process's rank among those met, from 1 */
		uint32_t pid = 0;
		for (size_t off = 0, k = 1; off < keys.len; off += strlen(keys.p + off) + 1, k++)
			if (strlen(keys.p + off) == key.len && !memcmp(keys.p + off, key.p, key.len)) {
				pid = (uint32_t)k;
				break;
			}
		if (!pid) {
			if ((r = profdb__cv_buf_put(&keys, key.p, key.len)) < 0 ||
			    (r = profdb__cv_buf_put(&keys, "", 1)) < 0)
				break;
			pid = ++n_keys;
			put_meta(&c, "process_name", pid, 0, (profdb_str){key.p, key.len});
		}
		key.len = 0;
		if ((r = profdb__cv_profile_name(&key, db, profiles[i])) < 0)
			break;
		c.pid = pid, c.tid = profiles[i];
		put_meta(&c, "thread_name", pid, profiles[i], (profdb_str){key.p, key.len});
		r = profdb__cv_trace_walk(&paths, profiles[i], &sink, opts, &done, samples);
	}
	if (r >= 0)
		profdb__cv_puts(o, "\n]}\n");
	profdb__cv_buf_free(&keys);
	profdb__cv_buf_free(&key);
	profdb__cv_paths_free(&paths);
	profdb__cv_frames_free(&c.frames);
	free(profiles);
	return r < 0 ? r : o->err;
}
