/* anchor.xml: streamed through the expat wrapper (lib/core/xml-internal.h;
 * no document tree is built). Start tags are dispatched through two tables:
 * `elements` (the structural elements: name, the parents they are accepted
 * under, a handler) and `texts` (the small leaf elements whose text is kept:
 * <name>, <uniq_name>, <rank>, ... by the kind of their parent). Text goes to
 * the handle's string arena. Items are collected in document order, then
 * placed by id once the document is complete (anchor-finish.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor-internal.h"
#include "../core/table-internal.h"

#define stop(p, ...) profdb__xml_stop(&(p)->x, __VA_ARGS__)
#define attr profdb__xml_attr

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
	if (profdb__grow((void **)&c->strs, &c->strs_cap, c->strs_len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(c->strs + c->strs_len, s, n);
	c->strs[c->strs_len + n] = 0;
	*out = (cube_str)c->strs_len;
	c->strs_len += n + 1;
	return 0;
}

static void oom(parser *p)
{
	stop(p, -ENOMEM, "out of memory");
}

/* Append a zeroed element to a document-order array (index n). */
static void *push(parser *p, void **arr, size_t *cap, uint32_t n, size_t elem)
{
	if (n >= UINT32_MAX / 2 || profdb__grow(arr, cap, (size_t)n + 1, elem) < 0) {
		oom(p);
		return NULL;
	}
	void *e = (unsigned char *)*arr + (size_t)n * elem;
	memset(e, 0, elem);
	return e;
}

#define PUSH(p, arr, n) push(p, (void **)&(p)->arr, &(p)->cap_##arr, (p)->n, sizeof *(p)->arr)

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

static int need_id(parser *p, const char **atts, const char *el, const char *name,
                   uint32_t *out)
{
	if (parse_u32(attr(atts, name), out) < 0) {
		stop(p, -EBADMSG, "<%s> needs a numeric %s attribute", el, name);
		return -1;
	}
	return 0;
}

static int opt_i64(parser *p, const char **atts, const char *el, const char *name,
                   int64_t *out)
{
	const char *v = attr(atts, name);
	*out = -1;
	if (v && parse_i64(v, out) < 0) {
		stop(p, -EBADMSG, "<%s>: attribute %s is not a number", el, name);
		return -1;
	}
	return 0;
}

static int opt_str(parser *p, const char **atts, const char *name, cube_str *out)
{
	const char *v = attr(atts, name);
	*out = 0;
	if (v && arena_add(p->c, v, strlen(v), out) < 0) {
		oom(p);
		return -1;
	}
	return 0;
}

/* The element of frame @p f is a text element: collect its text for @p s
 * (a string) or @p n (a number). */
static void set_text(parser *p, frame *f, cube_str *s, int64_t *n)
{
	p->target = (text_target){s, n, false};
	f->kind = EL_TEXT;
	profdb__xml_text_begin(&p->x);
}

/* ---- the structural elements ------------------------------------------------- */

/* A handler gets its own frame (zeroed: EL_OTHER) and its parent's. */
typedef void (*el_fn)(parser *p, frame *f, const frame *par, const char *el,
                      const char **atts);

static void el_cube(parser *p, frame *f, const char **atts)
{
	static const char *const ok[] = {"3.0", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "4.7"};
	const char *v = attr(atts, "version");
	bool good = false;
	for (size_t k = 0; v && k < sizeof ok / sizeof ok[0]; k++)
		good |= strcmp(v, ok[k]) == 0;
	if (!good) {
		stop(p, -EPROTONOSUPPORT, "unsupported anchor version '%s'", v ? v : "(none)");
		return;
	}
	if (arena_add(p->c, v, strlen(v), &p->c->anchor_version) < 0) {
		oom(p);
		return;
	}
	p->seen_cube = true;
	f->kind = EL_CUBE;
}

/* <attr key value/>: kept with the item it is nested in (document index
 * for now; anchor-finish.c turns metric, region, cnode and location indexes
 * into ids). Attributes anywhere else belong to the file. */
