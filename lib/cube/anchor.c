/* anchor.xml: streamed through expat (no document tree is built). Start and
 * end handlers keep a stack of open elements; the text of the small leaf
 * elements (<name>, <uniq_name>, <rank>, ...) is collected and stored in the
 * handle's string arena. Items are collected in document order, then placed
 * by id once the document is complete. */
#include <expat.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"

#define ANCHOR "anchor.xml"

typedef enum el_kind {
	EL_OTHER, EL_CUBE, EL_METRIC, EL_REGION, EL_CNODE, EL_STN, EL_GROUP, EL_LOC,
	EL_CART, EL_TEXT
} el_kind;

typedef struct frame {
	el_kind kind;
	uint32_t index;   /* doc-order index of the metric/region/cnode/... */
} frame;

/* What the text of the current leaf element goes to. */
typedef struct text_target {
	cube_str *str;
	int64_t *num;
	int coord;        /* the values of the last <coord> */
} text_target;

#define HAS_TARGET(p) ((p)->target.str || (p)->target.num || (p)->target.coord)

typedef struct parser {
	profdb_cube *c;
	XML_Parser xp;
	int err;
	frame *stack;
	size_t depth, stack_cap;
	text_target target;
	char *text;
	size_t text_len, text_cap;
	/* document-order collections */
	cube_metric *metrics; uint32_t n_metrics, cap_metrics;
	uint32_t *metric_parent; uint32_t cap_metric_parent; /* doc index or UINT32_MAX */
	cube_region *regions; uint32_t n_regions, cap_regions;
	cube_cnode *cnodes; uint32_t n_cnodes, cap_cnodes;
	uint32_t *cnode_parent; uint32_t cap_cnode_parent; /* doc index or UINT32_MAX */
	cube_location *locs; uint32_t n_locs, cap_locs;
	cube_param *params; uint32_t n_params, cap_params;
	cube_group *groups; uint32_t n_groups, cap_groups;
	cube_stn *stns; uint32_t n_stns, cap_stns;
	cube_attr *attrs; uint32_t n_attrs, cap_attrs;
	cube_cart *carts; uint32_t n_carts, cap_carts;
	cube_dim *dims; uint32_t n_dims, cap_dims;
	cube_coord *coords; uint32_t n_coords, cap_coords;
	int64_t *vals; uint32_t n_vals, cap_vals;
	int seen_cube;
} parser;

const char *profdb__cube_s(const profdb_cube *c, cube_str s)
{
	return c->strs + s;
}

static int arena_add(profdb_cube *c, const char *s, size_t n, cube_str *out)
{
	if (n == 0) {
		*out = 0;
		return 0;
	}
	if (c->strs_len + n + 1 > UINT32_MAX)
		return profdb__fail(-EFBIG, "%s: anchor.xml strings exceed 4 GiB", c->path);
	if (c->strs_len + n + 1 > c->strs_cap) {
		size_t cap = c->strs_cap ? c->strs_cap : 4096;
		while (cap < c->strs_len + n + 1)
			cap *= 2;
		char *p = realloc(c->strs, cap);
		if (!p)
			return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
		c->strs = p;
		c->strs_cap = cap;
	}
	memcpy(c->strs + c->strs_len, s, n);
	c->strs[c->strs_len + n] = 0;
	*out = (cube_str)c->strs_len;
	c->strs_len += n + 1;
	return 0;
}

static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	if (*cap >= UINT32_MAX / 2)
		return -ENOMEM;
	uint32_t ncap = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define GROW(P, arr, n, cap) grow((void **)&(P)->arr, &(P)->cap, (P)->n, sizeof *(P)->arr)

static void stop(parser *p, int code, const char *fmt, ...) PROFDB__PRINTF(3, 4);
static void stop(parser *p, int code, const char *fmt, ...)
{
	if (p->err)
		return;
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	p->err = profdb__fail(code, "%s: member " ANCHOR ", line %lu, byte offset %lld: %s",
	                      p->c->path, (unsigned long)XML_GetCurrentLineNumber(p->xp),
	                      (long long)XML_GetCurrentByteIndex(p->xp), what);
	XML_StopParser(p->xp, XML_FALSE);
}

static void oom(parser *p)
{
	stop(p, -ENOMEM, "out of memory");
}

static const char *attr(const XML_Char **atts, const char *name)
{
	for (size_t i = 0; atts[i]; i += 2)
		if (strcmp(atts[i], name) == 0)
			return atts[i + 1];
	return NULL;
}

static int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > (uint64_t)INT64_MAX)
			return -1;
	}
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int need_id(parser *p, const XML_Char **atts, const char *el, const char *name,
                   uint32_t *out)
{
	const char *v = attr(atts, name);
	if (parse_u32(v, out) < 0) {
		stop(p, -EBADMSG, "<%s> needs a numeric %s attribute", el, name);
		return -1;
	}
	return 0;
}

static int opt_i64(parser *p, const XML_Char **atts, const char *el, const char *name,
                   int64_t *out)
{
	const char *v = attr(atts, name);
	*out = -1;
	if (!v)
		return 0;
	if (parse_i64(v, out) < 0) {
		stop(p, -EBADMSG, "<%s>: attribute %s is not a number", el, name);
		return -1;
	}
	return 0;
}

