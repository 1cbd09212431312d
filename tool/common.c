/* Opening databases, reporting errors and progress, parsing numbers. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

const char *const tool_prog = "profdb";

/* A mapped input that another program shortens raises SIGBUS at the next
 * read past its new end, in whichever thread reads it: name the file and
 * stop (the library keeps a lock-free table of its mappings for this;
 * returning would fault again, and --copy avoids the hazard). */
static const char *sigbus_prog;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	const char *path = profdb_mapping_path_of(si->si_addr);
	if (!path) {
		/* not an input: the ordinary fatal signal */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	static const char post[] = " changed size while being read (--copy reads the "
	                           "inputs into memory)\n";
	const char *parts[] = {sigbus_prog, ": ", path, post};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		ssize_t w = write(STDERR_FILENO, parts[i], strlen(parts[i]));
		(void)w;
	}
	_exit(EXIT_FAILURE);
}

void tool_catch_sigbus(const char *prog)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigbus_prog = prog;
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static void print_warning(const char *message, void *userdata)
{
	(void)userdata;
	tool_progress_done();
	fprintf(stderr, "%s: warning: %s\n", tool_prog, message);
}

/* The progress line: only on a terminal, only once an operation has run
 * for half a second, redrawn when the percentage changes, erased before
 * anything else goes to stderr and at exit. */
static int progress_shown;
static int progress_last = -1;

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double progress_start = -1;

static int show_progress(uint64_t done, uint64_t total, void *userdata)
{
	(void)userdata;
	if (total == 0)
		return 0;
	/* Quick operations stay quiet: nothing before half a second. */
	if (progress_start < 0)
		progress_start = now_seconds();
	if (!progress_shown && now_seconds() - progress_start < 0.5)
		return 0;
	int pct = done >= total ? 100 : (int)(100.0 * (double)done / (double)total);
	if (pct != progress_last) {
		progress_last = pct;
		fprintf(stderr, "\r%s: reading %3d%%", tool_prog, pct);
		fflush(stderr);
		progress_shown = 1;
	}
	return 0;
}

void tool_progress(uint64_t done, uint64_t total)
{
	static int tty = -1;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (tty)
		show_progress(done, total, NULL);
}

void tool_progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		progress_shown = 0;
		progress_last = -1;
	}
}

int tool_fail(const char *path)
{
	tool_progress_done();
	const char *msg = profdb_error_message();
	/* The library's message usually names the file already. */
	if (*msg && strstr(msg, path))
		fprintf(stderr, "%s: %s\n", tool_prog, msg);
	else
		fprintf(stderr, "%s: %s: %s\n", tool_prog, path, *msg ? msg : "failed");
	return EXIT_INPUT;
}

int tool_fail_status(const char *path, int e)
{
	if (e != TOOL_OOM)
		return tool_fail(path);
	tool_progress_done();
	fprintf(stderr, "%s: out of memory\n", tool_prog);
	return EXIT_INPUT;
}

uint32_t tool_open_flags;

int tool_open(const char *path, profdb **db)
{
	profdb_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.flags = tool_open_flags;
	o.warn = print_warning;
	/* PROFDB_THREADS: threads reading one input (doc/TOOL.md) */
	const char *threads = getenv("PROFDB_THREADS");
	uint32_t t;
	if (threads && *threads && parse_u32(threads, &t) == 0)
		o.threads = t;
	if (isatty(STDERR_FILENO))
		o.progress = show_progress;
	progress_start = now_seconds();
	int r = profdb_open(db, path, &o);
	tool_progress_done();
	if (r < 0)
		return tool_fail(path);
	return 0;
}

int tool_usage_error(const char *usage)
{
	fputs(usage, stderr);
	return EXIT_USAGE;
}

int tool_finish_output(int status)
{
	tool_progress_done();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: writing the output failed: %s\n", tool_prog, strerror(errno));
		return EXIT_INPUT;
	}
	return status;
}

int parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')   /* no sign, no blanks */
		return -1;
	char *end;
	errno = 0;
	uintmax_t v = strtoumax(s, &end, 10);
	if (*end || errno || v > UINT64_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(s, &v) < 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int parse_percent(const char *s, double *out)
{
	/* strtod follows LC_NUMERIC; the tool never leaves the "C" locale. */
	char *end;
	if (!s || !*s)
		return -1;
	double v = strtod(s, &end);
	if (*end || !isfinite(v) || v < 0 || v > 100)
		return -1;
	*out = v;
	return 0;
}

/* ---- option values: a bad one names the option and the value ---- */

int tool_bad_value(const char *opt, const char *arg, const char *what)
{
	fprintf(stderr, "%s: %s: '%s' is not %s\n", tool_prog, opt, arg ? arg : "", what);
	return EXIT_USAGE;
}

int opt_u64(const char *opt, const char *arg, uint64_t *out)
{
	return parse_u64(arg, out) < 0 ? tool_bad_value(opt, arg, "a non-negative integer") : 0;
}

int opt_u32(const char *opt, const char *arg, uint32_t *out)
{
	return parse_u32(arg, out) < 0 ? tool_bad_value(opt, arg, "a non-negative 32-bit integer")
	                               : 0;
}

int opt_percent(const char *opt, const char *arg, double *out)
{
	return parse_percent(arg, out) < 0 ? tool_bad_value(opt, arg, "a percentage from 0 to 100")
	                                   : 0;
}

/* ---- usage errors: one line naming the problem, never the usage text ---- */

int tool_usage_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	tool_progress_done();
	fprintf(stderr, "%s: %s: ", tool_prog, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int tool_args_error(int argc, char **argv)
{
	if (optind >= argc)
		return tool_usage_fail(argv[0], "no PATH given (see 'profdb %s --help')", argv[0]);
	return tool_usage_fail(argv[0], "unexpected argument '%s': one PATH only (see 'profdb %s "
	                       "--help')", argv[optind + 1], argv[0]);
}

/* The long option @p arg ("--name" or "--name=value") names: an exact
 * match, else the only prefix match (or several that mean the same, as
 * getopt allows). NULL: none; *ambiguous set when several differ. */
static const struct option *find_long(const struct option *lo, const char *arg, int *ambiguous)
{
	const char *name = arg + 2;
	size_t n = strcspn(name, "=");
	const struct option *found = NULL;
	*ambiguous = 0;
	for (const struct option *o = lo; o && o->name; o++) {
		if (strncmp(o->name, name, n) != 0)
			continue;
		if (strlen(o->name) == n)
			return o;   /* exact */
		if (found && (found->has_arg != o->has_arg || found->val != o->val ||
		              found->flag != o->flag))
			*ambiguous = 1;
		if (!found)
			found = o;
	}
	return *ambiguous ? NULL : found;
}

int tool_getopt_error(int argc, char **argv, const char *optstring, const struct option *lo)
{
	const char *cmd = argv[0];
	const char *last = optind > 1 && optind <= argc ? argv[optind - 1] : "";
	int ambiguous = 0;
	const struct option *o = NULL;
	/* A long option is in question when the argument getopt consumed last
	 * is one and names the option getopt reported (optopt = its val; 0 for
	 * an unknown one). A short option's error leaves optopt = the letter. */
	if (strncmp(last, "--", 2) == 0 && last[2]) {
		o = find_long(lo, last, &ambiguous);
		if (!o && optopt == 0)
			return tool_usage_fail(cmd, ambiguous ? "option '%.*s' is ambiguous"
			                                      : "unrecognized option '%.*s'",
			                       (int)strcspn(last, "="), last);
		if (o && (o->flag ? 0 : o->val) == optopt) {
			if (o->has_arg == no_argument && strchr(last, '='))
				return tool_usage_fail(cmd, "option '--%s' doesn't allow an argument",
				                       o->name);
			return tool_usage_fail(cmd, "option '--%s' requires an argument", o->name);
		}
	}
	const char *at = optopt > 0 && optopt != ':' ? strchr(optstring, optopt) : NULL;
	if (at && at[1] == ':')
		return tool_usage_fail(cmd, "option requires an argument -- '%c'", optopt);
	if (optopt > 0x20 && optopt < 0x7f)
		return tool_usage_fail(cmd, "invalid option -- '%c'", optopt);
	return tool_usage_fail(cmd, "unrecognized option '%s'", last);
}

int tool_getopt(int argc, char **argv, const char *optstring, const struct option *lo)
{
	opterr = 0;
	int c = getopt_long(argc, argv, optstring, lo, NULL);
	if (c == '?' || c == ':') {
		tool_getopt_error(argc, argv, optstring, lo);
		return '?';
	}
	return c;
}

/* ---- colour --------------------------------------------------------------- */

int tool_color;

int tool_color_setup(const char *when)
{
	/* A non-empty NO_COLOR (https://no-color.org) turns colour off, even
	 * against --color=always: no colour ever with NO_COLOR. */
	const char *no = getenv("NO_COLOR");
	int allowed = !(no && *no);
	if (!when || strcmp(when, "auto") == 0) {
		/* a pipe, a file or a dumb terminal never gets escape sequences */
		const char *term = getenv("TERM");
		tool_color = allowed && isatty(STDOUT_FILENO) && !(term && !strcmp(term, "dumb"));
	} else if (strcmp(when, "always") == 0) {
		tool_color = allowed;
	} else if (strcmp(when, "never") == 0) {
		tool_color = 0;
	} else {
		return tool_bad_value("--color", when, "one of auto, always, never");
	}
	return 0;
}

const char *tool_sgr(tool_style s)
{
	static const char *const seq[] = {"\033[0m", "\033[1m", "\033[36m", "\033[2m"};
	return tool_color && (size_t)s < sizeof seq / sizeof *seq ? seq[s] : "";
}
