/* profdb convert: the database in a format another viewer reads (folded
 * stacks, speedscope, Chrome trace, Callgrind, pprof), or a flame graph or
 * a timeline of the traces drawn as SVG, through profdb_convert(). doc/CONVERT.md says what each format gets. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

static const char convert_usage[] =
	"usage: profdb convert -t FORMAT [-o OUT] [-m METRIC]... [--profiles SEL]\n"
	"                      [--separate] [--icicle] [--width PX] [--min-width PX]\n"
	"                      [--color-by module|file] [--window FROM,TO] [--depth D]\n"
	"                      PATH\n"
	"The database in a format another viewer reads:\n"
	"  folded      'main;solve;dgemm 1234' lines: flamegraph.pl, inferno, speedscope\n"
	"  speedscope  speedscope's JSON (https://www.speedscope.app)\n"
	"  chrome      Chrome Trace Event JSON of the traces: ui.perfetto.dev\n"
	"  callgrind   Callgrind format: kcachegrind, callgrind_annotate, gprof2dot\n"
	"  pprof       gzip-compressed profile.proto: go tool pprof\n"
	"  svg         a flame graph in one SVG file: any browser, offline\n"
	"  timeline    the traces as a timeline in one SVG file, one row per trace line\n"
	"  -t, --to folded|speedscope|chrome|callgrind|pprof|svg|timeline\n"
	"                    the output format (required)\n"
	"  -o, --output OUT  write to OUT (without -o, or with -o -: standard output);\n"
	"                    with --separate, OUT is a prefix and each profile goes to\n"
	"                    OUT.INDEX\n"
	"  -m, --metric M    a metric, by name or id; repeat or 'a,b' for several\n"
	"                    (default: doc/CONVERT.md, per format)\n"
	"  --profiles SEL    only these profiles (as 'profdb profiles' lists them)\n"
	"  --separate        callgrind: one file per profile (OUT.INDEX), not their sum\n"
	"  --icicle          svg: the root at the top\n"
	"  --width PX        svg: the frames' width in pixels; timeline: the number of\n"
	"                    pixel columns of time (default 1200)\n"
	"  --min-width PX    svg: frames narrower than this are merged into their\n"
	"                    parent (default 0.1)\n"
	"  --color-by module|file\n                    svg: what colours the frames (default module)\n"
	"  --window FROM,TO  timeline: the time drawn, as 'profdb trace --from/--to'\n"
	"                    read times ('1.5s,2s', '200ms,', ',3s'): since the\n"
	"                    trace's start; an empty side is the start or the end\n"
	"  --depth D         timeline: colour by the function at call depth D (1 the\n"
	"                    outermost); default: each sample's innermost function\n";

/* Where the output goes. A temporary file that will replace an existing
 * one has its data written back as it comes, a chunk at a time
 * (WRITEBACK_CHUNK): renaming a file over another, ext4 (auto_da_alloc)
 * and others write back the whole new file inside rename(), so that a
 * crash leaves the old file or the new one, never an empty one; started
 * early, that writing overlaps the conversion instead of following it.
 * Only started (SYNC_FILE_RANGE_WRITE): nothing waits for the disk, and
 * the rename keeps its own guarantee for the rest. A new file is left to
 * the kernel's usual writeback (its rename forces none). */
typedef struct sink {
	int fd;
	int write_back;     /* start the writeback of each chunk */
	uint64_t written;
	uint64_t started;   /* the bytes whose writeback was started */
} sink;

#define WRITEBACK_CHUNK ((uint64_t)4 << 20)

