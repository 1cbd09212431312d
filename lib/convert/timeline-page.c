/* The SVG timeline's page (doc/CONVERT.md, "SVG timeline"): the header
 * with the window in attributes the script and tests read (data-start-ns
 * the trace's start in epoch ns, data-from-ns and data-to-ns the window in
 * ns since then, data-x0 the first column's x, data-columns their count),
 * the titles, the time axis, then after the rows the legend of the
 * functions that cover most pixels and a small script that names what the
 * pointer is over. Nothing is fetched. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline-internal.h"

static const char style[] =
	"<style>\n"
	"text{font:12px monospace;fill:#000}\n"
	".h{font-size:17px}\n"
	".l{font-size:10px}\n"
	".ax{stroke:#888;stroke-width:1}\n"
	"g.row rect:hover{stroke:#000;stroke-width:.8}\n"
	"</style>\n";

/* Names the function, the row and the time span of the rect under the
 * pointer; times from the rect's columns and the window in the header. */
static const char script[] =
	"<script><![CDATA[\n"
	"(function(){\n"
	"var svg=document.documentElement,a=function(n){return +svg.getAttribute(n);};\n"
	"var x0=a('data-x0'),W=a('data-columns'),f=a('data-from-ns'),t=a('data-to-ns');\n"
	"var d=document.getElementById('details');\n"
	"function s(x){return ((f+(x-x0)*(t-f)/W)/1e9).toFixed(6)+' s';}\n"
	"svg.addEventListener('mouseover',function(e){var r=e.target;"
	"if(!r.getAttribute||r.getAttribute('data-fn')===null)return;\n"
	" var x=+r.getAttribute('x'),w=+r.getAttribute('width'),g=r.parentNode,"
	"l=g.querySelector?g.querySelector('title'):null;\n"
	" d.textContent=r.getAttribute('data-fn')+(g.getAttribute('class')=='row'?"
	"'  ['+(l?l.textContent:'')+']  '+s(x)+' - '+s(x+w):'');});\n"
	"})();\n"
	"]]></script>\n";

void profdb__tl_colour(const timeline *t, uint32_t fn, char out[8])
{
	profdb_str s = tl_fn_name(t, fn);
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < s.len; i++)
		h = (h ^ (unsigned char)s.ptr[i]) * 0x100000001b3ull;
	h ^= h >> 31;
	/* hue over the whole circle, saturation and lightness in a band that
	 * keeps neighbours apart and text readable */
	double hue = (double)(h % 360), sat = 0.45 + (double)((h >> 12) % 40) / 100,
	       lig = 0.45 + (double)((h >> 20) % 25) / 100;
	double c = (1 - fabs(2 * lig - 1)) * sat, hp = hue / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = lig - c / 2;
	double r = 0, g = 0, b = 0;
	switch ((int)hp) {
	case 0: r = c, g = x; break;
	case 1: r = x, g = c; break;
	case 2: g = c, b = x; break;
	case 3: g = x, b = c; break;
	case 4: r = x, b = c; break;
	default: r = c, b = x; break;
	}
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)((r + m) * 255 + 0.5) & 255,
	         (unsigned)((g + m) * 255 + 0.5) & 255, (unsigned)((b + m) * 255 + 0.5) & 255);
}

