/* .hpcrun 04.00: sections at 1024-byte boundaries located by the 112-byte
 * footer (14 big-endian u64: six [start, end) pairs, footer start, magic
 * "HPCRUNsm"). Every section must parse to exactly its stored end: the
 * real writer leaves no slack inside a section (padding lies between
 * them), so bytes left over mean a wrong pointer or a wrong count. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpcrun-internal.h"

#define MAGIC_SM UINT64_C(0x48504352554E736D)

enum { S_HDR, S_LOADMAP, S_CCT, S_METRICS, S_DICT, S_SPARSE, S_N };
static const char *const sec_name[S_N] = {
	"header", "load map", "CCT", "metric table", "id-tuple dictionary", "sparse metrics",
};

static int exact_end(const hr_cur *c, int s)
{
	if (c->off == c->end)
		return 0;
	return profdb__fail(-EBADMSG, "%s: %s section [0x%" PRIx64 ", 0x%" PRIx64 ") ends at 0x%"
	                    PRIx64 " but its content ends at 0x%" PRIx64, c->in->name,
	                    sec_name[s], c->lo, c->end, c->end, c->off);
}

static int sparse(hr_cur *c, hr_profile *p)
{
	const unsigned char *e;
	uint64_t bytes;
	int r = profdb__hpcrun_u16(c, "id tuple length", &p->n_ids);
	if (r < 0)
		return r;
	p->tuple_off = c->off;
	if ((r = profdb__hpcrun_take(c, (uint64_t)p->n_ids * HR_IDT_SIZE, "id tuple", &e)) < 0 ||
	    (r = profdb__hpcrun_u64(c, "sparse value count", &p->n_vals)) < 0 ||
	    (r = profdb__hpcrun_u32(c, "sparse non-zero node count", &p->n_nz)) < 0)
		return r;
	p->vals_off = c->off;
	if ((r = profdb__mul(c->in, p->n_vals, HR_SVAL_SIZE, "sparse values size", &bytes)) < 0 ||
	    (r = profdb__hpcrun_take(c, bytes, "sparse values", &e)) < 0)
		return r;
	p->sidx_off = c->off;
	if ((r = profdb__hpcrun_take(c, ((uint64_t)p->n_nz + 1) * HR_SIDX_SIZE, "sparse node index",
	                             &e)) < 0)
		return r;
	/* The last index entry is the end marker {"end!", num_vals}. */
	e += (uint64_t)p->n_nz * HR_SIDX_SIZE;
	if (hr_sidx_cct(e) != HR_END_MARK || hr_sidx_start(e) != p->n_vals)
		return profdb__fail(-EBADMSG, "%s: sparse node index at 0x%" PRIx64 ": entry %" PRIu32
		                    " at 0x%" PRIx64 " is not the end marker {\"end!\", %" PRIu64 "}",
		                    c->in->name, p->sidx_off, p->n_nz, c->off - HR_SIDX_SIZE, p->n_vals);
	return 0;
}

int profdb__hpcrun_parse_v4(profdb_hpcrun *h, hr_file *f)
{
	const profdb__input *in = &f->in;
	const unsigned char *ft, *e;
	uint64_t v[HR_FOOTER_WORDS];
	int r;
	if (in->size < HR_HDR + 4 + HR_FOOTER)
		return profdb__fail(-ENODATA, "%s: %" PRIu64 " bytes is too short for a 04.00 file "
		                    "(header and 112-byte footer)", in->name, in->size);
	uint64_t fo = in->size - HR_FOOTER;
	/* The magic (the footer's last word, HR_FOOTER_MAGIC) is checked on the
	 * copy of the last 8 bytes read at open. */
	if (profdb__be64(in->tail) != MAGIC_SM)
		return profdb__fail(-ENODATA, "%s: footer magic at offset 0x%" PRIx64 " is not "
		                    "\"HPCRUNsm\" (truncated or not a complete file)", in->name,
		                    in->size - 8);
	if ((r = profdb__range(in, fo, HR_FOOTER, "footer", &ft)) < 0)
		return r;
	for (int i = 0; i < HR_FOOTER_WORDS; i++)
		v[i] = hr_footer_word(ft, i);
	if (hr_footer_start(ft) != fo)
		return profdb__fail(-EBADMSG, "%s: footer at 0x%" PRIx64 " says it starts at 0x%"
		                    PRIx64, in->name, fo, hr_footer_start(ft));
	for (int s = 0; s < S_N; s++)
		if (v[2 * s] > v[2 * s + 1] || v[2 * s + 1] > fo)
			return profdb__fail(-EBADMSG, "%s: footer at 0x%" PRIx64 ": %s section [0x%" PRIx64
			                    ", 0x%" PRIx64 ") is not inside [0, 0x%" PRIx64 ")", in->name,
			                    fo, sec_name[s], v[2 * s], v[2 * s + 1], fo);
	if (v[0] != 0)
		return profdb__fail(-EBADMSG, "%s: footer at 0x%" PRIx64 ": header section starts at 0x%"
		                    PRIx64 ", not 0", in->name, fo, v[0]);

	hr_profile *p = profdb__hpcrun_new_profile(&h->profiles, &h->n_profiles, &h->cap_profiles,
	                                           f);
	if (!p)
		return -ENOMEM;
	p->n_epochs = 1;
	p->has_trailer = 1;
	hr_cur c = {in, v[0], v[0] + HR_HDR, v[1]};
	if ((r = profdb__hpcrun_nvpairs(&c, "file header name/value pairs", &f->attrs,
	                                &f->n_attrs)) < 0 ||
	    (r = exact_end(&c, S_HDR)) < 0)
		return r;
	c = (hr_cur){in, v[2], v[2], v[3]};
	if ((r = profdb__hpcrun_loadmap(&c, &p->modules, &p->n_modules, &p->mod_sorted)) < 0 ||
	    (r = exact_end(&c, S_LOADMAP)) < 0)
		return r;
	c = (hr_cur){in, v[4], v[4], v[5]};
	uint64_t bytes;
	p->node_size = 19;
	if ((r = profdb__hpcrun_u64(&c, "CCT node count", &p->n_nodes)) < 0 ||
	    (r = profdb__mul(in, p->n_nodes, 19, "CCT size", &bytes)) < 0)
		return r;
	p->cct_off = c.off;
	if ((r = profdb__hpcrun_take(&c, bytes, "CCT records", &e)) < 0 ||
	    (r = exact_end(&c, S_CCT)) < 0)
		return r;
	c = (hr_cur){in, v[6], v[6], v[7]};
	if ((r = profdb__hpcrun_metrics(&c, 1, &p->metrics, &p->n_metrics)) < 0 ||
	    (r = exact_end(&c, S_METRICS)) < 0)
		return r;
	c = (hr_cur){in, v[8], v[8], v[9]};
	if ((r = profdb__hpcrun_u16(&c, "id-tuple dictionary count", &p->n_dict)) < 0)
		return r;
	p->dict_off = c.off;
	for (uint32_t i = 0; i < p->n_dict; i++) {
		uint16_t kind;
		hr_str name;
		if ((r = profdb__hpcrun_u16(&c, "id-tuple dictionary kind", &kind)) < 0 ||
		    (r = profdb__hpcrun_str(&c, "id-tuple dictionary name", &name)) < 0)
			return r;
	}
	p->dict_end = c.off;
	if ((r = exact_end(&c, S_DICT)) < 0)
		return r;
	c = (hr_cur){in, v[10], v[10], v[11]};
	if ((r = sparse(&c, p)) < 0 || (r = exact_end(&c, S_SPARSE)) < 0)
		return r;
	return 0;
}
