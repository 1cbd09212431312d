/* profdb_convert(): options, then the writer of the chosen format. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "convert-internal.h"

static const char *const names[] = {"folded", "speedscope", "chrome", "callgrind", "pprof", "svg", "timeline"};
#define N_FORMATS (sizeof names / sizeof names[0])

const char *profdb_convert_format_name(profdb_convert_format format)
{
	return (unsigned)format < N_FORMATS ? names[format] : NULL;
}

int profdb_convert_format_find(const char *name, profdb_convert_format *out)
{
	if (!name || !out)
		return profdb__fail(-EINVAL, "profdb_convert_format_find: NULL argument");
	for (size_t i = 0; i < N_FORMATS; i++)
		if (!strcasecmp(name, names[i])) {
			*out = (profdb_convert_format)i;
			return 0;
		}
	return profdb__fail(-ENOENT, "no output format '%s' (folded, speedscope, chrome, "
	                    "callgrind, pprof, svg, timeline)", name);
}

static int copy_options(const profdb_convert_options *in, profdb_convert_options *o)
{
	profdb_convert_options def = PROFDB_CONVERT_OPTIONS_INIT;
	*o = def;
	int r = profdb__options_take(o, sizeof *o, in, "profdb_convert",
	                             "PROFDB_CONVERT_OPTIONS_INIT");
	if (r < 0 || !in)
		return r;
	if ((unsigned)o->format >= N_FORMATS)
		return profdb__fail(-EINVAL, "profdb_convert: unknown format %d", (int)o->format);
	if ((o->n_metrics && !o->metrics) || (o->n_profiles && !o->profiles))
		return profdb__fail(-EINVAL, "profdb_convert: a count without its array");
	/* Written so that NaN, which fails every comparison, is refused. */
	if (!(o->width >= 0 && o->width <= 1e6) || !(o->min_width >= 0 && o->min_width <= 1e6))
		return profdb__fail(-EINVAL, "profdb_convert: SVG width %g or minimum frame width %g "
		                    "not in [0, 1e6] pixels", o->width, o->min_width);
	if ((unsigned)o->color > PROFDB_SVG_COLOR_FILE)
		return profdb__fail(-EINVAL, "profdb_convert: unknown SVG colouring %d", (int)o->color);
	if (o->to_ns && o->to_ns <= o->from_ns)
		return profdb__fail(-EINVAL, "profdb_convert: the timeline's window ends (%" PRIu64
		                    " ns) at or before its start (%" PRIu64 " ns)", o->to_ns, o->from_ns);
	return 0;
}

int profdb_convert(const profdb *db, const profdb_convert_options *opts, profdb_write_fn write,
                   void *userdata)
{
	if (!db || !write)
		return profdb__fail(-EINVAL, "profdb_convert: NULL argument");
	profdb_convert_options o;
	int r = copy_options(opts, &o);
	if (r < 0)
		return r;
	static int (*const writers[])(const profdb *, const profdb_convert_options *, profdb__cv_out *) = {
		profdb__convert_folded, profdb__convert_speedscope, profdb__convert_chrome,
		profdb__convert_callgrind, profdb__convert_pprof, profdb__convert_svg,
		profdb__convert_timeline,
	};
	profdb__cv_out *out = malloc(sizeof *out);
	if (!out)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory");
	profdb__cv_init(out, write, userdata);
	r = writers[o.format](db, &o, out);
	int f = profdb__cv_flush(out);
	free(out);
	return r < 0 ? r : f;
}
