/* The SVG flame graph's page (doc/CONVERT.md, "SVG flame graph"): the
 * header, one <g class="f"> per frame drawn, in pre-order, with its data
 * in attributes the script and tests read (data-d depth, data-v inclusive
 * value, data-s what it holds itself plus its children not drawn, data-n
 * the full name), and the inline style and script. Nothing is fetched. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg-internal.h"

enum { MARGIN = 10, FRAME_H = 16, TOP = 70, BOTTOM = 30 };
#define CHAR_W 7.2   /* 12 px monospace: the script uses the same width */

static const char style[] =
	"<style>\n"
	"text{font:12px monospace;fill:#000}\n"
	"g.f text{pointer-events:none}\n"
	"g.f rect{stroke:#fff;stroke-width:.3}\n"
	"g.f:hover rect{stroke:#000;stroke-width:.8}\n"
	"g.f.m rect{fill:#e040e0}\n"
	"g.f.up rect{opacity:.6}\n"
	".h{font-size:17px}\n"
	".b{cursor:pointer;fill:#0645ad}\n"
	"</style>\n";

/* Zoom (a click, or #zoom=N: the N-th frame in document order, 0 the
 * root), search (#search=REGEX: the matches coloured, their share of the
 * total without counting a match inside another twice). The state goes
 * back into the URL. Widths come from data-v, so zooming is exact. */
static const char script[] =
	"<script><![CDATA[\n"
	"(function(){\n"
	"var svg=document.documentElement,W=+svg.getAttribute('data-width'),M=10,CW=7.2;\n"
	"var F=svg.querySelectorAll('g.f'),n=F.length,v=[],own=[],d=[],p=[],sp=[],off=[],en=[],nm=[],i;\n"
	"var st=[],nx=[],cur=0,term='';\n"
	"for(i=0;i<n;i++){var g=F[i];g._i=i;v[i]=+g.getAttribute('data-v');"
	"own[i]=+g.getAttribute('data-s');d[i]=+g.getAttribute('data-d');nm[i]=g.getAttribute('data-n');\n"
	" while(st.length&&d[st[st.length-1]] >= d[i])st.pop();p[i]=st.length?st[st.length-1]:-1;"
	"st.push(i);sp[i]=0;en[i]=i+1;}\n"
	"for(i=n-1;i>=0;i--){sp[i]=Math.max(v[i],own[i]+sp[i]);"
	"if(p[i]>=0){sp[p[i]]+=sp[i];en[p[i]]=Math.max(en[p[i]],en[i]);}}\n"
	"for(i=0;i<n;i++){off[i]=p[i]<0?0:nx[p[i]];nx[i]=off[i];if(p[i]>=0)nx[p[i]]+=sp[i];}\n"
	"function el(id){return document.getElementById(id);}\n"
	"function label(i,w){var c=Math.floor((w-6)/CW),s=nm[i];"
	"if(c<3)return '';return s.length<=c?s:s.slice(0,c-2)+'..';}\n"
	"function place(i,x,w){var g=F[i],r=g.querySelector('rect'),t=g.querySelector('text');"
	"g.style.display='';r.setAttribute('x',(M+x).toFixed(2));r.setAttribute('width',w.toFixed(2));\n"
	" var s=label(i,w);if(!t&&s){t=document.createElementNS(svg.namespaceURI,'text');"
	"t.setAttribute('y',(+r.getAttribute('y')+11.5).toFixed(1));g.appendChild(t);}\n"
	" if(t){t.setAttribute('x',(M+x+3).toFixed(2));t.textContent=s;}}\n"
	"function zoom(z){cur=z;var s=sp[z]>0?W/sp[z]:0,b=off[z];\n"
	" for(i=0;i<n;i++){F[i].classList.remove('up');"
	"if(i>=z&&i<en[z])place(i,(off[i]-b)*s,sp[i]*s);else F[i].style.display='none';}\n"
	" for(var a=p[z];a>=0;a=p[a]){place(a,0,W);F[a].classList.add('up');}}\n"
	"function search(t){term=t;var re=null,tot=0,end=0;"
	"if(t){try{re=new RegExp(t);}catch(e){re=null;}}\n"
	" for(i=0;i<n;i++){var m=!!re&&i>0&&re.test(nm[i]);F[i].classList.toggle('m',m);"
	"if(m&&i>=end){tot+=v[i];end=en[i];}}\n"
	" el('matched').textContent=re?'Matched: '+(v[0]?100*tot/v[0]:0).toFixed(2)+' %':'';}\n"
	"function save(){var h=[];if(term)h.push('search='+encodeURIComponent(term));"
	"if(cur>0)h.push('zoom='+cur);\n"
	" try{history.replaceState(null,'',h.length?'#'+h.join('&'):location.pathname+location.search);}"
	"catch(e){}}\n"
	"function load(){var z=0,t='';location.hash.slice(1).split('&').forEach(function(q){"
	"var k=q.indexOf('=');if(k<0)return;var a=q.slice(0,k),b;\n"
	" try{b=decodeURIComponent(q.slice(k+1));}catch(e){return;}"
	"if(a=='search')t=b;else if(a=='zoom'&&/^[0-9]+$/.test(b)&&+b<n)z=+b;});zoom(z);search(t);}\n"
	"svg.addEventListener('click',function(e){var g=e.target.closest?e.target.closest('g.f'):null;"
	"if(g){zoom(g._i);search(term);save();}});\n"
	"svg.addEventListener('mouseover',function(e){var g=e.target.closest?e.target.closest('g.f'):null;"
	"if(g)el('details').textContent=g.querySelector('title').textContent.replace('\\n',': ');});\n"
	"el('search').addEventListener('click',function(){var t=prompt('Search (a regular expression)',term);"
	"if(t!==null){search(t);save();}});\n"
	"el('reset').addEventListener('click',function(){zoom(0);search('');save();});\n"
	"window.addEventListener('hashchange',load);load();\n"
	"})();\n"
	"]]></script>\n";

