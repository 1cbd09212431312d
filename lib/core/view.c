/* Searching views (include/profdb/common.h): find, seek, in-effect and
 * window over the one lower-bound search of view-internal.h, chosen by the
 * view's key type and byte order. */
#include "core-internal.h"
#include "view-internal.h"


/* The key types a search handles, with the byte order folded in. */
#define BIG 0x100
enum { LE16 = PROFDB_FIELD_U16, LE32 = PROFDB_FIELD_U32, LE64 = PROFDB_FIELD_U64,
       BE16 = PROFDB_FIELD_U16 | BIG, BE32 = PROFDB_FIELD_U32 | BIG, BE64 = PROFDB_FIELD_U64 | BIG };

static unsigned key_kind(const profdb_view *v)
{
	return v->key_type | (v->big_endian ? BIG : 0);
}

/* The key at @p p, for a kind the search accepted. */
static uint64_t load_key(const unsigned char *p, unsigned kind)
{
	switch (kind) {
	case LE16: return profdb__le16(p);
	case LE32: return profdb__le32(p);
	case LE64: return profdb__le64(p);
	case BE16: return profdb__be16(p);
	case BE32: return profdb__be32(p);
	default: return profdb__be64(p);
	}
}

/* First record with key >= @p key; count if none. -EINVAL for a view whose
 * key cannot be searched. */
static int lower_bound(const profdb_view *v, uint64_t key, uint64_t *index)
{
	if (!v || !index || (v->count > 0 && !v->base))
		return profdb__fail(-EINVAL, "profdb_view: NULL view, base or output");
	const unsigned char *b = v->base ? v->base + v->key_offset : NULL;
	switch (key_kind(v)) {
	case LE16: *index = profdb__lb_le16(b, v->count, v->stride, key); return 0;
	case LE32: *index = profdb__lb_le32(b, v->count, v->stride, key); return 0;
	case LE64: *index = profdb__lb_le64(b, v->count, v->stride, key); return 0;
	case BE16: *index = profdb__lb_be16(b, v->count, v->stride, key); return 0;
	case BE32: *index = profdb__lb_be32(b, v->count, v->stride, key); return 0;
	case BE64: *index = profdb__lb_be64(b, v->count, v->stride, key); return 0;
	default:
		return profdb__fail(-EINVAL, "profdb_view: key type %u cannot be searched",
		                    (unsigned)v->key_type);
	}
}

int profdb_view_seek(const profdb_view *v, uint64_t key, uint64_t *index)
{
	return lower_bound(v, key, index);
}

int profdb_view_find(const profdb_view *v, uint64_t key, uint64_t *index)
{
	int r = lower_bound(v, key, index);
	if (r < 0)
		return r;
	return *index < v->count &&
	       load_key(v->base + *index * v->stride + v->key_offset, key_kind(v)) == key;
}

int profdb_view_in_effect(const profdb_view *v, uint64_t key, uint64_t *index)
{
	uint64_t i;
	/* The first record with a larger key, minus one. */
	int r = lower_bound(v, key == UINT64_MAX ? key : key + 1, &i);
	if (r < 0)
		return r;
	if (key == UINT64_MAX && i < v->count)
		i = v->count; /* every key is <= UINT64_MAX */
	*index = i ? i - 1 : 0;   /* cleared when there is none */
	return i > 0;
}

int profdb_view_window(const profdb_view *v, uint64_t from, uint64_t to, uint64_t *first,
                       uint64_t *end)
{
	if (!first || !end)
		return profdb__fail(-EINVAL, "profdb_view_window: NULL output");
	int r = lower_bound(v, from, first);
	if (r < 0)
		return r;
	if (to <= from) {
		*end = *first;
		return 0;
	}
	return lower_bound(v, to, end);
}