static int opt_str(parser *p, const XML_Char **atts, const char *name, cube_str *out)
{
	const char *v = attr(atts, name);
	*out = 0;
	if (v && arena_add(p->c, v, strlen(v), out) < 0) {
		oom(p);
		return -1;
	}
	return 0;
}

static frame *top(parser *p)
{
	return p->depth ? &p->stack[p->depth - 1] : NULL;
}

/* The nearest enclosing frame of a kind (for nesting), or NULL. */
static frame *enclosing(parser *p, el_kind k1, el_kind k2)
{
	frame *f = top(p);
	return f && (f->kind == k1 || f->kind == k2) ? f : NULL;
}

static void set_text(parser *p, cube_str *s, int64_t *n)
{
	p->target.str = s;
	p->target.num = n;
	p->target.coord = 0;
	p->text_len = 0;
}

static void text_for(parser *p, const char *el)
{
	frame *f = top(p);
	if (!f)
		return;
	uint32_t i = f->index;
	switch (f->kind) {
	case EL_METRIC: {
		cube_metric *m = &p->metrics[i];
		if (!strcmp(el, "uniq_name")) set_text(p, &m->name, NULL);
		else if (!strcmp(el, "disp_name")) set_text(p, &m->disp, NULL);
		else if (!strcmp(el, "dtype")) set_text(p, &m->dtype_text, NULL);
		else if (!strcmp(el, "uom")) set_text(p, &m->unit, NULL);
		else if (!strcmp(el, "descr")) set_text(p, &m->descr, NULL);
		else if (!strcmp(el, "url")) set_text(p, &m->url, NULL);
		else if (!strcmp(el, "cubepl")) set_text(p, &m->expr, NULL);
		else if (!strcmp(el, "cubeplinit")) set_text(p, &m->expr_init, NULL);
		break;
	}
	case EL_REGION: {
		cube_region *r = &p->regions[i];
		if (!strcmp(el, "name")) set_text(p, &r->name, NULL);
		else if (!strcmp(el, "mangled_name")) set_text(p, &r->mangled, NULL);
		else if (!strcmp(el, "paradigm")) set_text(p, &r->paradigm, NULL);
		else if (!strcmp(el, "role")) set_text(p, &r->role, NULL);
		else if (!strcmp(el, "url")) set_text(p, &r->url, NULL);
		else if (!strcmp(el, "descr")) set_text(p, &r->descr, NULL);
		break;
	}
	case EL_STN:
		if (!strcmp(el, "name")) set_text(p, &p->stns[i].name, NULL);
		else if (!strcmp(el, "class")) set_text(p, &p->stns[i].klass, NULL);
		else if (!strcmp(el, "descr")) set_text(p, &p->stns[i].descr, NULL);
		break;
	case EL_GROUP:
		if (!strcmp(el, "name")) set_text(p, &p->groups[i].name, NULL);
		else if (!strcmp(el, "type")) set_text(p, &p->groups[i].type, NULL);
		else if (!strcmp(el, "rank")) set_text(p, NULL, &p->groups[i].rank);
		break;
	case EL_LOC:
		if (!strcmp(el, "name")) set_text(p, &p->locs[i].name, NULL);
		else if (!strcmp(el, "type")) set_text(p, &p->locs[i].type, NULL);
		else if (!strcmp(el, "rank")) set_text(p, NULL, &p->locs[i].rank);
		break;
	default:
		break;
	}
}

/* <attr key value/>: kept with the item it is nested in (document index
 * for now; finish() turns metric, region, cnode and location indexes into
 * ids). Attributes anywhere else belong to the file. */
static int on_attr(parser *p, const XML_Char **atts)
{
	profdb_cube *c = p->c;
	const char *k = attr(atts, "key"), *v = attr(atts, "value");
	if (!k || !v) {
		stop(p, -EBADMSG, "<attr> without key or value");
		return -1;
	}
	if (GROW(p, attrs, n_attrs, cap_attrs) < 0) {
		oom(p);
		return -1;
	}
	cube_attr *a = &p->attrs[p->n_attrs];
	frame *f = top(p);
	a->owner_id = f->index;
	switch (f->kind) {
	case EL_METRIC: a->owner = PROFDB_CUBE_ITEM_METRIC; break;
	case EL_REGION: a->owner = PROFDB_CUBE_ITEM_REGION; break;
	case EL_CNODE: a->owner = PROFDB_CUBE_ITEM_CNODE; break;
	case EL_STN: a->owner = PROFDB_CUBE_ITEM_SYSTEM_NODE; break;
	case EL_GROUP: a->owner = PROFDB_CUBE_ITEM_LOCATION_GROUP; break;
	case EL_LOC: a->owner = PROFDB_CUBE_ITEM_LOCATION; break;
	default: a->owner = PROFDB_CUBE_ITEM_CUBE; a->owner_id = 0; break;
	}
	if (arena_add(c, k, strlen(k), &a->key) < 0 || arena_add(c, v, strlen(v), &a->value) < 0) {
		oom(p);
		return -1;
	}
	if (a->owner == PROFDB_CUBE_ITEM_CUBE && !strcmp(k, "Creator"))
		c->creator = a->value;
	p->n_attrs++;
	return 0;
}

/* Upper bound on a topology's dimensions: a coordinate's values are
 * collected into a fixed buffer of this many. */
#define MAX_CART_DIMS 64u