void profdb__svg_putf(profdb__cv_out *o, const char *fmt, ...)
{
	char tmp[512];   /* every format here writes less */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		o->err = o->err ? o->err : profdb__fail(-EOVERFLOW, "profdb_convert: SVG text too long");
		return;
	}
	profdb__cv_put(o, tmp, (size_t)n);
}

/* Characters (code points; an invalid byte is one) of @p s. */
static size_t n_chars(profdb_str s)
{
	size_t n = 0;
	for (size_t i = 0; i < s.len; n++) {
		size_t k = profdb__cv_utf8_len((const unsigned char *)s.ptr + i, s.len - i);
		i += k ? k : 1;
	}
	return n;
}

/* Escaped and cut as svg-internal.h says. */
void profdb__svg_xml(profdb__cv_out *o, profdb_str s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	size_t keep = n_chars(s) <= max ? SIZE_MAX : max - 2, n = 0;
	for (size_t i = 0; i < s.len && n < keep; n++) {
		unsigned c = p[i];
		size_t k = c < 0x80 ? 1 : profdb__cv_utf8_len(p + i, s.len - i);
		if (c == '&')
			profdb__cv_puts(o, "&amp;");
		else if (c == '<')
			profdb__cv_puts(o, "&lt;");
		else if (c == '>')
			profdb__cv_puts(o, "&gt;");
		else if (c == '"')
			profdb__cv_puts(o, "&quot;");
		else if (c < 0x20 || c == 0x7f || !k || (k == 3 && c == 0xef && p[i + 1] == 0xbf &&
		                                         p[i + 2] >= 0xbe))
			profdb__cv_puts(o, c < 0x80 ? "?" : "\xef\xbf\xbd");
		else
			profdb__cv_put(o, p + i, k);
		i += k ? k : 1;
	}
	if (keep != SIZE_MAX)
		profdb__cv_puts(o, "..");
}

static void put_cstr(profdb__cv_out *o, const char *s)
{
	profdb__svg_xml(o, (profdb_str){s, strlen(s)}, SIZE_MAX);
}

/* A number for people: integers whole (up to 10^15), else 6 digits. */
static void put_value(profdb__cv_out *o, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		profdb__svg_putf(o, "%.0f", v);
	else
		profdb__svg_putf(o, "%.6g", v);
}

static profdb_str base_name(profdb_str s)
{
	for (size_t i = s.len; i > 0; i--)
		if (s.ptr[i - 1] == '/')
			return (profdb_str){s.ptr + i, s.len - i};
	return s;
}

/* A warm colour from the frame's module (or file), the same for the same
 * name in every picture: FNV-1a of the name picks it. */
