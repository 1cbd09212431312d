/* Call-path keys (profdb_tree_path_key, lib/analysis/match.c; doc/model.md
 * "Matching two databases"): two nodes of two views have equal keys
 * exactly when profdb_match_new() pairs them. Checked node pair by node
 * pair against the match on generated HPCToolkit 4.0 databases (random
 * trees over a small alphabet of names, files, lines and addresses, so that
 * equal sibling keys, equal base names in other directories and anonymous
 * functions are common) and random variants of them (changed costs that
 * reorder siblings, changed keys, added paths), on the writer's sample in
 * both layouts, and on a Callgrind pair; plus the prefix property, the
 * length when measuring, a short buffer and the errors. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "writer.h"

TestSuite(path_key);

/* ---- keys ----------------------------------------------------------------------- */

typedef struct key {
	unsigned char *p;
	size_t len;
} key;

/* The keys of every node of @p t (malloc'ed, one per node). */
static key *keys_of(const profdb *db, const profdb_tree *t, int64_t *n)
{
	*n = profdb_tree_count(t);
	cr_assert_gt(*n, 0);
	key *k = calloc((size_t)*n, sizeof *k);
	cr_assert_not_null(k);
	for (int64_t i = 0; i < *n; i++) {
		int64_t len = profdb_tree_path_key(db, t, (uint32_t)i, NULL, 0);
		cr_assert_geq(len, 0, "node %lld: %s", (long long)i, profdb_error_message());
		k[i].len = (size_t)len;
		k[i].p = malloc(k[i].len + 8);
		cr_assert_not_null(k[i].p);
		memset(k[i].p, 0xee, k[i].len + 8);
		cr_assert_eq(profdb_tree_path_key(db, t, (uint32_t)i, k[i].p, k[i].len + 8), len);
		cr_assert_eq(k[i].p[k[i].len], 0xee, "node %lld: wrote past the key", (long long)i);
	}
	return k;
}

static void free_keys(key *k, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		free(k[i].p);
	free(k);
}