static int on_cart(parser *p, const XML_Char **atts)
{
	if (GROW(p, carts, n_carts, cap_carts) < 0) {
		oom(p);
		return -1;
	}
	cube_cart *k = &p->carts[p->n_carts];
	memset(k, 0, sizeof *k);
	if (need_id(p, atts, "cart", "ndims", &k->ndims) < 0 || opt_str(p, atts, "name", &k->name) < 0)
		return -1;
	if (k->ndims == 0 || k->ndims > MAX_CART_DIMS) {
		stop(p, -EBADMSG, "<cart> with ndims %u (1..%u accepted)", k->ndims, MAX_CART_DIMS);
		return -1;
	}
	k->first_dim = p->n_dims;
	k->first_coord = p->n_coords;
	p->n_carts++;
	return 0;
}

static int on_dim(parser *p, const XML_Char **atts)
{
	cube_cart *k = &p->carts[top(p)->index];
	if (p->n_dims - k->first_dim >= k->ndims) {
		stop(p, -EBADMSG, "<cart> declares ndims %u but has more <dim> elements", k->ndims);
		return -1;
	}
	if (GROW(p, dims, n_dims, cap_dims) < 0) {
		oom(p);
		return -1;
	}
	cube_dim *d = &p->dims[p->n_dims];
	memset(d, 0, sizeof *d);
	const char *per = attr(atts, "periodic");
	if (opt_i64(p, atts, "dim", "size", &d->size) < 0 || opt_str(p, atts, "name", &d->name) < 0)
		return -1;
	if (d->size < 0 || (per && strcmp(per, "true") && strcmp(per, "false"))) {
		stop(p, -EBADMSG, "<dim> needs size >= 0 and periodic=\"true\"|\"false\"");
		return -1;
	}
	d->periodic = per && !strcmp(per, "true");
	p->n_dims++;
	return 0;
}

/* The attribute names a <coord> may use, and what each names. */
static const struct {
	const char *name;
	profdb_cube_item kind;
	uint32_t stn_element;  /* for system-tree nodes: which element */
} coord_keys[] = {
	{"locId", PROFDB_CUBE_ITEM_LOCATION, 0},
	{"thrdId", PROFDB_CUBE_ITEM_LOCATION, 0},
	{"lgId", PROFDB_CUBE_ITEM_LOCATION_GROUP, 0},
	{"procId", PROFDB_CUBE_ITEM_LOCATION_GROUP, 0},
	{"stnId", PROFDB_CUBE_ITEM_SYSTEM_NODE, 0},
	{"machId", PROFDB_CUBE_ITEM_SYSTEM_NODE, 1},
	{"nodeId", PROFDB_CUBE_ITEM_SYSTEM_NODE, 2},
};

static int on_coord(parser *p, const XML_Char **atts)
{
	if (GROW(p, coords, n_coords, cap_coords) < 0) {
		oom(p);
		return -1;
	}
	cube_coord *o = &p->coords[p->n_coords];
	memset(o, 0, sizeof *o);
	int found = 0;
	for (size_t i = 0; i < sizeof coord_keys / sizeof coord_keys[0] && !found; i++)
		if (attr(atts, coord_keys[i].name)) {
			if (need_id(p, atts, "coord", coord_keys[i].name, &o->xml_id) < 0)
				return -1;
			o->kind = coord_keys[i].kind;
			o->elem = (uint32_t)i;
			found = 1;
		}
	if (!found) {
		stop(p, -EBADMSG, "<coord> names no location, group or system-tree node");
		return -1;
	}
	o->first_val = p->n_vals;
	p->carts[top(p)->index].n_coords++;
	p->n_coords++;
	p->target = (text_target){NULL, NULL, 1};
	p->text_len = 0;
	return 0;
}