static void put_colour(profdb__cv_out *o, const svg_tree *t, uint32_t frame, profdb_svg_color by)
{
	const profdb__cv_frame *f = &t->frames.f[frame];
	profdb_str a = by == PROFDB_SVG_COLOR_FILE ? f->file : f->module;
	profdb_str b = by == PROFDB_SVG_COLOR_FILE ? f->module : f->file;
	profdb_str key = base_name(a.len ? a : b.len ? b : profdb__cv_frame_label(&t->frames, frame));
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < key.len; i++)
		h = (h ^ (unsigned char)key.ptr[i]) * 0x100000001b3ull;
	h ^= h >> 29;
	profdb__svg_putf(o, "#%02x%02x%02x", 200 + (unsigned)(h % 56), 60 + (unsigned)((h >> 8) % 170),
	     30 + (unsigned)((h >> 16) % 50));
}

static int frame_y(const svg_tree *t, uint32_t depth, int icicle)
{
	return TOP + FRAME_H * (int)(icicle ? depth : t->max_depth - depth);
}

/* One frame drawn: node @p i. */
static void put_frame(profdb__cv_out *o, const svg_tree *t, uint32_t i,
                      const profdb_convert_options *opts, const char *unit)
{
	const svg_node *x = &t->nd[i];
	static const char root_name[] = "all";
	profdb_str name = x->frame == PROFDB_NONE ? (profdb_str){root_name, 3}
	                                          : profdb__cv_frame_label(&t->frames, x->frame);
	double px = MARGIN + x->x * t->scale, w = x->span * t->scale, total = t->nd[0].v;
	int y = frame_y(t, x->depth, opts->icicle);
	profdb__svg_putf(o, "<g class=\"f\" data-d=\"%" PRIu32 "\" data-v=\"", x->depth);
	profdb__cv_double(o, x->v);
	profdb__cv_puts(o, "\" data-s=\"");
	profdb__cv_double(o, x->rest);
	profdb__cv_puts(o, "\" data-n=\"");
	profdb__svg_xml(o, name, SIZE_MAX);
	profdb__cv_puts(o, "\"><title>");
	profdb__svg_xml(o, name, SIZE_MAX);
	profdb__cv_putc(o, '\n');
	put_value(o, x->v);
	if (strcmp(unit, "none"))
		profdb__svg_putf(o, " %s", unit);
	profdb__svg_putf(o, " (%.2f %%)</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
	                 "height=\"%d\" fill=\"",
	     total > 0 ? 100 * x->v / total : 0, px, y, w, FRAME_H - 1);
	if (x->frame == PROFDB_NONE)
		profdb__cv_puts(o, "#c8c8c8");
	else
		put_colour(o, t, x->frame, opts->color);
	profdb__cv_puts(o, "\"/>");
	double fit = floor((w - 6) / CHAR_W);
	if (fit >= 3) {
		profdb__svg_putf(o, "<text x=\"%.2f\" y=\"%.1f\">", px + 3, y + 11.5);
		profdb__svg_xml(o, name, fit > 1e6 ? 1000000 : (size_t)fit);
		profdb__cv_puts(o, "</text>");
	}
	profdb__cv_puts(o, "</g>\n");
}

/* What the profiles are, for the subtitle. */
static int put_profiles(profdb__cv_out *o, const profdb *db, const profdb_convert_options *opts)
{
	if (!opts->profiles) {
		profdb__cv_puts(o, "every profile");
		return 0;
	}
	if (opts->n_profiles == 1) {
		profdb__cv_buf b = {0};
		int r = profdb__cv_profile_name(&b, db, opts->profiles[0]);
		if (r >= 0) {
			profdb__svg_putf(o, "profile %" PRIu32 ": ", opts->profiles[0]);
			profdb__svg_xml(o, (profdb_str){b.p, b.len}, SIZE_MAX);
		}
		profdb__cv_buf_free(&b);
		return r;
	}
	profdb__svg_putf(o, "%zu profiles (", opts->n_profiles);
	for (size_t i = 0; i < opts->n_profiles && i < 8; i++)
		profdb__svg_putf(o, i ? ", %" PRIu32 : "%" PRIu32, opts->profiles[i]);
	profdb__cv_puts(o, opts->n_profiles > 8 ? ", ...)" : ")");
	return 0;
}

