/* Structs the library fills keep their size across versions: each ends in
 * reserved space a later version grows into (doc/CONVENTIONS.md, "Growing
 * the API"). Checks that the headers' sizes are the ones lib/query/api.c
 * asserts, and that fill functions write the reserved bytes as zero over a
 * struct whose every byte was 0xAA (a caller's stack garbage). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <profdb/profdb.h>

#include "profdb-config.h"   /* PROFDB_HAVE_* of this build */
#include "../lib/query/struct-sizes-internal.h"
#include "writer.h"

Test(struct_growth, sizes_are_the_asserted_ones)
{
	int n = 0;
#define CHECK_SIZE(type, size)                                                            \
	if (sizeof(void *) == 8)                                                          \
		cr_assert_eq(sizeof(type), (size_t)(size), #type ": %zu bytes", sizeof(type)); \
	cr_assert_eq(offsetof(type, reserved) + sizeof(((type *)0)->reserved), sizeof(type), \
	             #type " ends in its reserved space");                                 \
	n++;
	PROFDB__STRUCT_SIZES(CHECK_SIZE)
#undef CHECK_SIZE
	cr_assert_geq(n, 50, "only %d structs listed", n);
}

static int zero_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Fill a 0xAA-poisoned struct of type T with CALL (which names it `s`);
 * expect the call to return WANT and the reserved bytes to be zero. */
#define POISONED(T, WANT, CALL)                                                        \
	do {                                                                           \
		T s;                                                                   \
		memset(&s, 0xAA, sizeof s);                                            \
		int r_ = (CALL);                                                       \
		cr_assert_eq(r_, (WANT), "%s: %d %s", #CALL, r_, profdb_error_message()); \
		cr_assert(zero_bytes(s.reserved, sizeof s.reserved), "%s left reserved bytes", \
		          #CALL);                                                      \
	} while (0)

/* The calls of the common interface, whatever the format. */
static void check_common(const profdb *db)
{
	POISONED(profdb_about, 0, profdb_get_about(db, &s));
	POISONED(profdb_counts, 0, profdb_get_counts(db, &s));
	POISONED(profdb_counts, 0, profdb_get_header_counts(db, &s));
	POISONED(profdb_metric, 0, profdb_metric_at(db, 0, &s));
	POISONED(profdb_metric, -ENOENT, profdb_metric_at(db, UINT32_MAX, &s));
	POISONED(profdb_profile, 0, profdb_profile_at(db, 0, &s));
	POISONED(profdb_profile, -ENOENT, profdb_profile_at(db, UINT32_MAX, &s));
	uint32_t root;
	cr_assert_eq(profdb_context_root(db, &root), 0);
	POISONED(profdb_context, 0, profdb_context_get(db, root, &s));
	POISONED(profdb_context, -ENOENT, profdb_context_get(db, UINT32_MAX - 1, &s));
	profdb_values *it;
	cr_assert_eq(profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0), 0);
	POISONED(profdb_entry, 1, profdb_values_next(it, &s));
	profdb_values_free(it);
	POISONED(profdb_metric, 0, profdb_metric_default(db, &s));
	profdb_counts c;
	cr_assert_eq(profdb_get_counts(db, &c), 0);
	if (c.samples > 0) {
		for (uint32_t p = 0; p < c.profiles; p++)
			if (profdb_trace_length(db, p) > 0) {
				POISONED(profdb_sample, 0, profdb_trace_sample_at(db, p, 0, &s));
				break;
			}
	}
	/* Statistics: rows, their accumulators, and a result built from
	 * accumulators whose reserved words are not zero. */
	profdb_stats *st, *st2;
	cr_assert_eq(profdb_stats_new(&st, db, NULL), 0, "%s", profdb_error_message());
	cr_assert_gt(profdb_stats_count(st), 0);
	POISONED(profdb_stat, 0, profdb_stats_at(st, 0, &s));
	POISONED(profdb_stats_acc, 1, profdb_stats_accs(st, &s, 1) >= 1);
	profdb_stats_acc acc;
	cr_assert_geq(profdb_stats_accs(st, &acc, 1), 1);
	memset(acc.reserved, 0xAA, sizeof acc.reserved);
	cr_assert_eq(profdb_stats_from_accs(&st2, &acc, 1), 0, "%s", profdb_error_message());
	POISONED(profdb_stats_acc, 1, (int)profdb_stats_accs(st2, &s, 1));
	profdb_stats_free(st2);
	profdb_stats_free(st);
	/* A database matched with itself. */
	profdb_match *m;
	cr_assert_eq(profdb_match_new(&m, db, db, NULL), 0, "%s", profdb_error_message());
	POISONED(profdb_pair, 0, profdb_match_at(m, 0, &s));
	POISONED(profdb_pair_values, 0, profdb_match_values(m, 0, 0, &s));
	POISONED(profdb_match_counts, 0, profdb_match_counts_get(m, &s));
	profdb_match_free(m);
	profdb_tree *t;
	profdb_tree_options o = PROFDB_TREE_OPTIONS_INIT;
	profdb_metric dm;
	cr_assert_eq(profdb_metric_default(db, &dm), 0);
	o.metrics = &dm.id;
	o.n_metrics = 1;
	cr_assert_eq(profdb_tree_new(&t, db, &o), 0, "%s", profdb_error_message());
	POISONED(profdb_node, 0, profdb_tree_get(t, 0, &s));
	profdb_tree_free(t);
}

static profdb *open_one(const profdb_input *in, size_t n)
{
	profdb *db = NULL;
	cr_assert_eq(profdb_open_inputs(&db, in, n, NULL), 0, "%s", profdb_error_message());
	return db;
}

Test(struct_growth, hpctk4_fills_clear_reserved)
{
	static const char *const names[TW_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	tw_hpctk4 d;
	tw_blob b[TW_NFILES] = {0};
	profdb_input in[TW_NFILES];
	size_t n = 0;
	tw_hpctk4_sample(&d);
	cr_assert_eq(tw_hpctk4_write(&d, b), 0);
	for (int k = 0; k < TW_NFILES; k++)
		if (b[k].data)
			in[n++] = (profdb_input){names[k], b[k].data, b[k].size};
	profdb *db = open_one(in, n);
	check_common(db);
	const profdb_hpctk *h = profdb_get_hpctk(db);
	POISONED(profdb_hpctk_metric, 0, profdb_hpctk_metric_at(h, 0, &s));
	POISONED(profdb_hpctk_prop, 0, profdb_hpctk_metric_prop_at(h, 0, 0, &s));
	POISONED(profdb_hpctk_profile, 0, profdb_hpctk_profile_at(h, 0, &s));
	POISONED(profdb_hpctk_id, 0, profdb_hpctk_profile_id_at(h, 1, 0, &s));
	POISONED(profdb_hpctk_context, 0, profdb_hpctk_root(h, &s));
	POISONED(profdb_hpctk_trace, 0, profdb_hpctk_trace_line_at(h, 0, &s));
	POISONED(profdb_hpctk_function, 0, profdb_hpctk_function_at(h, 0, &s));
	profdb_close(db);
	for (int k = 0; k < TW_NFILES; k++)
		tw_blob_free(&b[k]);
}

Test(struct_growth, prerelease_fills_clear_reserved)
{
#ifndef PROFDB_HAVE_EXPAT
	cr_skip_test("this build reads no experiment.xml (no expat)");
#else
	static const char *const names[4] = {"profile.db", "cct.db", "trace.db", "experiment.xml"};
	tw_pre d;
	tw_blob b[4];
	profdb_input in[4];
	tw_pre_sample(&d);
	cr_assert_eq(tw_pre_write(&d, b), 0);
	for (int k = 0; k < 4; k++)
		in[k] = (profdb_input){names[k], b[k].data, b[k].size};
	profdb *db = open_one(in, 4);
	check_common(db);
	const profdb_hpctkpre *h = profdb_get_hpctkpre(db);
	POISONED(profdb_hpctkpre_info, 0, profdb_hpctkpre_get_info(h, &s));
	POISONED(profdb_hpctkpre_metric, 0, profdb_hpctkpre_metric_at(h, 0, &s));
	POISONED(profdb_hpctkpre_context, 0, profdb_hpctkpre_context_at(h, 0, &s));
	POISONED(profdb_hpctkpre_profile, 0, profdb_hpctkpre_profile_at(h, 0, &s));
	POISONED(profdb_hpctkpre_trace, 0, profdb_hpctkpre_trace_line_at(h, 0, &s));
	profdb_close(db);
	for (int k = 0; k < 4; k++)
		tw_blob_free(&b[k]);
#endif
}

Test(struct_growth, cube_fills_clear_reserved)
{
#ifndef PROFDB_HAVE_CUBE_BACKEND
	cr_skip_test("this build reads no Cube file (no expat)");
#else
	tw_blob t = {0};
	cr_assert_eq(tw_cube_write(&t, 0, NULL), 0);
	profdb_input in = {"sample.cubex", t.data, t.size};
	profdb *db = open_one(&in, 1);
	check_common(db);
	const profdb_cube *c = profdb_get_cube(db);
	POISONED(profdb_cube_info, 0, profdb_cube_get_info(c, &s));
	POISONED(profdb_cube_metric, 0, profdb_cube_metric_get(c, 0, &s));
	POISONED(profdb_cube_region, 0, profdb_cube_region_get(c, 0, &s));
	POISONED(profdb_cube_cnode, 0, profdb_cube_cnode_get(c, 0, &s));
	POISONED(profdb_cube_location, 0, profdb_cube_location_get(c, 0, &s));
	POISONED(profdb_cube_location_group, 0, profdb_cube_location_group_at(c, 0, &s));
	POISONED(profdb_cube_system_node, 0, profdb_cube_system_node_at(c, 0, &s));
	profdb_close(db);
	tw_blob_free(&t);
#endif
}

Test(struct_growth, callgrind_fills_clear_reserved)
{
	static const char text[] = "events: Ir Dr\n"
	                           "fl=a.c\nfn=main\n1 10 2\ncfn=f\ncalls=2 5\n2 30 4\n"
	                           "fn=f\n5 30 4\n";
	profdb_input in = {"callgrind.out.1", text, sizeof text - 1};
	profdb *db = open_one(&in, 1);
	check_common(db);
	const profdb_cg *cg = profdb_get_cg(db);
	POISONED(profdb_cg_event, 0, profdb_cg_event_get(cg, 0, &s));
	POISONED(profdb_cg_profile, 0, profdb_cg_profile_get(cg, 0, &s));
	POISONED(profdb_cg_function, 0, profdb_cg_function_get(cg, 0, &s));
	POISONED(profdb_cg_call, 1, profdb_cg_call_get(cg, 0, 0, &s));
	POISONED(profdb_graph_function, 0, profdb_graph_function_at(db, 0, &s));
	POISONED(profdb_edge, 0, profdb_edge_at(db, 0, &s));
	profdb_close(db);
}