/* "1.234567890": @p ns as seconds, exactly. */
static void put_seconds(profdb__cv_out *o, uint64_t ns)
{
	profdb__svg_putf(o, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

/* Ticks every 1, 2 or 5 times a power of ten nanoseconds, about every
 * 120 pixels, labelled in the largest unit that divides the step. */
static void put_axis(profdb__cv_out *o, const timeline *t)
{
	static const struct {
		uint64_t ns;
		const char *name;
	} units[] = {{1000000000u, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
	uint64_t span = t->to - t->from;
	double want = (double)span * 120 / t->columns;
	if (want > (double)span / 2)
		want = (double)span / 2;   /* two ticks at least */
	uint64_t step = 1, base = 1;
	for (int k = 0; (double)step < want; k++) {
		static const uint64_t mult[3] = {2, 5, 10};
		if (k % 3 == 2 && base > UINT64_MAX / 100)
			break;
		step = base * mult[k % 3];
		if (k % 3 == 2)
			base = step;
	}
	size_t u = 0;
	while (units[u].ns > step || step % units[u].ns)
		u++;
	int x0 = tl_x0(), y = TL_TOP - 8;
	profdb__svg_putf(o, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", x0, y,
	                 x0 + (int)t->columns, y);
	uint64_t first = t->from / step + (t->from % step != 0);
	for (uint64_t k = first; k <= UINT64_MAX / step && k * step < t->to; k++) {
		double x = x0 + (double)(k * step - t->from) * t->columns / (double)span;
		profdb__svg_putf(o, "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
		                 "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%" PRIu64 " %s</text>\n",
		                 x, y - 4, x, y + 4, x, y - 7, k * step / units[u].ns, units[u].name);
	}
}

/* The functions the legend shows: those drawn, at most TL_LEGEND_MAX. */
static int legend_size(const timeline *t)
{
	int n = 0;
	for (size_t i = 0; i < t->n_fn && n < TL_LEGEND_MAX; i++)
		n += t->fn[i].pixels > 0;
	return n;
}

int profdb__tl_head(profdb__cv_out *o, const timeline *t)
{
	profdb_about about;
	int r = profdb_get_about(t->db, &about);
	if (r < 0)
		return r;
	int width = tl_total_width(t), per_line = width / TL_LEGEND_W ? width / TL_LEGEND_W : 1;
	int legend = (legend_size(t) + per_line - 1) / per_line * TL_LEGEND_H;
	int height = TL_TOP + (int)t->n_rows * t->row_h + 30 + legend;
	profdb__svg_putf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
	                 "height=\"%d\" viewBox=\"0 0 %d %d\" style=\"background:#fdfaf4\" ",
	                 width, height, width, height);
	profdb__svg_putf(o, "data-start-ns=\"%" PRIu64 "\" data-from-ns=\"%" PRIu64 "\" "
	                 "data-to-ns=\"%" PRIu64 "\" data-x0=\"%d\" data-columns=\"%" PRIu32 "\" "
	                 "data-depth=\"%" PRIu32 "\">\n", t->start, t->from, t->to, tl_x0(),
	                 t->columns, t->opts->depth);
	profdb__cv_puts(o, style);
	profdb__svg_putf(o, "<text class=\"h\" x=\"%d\" y=\"24\">", TL_MARGIN);
	if (t->opts->title)
		profdb__svg_xml(o, (profdb_str){t->opts->title, strlen(t->opts->title)}, SIZE_MAX);
	else if (about.title.len)
		profdb__svg_xml(o, about.title, 200);
	else
		profdb__cv_puts(o, profdb_format_name(about.format));
	profdb__svg_putf(o, "</text>\n<text x=\"%d\" y=\"42\">%zu trace line%s", TL_MARGIN,
	                 t->n_rows, t->n_rows == 1 ? "" : "s");
	if (t->empty)
		profdb__svg_putf(o, " (%zu without samples)", t->empty);
	profdb__cv_puts(o, ", ");
	put_seconds(o, t->from);
	profdb__cv_puts(o, " s to ");
	put_seconds(o, t->to);
	profdb__svg_putf(o, " s since the trace's start</text>\n<text x=\"%d\" y=\"58\">colour: ",
	                 TL_MARGIN);
	if (t->opts->depth)
		profdb__svg_putf(o, "the function at depth %" PRIu32, t->opts->depth);
	else
		profdb__cv_puts(o, "the innermost function");
	profdb__svg_putf(o, "; start: %" PRIu64 " ns since the epoch</text>\n"
	                 "<text id=\"details\" x=\"%d\" y=\"76\"></text>\n", t->start, TL_MARGIN);
	put_axis(o, t);
	return o->err;
}

static int by_pixels(const void *a, const void *b)
{
	const tl_fn *x = *(const tl_fn *const *)a, *y = *(const tl_fn *const *)b;
	if (x->pixels != y->pixels)
		return x->pixels < y->pixels ? 1 : -1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

int profdb__tl_tail(profdb__cv_out *o, const timeline *t)
{
	const tl_fn **order = malloc((t->n_fn + 1) * sizeof *order);
	if (!order)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (timeline)");
	uint64_t all = 0;
	for (size_t i = 0; i < t->n_fn; i++)
		order[i] = &t->fn[i], all += t->fn[i].pixels;
	if (t->n_fn)
		qsort(order, t->n_fn, sizeof *order, by_pixels);
	int per_line = tl_total_width(t) / TL_LEGEND_W ? tl_total_width(t) / TL_LEGEND_W : 1;
	int y0 = TL_TOP + (int)t->n_rows * t->row_h + 24;
	for (size_t i = 0; i < t->n_fn && i < TL_LEGEND_MAX && order[i]->pixels; i++) {
		uint32_t fn = (uint32_t)(order[i] - t->fn);
		char colour[8];
		profdb__tl_colour(t, fn, colour);
		int x = TL_MARGIN + (int)(i % (size_t)per_line) * TL_LEGEND_W;
		int y = y0 + (int)(i / (size_t)per_line) * TL_LEGEND_H;
		profdb__svg_putf(o, "<g class=\"key\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
		                 "fill=\"%s\" data-fn=\"", x, y, colour);
		profdb__svg_xml(o, tl_fn_name(t, fn), SIZE_MAX);
		profdb__svg_putf(o, "\"/><text x=\"%d\" y=\"%d\">%5.1f%% ", x + 16, y + 10,
		                 100.0 * (double)order[i]->pixels / (double)all);
		profdb__svg_xml(o, tl_fn_name(t, fn), 30);
		profdb__cv_puts(o, "</text></g>\n");
	}
	free(order);
	profdb__cv_puts(o, script);
	profdb__cv_puts(o, "</svg>\n");
	return o->err;
}