static int key_eq(const key *a, const key *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/* Within one view: the root's key is empty, a parent's key is a proper
 * prefix of its child's. */
static void check_prefixes(const profdb_tree *t, const key *k, int64_t n)
{
	cr_assert_eq(k[0].len, 0, "the root's key is not empty");
	for (int64_t i = 1; i < n; i++) {
		profdb_node nd;
		cr_assert_eq(profdb_tree_get(t, (uint32_t)i, &nd), 0);
		const key *pk = &k[nd.parent];
		cr_assert_lt(pk->len, k[i].len, "node %lld", (long long)i);
		cr_assert(pk->len == 0 || memcmp(pk->p, k[i].p, pk->len) == 0,
		          "node %lld: its parent's key is not a prefix", (long long)i);
	}
}

/* Keys equal <=> profdb_match_new pairs the nodes (the same row). Returns
 * the number of pairs of equal keys. */
static int64_t check_keys(const profdb *a, const profdb *b)
{
	profdb_match *m;
	cr_assert_eq(profdb_match_new(&m, a, b, NULL), 0, "%s", profdb_error_message());
	const profdb_tree *ta = profdb_match_tree(m, 0), *tb = profdb_match_tree(m, 1);
	int64_t na, nb, equal = 0;
	key *ka = keys_of(a, ta, &na), *kb = keys_of(b, tb, &nb);
	check_prefixes(ta, ka, na);
	check_prefixes(tb, kb, nb);
	uint64_t *ra = malloc((size_t)na * sizeof *ra), *rb = malloc((size_t)nb * sizeof *rb);
	cr_assert(ra && rb);
	for (int64_t i = 0; i < na; i++)
		cr_assert_eq(profdb_match_row(m, 0, (uint32_t)i, &ra[i]), 0);
	for (int64_t j = 0; j < nb; j++)
		cr_assert_eq(profdb_match_row(m, 1, (uint32_t)j, &rb[j]), 0);
	for (int64_t i = 0; i < na; i++)
		for (int64_t j = 0; j < nb; j++) {
			int same_key = key_eq(&ka[i], &kb[j]), paired = ra[i] == rb[j];
			cr_assert_eq(same_key, paired, "A node %lld (row %llu) and B node %lld (row %llu): "
			             "keys %s, match %s", (long long)i, (unsigned long long)ra[i],
			             (long long)j, (unsigned long long)rb[j], same_key ? "equal" : "differ",
			             paired ? "pairs them" : "does not");
			equal += same_key;
		}
	/* within one view every key is distinct (the view matched with itself) */
	for (int64_t i = 0; i < na; i++)
		for (int64_t j = i + 1; j < na; j++)
			cr_assert(!key_eq(&ka[i], &ka[j]), "A nodes %lld and %lld share a key", (long long)i,
			          (long long)j);
	profdb_match_counts c;
	profdb_match_counts_get(m, &c);
	cr_assert_eq((uint64_t)equal, c.matched);
	free(ra);
	free(rb);
	free_keys(ka, na);
	free_keys(kb, nb);
	profdb_match_free(m);
	return equal;
}

/* ---- random trees ------------------------------------------------------------------- */

enum { MAXCTX = 48 };

typedef struct rtree {
	tw_context ctx[MAXCTX];
	double self[MAXCTX], incl[MAXCTX];
	size_t n;
} rtree;

static const tw_module modules[] = {{"/usr/bin/app"}, {"/lib/libx.so"}};
/* files 0 and 1 share their base name: keys hold base names only */
static const tw_file files[] = {{"/src/a.c", 0}, {"/elsewhere/a.c", 0}, {"/src/b.c", 0}};
static const tw_function functions[] = {
	{"f", 0, 0x100, 0, 10}, {"g", 0, 0x200, 2, 20}, {"f", 0, 0x300, 1, 10},
	{NULL, 1, 0x40, -1, 0}, {NULL, 1, 0x80, -1, 0},
};

/* Context @p i (index in the array) of a random type and key. */
static void random_key(tc_rng *r, tw_context *c)
{
	uint32_t id = c->id;
	int32_t parent = c->parent;
	memset(c, 0, sizeof *c);
	c->id = id;
	c->parent = parent;
	c->function = c->file = c->module = -1;
	switch (tc_below(r, 4)) {
	case 0:
	case 1:   /* a call (or an inlined call) */
		c->relation = (uint8_t)(1 + tc_below(r, 2));
		c->lexical_type = 0;
		c->function = (int32_t)tc_below(r, 5);
		break;
	case 2:   /* a loop or a line */
		c->lexical_type = (uint8_t)(1 + tc_below(r, 2));
		c->file = (int32_t)tc_below(r, 3);
		c->line = (uint32_t)(1 + tc_below(r, 2));
		c->propagation = 1;
		break;
	default:  /* an instruction */
		c->lexical_type = 3;
		c->module = (int32_t)tc_below(r, 2);
		c->offset = 0x10 * (1 + tc_below(r, 2));
		c->propagation = 1;
		break;
	}
}

static void random_costs(tc_rng *r, rtree *t, size_t i)
{
	t->self[i] = (double)tc_below(r, 6);
	t->incl[i] = t->self[i] + (double)(1 + tc_below(r, 40));
}

static void add_random(tc_rng *r, rtree *t)
{
	size_t i = t->n++;
	cr_assert_lt(i, MAXCTX);
	t->ctx[i].id = (uint32_t)i + 1;
	t->ctx[i].parent = (int32_t)tc_below(r, i);   /* 0: the entry point */
	random_key(r, &t->ctx[i]);
	random_costs(r, t, i);
}

static void random_tree(tc_rng *r, rtree *t, size_t n)
{
	memset(t, 0, sizeof *t);
	t->ctx[0] = (tw_context){.id = 1, .parent = -1, .function = -1, .file = -1, .module = -1,
	                         .entry_point = 1};
	t->n = 1;
	while (t->n < n)
		add_random(r, t);
}

/* B: A with some costs changed (siblings reorder), some keys changed and a
 * few paths added. */
static void random_variant(tc_rng *r, const rtree *a, rtree *b)
{
	*b = *a;
	for (size_t i = 1; i < b->n; i++) {
		uint64_t x = tc_below(r, 20);
		if (x < 4)
			random_costs(r, b, i);
		else if (x < 6)
			random_key(r, &b->ctx[i]);
	}
	for (int k = 0; k < 5; k++)
		add_random(r, b);
}

/* Metric "Ir": point, function and execution scopes; a summary profile and
 * one thread with the same values. */
static profdb *open_tree(const rtree *t, tw_blob f[TW_NFILES])
{
	static const tw_scope scopes[] = {{"point", 1, 255}, {"function", 3, 0}, {"execution", 2, 255}};
	static const tw_propagation props[] = {{0, 0}, {1, 1}, {2, 2}};
	static const tw_summary sums[] = {{0, "$$", 0, 0}, {1, "$$", 0, 1}, {2, "$$", 0, 2}};
	static const tw_metric metrics[] = {{"Ir", 3, props, 3, sums}};
	static tw_value vals[3 * MAXCTX + 1];
	size_t nv = 0;
	double total = 0;
	for (size_t i = 1; i < t->n; i++) {
		total += t->ctx[i].parent == 0 ? t->incl[i] : 0;
		vals[nv++] = (tw_value){t->ctx[i].id, 0, t->self[i]};
		vals[nv++] = (tw_value){t->ctx[i].id, 1, t->self[i]};
		vals[nv++] = (tw_value){t->ctx[i].id, 2, t->incl[i]};
	}
	vals[nv++] = (tw_value){1, 2, total};
	static const tw_id ids[] = {{1, 0, 0, 0}, {3, 0, 0, 0}};
	tw_profile profiles[2] = {{1, 0, NULL, nv, vals}, {0, 2, ids, nv, vals}};
	tw_hpctk4 d;
	memset(&d, 0, sizeof d);
	d.title = "random tree";
	d.n_scopes = 3;
	d.scopes = scopes;
	d.n_metrics = 1;
	d.metrics = metrics;
	d.n_modules = 2;
	d.modules = modules;
	d.n_files = 3;
	d.files = files;
	d.n_functions = 5;
	d.functions = functions;
	d.n_contexts = t->n;
	d.contexts = t->ctx;
	d.n_profiles = 2;
	d.profiles = profiles;
	d.no_trace = 1;
	cr_assert_eq(tw_hpctk4_write(&d, f), 0);
	profdb_input in[] = {{"meta.db", f[TW_META].data, f[TW_META].size},
	                     {"profile.db", f[TW_PROFILE].data, f[TW_PROFILE].size},
	                     {"cct.db", f[TW_CCT].data, f[TW_CCT].size}};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, in, 3, NULL), 0, "%s", profdb_error_message());
	return db;
}