/* "c0 c1 ..." of the <coord> just closed: exactly ndims integers. */
static int coord_values(parser *p)
{
	const cube_cart *k = &p->carts[p->n_carts - 1];
	int64_t v[MAX_CART_DIMS];
	uint32_t n = 0;
	size_t i = 0;
	while (i < p->text_len) {
		char buf[32];
		size_t j = 0;
		while (i < p->text_len && strchr(" \t\r\n", p->text[i]))
			i++;
		if (i == p->text_len)
			break;
		while (i < p->text_len && !strchr(" \t\r\n", p->text[i]) && j < sizeof buf - 1)
			buf[j++] = p->text[i++];
		buf[j] = 0;
		if (n == k->ndims || parse_i64(buf, &v[n]) < 0) {
			stop(p, -EBADMSG, "<coord> needs %u integers", k->ndims);
			return -1;
		}
		n++;
	}
	if (n != k->ndims) {
		stop(p, -EBADMSG, "<coord> has %u values, its <cart> %u dimensions", n, k->ndims);
		return -1;
	}
	for (uint32_t d = 0; d < n; d++) {
		if (GROW(p, vals, n_vals, cap_vals) < 0) {
			oom(p);
			return -1;
		}
		p->vals[p->n_vals++] = v[d];
	}
	return 0;
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **atts)
{
	parser *p = ud;
	frame f = {EL_OTHER, 0};
	profdb_cube *c = p->c;

	if (p->err)
		return;
	if (HAS_TARGET(p)) {
		stop(p, -EBADMSG, "element <%s> inside a text element", el);
		return;
	}
	if (p->depth == 0) {
		if (strcmp(el, "cube") != 0) {
			stop(p, -EBADMSG, "root element is <%s>, not <cube>", el);
			return;
		}
		const char *v = attr(atts, "version");
		static const char *const ok[] = {"3.0", "4.0", "4.1", "4.2", "4.3",
		                                 "4.4", "4.5", "4.7"};
		int good = 0;
		for (size_t k = 0; v && k < sizeof ok / sizeof ok[0]; k++)
			good |= strcmp(v, ok[k]) == 0;
		if (!good) {
			stop(p, -EPROTONOSUPPORT, "unsupported anchor version '%s'", v ? v : "(none)");
			return;
		}
		if (arena_add(c, v, strlen(v), &c->anchor_version) < 0)
			{ oom(p); return; }
		p->seen_cube = 1;
		f.kind = EL_CUBE;
	} else if (!strcmp(el, "attr")) {
		if (on_attr(p, atts) < 0)
			return;
	} else if (!strcmp(el, "cubeplaggr") && top(p)->kind == EL_METRIC) {
		cube_metric *m = &p->metrics[top(p)->index];
		const char *t = attr(atts, "cubeplaggrtype");
		if (t && !strcmp(t, "plus")) set_text(p, &m->expr_plus, NULL);
		else if (t && !strcmp(t, "minus")) set_text(p, &m->expr_minus, NULL);
		else if (t && !strcmp(t, "aggr")) set_text(p, &m->expr_aggr, NULL);
		else { stop(p, -EBADMSG, "<cubeplaggr> with cubeplaggrtype '%s'", t ? t : "(none)");
		       return; }
		f.kind = EL_TEXT;
	} else if (!strcmp(el, "cart")) {
		if (on_cart(p, atts) < 0)
			return;
		f = (frame){EL_CART, p->n_carts - 1};
	} else if (!strcmp(el, "dim") && top(p)->kind == EL_CART) {
		if (on_dim(p, atts) < 0)
			return;
	} else if (!strcmp(el, "coord") && top(p)->kind == EL_CART) {
		if (on_coord(p, atts) < 0)
			return;
		f.kind = EL_TEXT;
	} else if (!strcmp(el, "metric")) {
		frame *par = top(p);
		if (par->kind == EL_METRIC || par->kind == EL_OTHER) {
			if (GROW(p, metrics, n_metrics, cap_metrics) < 0 ||
			    GROW(p, metric_parent, n_metrics, cap_metric_parent) < 0)
				{ oom(p); return; }
			uint32_t i = p->n_metrics;
			cube_metric *m = &p->metrics[i];
			memset(m, 0, sizeof *m);
			if (need_id(p, atts, el, "id", &m->id) < 0)
				return;
			const char *t = attr(atts, "type");
			if (!t || !*t || !strcmp(t, "EXCLUSIVE")) m->kind = PROFDB_CUBE_EXCLUSIVE;
			else if (!strcmp(t, "INCLUSIVE")) m->kind = PROFDB_CUBE_INCLUSIVE;
			else if (!strcmp(t, "SIMPLE")) m->kind = PROFDB_CUBE_SIMPLE;
			else if (!strcmp(t, "POSTDERIVED") || !strcmp(t, "DERIVED"))
				m->kind = PROFDB_CUBE_POSTDERIVED;
			else if (!strcmp(t, "PREDERIVED_INCLUSIVE"))
				m->kind = PROFDB_CUBE_PREDERIVED_INCLUSIVE;
			else if (!strcmp(t, "PREDERIVED_EXCLUSIVE"))
				m->kind = PROFDB_CUBE_PREDERIVED_EXCLUSIVE;
			else
				{ stop(p, -EBADMSG, "metric type '%s' unknown", t); return; }
			const char *vz = attr(atts, "viztype");
			m->ghost = vz && !strcmp(vz, "GHOST");
			p->metric_parent[i] = par->kind == EL_METRIC ? par->index : UINT32_MAX;
			p->n_metrics++;
			f = (frame){EL_METRIC, i};
		}
	} else if (!strcmp(el, "region")) {
		if (GROW(p, regions, n_regions, cap_regions) < 0)
			{ oom(p); return; }
		uint32_t i = p->n_regions;
		cube_region *r = &p->regions[i];
		memset(r, 0, sizeof *r);
		if (need_id(p, atts, el, "id", &r->id) < 0 ||
		    opt_i64(p, atts, el, "begin", &r->begin) < 0 ||
		    opt_i64(p, atts, el, "end", &r->end) < 0 || opt_str(p, atts, "mod", &r->mod) < 0)
			return;
		p->n_regions++;
		f = (frame){EL_REGION, i};
	} else if (!strcmp(el, "cnode")) {
		frame *par = enclosing(p, EL_CNODE, EL_CNODE);
		if (GROW(p, cnodes, n_cnodes, cap_cnodes) < 0 ||
		    GROW(p, cnode_parent, n_cnodes, cap_cnode_parent) < 0)
			{ oom(p); return; }
		uint32_t i = p->n_cnodes;
		cube_cnode *n = &p->cnodes[i];
		memset(n, 0, sizeof *n);
		if (need_id(p, atts, el, "id", &n->id) < 0 ||
		    need_id(p, atts, el, "calleeId", &n->region) < 0 ||
		    opt_i64(p, atts, el, "line", &n->line) < 0 || opt_str(p, atts, "mod", &n->mod) < 0)
			return;
		n->first_param = p->n_params;
		p->cnode_parent[i] = par ? par->index : UINT32_MAX;
		p->n_cnodes++;
		f = (frame){EL_CNODE, i};
	} else if (!strcmp(el, "parameter") && top(p)->kind == EL_CNODE) {
		if (GROW(p, params, n_params, cap_params) < 0)
			{ oom(p); return; }
		cube_cnode *owner = &p->cnodes[top(p)->index];
		if (owner->first_param + owner->n_params != p->n_params) {
			stop(p, -EBADMSG, "<parameter> of cnode %u after its child cnodes", owner->id);
			return;
		}
		cube_param *pr = &p->params[p->n_params];
		const char *ty = attr(atts, "partype");
		pr->numeric = ty && !strcmp(ty, "numeric");
		if (opt_str(p, atts, "parkey", &pr->key) < 0 ||
		    opt_str(p, atts, "parvalue", &pr->value) < 0)
			return;
		p->n_params++;
		owner->n_params++;
	} else if (!strcmp(el, "systemtreenode") || !strcmp(el, "machine") ||
	           !strcmp(el, "node")) {
		frame *par = enclosing(p, EL_STN, EL_STN);
		if (GROW(p, stns, n_stns, cap_stns) < 0)
			{ oom(p); return; }
		cube_stn *s = &p->stns[p->n_stns];
		memset(s, 0, sizeof *s);
		if (need_id(p, atts, el, "Id", &s->xml_id) < 0)
			return;
		s->element = !strcmp(el, "machine") ? 1 : !strcmp(el, "node") ? 2 : 0;
		s->parent = par ? par->index : UINT32_MAX;
		s->depth = par ? p->stns[par->index].depth + 1 : 0;
		if (strcmp(el, "systemtreenode") != 0 &&
		    arena_add(c, el, strlen(el), &s->klass) < 0)
			{ oom(p); return; }
		f = (frame){EL_STN, p->n_stns++};
	} else if (!strcmp(el, "locationgroup") || !strcmp(el, "process")) {
		frame *par = enclosing(p, EL_STN, EL_STN);
		if (GROW(p, groups, n_groups, cap_groups) < 0)
			{ oom(p); return; }
		cube_group *g = &p->groups[p->n_groups];
		memset(g, 0, sizeof *g);
		if (need_id(p, atts, el, "Id", &g->xml_id) < 0)
			return;
		g->rank = -1;
		g->node = par ? par->index : UINT32_MAX;
		f = (frame){EL_GROUP, p->n_groups++};
	} else if (!strcmp(el, "location") || !strcmp(el, "thread")) {
		frame *par = enclosing(p, EL_GROUP, EL_GROUP);
		if (!par)
			{ stop(p, -EBADMSG, "<%s> outside a location group / process", el); return; }
		if (GROW(p, locs, n_locs, cap_locs) < 0)
			{ oom(p); return; }
		cube_location *l = &p->locs[p->n_locs];
		memset(l, 0, sizeof *l);
		if (need_id(p, atts, el, "Id", &l->id) < 0)
			return;
		l->rank = -1;
		l->group = par->index;
		if (!strcmp(el, "thread") && arena_add(c, "thread", 6, &l->type) < 0)
			{ oom(p); return; }
		f = (frame){EL_LOC, p->n_locs++};
	} else {
		text_for(p, el);
		if (HAS_TARGET(p))
			f.kind = EL_TEXT;
	}
	if (p->depth == p->stack_cap) {
		size_t cap = p->stack_cap ? p->stack_cap * 2 : 64;
		frame *s = realloc(p->stack, cap * sizeof *s);
		if (!s)
			{ oom(p); return; }
		p->stack = s;
		p->stack_cap = cap;
	}
	p->stack[p->depth++] = f;
}

