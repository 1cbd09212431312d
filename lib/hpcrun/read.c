/* hpcrun primitives: a bounded big-endian cursor, strings (u32 length +
 * bytes, no NUL), name/value pairs, metric descriptors and load maps. Every
 * read goes through profdb__span, so a count or length that runs past its
 * section (or the file) fails with the offset in the message. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpcrun-internal.h"

int profdb__hpcrun_take(hr_cur *c, uint64_t n, const char *what, const unsigned char **p)
{
	int r = profdb__span(c->in, c->lo, c->end, c->off, n, what, p);
	if (r < 0)
		return r;
	c->off += n;
	return 0;
}

int profdb__hpcrun_u16(hr_cur *c, const char *what, uint16_t *v)
{
	const unsigned char *p;
	int r = profdb__hpcrun_take(c, 2, what, &p);
	if (r == 0)
		*v = profdb__be16(p);
	return r;
}

int profdb__hpcrun_u32(hr_cur *c, const char *what, uint32_t *v)
{
	const unsigned char *p;
	int r = profdb__hpcrun_take(c, 4, what, &p);
	if (r == 0)
		*v = profdb__be32(p);
	return r;
}

int profdb__hpcrun_u64(hr_cur *c, const char *what, uint64_t *v)
{
	const unsigned char *p;
	int r = profdb__hpcrun_take(c, 8, what, &p);
	if (r == 0)
		*v = profdb__be64(p);
	return r;
}

int profdb__hpcrun_str(hr_cur *c, const char *what, hr_str *s)
{
	uint32_t len;
	const unsigned char *p;
	int r = profdb__hpcrun_u32(c, what, &len);
	if (r < 0 || (r = profdb__hpcrun_take(c, len, what, &p)) < 0)
		return r;
	s->p = (const char *)p;
	s->len = len;
	return 0;
}

int profdb__hpcrun_alloc(const hr_cur *c, uint64_t n, uint64_t min_bytes, size_t sz,
                         const char *what, void **out)
{
	/* Each element occupies at least min_bytes of input: a count the
	 * remaining bytes cannot hold is corrupt (or truncated) before we
	 * allocate anything for it. */
	uint64_t need;
	*out = NULL;
	if (profdb__mul(c->in, n, min_bytes, what, &need) < 0)
		return -EBADMSG;
	if (need > c->end - c->off) {
		int trunc = c->end >= c->in->size;
		return profdb__fail(trunc ? -ENODATA : -EBADMSG,
		                    "%s: %s at offset 0x%" PRIx64 ": %" PRIu64 " entries need at least "
		                    "%" PRIu64 " bytes, only %" PRIu64 " remain%s", c->in->name, what,
		                    c->off, n, need, c->end - c->off,
		                    trunc ? " in the file (truncated?)" : " in the section");
	}
	*out = calloc(n ? (size_t)n : 1, sz);
	if (!*out)
		return profdb__fail(-ENOMEM, "%s: %s: cannot allocate %" PRIu64 " entries", c->in->name,
		                    what, n);
	return 0;
}

int profdb__hpcrun_nvpairs(hr_cur *c, const char *what, hr_nv **out, uint32_t *n)
{
	uint32_t count;
	hr_nv *v;
	int r = profdb__hpcrun_u32(c, what, &count);
	if (r < 0 || (r = profdb__hpcrun_alloc(c, count, 8, sizeof *v, what, (void **)&v)) < 0)
		return r;
	for (uint32_t i = 0; i < count; i++)
		if ((r = profdb__hpcrun_str(c, what, &v[i].name)) < 0 ||
		    (r = profdb__hpcrun_str(c, what, &v[i].value)) < 0) {
			free(v);
			return r;
		}
	*out = v;
	*n = count;
	return 0;
}

/* The 16 flag bytes are hpcrun's in-memory struct written raw (x86-64,
 * little-endian partner). HPCToolkit's own reader falls back to an older
 * packed bitfield, stored as big-endian u64, when the type is not Raw/Final
 * or the unused bytes are not zero; so do we. */