static void free_blobs(tw_blob f[TW_NFILES])
{
	for (int i = 0; i < TW_NFILES; i++)
		tw_blob_free(&f[i]);
}

Test(path_key, random_trees_and_variants)
{
	int64_t unpaired_seen = 0, dup_seen = 0;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		tc_rng r = {seed * 7919};
		rtree a, b;
		random_tree(&r, &a, 12 + tc_below(&r, 30));
		random_variant(&r, &a, &b);
		tw_blob fa[TW_NFILES], fb[TW_NFILES];
		profdb *da = open_tree(&a, fa), *db = open_tree(&b, fb);
		/* the same database: every node pairs with itself */
		int64_t same = check_keys(da, da);
		int64_t pairs = check_keys(da, db);
		profdb_match *m;
		cr_assert_eq(profdb_match_new(&m, da, db, NULL), 0);
		profdb_match_counts c;
		profdb_match_counts_get(m, &c);
		unpaired_seen += (int64_t)(c.only_a + c.only_b);
		cr_assert_eq(same, profdb_tree_count(profdb_match_tree(m, 0)));
		cr_assert_leq(pairs, same);
		/* siblings with one key (the k-th pairs with the k-th): count them */
		const profdb_tree *t = profdb_match_tree(m, 0);
		for (int64_t i = 1; i < profdb_tree_count(t); i++) {
			profdb_node x;
			profdb_tree_get(t, (uint32_t)i, &x);
			if (x.next_sibling == PROFDB_NONE)
				continue;
			profdb_node y;
			profdb_tree_get(t, x.next_sibling, &y);
			dup_seen += x.type == y.type && x.name.len == y.name.len && x.line == y.line;
		}
		profdb_match_free(m);
		check_keys(db, da);
		profdb_close(da);
		profdb_close(db);
		free_blobs(fa);
		free_blobs(fb);
	}
	/* the generator did make unmatched paths and look-alike siblings */
	cr_assert_gt(unpaired_seen, 0);
	cr_assert_gt(dup_seen, 0);
}

/* ---- the writer's sample, both layouts ------------------------------------------------ */

static profdb *open_sample(int devstage, tw_blob f[TW_NFILES])
{
	tw_hpctk4 d;
	tw_hpctk4_sample(&d);
	tw_hpctk4 c = d;
	c.devstage = devstage;
	c.no_trace = 1;
	cr_assert_eq(tw_hpctk4_write(&c, f), 0);
	profdb_input in[] = {{"meta.db", f[TW_META].data, f[TW_META].size},
	                     {"profile.db", f[TW_PROFILE].data, f[TW_PROFILE].size},
	                     {"cct.db", f[TW_CCT].data, f[TW_CCT].size}};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, in, 3, NULL), 0, "%s", profdb_error_message());
	return db;
}