static void XMLCALL on_end(void *ud, const XML_Char *el)
{
	parser *p = ud;
	(void)el;
	if (p->err || !p->depth)
		return;
	frame f = p->stack[--p->depth];
	if (f.kind != EL_TEXT)
		return;
	if (p->target.str) {
		if (arena_add(p->c, p->text ? p->text : "", p->text_len, p->target.str) < 0)
			{ oom(p); return; }
	} else if (p->target.num) {
		char buf[32];
		size_t n = p->text_len < sizeof buf - 1 ? p->text_len : sizeof buf - 1;
		memcpy(buf, p->text ? p->text : "", n);
		buf[n] = 0;
		if (p->text_len >= sizeof buf || parse_i64(buf, p->target.num) < 0)
			{ stop(p, -EBADMSG, "<%s> is not a number", el); return; }
	} else if (p->target.coord) {
		if (coord_values(p) < 0)
			return;
	}
	p->target = (text_target){NULL, NULL, 0};
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	parser *p = ud;
	if (p->err || !HAS_TARGET(p) || len <= 0)
		return;
	if (p->text_len + (size_t)len > p->text_cap) {
		size_t cap = p->text_cap ? p->text_cap : 256;
		while (cap < p->text_len + (size_t)len)
			cap *= 2;
		char *t = realloc(p->text, cap);
		if (!t)
			{ oom(p); return; }
		p->text = t;
		p->text_cap = cap;
	}
	memcpy(p->text + p->text_len, s, (size_t)len);
	p->text_len += (size_t)len;
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal)
{
	(void)sysid, (void)pubid, (void)has_internal;
	stop(ud, -EBADMSG, "document type declaration <!DOCTYPE %s> not accepted", name);
}

