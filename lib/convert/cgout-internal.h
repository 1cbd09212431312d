/* The Callgrind writer's parts (doc/CONVERT.md, "Callgrind"): the text
 * helpers of callgrind.c, the writer for the tree formats (cg-tree.c) and
 * the one for Callgrind input (cg-native.c). */
#ifndef PROFDB_CONVERT_CGOUT_INTERNAL_H
#define PROFDB_CONVERT_CGOUT_INTERNAL_H

#include <string.h>

#include "cost-internal.h"

/* One output file: the name compression of its three ID spaces. */
typedef struct profdb__cgw {
	profdb__cv_out *o;
	profdb__cv_names ob, fl, fn;
	const profdb__cv_event *ev;
	size_t n_ev;
	uint64_t *totals;            /* per visible event: self costs written in this part */
	uint64_t *all_parts;         /* ... and in every part so far (in totals' block) */
	/* The visible events, in order: their number in ev (by_num) and
	 * their source (by_src); col is the one cost rows are indexed by
	 * (by_num unless profdb__cgw_costs_by_src()). */
	uint32_t *by_num, *by_src;
	const uint32_t *col;
	size_t n_vis;
	int col_first;               /* col[j] is j, for at most 64 columns */
	/* Ids by the input's name keys, in front of the three tables ob, fl,
	 * fn (0: not met yet; NULL: no keys, profdb__cgw_name_keys()). The
	 * objects' and functions' are given in turn, counted in n_keyed,
	 * without a copy of the name; the files' are interned, as files are
	 * also met by their bytes. */
	uint32_t *key_ids[3];
	size_t n_keys;
	uint32_t n_keyed[3];
	/* A function is its object and its name: KCachegrind keys functions
	 * by both and reads an id as the function its definition named, so
	 * functions of one name in two objects need two ids. key_ids[FN]
	 * holds the id of the first function met of each name key, and fn_ob
	 * its object's key (written before the id); the others of that name
	 * are numbered in fn_others, by (object key, name key), the writer's
	 * alone. */
	uint32_t *fn_ob;
	profdb__tmap fn_others;
	struct profdb__cgw_fn {
		uint32_t ob, name, id;
	} *fn_other;
	size_t n_fn_other, cap_fn_other;
	/* The same for functions named by their bytes: the object and id of
	 * the first function of each name (by its number in fn), the ids
	 * given, and the objects in effect (ids in ob; 0: none). */
	struct profdb__cgw_fn *fn_first;
	size_t cap_fn_first;
	uint32_t n_fn_ids, ob_now, cob_now;
	const char *positions;       /* the header's positions: (NULL before it) */
	size_t overflow;             /* 1 + a visible event whose total passed 2^64 - 1 */
} profdb__cgw;

enum { PROFDB__CGW_OB, PROFDB__CGW_FL, PROFDB__CGW_FN };

int profdb__cgw_init(profdb__cgw *w, profdb__cv_out *o, const profdb__cv_event *ev, size_t n_ev);
void profdb__cgw_free(profdb__cgw *w);
/* Start a part: forget the names (each part defines its own) and zero
 * the totals. */
int profdb__cgw_reset(profdb__cgw *w);
/* The file header up to and including events:, with the part lines of
 * profile @p first_part (-1: none) before the columns. */
void profdb__cgw_header(profdb__cgw *w, const profdb *db, const char *positions,
                        int64_t first_part);
/* "key=(id) name" the first time, "key=(id)" after; "key=" for "". The
 * table is the key's: fn, cfn, jfn; ob, cob; else the files'. A
 * function's id is that of its name in the object last named: by cob=
 * for cfn=, else by ob= (struct profdb__cgw). */
int profdb__cgw_name_in(profdb__cgw *w, int table, const char *key, size_t kn, profdb_str s);
static inline int profdb__cgw_table(const char *key, size_t kn)
{
	return kn >= 2 && key[kn - 2] == 'f' && key[kn - 1] == 'n'   ? PROFDB__CGW_FN
	     : kn >= 2 && key[kn - 2] == 'o' && key[kn - 1] == 'b' ? PROFDB__CGW_OB
	                                                           : PROFDB__CGW_FL;
}
static inline int profdb__cgw_name(profdb__cgw *w, const char *key, profdb_str s)
{
	size_t kn = strlen(key);   /* a literal: known at compile time */
	return profdb__cgw_name_in(w, profdb__cgw_table(key, kn), key, kn, s);
}
/* The same with the input's key of @p s (equal keys, equal names,
 * distinct keys, distinct names; below the count given to
 * profdb__cgw_name_keys()): a name met again takes its id by its key,
 * without hashing its bytes. A function's id is its object's and its
 * name's: @p ob_key is the key of its object (the table fn only).
 * Objects and functions of a part are named either all by key or all
 * by bytes (-EINVAL). */