static void el_attr(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	static const profdb_cube_item owner[] = {
		[EL_METRIC] = PROFDB_CUBE_ITEM_METRIC, [EL_REGION] = PROFDB_CUBE_ITEM_REGION,
		[EL_CNODE] = PROFDB_CUBE_ITEM_CNODE, [EL_STN] = PROFDB_CUBE_ITEM_SYSTEM_NODE,
		[EL_GROUP] = PROFDB_CUBE_ITEM_LOCATION_GROUP, [EL_LOC] = PROFDB_CUBE_ITEM_LOCATION,
		[EL_CART] = PROFDB_CUBE_ITEM_CUBE, [EL_TEXT] = PROFDB_CUBE_ITEM_CUBE,
	};
	profdb_cube *c = p->c;
	const char *k = attr(atts, "key"), *v = attr(atts, "value");
	(void)f, (void)el;
	if (!k || !v) {
		stop(p, -EBADMSG, "<attr> without key or value");
		return;
	}
	cube_attr *a = PUSH(p, attrs, n_attrs);
	if (!a)
		return;
	a->owner = owner[par->kind];
	a->owner_id = a->owner == PROFDB_CUBE_ITEM_CUBE ? 0 : par->index;
	if (arena_add(c, k, strlen(k), &a->key) < 0 || arena_add(c, v, strlen(v), &a->value) < 0) {
		oom(p);
		return;
	}
	if (a->owner == PROFDB_CUBE_ITEM_CUBE && !strcmp(k, "Creator"))
		c->creator = a->value;
	p->n_attrs++;
}

static void el_cubeplaggr(parser *p, frame *f, const frame *par, const char *el,
                          const char **atts)
{
	cube_metric *m = &p->metrics[par->index];
	const char *t = attr(atts, "cubeplaggrtype");
	(void)el;
	if (t && !strcmp(t, "plus"))
		set_text(p, f, &m->expr_plus, NULL);
	else if (t && !strcmp(t, "minus"))
		set_text(p, f, &m->expr_minus, NULL);
	else if (t && !strcmp(t, "aggr"))
		set_text(p, f, &m->expr_aggr, NULL);
	else
		stop(p, -EBADMSG, "<cubeplaggr> with cubeplaggrtype '%s'", t ? t : "(none)");
}

/* Upper bound on a topology's dimensions: a coordinate's values are
 * collected into a fixed buffer of this many. */
#define MAX_CART_DIMS 64u

static void el_cart(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	(void)par, (void)el;
	cube_cart *k = PUSH(p, carts, n_carts);
	if (!k || need_id(p, atts, "cart", "ndims", &k->ndims) < 0 ||
	    opt_str(p, atts, "name", &k->name) < 0)
		return;
	if (k->ndims == 0 || k->ndims > MAX_CART_DIMS) {
		stop(p, -EBADMSG, "<cart> with ndims %u (1..%u accepted)", k->ndims, MAX_CART_DIMS);
		return;
	}
	k->first_dim = p->n_dims;
	k->first_coord = p->n_coords;
	*f = (frame){EL_CART, p->n_carts++};
}

static void el_dim(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	const cube_cart *k = &p->carts[par->index];
	(void)f, (void)el;
	if (p->n_dims - k->first_dim >= k->ndims) {
		stop(p, -EBADMSG, "<cart> declares ndims %u but has more <dim> elements", k->ndims);
		return;
	}
	cube_dim *d = PUSH(p, dims, n_dims);
	const char *per = attr(atts, "periodic");
	if (!d || opt_i64(p, atts, "dim", "size", &d->size) < 0 ||
	    opt_str(p, atts, "name", &d->name) < 0)
		return;
	if (d->size < 0 || (per && strcmp(per, "true") && strcmp(per, "false"))) {
		stop(p, -EBADMSG, "<dim> needs size >= 0 and periodic=\"true\"|\"false\"");
		return;
	}
	d->periodic = per && !strcmp(per, "true");
	p->n_dims++;
}