/* CubeLib writes <cubepl rowwise=false> and <cubeplaggr cubeplaggrtype=plus>
 * with unquoted values. Quote attribute values inside start tags whose name
 * begins with "cubepl"; nothing else is changed. Returns NULL in *out when
 * there is nothing to fix. */
static int fix_cubepl(const unsigned char *s, size_t n, unsigned char **out, size_t *out_n)
{
	*out = NULL;
	*out_n = 0;
	size_t need = 0, eqs = 0;
	for (size_t i = 0; i + 7 <= n; i++) {
		if (memcmp(s + i, "<cubepl", 7) != 0)
			continue;
		size_t j = i + 7;
		for (; j < n && s[j] != '>'; j++)
			if (s[j] == '=') {
				eqs++;
				need += j + 1 < n && s[j + 1] != '"' && s[j + 1] != '\'';
			}
		i = j; /* the tag ends at j: linear in n, as is the copy below */
	}
	if (!need)
		return 0;
	/* Two quotes per '=' in a cubepl tag at most. */
	if (eqs > (SIZE_MAX - n - 1) / 2)
		return -ENOMEM;
	unsigned char *o = malloc(n + 2 * eqs + 1);
	if (!o)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		if (i + 7 <= n && memcmp(s + i, "<cubepl", 7) == 0) {
			while (i < n && s[i] != '>') {
				if (s[i] == '=' && i + 1 < n && s[i + 1] != '"' && s[i + 1] != '\'') {
					o[k++] = '=';
					o[k++] = '"';
					i++;
					while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' &&
					       s[i] != '\r' && s[i] != '>' &&
					       !(s[i] == '/' && i + 1 < n && s[i + 1] == '>'))
						o[k++] = s[i++];
					o[k++] = '"';
				} else {
					o[k++] = s[i++];
				}
			}
		} else {
			o[k++] = s[i++];
		}
	}
	*out = o;
	*out_n = k;
	return 0;
}

/* Place collected items by id: ids must be exactly 0 .. n-1. */
static int by_id(profdb_cube *c, const char *what, uint32_t n, const void *src, size_t elem,
                 size_t id_off, void **dst)
{
	unsigned char *d = calloc(n ? n : 1, elem);
	unsigned char *seen = calloc(n ? n : 1, 1);
	if (!d || !seen) {
		free(d);
		free(seen);
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		memcpy(&id, (const unsigned char *)src + (size_t)i * elem + id_off, sizeof id);
		if (id >= n || seen[id]) {
			free(d);
			free(seen);
			return profdb__fail(-EBADMSG, "%s: member " ANCHOR ": %s id %" PRIu32
			                    " %s (the %" PRIu32 " ids must be 0..%" PRIu32 ")",
			                    c->path, what, id, id >= n ? "out of range" : "repeated", n,
			                    n ? n - 1 : 0);
		}
		seen[id] = 1;
		memcpy(d + (size_t)id * elem, (const unsigned char *)src + (size_t)i * elem, elem);
	}
	free(seen);
	*dst = d;
	return 0;
}

typedef struct id_index {
	uint32_t key, index;
} id_index;

