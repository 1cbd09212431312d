/* The tool's tree walk (tool/walk.c) over hand-made context links, served
 * by a backend that answers only the tree: a tree is walked in pre-order,
 * each node once, subtrees skipped on request; links that loop (through
 * siblings, children or parents) end the walk with -EBADMSG, never hang
 * it, and need no node count. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "core/backend-internal.h"
#include "query/query-internal.h"
#include "../tool/tool.h"

#define N PROFDB_NONE

/* parent, first_child, next_sibling of each id; the root is id 0 */
typedef struct links {
	uint32_t n;
	uint32_t l[16][3];
} links;

static int64_t asked_count;

static int fake_root(const void *impl, uint32_t *id)
{
	(void)impl;
	*id = 0;
	return 0;
}

static int fake_get(const void *impl, uint32_t id, profdb_context *out)
{
	const links *t = impl;
	if (id >= t->n)
		return -ENOENT;
	memset(out, 0, sizeof *out);   /* type 0: no line, so the walk reads ahead */
	out->id = id;
	out->parent = t->l[id][0];
	out->first_child = t->l[id][1];
	out->next_sibling = t->l[id][2];
	out->in_tree = 1;
	return 0;
}

static int64_t fake_count(const void *impl)
{
	asked_count++;
	return ((const links *)impl)->n;
}

static profdb__backend be;
static struct profdb db;

static const profdb *open_links(links *t)
{
	memset(&be, 0, sizeof be);
	be.context_root = fake_root;
	be.context_get = fake_get;
	be.context_count = fake_count;
	memset(&db, 0, sizeof db);
	db.be = &be;
	db.impl = t;
	asked_count = 0;
	return &db;
}

/* The ids the walk returns (at most @p cap), and its last answer. */
static int walk_all(const profdb *d, int skip_below, uint32_t *ids, size_t cap, size_t *n)
{
	tool_walk w;
	profdb_context c;
	int r;
	cr_assert_eq(walk_begin(&w, d), 0);
	*n = 0;
	int skip = 0;
	while ((r = walk_next(&w, &c, skip)) > 0) {
		cr_assert_lt(*n, cap, "the walk goes on past %zu nodes", cap);
		ids[(*n)++] = c.id;
		skip = c.id == (uint32_t)skip_below;
	}
	return r;
}

Test(tool_walk, pre_order_each_node_once)
{
	/*      0
	 *    1   4
	 *   2 3   5
	 *         6 */
	links t = {7, {{N, 1, N}, {0, 2, 4}, {1, N, 3}, {1, N, N}, {0, 5, N}, {4, 6, N}, {5, N, N}}};
	uint32_t ids[64];
	size_t n;
	cr_assert_eq(walk_all(open_links(&t), -1, ids, 64, &n), 0);
	uint32_t want[] = {0, 1, 2, 3, 4, 5, 6};
	cr_assert_eq(n, 7);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(ids[i], want[i], "node %zu: %u, not %u", i, ids[i], want[i]);
	cr_expect_eq(asked_count, 0, "the walk needs no node count");
	/* the subtree of 1 skipped */
	cr_assert_eq(walk_all(open_links(&t), 1, ids, 64, &n), 0);
	uint32_t skipped[] = {0, 1, 4, 5, 6};
	cr_assert_eq(n, 5);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(ids[i], skipped[i]);
}

Test(tool_walk, a_deep_chain_is_no_loop)
{
	/* 0 - 1 - ... - 15, then the climb back through every ancestor */
	links t;
	t.n = 16;
	for (uint32_t i = 0; i < 16; i++) {
		t.l[i][0] = i ? i - 1 : N;
		t.l[i][1] = i + 1 < 16 ? i + 1 : N;
		t.l[i][2] = N;
	}
	uint32_t ids[64];
	size_t n;
	cr_assert_eq(walk_all(open_links(&t), -1, ids, 64, &n), 0);
	cr_expect_eq(n, 16);
}

Test(tool_walk, siblings_that_loop)
{
	/* 0's children 1 -> 2 -> 3 -> 1 */
	links t = {4, {{N, 1, N}, {0, N, 2}, {0, N, 3}, {0, N, 1}}};
	uint32_t ids[64];
	size_t n;
	cr_expect_eq(walk_all(open_links(&t), -1, ids, 64, &n), -EBADMSG);
	cr_expect_leq(n, 8, "caught within two rounds of the loop (%zu nodes)", n);
}

Test(tool_walk, a_child_that_is_an_ancestor)
{
	/* 0 - 1 - 2, and 2's child is 1 */
	links t = {3, {{N, 1, N}, {0, 2, N}, {1, 1, N}}};
	uint32_t ids[64];
	size_t n;
	cr_expect_eq(walk_all(open_links(&t), -1, ids, 64, &n), -EBADMSG);
	cr_expect_leq(n, 8);
}

Test(tool_walk, parents_that_loop)
{
	/* 0 - 1 - 2 (a leaf); climbing from 2: 1, whose parent is 2 */
	links t = {3, {{N, 1, N}, {2, 2, N}, {1, N, N}}};
	uint32_t ids[64];
	size_t n;
	cr_expect_eq(walk_all(open_links(&t), -1, ids, 64, &n), -EBADMSG);
	cr_expect_eq(n, 3, "every node before the climb (%zu)", n);
	/* and the walk stays ended */
	tool_walk w;
	profdb_context c;
	walk_begin(&w, &db);
	while (walk_next(&w, &c, 0) > 0)
		;
	cr_expect_eq(walk_next(&w, &c, 0), 0);
}

/* walk_peek gives the node read ahead (the first child of the node just
 * returned, as the backend has it), nothing for any other id, and
 * nothing once the walk is over. */
Test(tool_walk, peek_at_the_node_read_ahead)
{
	links t = {7, {{N, 1, N}, {0, 2, 4}, {1, N, 3}, {1, N, N}, {0, 5, N}, {4, 6, N}, {5, N, N}}};
	const profdb *d = open_links(&t);
	tool_walk w;
	profdb_context c;
	int r, peeked = 0;
	cr_assert_eq(walk_begin(&w, d), 0);
	cr_assert_null(walk_peek(&w, 0), "nothing before the walk starts");
	while ((r = walk_next(&w, &c, 0)) > 0) {
		cr_expect_null(walk_peek(&w, c.id), "node %u is not ahead of itself", c.id);
		if (c.first_child == N)
			continue;
		const profdb_context *k = walk_peek(&w, c.first_child);
		cr_assert_not_null(k, "the first child of %u was read ahead", c.id);
		cr_expect_eq(k->id, c.first_child);
		cr_expect_eq(k->parent, t.l[k->id][0]);
		cr_expect_eq(k->first_child, t.l[k->id][1]);
		cr_expect_eq(k->next_sibling, t.l[k->id][2]);
		peeked++;
	}
	cr_assert_eq(r, 0);
	cr_expect_eq(peeked, 4);   /* 0, 1, 4, 5 have children */
	cr_expect_null(walk_peek(&w, 6), "nothing after the end");
}
