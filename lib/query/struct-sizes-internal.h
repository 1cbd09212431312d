/* The size of every struct the library fills, on LP64 (64-bit pointers and
 * size_t). Each ends in reserved space that the library zeroes, so that a
 * later version adds fields inside it and the size never changes
 * (doc/CONVENTIONS.md, "Growing the API"). lib/query/api.c asserts these
 * sizes at compile time; tests/test-struct-growth.c checks them and the
 * zeroed reserved bytes at run time. Every public header must be included
 * before this one. */
#ifndef PROFDB_STRUCT_SIZES_INTERNAL_H
#define PROFDB_STRUCT_SIZES_INTERNAL_H

#define PROFDB__STRUCT_SIZES(X) \
	X(profdb_stat, 96) \
	X(profdb_stats_acc, 104) \
	X(profdb_summary_issue, 88) \
	X(profdb_summary_counts, 128) \
	X(profdb_function_id, 80) \
	X(profdb_graph_function, 88) \
	X(profdb_edge, 40) \
	X(profdb_node, 120) \
	X(profdb_pair, 32) \
	X(profdb_pair_values, 48) \
	X(profdb_match_counts, 72) \
	X(profdb_cg_event, 80) \
	X(profdb_cg_profile, 160) \
	X(profdb_cg_function, 88) \
	X(profdb_cg_call, 40) \
	X(profdb_cg_line, 56) \
	X(profdb_cg_jump, 112) \
	X(profdb_cg_callsite, 72) \
	X(profdb_cube_metric, 256) \
	X(profdb_cube_region, 168) \
	X(profdb_cube_cnode, 104) \
	X(profdb_cube_param, 56) \
	X(profdb_cube_location, 128) \
	X(profdb_cube_location_group, 88) \
	X(profdb_cube_system_node, 80) \
	X(profdb_cube_info, 112) \
	X(profdb_cube_attr, 56) \
	X(profdb_cube_cart, 64) \
	X(profdb_cube_dim, 48) \
	X(profdb_cube_coord, 32) \
	X(profdb_hpcrun_profile, 192) \
	X(profdb_hpcrun_attr, 48) \
	X(profdb_hpcrun_id, 56) \
	X(profdb_hpcrun_metric, 160) \
	X(profdb_hpcrun_module, 64) \
	X(profdb_hpcrun_node, 104) \
	X(profdb_hpctk_metric, 56) \
	X(profdb_hpctk_prop, 40) \
	X(profdb_hpctk_summary, 56) \
	X(profdb_hpctk_function, 72) \
	X(profdb_hpctk_context, 96) \
	X(profdb_hpctk_id, 32) \
	X(profdb_hpctk_profile, 64) \
	X(profdb_hpctk_trace, 72) \
	X(profdb_hpctkpre_info, 112) \
	X(profdb_hpctkpre_name, 40) \
	X(profdb_hpctkpre_metric, 128) \
	X(profdb_hpctkpre_context, 152) \
	X(profdb_hpctkpre_profile, 64) \
	X(profdb_hpctkpre_id, 56) \
	X(profdb_hpctkpre_trace, 72) \
	X(profdb_about, 72) \
	X(profdb_counts, 80) \
	X(profdb_metric, 152) \
	X(profdb_context, 136) \
	X(profdb_profile, 48) \
	X(profdb_entry, 48) \
	X(profdb_sample, 32) \
	/* end */

#endif