static int put_header(profdb__cv_out *o, const profdb *db, const profdb_convert_options *opts,
                      const profdb__cv_metric *m, const svg_tree *t, double width,
                      const char *unit)
{
	int height = TOP + FRAME_H * (int)(t->max_depth + 1) + BOTTOM;
	profdb_about about;
	int r = profdb_get_about(db, &about);
	if (r < 0)
		return r;
	profdb__svg_putf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
	     "height=\"%d\" viewBox=\"0 0 %.0f %d\" ", width + 2 * MARGIN, height,
	     width + 2 * MARGIN, height);
	profdb__svg_putf(o, "data-width=\"%.17g\" data-min-width=\"%g\" data-unit=\"%s\" "
	                 "data-icicle=\"%d\">\n",
	     width, opts->min_width > 0 ? opts->min_width : 0.1, unit, opts->icicle ? 1 : 0);
	profdb__cv_puts(o, style);
	profdb__svg_putf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfaf4\"/>\n"
	     "<text class=\"h\" x=\"%d\" y=\"24\">", MARGIN);
	if (opts->title)
		put_cstr(o, opts->title);
	else if (about.title.len)
		profdb__svg_xml(o, about.title, 200);
	else
		put_cstr(o, profdb_format_name(about.format));
	profdb__svg_putf(o, "</text>\n<text x=\"%d\" y=\"42\">", MARGIN);
	profdb__svg_xml(o, m->m.name, SIZE_MAX);
	if (strcmp(unit, "none") && !(m->m.name.len && memchr(m->m.name.ptr, '(', m->m.name.len)))
		profdb__svg_putf(o, " (%s)", unit);   /* "CPUTIME (sec)" says it already */
	profdb__cv_puts(o, ", ");
	if ((r = put_profiles(o, db, opts)) < 0)
		return r;
	profdb__svg_putf(o, "; %zu frames, %zu narrower than %g px merged into their parent</text>\n",
	     t->drawn, t->n - t->drawn, opts->min_width > 0 ? opts->min_width : 0.1);
	profdb__svg_putf(o, "<text id=\"search\" class=\"b\" x=\"%d\" y=\"60\">Search</text>\n"
	     "<text id=\"reset\" class=\"b\" x=\"%d\" y=\"60\">Reset zoom</text>\n"
	     "<text id=\"matched\" x=\"%.0f\" y=\"60\" text-anchor=\"end\"></text>\n"
	     "<text id=\"details\" x=\"%d\" y=\"%d\"></text>\n", MARGIN, MARGIN + 70,
	     width + MARGIN, MARGIN, height - 10);
	return 0;
}

int profdb__svg_write(const profdb *db, const profdb_convert_options *opts,
                      const profdb__cv_metric *m, const svg_tree *t, double width,
                      profdb__cv_out *o)
{
	const char *unit = profdb__cv_unit(&m->m);
	if (!isfinite(t->nd[0].span))
		return profdb__fail(-ENOTSUP, "profdb_convert: an SVG flame graph of metric '%.*s' "
		                    "needs finite values (the total is %g)", (int)m->m.name.len,
		                    m->m.name.ptr, t->nd[0].span);
	int r = put_header(o, db, opts, m, t, width, unit);
	if (r < 0)
		return r;
	/* Pre-order: each frame, then its children drawn, in the view's order
	 * (heaviest first). */
	uint32_t *stack = malloc((t->n + 1) * sizeof *stack);
	if (!stack)
		return profdb__fail(-ENOMEM, "profdb_convert: out of memory (flame graph)");
	size_t sp = 0;
	stack[sp++] = 0;
	while (sp && !o->err) {
		uint32_t i = stack[--sp];
		put_frame(o, t, i, opts, unit);
		size_t from = sp;
		for (uint32_t c = t->nd[i].first; c != PROFDB_NONE; c = t->nd[c].next)
			if (t->nd[c].drawn)
				stack[sp++] = c;
		for (size_t a = from, b = sp; a + 1 < b; a++, b--) {   /* first child on top */
			uint32_t tmp = stack[a];
			stack[a] = stack[b - 1], stack[b - 1] = tmp;
		}
	}
	free(stack);
	profdb__cv_puts(o, script);
	profdb__cv_puts(o, "</svg>\n");
	return o->err;
}