static int write_fd(const void *data, size_t len, void *userdata)
{
	sink *s = userdata;
	const char *p = data;
	while (len) {
		ssize_t w = write(s->fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w, len -= (size_t)w, s->written += (uint64_t)w;
	}
#ifdef SYNC_FILE_RANGE_WRITE
	if (s->write_back && s->written - s->started >= WRITEBACK_CHUNK) {
		/* (a failure leaves it to the rename: the data is written anyway) */
		(void)sync_file_range(s->fd, (off_t)s->started, (off_t)(s->written - s->started),
		                      SYNC_FILE_RANGE_WRITE);
		s->started = s->written;
	}
#endif
	return 0;
}

static int on_progress(uint64_t done, uint64_t total, void *userdata)
{
	(void)userdata;
	tool_progress(done, total);
	return 0;
}

/* Resolves the -m arguments ("a,b" splits) into ids; EXIT_USAGE on a name
 * the database lacks, EXIT_INPUT on a read error, 0 otherwise. */
static int resolve_metrics(const profdb *db, const char *path, char **args, size_t n_args,
                           uint32_t *ids, size_t cap, size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < n_args; i++) {
		for (char *save = NULL, *tok = strtok_r(args[i], ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (*n == cap)
				return tool_usage_fail("convert", "at most %zu metrics (-m)", cap);
			profdb_metric m;
			int r = profdb_metric_find(db, tok, &m);
			if (r == -ENOENT)
				return tool_usage_fail("convert", "%s: no metric named or numbered '%s' "
				                       "(see 'profdb metrics')", path, tok);
			if (r < 0)
				return tool_fail(path);
			ids[(*n)++] = m.id;
		}
	}
	return 0;
}

/* Where a conversion to @p out writes: a temporary file in the output's
 * folder, renamed over @p out once the conversion succeeded, so that a
 * refused or failed conversion leaves an existing file as it was. Devices,
 * FIFOs and the like (/dev/null, /dev/stdout) are written directly. */
typedef struct target {
	const char *out;   /* the name given */
	char *final;       /* what the temporary file replaces (a link resolved) */
	char *tmp;         /* the temporary file, or NULL when writing directly */
	mode_t mode;       /* the mode the output gets */
	int replaces;      /* tmp will replace an existing file */
} target;

static int target_open(target *t, const char *out)
{
	struct stat st;
	memset(t, 0, sizeof *t);
	t->out = out;
	int exists = stat(out, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		int fd = open(out, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			fprintf(stderr, "%s: %s: %s\n", tool_prog, out, strerror(errno));
		return fd;
	}
	mode_t mask = umask(0);
	umask(mask);
	t->mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
	t->replaces = exists;
	t->final = realpath(out, NULL);   /* an existing file, through its links */
	if (!t->final)
		t->final = strdup(out);
	const char *slash = t->final ? strrchr(t->final, '/') : NULL;
	int dir_len = slash ? (int)(slash - t->final + 1) : 0;
	if (t->final && asprintf(&t->tmp, "%.*s.%s.XXXXXX", dir_len, t->final,
	                         t->final + dir_len) < 0)
		t->tmp = NULL;
	int fd = t->tmp ? mkstemp(t->tmp) : -1;
	if (fd < 0) {
		fprintf(stderr, "%s: %s: cannot create a temporary file next to it: %s\n", tool_prog,
		        out, t->tmp ? strerror(errno) : "out of memory");
		free(t->tmp);
		free(t->final);
		t->tmp = t->final = NULL;
	}
	return fd;
}

/* Closes @p fd; on success (@p status 0) the temporary file becomes the
 * output, otherwise it goes. @return the status, or EXIT_INPUT when
 * closing or renaming failed. */
static int target_close(target *t, int fd, int status)
{
	if (close(fd) < 0 && !status) {
		fprintf(stderr, "%s: %s: %s\n", tool_prog, t->out, strerror(errno));
		status = EXIT_INPUT;
	}
	if (t->tmp) {
		if (!status && (chmod(t->tmp, t->mode) < 0 || rename(t->tmp, t->final) < 0)) {
			fprintf(stderr, "%s: %s: %s\n", tool_prog, t->out, strerror(errno));
			status = EXIT_INPUT;
		}
		if (status)
			unlink(t->tmp);
	}
	free(t->tmp);
	free(t->final);
	return status;
}

/* One output: @p out (NULL: stdout). @return 0 or the exit status. */
static int convert_one(const profdb *db, const char *path, const char *out,
                       const profdb_convert_options *o)
{
	sink s = {STDOUT_FILENO, 0, 0, 0};
	target t;
	if (out && (s.fd = target_open(&t, out)) < 0)
		return EXIT_INPUT;
	s.write_back = out && t.tmp && t.replaces;
	profdb_convert_options opts = *o;
	if (isatty(STDERR_FILENO))
		opts.progress = on_progress;
	int r = profdb_convert(db, &opts, write_fd, &s);
	tool_progress_done();
	int status = 0;
	if (r < 0 && r != -EPIPE)
		status = tool_fail(path);
	return out ? target_close(&t, s.fd, status) : status;
}

/* A number of pixels for @p opt: > 0 and at most 10^6. @return 0 or
 * EXIT_USAGE (said). */
static int pixels(const char *cmd, const char *opt, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0 && v <= 1e6))
		return tool_usage_fail(cmd, "%s: '%s' is not a number of pixels in (0, 1e6]", opt, arg);
	*out = v;
	return 0;
}