const coord_key profdb__cube_coord_keys[7] = {
	{"locId", PROFDB_CUBE_ITEM_LOCATION, 0},
	{"thrdId", PROFDB_CUBE_ITEM_LOCATION, 0},
	{"lgId", PROFDB_CUBE_ITEM_LOCATION_GROUP, 0},
	{"procId", PROFDB_CUBE_ITEM_LOCATION_GROUP, 0},
	{"stnId", PROFDB_CUBE_ITEM_SYSTEM_NODE, 0},
	{"machId", PROFDB_CUBE_ITEM_SYSTEM_NODE, 1},
	{"nodeId", PROFDB_CUBE_ITEM_SYSTEM_NODE, 2},
};

static void el_coord(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	(void)el;
	cube_coord *o = PUSH(p, coords, n_coords);
	if (!o)
		return;
	bool found = false;
	for (uint32_t i = 0; i < 7 && !found; i++) {
		const coord_key *ck = &profdb__cube_coord_keys[i];
		if (!attr(atts, ck->name))
			continue;
		if (need_id(p, atts, "coord", ck->name, &o->xml_id) < 0)
			return;
		o->kind = ck->kind;
		o->elem = i;
		found = true;
	}
	if (!found) {
		stop(p, -EBADMSG, "<coord> names no location, group or system-tree node");
		return;
	}
	o->first_val = p->n_vals;
	p->carts[par->index].n_coords++;
	p->n_coords++;
	set_text(p, f, NULL, NULL);
	p->target.coord = true;
}

/* "c0 c1 ..." of the <coord> just closed: exactly ndims integers. */
static int coord_values(parser *p)
{
	const cube_cart *k = &p->carts[p->n_carts - 1];
	int64_t v[MAX_CART_DIMS];
	uint32_t n = 0;
	size_t len, i = 0;
	const char *text = profdb__xml_text(&p->x, &len);
	while (i < len) {
		char buf[32];
		size_t j = 0;
		while (i < len && strchr(" \t\r\n", text[i]))
			i++;
		if (i == len)
			break;
		while (i < len && !strchr(" \t\r\n", text[i]) && j < sizeof buf - 1)
			buf[j++] = text[i++];
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
		int64_t *slot = PUSH(p, vals, n_vals);
		if (!slot)
			return -1;
		*slot = v[d];
		p->n_vals++;
	}
	return 0;
}

static profdb_cube_kind metric_kind(const char *t, bool *ok)
{
	static const struct {
		const char *name;
		profdb_cube_kind kind;
	} kinds[] = {
		{"EXCLUSIVE", PROFDB_CUBE_EXCLUSIVE}, {"INCLUSIVE", PROFDB_CUBE_INCLUSIVE},
		{"SIMPLE", PROFDB_CUBE_SIMPLE}, {"POSTDERIVED", PROFDB_CUBE_POSTDERIVED},
		{"DERIVED", PROFDB_CUBE_POSTDERIVED},
		{"PREDERIVED_INCLUSIVE", PROFDB_CUBE_PREDERIVED_INCLUSIVE},
		{"PREDERIVED_EXCLUSIVE", PROFDB_CUBE_PREDERIVED_EXCLUSIVE},
	};
	*ok = true;
	if (!t || !*t)
		return PROFDB_CUBE_EXCLUSIVE;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(t, kinds[i].name))
			return kinds[i].kind;
	*ok = false;
	return PROFDB_CUBE_EXCLUSIVE;
}

static void el_metric(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	uint32_t i = p->n_metrics;
	cube_metric *m = PUSH(p, metrics, n_metrics);
	if (!m || !push(p, (void **)&p->metric_parent, &p->cap_metric_parent, i, sizeof(uint32_t)) ||
	    need_id(p, atts, el, "id", &m->id) < 0)
		return;
	const char *t = attr(atts, "type");
	bool ok;
	m->kind = metric_kind(t, &ok);
	if (!ok) {
		stop(p, -EBADMSG, "metric type '%s' unknown", t);
		return;
	}
	const char *vz = attr(atts, "viztype");
	m->ghost = vz && !strcmp(vz, "GHOST");
	p->metric_parent[i] = par->kind == EL_METRIC ? par->index : UINT32_MAX;
	p->n_metrics++;
	*f = (frame){EL_METRIC, i};
}