static void decode_flags(hr_metric *m)
{
	const unsigned char *f = m->flags;
	int tail_zero = 1;
	for (int i = 8; i < 16; i++)
		tail_zero &= f[i] == 0;
	uint8_t type = hr_mflags_type(f);
	if ((type == 1 || type == 2) && tail_zero) {
		m->type = type;
		m->val_type = hr_mflags_val_type(f);
		m->val_fmt = hr_mflags_val_fmt(f);
		m->move2proc = hr_mflags_move2proc(f);
		m->partner = hr_mflags_partner(f);
		m->show = hr_mflags_show(f);
		m->show_percent = hr_mflags_show_percent(f);
		return;
	}
	uint64_t w = hr_mflags_packed(f);
	m->packed = 1;
	m->type = (uint8_t)(w & 0xf);
	m->val_type = (uint8_t)((w >> 4) & 0xf);
	m->val_fmt = (uint8_t)((w >> 8) & 0xf);
	m->partner = (uint16_t)(w >> 12);
	m->show = (uint8_t)((w >> 28) & 1);
	m->show_percent = (uint8_t)((w >> 29) & 1);
}

int profdb__hpcrun_metrics(hr_cur *c, int trailer, hr_metric **out, uint32_t *n)
{
	uint32_t count;
	hr_metric *v;
	const unsigned char *p;
	/* name, description, flags, period, formula, format (+ trailer) */
	uint64_t min = 4 + 4 + HR_MFLAGS_SIZE + 8 + 4 + 4 + (trailer ? HR_MTRL_SIZE : 0);
	int r = profdb__hpcrun_u32(c, "metric table count", &count);
	if (r < 0 ||
	    (r = profdb__hpcrun_alloc(c, count, min, sizeof *v, "metric table", (void **)&v)) < 0)
		return r;
	for (uint32_t i = 0; i < count; i++) {
		hr_metric *m = &v[i];
		if ((r = profdb__hpcrun_str(c, "metric name", &m->name)) < 0 ||
		    (r = profdb__hpcrun_str(c, "metric description", &m->desc)) < 0 ||
		    (r = profdb__hpcrun_take(c, HR_MFLAGS_SIZE, "metric flags", &m->flags)) < 0 ||
		    (r = profdb__hpcrun_u64(c, "metric period", &m->period)) < 0 ||
		    (r = profdb__hpcrun_str(c, "metric formula", &m->formula)) < 0 ||
		    (r = profdb__hpcrun_str(c, "metric format", &m->format)) < 0)
			goto fail;
		decode_flags(m);
		if (trailer) {
			if ((r = profdb__hpcrun_take(c, HR_MTRL_SIZE, "metric trailer", &p)) < 0)
				goto fail;
			m->has_trailer = 1;
			m->is_frequency = hr_mtrl_frequency(p);
			m->is_multiplexed = hr_mtrl_multiplexed(p);
			m->threshold_bits = hr_mtrl_threshold(p);
			m->num_samples = hr_mtrl_samples(p);
		}
	}
	*out = v;
	*n = count;
	return 0;
fail:
	free(v);
	return r;
}

int profdb__hpcrun_loadmap(hr_cur *c, hr_module **out, uint32_t *n, uint64_t **sorted)
{
	uint32_t count;
	hr_module *v;
	uint64_t *s;
	uint64_t start = c->off;
	int r = profdb__hpcrun_u32(c, "load map count", &count);
	if (r < 0 ||
	    (r = profdb__hpcrun_alloc(c, count, 2 + 4 + 8, sizeof *v, "load map", (void **)&v)) < 0)
		return r;
	s = malloc((count ? count : 1) * sizeof *s);
	if (!s) {
		free(v);
		return profdb__fail(-ENOMEM, "%s: load map: out of memory", c->in->name);
	}
	for (uint32_t i = 0; i < count; i++) {
		if ((r = profdb__hpcrun_u16(c, "load module id", &v[i].id)) < 0 ||
		    (r = profdb__hpcrun_str(c, "load module name", &v[i].name)) < 0 ||
		    (r = profdb__hpcrun_u64(c, "load module flags", &v[i].flags)) < 0) {
			free(v);
			free(s);
			return r;
		}
		s[i] = (uint64_t)v[i].id << 32 | i;
	}
	/* Nodes name modules by id: two entries with one id would make the
	 * lookup ambiguous. The sorted copy is the lookup table. */
	qsort(s, count, sizeof *s, profdb__hpcrun_cmp_u64);
	for (uint32_t i = 1; i < count; i++)
		if (s[i] >> 32 == s[i - 1] >> 32) {
			r = profdb__fail(-EBADMSG, "%s: load map at offset 0x%" PRIx64 " has two "
			                 "modules with id %u (entries %u and %u)", c->in->name, start,
			                 (unsigned)(s[i] >> 32), (unsigned)(uint32_t)s[i - 1],
			                 (unsigned)(uint32_t)s[i]);
			free(v);
			free(s);
			return r;
		}
	*out = v;
	*n = count;
	*sorted = s;
	return 0;
}