/* --window FROM,TO: times as `profdb trace` reads them, either side
 * empty (the start, the end). @return 0 or EXIT_USAGE (said). */
static int parse_window(const char *cmd, const char *arg, profdb_convert_options *o)
{
	const char *comma = strchr(arg, ',');
	if (!comma)
		return tool_usage_fail(cmd, "--window: '%s' is not FROM,TO (e.g. '1.5s,2s', '200ms,')",
		                       arg);
	char from[64];
	size_t n = (size_t)(comma - arg);
	if (n >= sizeof from)
		return tool_usage_fail(cmd, "--window: '%s': FROM is too long", arg);
	memcpy(from, arg, n);
	from[n] = 0;
	o->from_ns = 0, o->to_ns = 0;
	if ((n && profdb_time_parse(from, &o->from_ns) < 0) ||
	    (comma[1] && profdb_time_parse(comma + 1, &o->to_ns) < 0))
		return tool_usage_fail(cmd, "--window: %s", profdb_error_message());
	if (comma[1] && o->to_ns <= o->from_ns)
		return tool_usage_fail(cmd, "--window: '%s' ends at or before it starts", arg);
	return 0;
}

/* --separate writes PREFIX.INDEX files: a PREFIX that is a device or an
 * existing file is surely a mistake (/dev/null would give /dev/null.0,
 * ...). @return 0 or EXIT_USAGE. */
static int check_prefix(const char *cmd, const char *prefix)
{
	struct stat st;
	if (stat(prefix, &st) < 0 || S_ISDIR(st.st_mode))
		return 0;
	return tool_usage_fail(cmd, "--separate: -o %s: %s; with --separate, -o gives a prefix "
	                       "for new files PREFIX.INDEX (one per profile)", prefix,
	                       S_ISREG(st.st_mode) ? "an existing file" : "not a regular file");
}