static void el_region(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	(void)par;
	cube_region *r = PUSH(p, regions, n_regions);
	if (!r || need_id(p, atts, el, "id", &r->id) < 0 ||
	    opt_i64(p, atts, el, "begin", &r->begin) < 0 ||
	    opt_i64(p, atts, el, "end", &r->end) < 0 || opt_str(p, atts, "mod", &r->mod) < 0)
		return;
	*f = (frame){EL_REGION, p->n_regions++};
}

static void el_cnode(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	uint32_t i = p->n_cnodes;
	cube_cnode *n = PUSH(p, cnodes, n_cnodes);
	if (!n || !push(p, (void **)&p->cnode_parent, &p->cap_cnode_parent, i, sizeof(uint32_t)) ||
	    need_id(p, atts, el, "id", &n->id) < 0 ||
	    need_id(p, atts, el, "calleeId", &n->region) < 0 ||
	    opt_i64(p, atts, el, "line", &n->line) < 0 || opt_str(p, atts, "mod", &n->mod) < 0)
		return;
	n->first_param = p->n_params;
	p->cnode_parent[i] = par->kind == EL_CNODE ? par->index : UINT32_MAX;
	p->n_cnodes++;
	*f = (frame){EL_CNODE, i};
}

static void el_parameter(parser *p, frame *f, const frame *par, const char *el,
                         const char **atts)
{
	(void)f, (void)el;
	cube_cnode *owner = &p->cnodes[par->index];
	if (owner->first_param + owner->n_params != p->n_params) {
		stop(p, -EBADMSG, "<parameter> of cnode %u after its child cnodes", owner->id);
		return;
	}
	cube_param *pr = PUSH(p, params, n_params);
	if (!pr)
		return;
	const char *ty = attr(atts, "partype");
	pr->numeric = ty && !strcmp(ty, "numeric");
	if (opt_str(p, atts, "parkey", &pr->key) < 0 ||
	    opt_str(p, atts, "parvalue", &pr->value) < 0)
		return;
	p->n_params++;
	owner->n_params++;
}

/* <systemtreenode>, Cube3 <machine> and <node>. */
static void el_stn(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	cube_stn *s = PUSH(p, stns, n_stns);
	if (!s || need_id(p, atts, el, "Id", &s->xml_id) < 0)
		return;
	bool nested = par->kind == EL_STN;
	s->element = !strcmp(el, "machine") ? 1 : !strcmp(el, "node") ? 2 : 0;
	s->parent = nested ? par->index : UINT32_MAX;
	s->depth = nested ? p->stns[par->index].depth + 1 : 0;
	if (s->element && arena_add(p->c, el, strlen(el), &s->klass) < 0) {
		oom(p);
		return;
	}
	*f = (frame){EL_STN, p->n_stns++};
}

/* <locationgroup>, Cube3 <process>. */
static void el_group(parser *p, frame *f, const frame *par, const char *el, const char **atts)
{
	cube_group *g = PUSH(p, groups, n_groups);
	if (!g || need_id(p, atts, el, "Id", &g->xml_id) < 0)
		return;
	g->rank = -1;
	g->node = par->kind == EL_STN ? par->index : UINT32_MAX;
	*f = (frame){EL_GROUP, p->n_groups++};
}

/* <location>, Cube3 <thread>. */
static void el_location(parser *p, frame *f, const frame *par, const char *el,
                        const char **atts)
{
	if (par->kind != EL_GROUP) {
		stop(p, -EBADMSG, "<%s> outside a location group / process", el);
		return;
	}
	cube_location *l = PUSH(p, locs, n_locs);
	if (!l || need_id(p, atts, el, "Id", &l->id) < 0)
		return;
	l->rank = -1;
	l->group = par->index;
	if (!strcmp(el, "thread") && arena_add(p->c, "thread", 6, &l->type) < 0) {
		oom(p);
		return;
	}
	*f = (frame){EL_LOC, p->n_locs++};
}