Test(path_key, sample_layouts)
{
	tw_blob fa[TW_NFILES], fb[TW_NFILES];
	profdb *a = open_sample(0, fa), *b = open_sample(1, fb);
	int64_t same = check_keys(a, a);
	cr_assert_gt(same, 5);
	check_keys(a, b);
	profdb_close(a);
	profdb_close(b);
	free_blobs(fa);
	free_blobs(fb);
}

/* ---- Callgrind -------------------------------------------------------------------------- */

static profdb *open_text(const char *text)
{
	profdb_input in = {"callgrind.out.1", text, strlen(text)};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, &in, 1, NULL), 0, "%s", profdb_error_message());
	return db;
}

/* Two runs of one program: other directories, a changed cost, a callee
 * only in each. */
static const char cg_one[] =
	"events: Ir\n"
	"fl=(1) /run1/prog.c\n"
	"fn=(1) main\n10 5\n"
	"cfn=(2) parse\ncalls=3 20\n11 360\n"
	"cfn=(3) solve\ncalls=1 40\n12 100\n"
	"fn=(2)\n20 300\ncfn=(4) lex\ncalls=3 30\n21 60\n"
	"fn=(3)\n40 100\n"
	"fn=(4)\n30 60\n";
static const char cg_two[] =
	"events: Ir\n"
	"fl=(1) /run2/prog.c\n"
	"fn=(1) main\n10 5\n"
	"cfn=(2) parse\ncalls=3 20\n11 150\n"
	"cfn=(3) solve\ncalls=1 40\n12 130\n"
	"cfn=(5) report\ncalls=2 50\n13 40\n"
	"fn=(2)\n20 150\n"
	"fn=(3)\n40 130\n"
	"fn=(5)\n50 40\n";

Test(path_key, callgrind_pair)
{
	profdb *a = open_text(cg_one), *b = open_text(cg_two);
	int64_t pairs = check_keys(a, b);
	cr_assert_geq(pairs, 4);   /* the roots, main, parse, solve */
	check_keys(b, a);
	profdb_close(a);
	profdb_close(b);
}

/* ---- measuring, short buffers, errors ---------------------------------------------------- */

Test(path_key, buffers_and_errors)
{
	tw_blob f[TW_NFILES];
	profdb *db = open_sample(0, f);
	profdb_tree *t;
	uint32_t metric = 2;
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	o.metrics = &metric;
	o.n_metrics = 1;
	cr_assert_eq(profdb_tree_new(&t, db, &o), 0, "%s", profdb_error_message());
	int64_t n = profdb_tree_count(t);
	uint32_t deepest = 0, depth = 0;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		profdb_node nd;
		profdb_tree_get(t, i, &nd);
		if (nd.depth > depth) {
			depth = nd.depth;
			deepest = i;
		}
	}
	cr_assert_gt(depth, 3);
	int64_t len = profdb_tree_path_key(db, t, deepest, NULL, 0);
	cr_assert_gt(len, 20);
	unsigned char full[4096], part[4096];
	cr_assert_lt(len, (int64_t)sizeof full);
	cr_assert_eq(profdb_tree_path_key(db, t, deepest, full, sizeof full), len);
	/* a short buffer: the length, and the first cap bytes only */
	for (size_t cap = 1; cap < (size_t)len; cap += 7) {
		memset(part, 0x5a, sizeof part);
		cr_assert_eq(profdb_tree_path_key(db, t, deepest, part, cap), len);
		cr_assert(memcmp(part, full, cap) == 0, "cap %zu", cap);
		cr_assert_eq(part[cap], 0x5a, "cap %zu: wrote past it", cap);
	}
	/* the root: empty, nothing written */
	memset(part, 0x5a, 4);
	cr_assert_eq(profdb_tree_path_key(db, t, 0, part, 4), 0);
	cr_assert_eq(part[0], 0x5a);
	/* errors */
	cr_assert_eq(profdb_tree_path_key(NULL, t, 0, NULL, 0), -EINVAL);
	cr_assert_eq(profdb_tree_path_key(db, NULL, 0, NULL, 0), -EINVAL);
	cr_assert_eq(profdb_tree_path_key(db, t, 0, NULL, 1), -EINVAL);
	cr_assert_eq(profdb_tree_path_key(db, t, (uint32_t)n, NULL, 0), -ENOENT);
	cr_assert(strstr(profdb_error_message(), "no node"), "%s", profdb_error_message());
	cr_assert_eq(profdb_tree_path_key(db, t, PROFDB_NONE, full, sizeof full), -ENOENT);
	profdb_tree_free(t);
	profdb_close(db);
	free_blobs(f);
}

TC_MAIN
