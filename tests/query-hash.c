/* A fingerprint of everything the common interface answers (query-hash.h).
 * No test framework here: the threads test runs it as a plain program
 * under ThreadSanitizer. */
#include "query-hash.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return h * UINT64_C(0xff51afd7ed558ccd);
}

static uint64_t hash_str(uint64_t h, profdb_str s)
{
	for (size_t i = 0; i < s.len; i++)
		h = mix(h, (unsigned char)s.ptr[i]);
	return mix(h, s.len);
}

static uint64_t hash_number(uint64_t h, int r, profdb_number v)
{
	h = mix(h, (uint64_t)(int64_t)r);
	if (r >= 0)
		h = mix(mix(h, (uint64_t)v.type), v.as.u64);
	return h;
}

uint64_t qh_hash(const profdb *db)
{
	uint64_t h = 1;
	uint32_t id;
	profdb_context c;
	int64_t nc = profdb_context_count(db), np = profdb_profile_count(db);
	int64_t nm = profdb_metric_count(db), seen = 0;
	if (profdb_context_root(db, &id) == 0) {
		for (;;) {   /* pre-order over the links */
			if (profdb_context_get(db, id, &c) != 0 || ++seen > nc)
				return 0;
			h = mix(mix(h, c.id), c.depth);
			h = hash_str(hash_str(hash_str(h, c.function), c.file), c.module);
			for (int64_t p = 0; p < np; p++)
				for (int64_t m = 0; m < nm; m++) {
					profdb_metric md;
					profdb_number v;
					if (profdb_metric_at(db, (uint32_t)m, &md) != 0)
						return 0;
					int r = profdb_inclusive(db, (uint32_t)p, c.id, md.id, &v);
					h = hash_number(h, r, v);
					r = profdb_exclusive(db, (uint32_t)p, c.id, md.id, &v);
					h = hash_number(h, r, v);
				}
			if (c.first_child != PROFDB_NONE) {
				id = c.first_child;
				continue;
			}
			while (c.next_sibling == PROFDB_NONE && c.parent != PROFDB_NONE)
				if (profdb_context_get(db, c.parent, &c) != 0)
					return 0;
			if (c.next_sibling == PROFDB_NONE)
				break;
			id = c.next_sibling;
		}
	}
	profdb_values *it;
	profdb_entry e;
	if (profdb_values_new(&it, db, PROFDB_SCAN_ALL, 0) != 0)
		return 0;
	int r;
	while ((r = profdb_values_next(it, &e)) == 1)
		h = hash_number(mix(mix(mix(h, e.profile), e.context), e.metric), 1, e.value);
	profdb_values_free(it);
	return r == 0 ? h : 0;
}