#define ANY 0u
#define IN(k) (1u << (k))

/* Structural elements: handled under the parents listed (ANY: anywhere);
 * under any other parent the element is skipped (its children are still
 * read). */
static const struct {
	const char *name;
	unsigned parents;
	el_fn fn;
} elements[] = {
	{"attr", ANY, el_attr},
	{"cubeplaggr", IN(EL_METRIC), el_cubeplaggr},
	{"cart", ANY, el_cart},
	{"dim", IN(EL_CART), el_dim},
	{"coord", IN(EL_CART), el_coord},
	{"metric", IN(EL_METRIC) | IN(EL_OTHER), el_metric},
	{"region", ANY, el_region},
	{"cnode", ANY, el_cnode},
	{"parameter", IN(EL_CNODE), el_parameter},
	{"systemtreenode", ANY, el_stn},
	{"machine", ANY, el_stn},
	{"node", ANY, el_stn},
	{"locationgroup", ANY, el_group},
	{"process", ANY, el_group},
	{"location", ANY, el_location},
	{"thread", ANY, el_location},
};

/* Text elements: the field of their parent item their text goes to. */
static const struct {
	el_kind owner;
	const char *name;
	size_t off;
	bool num;
} texts[] = {
	{EL_METRIC, "uniq_name", offsetof(cube_metric, name), false},
	{EL_METRIC, "disp_name", offsetof(cube_metric, disp), false},
	{EL_METRIC, "dtype", offsetof(cube_metric, dtype_text), false},
	{EL_METRIC, "uom", offsetof(cube_metric, unit), false},
	{EL_METRIC, "descr", offsetof(cube_metric, descr), false},
	{EL_METRIC, "url", offsetof(cube_metric, url), false},
	{EL_METRIC, "cubepl", offsetof(cube_metric, expr), false},
	{EL_METRIC, "cubeplinit", offsetof(cube_metric, expr_init), false},
	{EL_REGION, "name", offsetof(cube_region, name), false},
	{EL_REGION, "mangled_name", offsetof(cube_region, mangled), false},
	{EL_REGION, "paradigm", offsetof(cube_region, paradigm), false},
	{EL_REGION, "role", offsetof(cube_region, role), false},
	{EL_REGION, "url", offsetof(cube_region, url), false},
	{EL_REGION, "descr", offsetof(cube_region, descr), false},
	{EL_STN, "name", offsetof(cube_stn, name), false},
	{EL_STN, "class", offsetof(cube_stn, klass), false},
	{EL_STN, "descr", offsetof(cube_stn, descr), false},
	{EL_GROUP, "name", offsetof(cube_group, name), false},
	{EL_GROUP, "type", offsetof(cube_group, type), false},
	{EL_GROUP, "rank", offsetof(cube_group, rank), true},
	{EL_LOC, "name", offsetof(cube_location, name), false},
	{EL_LOC, "type", offsetof(cube_location, type), false},
	{EL_LOC, "rank", offsetof(cube_location, rank), true},
};

/* The item a frame stands for, or NULL. */
static unsigned char *item_of(parser *p, const frame *f)
{
	switch (f->kind) {
	case EL_METRIC: return (unsigned char *)&p->metrics[f->index];
	case EL_REGION: return (unsigned char *)&p->regions[f->index];
	case EL_STN: return (unsigned char *)&p->stns[f->index];
	case EL_GROUP: return (unsigned char *)&p->groups[f->index];
	case EL_LOC: return (unsigned char *)&p->locs[f->index];
	default: return NULL;
	}
}