int profdb__cgw_name_key_in(profdb__cgw *w, int table, const char *key, size_t kn, profdb_str s,
                            uint32_t name_key, uint32_t ob_key);
/* The id of the name of key @p name_key in table ob or fl once it has
 * been written (0: not yet, or not named by key). Other threads may ask
 * while the writer names: an id, once there, stays until
 * profdb__cgw_reset(). */
static inline uint32_t profdb__cgw_known_id(const profdb__cgw *w, int table, uint32_t name_key)
{
	const uint32_t *ids = w->key_ids[table];
	return ids && name_key < w->n_keys ? __atomic_load_n(&ids[name_key], __ATOMIC_RELAXED) : 0;
}
/* The same for the function of name key @p name_key in the object of
 * key @p ob_key: known to other threads when it is the first function
 * of that name (the object is read after the id, which the writer
 * stores after it); 0 for the others, which only the writer numbers. */
static inline uint32_t profdb__cgw_known_fn_id(const profdb__cgw *w, uint32_t ob_key,
                                               uint32_t name_key)
{
	const uint32_t *ids = w->key_ids[PROFDB__CGW_FN];
	if (!ids || name_key >= w->n_keys)
		return 0;
	uint32_t id = __atomic_load_n(&ids[name_key], __ATOMIC_ACQUIRE);
	return id && w->fn_ob[name_key] == ob_key ? id : 0;
}
/* The names will come with keys below @p n_keys (profdb__cgw_name_key_in). */
int profdb__cgw_name_keys(profdb__cgw *w, size_t n_keys);
/* Cost rows are indexed by the events' sources (the input's event ids),
 * not by their number. */
void profdb__cgw_costs_by_src(profdb__cgw *w);
/* The visible events' values of @p costs (one per event) after a
 * position, up to @p end (profdb__cgw_cost_end()); @p self adds them to
 * the part's totals. */
void profdb__cgw_put_costs(profdb__cgw *w, const uint64_t *costs, int self, size_t end);
/* The visible columns of @p costs up to the last one that is not 0
 * (trailing zero costs may be left out: the format's rule). */
static inline size_t profdb__cgw_cost_end(const profdb__cgw *w, const uint64_t *costs)
{
	if (w->col_first) {   /* a mask of the columns that are not 0: no branch per column */
		uint64_t nz = 0;
		for (size_t j = 0; j < w->n_vis; j++)
			nz |= (uint64_t)(costs[j] != 0) << j;
		return nz ? 64 - (size_t)__builtin_clzll(nz) : 0;
	}
	size_t end = w->n_vis;
	while (end && !costs[w->col[end - 1]])
		end--;
	return end;
}
static inline void profdb__cgw_costs(profdb__cgw *w, const uint64_t *costs, int self)
{
	profdb__cgw_put_costs(w, costs, self, profdb__cgw_cost_end(w, costs));
}
/* Has a hidden event a cost in @p costs? */
int profdb__cgw_hidden_cost(const profdb__cgw *w, const uint64_t *costs);
/* "totals:" of the part, or -ERANGE when a total, of the part or of the
 * parts so far, passed 2^64 - 1 (the output would not read back). */
int profdb__cgw_totals(profdb__cgw *w);
/* "part: N" and "desc: Profile: NAME" of profile @p index; after the
 * header, the columns again (positions:, events:). */
void profdb__cgw_part(profdb__cgw *w, const profdb *db, uint32_t index);

int profdb__cg_write_tree(const profdb *db, const profdb_convert_options *opts,
                          profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles);
int profdb__cg_write_native(const profdb *db, const profdb_convert_options *opts,
                            profdb__cv_out *o, const uint32_t *profiles, size_t n_profiles);

#endif