static int id_index_cmp(const void *a, const void *b)
{
	const id_index *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

static uint32_t id_lookup(const id_index *t, uint32_t n, uint32_t key)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t[mid].key == key)
			return t[mid].index;
		if (t[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return PROFDB_NONE;
}

/* Attributes (owners to ids) and topologies (coordinates resolved to
 * location ids or group / node indexes; the Id attributes of groups and
 * nodes need not be dense, so they are looked up in sorted tables). */
static int finish_extras(parser *p)
{
	profdb_cube *c = p->c;
	for (uint32_t i = 0; i < p->n_attrs; i++) {
		cube_attr *a = &p->attrs[i];
		switch (a->owner) {
		case PROFDB_CUBE_ITEM_METRIC: a->owner_id = p->metrics[a->owner_id].id; break;
		case PROFDB_CUBE_ITEM_REGION: a->owner_id = p->regions[a->owner_id].id; break;
		case PROFDB_CUBE_ITEM_CNODE: a->owner_id = p->cnodes[a->owner_id].id; break;
		case PROFDB_CUBE_ITEM_LOCATION: a->owner_id = p->locs[a->owner_id].id; break;
		default: break;
		}
	}
	c->attrs = p->attrs;
	c->n_attrs = p->n_attrs;
	p->attrs = NULL;
	for (uint32_t k = 0; k < p->n_carts; k++) {
		uint32_t next = k + 1 < p->n_carts ? p->carts[k + 1].first_dim : p->n_dims;
		if (next - p->carts[k].first_dim != p->carts[k].ndims)
			return profdb__fail(-EBADMSG, "%s: member " ANCHOR ": topology %" PRIu32
			                    " declares %" PRIu32 " dimensions and has %" PRIu32
			                    " <dim> elements", c->path, k, p->carts[k].ndims,
			                    next - p->carts[k].first_dim);
	}
	size_t nt = (size_t)c->n_groups + c->n_stns + 1;
	id_index *t = malloc(nt * sizeof *t);
	if (!t)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	/* groups first, then nodes sorted by (element, Id) as one key space each */
	id_index *groups = t, *stns[3];
	uint32_t n_el[3] = {0, 0, 0};
	for (uint32_t i = 0; i < c->n_groups; i++)
		groups[i] = (id_index){c->groups[i].xml_id, i};
	qsort(groups, c->n_groups, sizeof *t, id_index_cmp);
	id_index *q = t + c->n_groups;
	for (uint32_t e = 0; e < 3; e++) {
		stns[e] = q;
		for (uint32_t i = 0; i < c->n_stns; i++)
			if (c->stns[i].element == e)
				q[n_el[e]++] = (id_index){c->stns[i].xml_id, i};
		qsort(q, n_el[e], sizeof *t, id_index_cmp);
		q += n_el[e];
	}
	int r = 0;
	for (uint32_t i = 0; i < p->n_coords && r == 0; i++) {
		cube_coord *o = &p->coords[i];
		uint32_t e = coord_keys[o->elem].stn_element;
		switch (o->kind) {
		case PROFDB_CUBE_ITEM_LOCATION:
			o->item = o->xml_id < c->n_locs ? o->xml_id : PROFDB_NONE;
			break;
		case PROFDB_CUBE_ITEM_LOCATION_GROUP:
			o->item = id_lookup(groups, c->n_groups, o->xml_id);
			break;
		default:
			o->item = id_lookup(stns[e], n_el[e], o->xml_id);
			break;
		}
		if (o->item == PROFDB_NONE)
			r = profdb__fail(-EBADMSG, "%s: member " ANCHOR ": topology coordinate %" PRIu32
			                 " names %s=\"%" PRIu32 "\", which does not exist", c->path, i,
			                 coord_keys[o->elem].name, o->xml_id);
	}
	free(t);
	if (r < 0)
		return r;
	c->carts = p->carts;
	c->n_carts = p->n_carts;
	p->carts = NULL;
	c->dims = p->dims;
	c->n_dims = p->n_dims;
	p->dims = NULL;
	c->coords = p->coords;
	c->n_coords = p->n_coords;
	p->coords = NULL;
	c->coord_vals = p->vals;
	c->n_coord_vals = p->n_vals;
	p->vals = NULL;
	return 0;
}

static int finish(parser *p)
{
	profdb_cube *c = p->c;
	int r;
	void *v = NULL;

	/* metrics: ids, tree links */
	if ((r = by_id(c, "metric", p->n_metrics, p->metrics, sizeof *p->metrics,
	               offsetof(cube_metric, id), &v)) < 0)
		return r;
	c->metrics = v;
	c->n_metrics = p->n_metrics;
	c->first_root_metric = PROFDB_NONE;
	for (uint32_t i = 0; i < c->n_metrics; i++)
		c->metrics[i].parent = c->metrics[i].first_child = c->metrics[i].next_sibling =
			PROFDB_NONE;
	uint32_t last_root = PROFDB_NONE;
	uint32_t *last_child = malloc(((size_t)p->n_metrics + 1) * sizeof *last_child);
	if (!last_child)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	for (uint32_t i = 0; i < p->n_metrics; i++)
		last_child[p->metrics[i].id] = PROFDB_NONE;
	for (uint32_t i = 0; i < p->n_metrics; i++) {
		uint32_t id = p->metrics[i].id;
		uint32_t pi = p->metric_parent[i];
		if (pi == UINT32_MAX) {
			if (last_root == PROFDB_NONE)
				c->first_root_metric = id;
			else
				c->metrics[last_root].next_sibling = id;
			last_root = id;
		} else {
			uint32_t pid = p->metrics[pi].id;
			c->metrics[id].parent = pid;
			if (last_child[pid] == PROFDB_NONE)
				c->metrics[pid].first_child = id;
			else
				c->metrics[last_child[pid]].next_sibling = id;
			last_child[pid] = id;
		}
	}
	free(last_child);

	if ((r = by_id(c, "region", p->n_regions, p->regions, sizeof *p->regions,
	               offsetof(cube_region, id), &v)) < 0)
		return r;
	c->regions = v;
	c->n_regions = p->n_regions;

	/* cnodes */
	if ((r = by_id(c, "cnode", p->n_cnodes, p->cnodes, sizeof *p->cnodes,
	               offsetof(cube_cnode, id), &v)) < 0)
		return r;
	c->cnodes = v;
	c->n_cnodes = p->n_cnodes;
	c->doc_order = malloc(((size_t)p->n_cnodes + 1) * sizeof *c->doc_order);
	if (!c->doc_order)
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	c->first_root = PROFDB_NONE;
	for (uint32_t i = 0; i < c->n_cnodes; i++) {
		cube_cnode *n = &c->cnodes[i];
		n->parent = n->first_child = n->next_sibling = n->last_child = PROFDB_NONE;
		if (n->region >= c->n_regions)
			return profdb__fail(-EBADMSG, "%s: member " ANCHOR ": cnode %" PRIu32
			                    " calls region %" PRIu32 ", but there are %" PRIu32
			                    " regions", c->path, n->id, n->region, c->n_regions);
	}
	last_root = PROFDB_NONE;
	for (uint32_t i = 0; i < p->n_cnodes; i++) {
		uint32_t id = p->cnodes[i].id;
		c->doc_order[i] = id;
		uint32_t pi = p->cnode_parent[i];
		if (pi == UINT32_MAX) {
			if (last_root == PROFDB_NONE)
				c->first_root = id;
			else
				c->cnodes[last_root].next_sibling = id;
			last_root = id;
		} else {
			uint32_t pid = p->cnodes[pi].id;
			cube_cnode *par = &c->cnodes[pid];
			c->cnodes[id].parent = pid;
			if (par->last_child == PROFDB_NONE)
				par->first_child = id;
			else
				c->cnodes[par->last_child].next_sibling = id;
			par->last_child = id;
		}
	}
	c->params = p->params;
	c->n_params = p->n_params;
	p->params = NULL;

	/* system tree */
	if ((r = by_id(c, "location", p->n_locs, p->locs, sizeof *p->locs,
	               offsetof(cube_location, id), &v)) < 0)
		return r;
	c->locs = v;
	c->n_locs = p->n_locs;
	c->groups = p->groups;
	c->n_groups = p->n_groups;
	p->groups = NULL;
	c->stns = p->stns;
	c->n_stns = p->n_stns;
	p->stns = NULL;
	return finish_extras(p);
}

int profdb__cube_anchor_parse(profdb_cube *c)
{
	const cube_member *m = NULL;
	/* CubeLib takes any member whose name ends in anchor.xml (members[] is
	 * sorted by name, so compare archive positions). */
	for (uint32_t i = 0; i < c->n_members; i++) {
		size_t l = strlen(c->members[i].name);
		if (l >= 10 && strcmp(c->members[i].name + l - 10, ANCHOR) == 0 &&
		    (!m || c->members[i].header_off > m->header_off))
			m = &c->members[i]; /* the last one in the archive */
	}
	if (!m)
		return profdb__fail(-ENOENT, "%s: no member " ANCHOR " in the archive (%" PRIu32
		                    " members)", c->path, c->n_members);
	const unsigned char *xml;
	int r = profdb__range(&c->tar, m->off, m->size, ANCHOR, &xml);
	if (r < 0)
		return r;
	size_t n = (size_t)m->size;
	unsigned char *inflated = NULL, *fixed = NULL;
	if (n >= 2 && xml[0] == 0x1f && xml[1] == 0x8b) {
		char what[300];
		snprintf(what, sizeof what, "%s: member " ANCHOR " (gzip, at offset %" PRIu64 ")",
		         c->path, m->off);
		if ((r = profdb__cube_inflate_any(xml, n, profdb__cube_inflate_limit(c), what, &inflated, &n)) < 0)
			return r;
		xml = inflated;
	}
	size_t fixed_n;
	if (fix_cubepl(xml, n, &fixed, &fixed_n) < 0) {
		free(inflated);
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	}
	if (fixed) {
		xml = fixed;
		n = fixed_n;
	}

	parser p = {0};
	p.c = c;
	p.xp = XML_ParserCreate(NULL);
	if (!p.xp) {
		free(inflated);
		free(fixed);
		return profdb__fail(-ENOMEM, "%s: out of memory", c->path);
	}
	if (!c->strs) {
		/* offset 0 is the empty string */
		char *s = malloc(4096);
		if (!s) {
			r = profdb__fail(-ENOMEM, "%s: out of memory", c->path);
			goto out;
		}
		s[0] = 0;
		c->strs = s;
		c->strs_cap = 4096;
		c->strs_len = 1;
	}
	XML_SetUserData(p.xp, &p);
	XML_SetElementHandler(p.xp, on_start, on_end);
	XML_SetCharacterDataHandler(p.xp, on_text);
	XML_SetStartDoctypeDeclHandler(p.xp, on_doctype);
	/* Stream the document in 1 MiB pieces. */
	size_t done = 0;
	const size_t chunk = 1u << 20;
	r = 0;
	do {
		size_t len = n - done < chunk ? n - done : chunk;
		int last = done + len == n;
		if (XML_Parse(p.xp, (const char *)xml + done, (int)len, last) != XML_STATUS_OK) {
			if (p.err)
				r = p.err;
			else
				r = profdb__fail(-EBADMSG, "%s: member " ANCHOR " (at archive offset %"
				                 PRIu64 "), line %lu, column %lu, byte offset %lld: %s",
				                 c->path, m->off,
				                 (unsigned long)XML_GetCurrentLineNumber(p.xp),
				                 (unsigned long)XML_GetCurrentColumnNumber(p.xp),
				                 (long long)XML_GetCurrentByteIndex(p.xp),
				                 XML_ErrorString(XML_GetErrorCode(p.xp)));
			goto out;
		}
		done += len;
	} while (done < n);
	if (!p.seen_cube) {
		r = profdb__fail(-EBADMSG, "%s: member " ANCHOR " has no <cube> element", c->path);
		goto out;
	}
	r = finish(&p);
out:
	XML_ParserFree(p.xp);
	free(p.stack);
	free(p.text);
	free(p.metrics);
	free(p.metric_parent);
	free(p.regions);
	free(p.cnodes);
	free(p.cnode_parent);
	free(p.locs);
	free(p.params);
	free(p.groups);
	free(p.stns);
	free(p.attrs);
	free(p.carts);
	free(p.dims);
	free(p.coords);
	free(p.vals);
	free(inflated);
	free(fixed);
	return r;
}