static void on_start(profdb__xml *x, const char *el, const char **atts)
{
	parser *p = x->user;
	frame *f = profdb__xml_top(x);
	const frame *par = profdb__xml_parent(x);
	if (x->collecting) {
		stop(p, -EBADMSG, "element <%s> inside a text element", el);
		return;
	}
	if (!par) {
		if (strcmp(el, "cube") != 0)
			stop(p, -EBADMSG, "root element is <%s>, not <cube>", el);
		else
			el_cube(p, f, atts);
		return;
	}
	for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++)
		if (!strcmp(el, elements[i].name)) {
			if (elements[i].parents == ANY || (elements[i].parents & IN(par->kind)))
				elements[i].fn(p, f, par, el, atts);
			return;
		}
	unsigned char *it = item_of(p, par);
	for (size_t i = 0; it && i < sizeof texts / sizeof texts[0]; i++)
		if (texts[i].owner == par->kind && !strcmp(el, texts[i].name)) {
			void *field = it + texts[i].off;
			if (texts[i].num)
				set_text(p, f, NULL, field);
			else
				set_text(p, f, field, NULL);
			return;
		}
}

static void on_end(profdb__xml *x, const char *el)
{
	parser *p = x->user;
	const frame *f = profdb__xml_top(x);
	if (f->kind != EL_TEXT)
		return;
	size_t len;
	const char *text = profdb__xml_text(x, &len);
	if (p->target.str) {
		if (arena_add(p->c, text, len, p->target.str) < 0) {
			oom(p);
			return;
		}
	} else if (p->target.num) {
		if (len >= 32 || parse_i64(text, p->target.num) < 0) {
			stop(p, -EBADMSG, "<%s> is not a number", el);
			return;
		}
	} else if (p->target.coord) {
		if (coord_values(p) < 0)
			return;
	}
	p->target = (text_target){NULL, NULL, false};
	profdb__xml_text_end(x);
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

/* The anchor member: CubeLib takes any member whose name ends in anchor.xml
 * (members[] is sorted by name, so compare archive positions: the last one
 * in the archive wins). */
static const cube_member *find_anchor(const profdb_cube *c)
{
	const cube_member *m = NULL;
	for (uint32_t i = 0; i < c->n_members; i++) {
		size_t l = strlen(c->members[i].name);
		if (l >= 10 && strcmp(c->members[i].name + l - 10, ANCHOR) == 0 &&
		    (!m || c->members[i].header_off > m->header_off))
			m = &c->members[i];
	}
	return m;
}

static void parser_free(parser *p)
{
	free(p->metrics);
	free(p->metric_parent);
	free(p->regions);
	free(p->cnodes);
	free(p->cnode_parent);
	free(p->locs);
	free(p->params);
	free(p->groups);
	free(p->stns);
	free(p->attrs);
	free(p->carts);
	free(p->dims);
	free(p->coords);
	free(p->vals);
}

/* Parse the (inflated, fixed) document. */
static int parse_xml(profdb_cube *c, const cube_member *m, const unsigned char *xml, size_t n)
{
	char name[300];
	snprintf(name, sizeof name, "%s: member " ANCHOR " (at archive offset %" PRIu64 ")",
	         c->path, m->off);
	if (!c->strs) {
		/* offset 0 is the empty string */
		if (profdb__grow((void **)&c->strs, &c->strs_cap, 4096, 1) < 0)
			return -ENOMEM;
		c->strs[0] = 0;
		c->strs_len = 1;
	}
	parser p = {0};
	p.c = c;
	profdb__xml_init(&p.x, name, sizeof(frame), on_start, on_end, &p);
	p.x.refuse_doctype = true;
	int r = profdb__xml_parse(&p.x, xml, n);
	if (r == 0 && !p.seen_cube)
		r = profdb__fail(-EBADMSG, "%s: member " ANCHOR " has no <cube> element", c->path);
	if (r == 0)
		r = profdb__cube_anchor_finish(&p);
	parser_free(&p);
	return r;
}

int profdb__cube_anchor_parse(profdb_cube *c)
{
	const cube_member *m = find_anchor(c);
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
		r = profdb__cube_inflate_any(xml, n, profdb__cube_inflate_limit(c), what, &inflated,
		                             &n);
		if (r < 0)
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
	r = parse_xml(c, m, xml, n);
	free(inflated);
	free(fixed);
	return r;
}