int cmd_convert(int argc, char **argv)
{
	static const struct option lo[] = {
		{"to", required_argument, NULL, 't'}, {"output", required_argument, NULL, 'o'},
		{"metric", required_argument, NULL, 'm'}, {"profiles", required_argument, NULL, 'p'},
		{"separate", no_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
		{"icicle", no_argument, NULL, 'i'}, {"width", required_argument, NULL, 'W'},
		{"min-width", required_argument, NULL, 'M'}, {"color-by", required_argument, NULL, 'C'},
		{"window", required_argument, NULL, 'w'}, {"depth", required_argument, NULL, 'd'},
		{0, 0, 0, 0}};
	char *metric_args[64];
	size_t n_args = 0;
	const char *to = NULL, *out = NULL, *sel = NULL;
	int separate = 0, c, svg_opts = 0, tl_opts = 0;
	profdb_convert_options o = PROFDB_CONVERT_OPTIONS_INIT;
	while ((c = tool_getopt(argc, argv, "t:o:m:h", lo)) != -1) {
		switch (c) {
		case 't': to = optarg; break;
		case 'o': out = strcmp(optarg, "-") ? optarg : NULL; break;   /* "-": stdout */
		case 'm':
			if (n_args == 64)
				return tool_usage_fail(argv[0], "at most 64 -m options");
			metric_args[n_args++] = optarg;
			break;
		case 'p': sel = optarg; break;
		case 's': separate = 1; break;
		case 'i': o.icicle = 1, svg_opts = 1; break;
		case 'W':
		case 'M':
			if (pixels(argv[0], c == 'W' ? "--width" : "--min-width", optarg,
			           c == 'W' ? &o.width : &o.min_width))
				return EXIT_USAGE;
			svg_opts = 1;
			break;
		case 'C':
			if (!strcmp(optarg, "module") || !strcmp(optarg, "file"))
				o.color = optarg[0] == 'm' ? PROFDB_SVG_COLOR_MODULE : PROFDB_SVG_COLOR_FILE;
			else
				return tool_usage_fail(argv[0], "--color-by: '%s' (module or file)", optarg);
			svg_opts = 1;
			break;
		case 'w':
			if (parse_window(argv[0], optarg, &o))
				return EXIT_USAGE;
			tl_opts = 1;
			break;
		case 'd':
			if (opt_u32("--depth", optarg, &o.depth))
				return EXIT_USAGE;
			if (!o.depth)
				return tool_usage_fail(argv[0], "--depth: 1 is the outermost frame (leave "
				                       "--depth out for the innermost)");
			tl_opts = 1;
			break;
		case 'h': fputs(convert_usage, stdout); return 0;
		default: return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return tool_args_error(argc, argv);
	if (!to)
		return tool_usage_fail(argv[0], "-t FORMAT is required (folded, speedscope, chrome, "
		                       "callgrind, pprof, svg, timeline)");
	o.separate = separate;
	if (profdb_convert_format_find(to, &o.format) < 0)
		return tool_usage_fail(argv[0], "-t: %s", profdb_error_message());
	if (separate && o.format != PROFDB_CONVERT_CALLGRIND)
		return tool_usage_fail(argv[0], "--separate is for -t callgrind");
	if (svg_opts && o.format != PROFDB_CONVERT_SVG &&
	    (o.icicle || o.min_width > 0 || o.color || o.format != PROFDB_CONVERT_TIMELINE))
		return tool_usage_fail(argv[0], "--icicle, --min-width and --color-by are for -t svg, "
		                       "--width for -t svg and -t timeline");
	if (tl_opts && o.format != PROFDB_CONVERT_TIMELINE)
		return tool_usage_fail(argv[0], "--window and --depth are for -t timeline");
	if (separate && !out)
		return tool_usage_fail(argv[0], "--separate needs -o PREFIX");
	if (separate && check_prefix(argv[0], out))
		return EXIT_USAGE;

	const char *path = argv[optind];
	o.title = path;
	profdb *db;
	if (tool_open(path, &db))
		return EXIT_INPUT;
	uint32_t ids[256], *profiles = NULL;
	size_t n_ids;
	int status = resolve_metrics(db, path, metric_args, n_args, ids, 256, &n_ids);
	if (status)
		goto out;
	o.metrics = n_ids ? ids : NULL;
	o.n_metrics = n_ids;
	if (sel || separate) {
		int64_t n = profdb_profiles_select(db, sel, NULL, 0);
		if (n < 0 || !(profiles = malloc(((size_t)n + 1) * sizeof *profiles))) {
			status = n < 0 && sel ? tool_usage_fail("convert", "--profiles: %s",
			                                        profdb_error_message())
			                      : tool_fail_status(path, n < 0 ? (int)n : TOOL_OOM);
			goto out;
		}
		n = profdb_profiles_select(db, sel, profiles, (size_t)n);
		o.profiles = profiles;
		o.n_profiles = (size_t)n;
	}
	if (!separate) {
		status = convert_one(db, path, out, &o);
		goto out;
	}
	/* --separate: one Callgrind file per profile, as valgrind's
	 * --separate-threads writes them. */
	size_t plen = strlen(out) + 16;
	char *name = malloc(plen);
	if (!name) {
		status = tool_fail(path);
		goto out;
	}
	const uint32_t *all = profiles;
	size_t n_all = o.n_profiles;
	for (size_t i = 0; i < n_all && !status; i++) {
		snprintf(name, plen, "%s.%" PRIu32, out, all[i]);
		o.profiles = &all[i];
		o.n_profiles = 1;
		status = convert_one(db, path, name, &o);
	}
	free(name);
out:
	free(profiles);
	profdb_close(db);
	return status;
}
