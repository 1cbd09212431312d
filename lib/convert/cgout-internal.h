/* The Callgrind writer's parts (doc/CONVERT.md, "Callgrind"): the text
 * helpers of callgrind.c, the writer for the tree formats (cg-tree.c) and
 * the one for Callgrind input (cg-native.c). */
#ifndef PROFDB_CONVERT_CGOUT_INTERNAL_H
#define PROFDB_CONVERT_CGOUT_INTERNAL_H

#include "cost-internal.h"

/* One output file: the name compression of its three ID spaces. */
typedef struct profdb__cgw {
	profdb__cv_out *o;
	profdb__cv_names ob, fl, fn;
	const profdb__cv_event *ev;
	size_t n_ev;
	uint64_t *totals;            /* n_ev: self costs written in this part */
	int by_src;                  /* cost rows are indexed by event id (the
	                              * Callgrind input), else by event number */
	/* Ids by a name's address, in front of the three tables (NULL: none;
	 * profdb__cgw_stable_names()). */
	struct profdb__cgw_seen *seen;
} profdb__cgw;

int profdb__cgw_init(profdb__cgw *w, profdb__cv_out *o, const profdb__cv_event *ev, size_t n_ev);
void profdb__cgw_free(profdb__cgw *w);
/* Start a part: forget the names (each part defines its own) and zero
 * the totals. */
int profdb__cgw_reset(profdb__cgw *w);
/* The file header up to and including events:, with the part lines of
 * profile @p first_part (-1: none) before the columns. */
void profdb__cgw_header(profdb__cgw *w, const profdb *db, const char *positions,
                        int64_t first_part);
/* "key=(id) name" the first time, "key=(id)" after; "key=" for "". */
int profdb__cgw_name(profdb__cgw *w, const char *key, profdb_str s);
/* The names given to profdb__cgw_name() from now on live until
 * profdb__cgw_free() and are never rewritten: a name met again at the
 * same address takes its id without hashing its bytes. */
int profdb__cgw_stable_names(profdb__cgw *w);
/* The visible events' values of @p costs (one per event) after a
 * position; @p self adds them to the part's totals. */
void profdb__cgw_costs(profdb__cgw *w, const uint64_t *costs, int self);
/* "totals:" of the part. */
void profdb__cgw_totals(profdb__cgw *w);
/* "part: N" and "desc: Profile: NAME" of profile @p index. */
void profdb__cgw_part(profdb__cgw *w, const profdb *db, uint32_t index);

int profdb__cg_write_tree(const profdb *db, const profdb_convert_options *opts,
                          profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles);
int profdb__cg_write_native(const profdb *db, const profdb_convert_options *opts,
                            profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles);

#endif
