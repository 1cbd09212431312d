/* The traces of old experiment.xml databases (doc/FORMATS.md, "Old
 * experiment.xml databases"): one hpcrun trace per thread, either loose
 * (*.hpctrace beside experiment.xml) or packed into experiment.mt.
 *
 * A trace is hpcrun's own file: "HPCRUN-trace______" "01.0x" "b", a u64
 * flags word from 01.01 on, then samples to its end -- u64 time, u32 the
 * `it` attribute of a node of experiment.xml's tree, and a u32 metric id
 * when flags bit 0 (DATA_CENTRIC) is set; all big-endian. experiment.mt is
 * u32 kind flags, u32 count, count x {u32 rank, u32 thread, u64 offset},
 * the traces one after the other, and the 8-byte end marker; a trace ends
 * where the next begins (the last at the marker). The trace layout and its
 * header decoder are lib/core's (hpctrace-internal.h), shared with
 * lib/hpcrun; experiment.mt's is layout-internal.h's packed file.
 *
 * Open reads every header and bounds every trace; the samples are checked
 * (sorted times, every id a node's) the first time a trace is handed out,
 * and then read from the mapping on every call. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpctkpre-internal.h"
#include "../core/hpctrace-internal.h"
#include "../core/search-internal.h"

/* A version string for a message: 6 bytes, unprintable ones as '?'. */
static void printable(const unsigned char *p, char out[7])
{
	for (int i = 0; i < 6; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	out[6] = 0;
}

/* The trace whose header is at @p off of input @p file and which ends at
 * @p end: magic and version checked here, the rest decoded by
 * lib/core/hpctrace.c (one decoder with lib/hpcrun's). */
static int read_header(profdb_hpctkpre *db, uint32_t file, uint64_t off, uint64_t end,
                       pre_xtrace *t)
{
	const profdb__input *in = &db->o.in[file];
	const unsigned char *h;
	char v[7];
	int r = profdb__span(in, 0, end, off, PROFDB_HPCTRACE_HDR, "trace header", &h);
	if (r < 0)
		return r;
	if (memcmp(h, PROFDB_HPCTRACE_MAGIC, PROFDB_HPCTRACE_MAGIC_LEN) != 0)
		return profdb__fail(-EBADMSG, "%s: trace header at 0x%" PRIx64 ": magic is not \""
		                    PROFDB_HPCTRACE_MAGIC "\"", in->name, off);
	const unsigned char *version = h + PROFDB_HPCTRACE_VERSION;
	if (memcmp(version, "01.0", 4) != 0 || (version[4] != '0' && version[4] != '1') ||
	    h[PROFDB_HPCTRACE_ENDIAN] != 'b') {
		printable(version, v);
		return profdb__fail(-EPROTONOSUPPORT, "%s: trace header at 0x%" PRIx64 ": version "
		                    "\"%s\" at 0x%" PRIx64 " is not 01.00b or 01.01b", in->name, off, v,
		                    off + PROFDB_HPCTRACE_VERSION);
	}
	profdb__hpctrace g;
	if ((r = profdb__hpctrace_records(in, &db->opts, off, end, version[4] == '1', &g)) < 0)
		return r;
	memset(t, 0, sizeof *t);
	t->file = file;
	t->offset = off;
	t->rec_off = g.rec_off;
	t->count = g.count;
	t->rec_size = g.rec_size;
	return 0;
}

static int add_trace(profdb_hpctkpre *db, const pre_xtrace *t)
{
	pre_old *o = &db->o;
	int r = profdb__grow((void **)&o->tr, &o->tr_cap, (size_t)o->n_tr + 1, sizeof *t);
	if (r < 0)
		return r;
	memcpy(&o->tr[o->n_tr++], t, sizeof *t);
	return 0;
}

/* A damaged trace: an error, or in tolerant mode a warning and no trace. */
static int damaged(const profdb_hpctkpre *db, int r, const char *name)
{
	return profdb__tolerate(&db->opts, r, NULL, "the trace in %s", name);
}

static int read_loose(profdb_hpctkpre *db, uint32_t file)
{
	const profdb__input *in = &db->o.in[file];
	pre_xtrace t;
	int r = read_header(db, file, 0, in->size, &t);
	if (r < 0)
		return damaged(db, r, in->name);
	profdb__hpctkpre_old_identity(in->name, ".hpctrace", &t.has_id, &t.rank, &t.thread);
	return add_trace(db, &t);
}

/* Where the last packed trace ends: at the end marker; a file without it
 * was cut (the marker is written last). */
static int packed_end(profdb_hpctkpre *db, const profdb__input *in, uint64_t table_end,
                      uint64_t *end)
{
	const unsigned char *m;
	*end = in->size;
	if (in->size >= table_end + PRE_PACK_END &&
	    profdb__range(in, in->size - PRE_PACK_END, PRE_PACK_END, "end marker", &m) == 0 &&
	    pre_pack_marker(m) == PRE_PACK_MARKER) {
		*end = in->size - PRE_PACK_END;
		return 0;
	}
	int r = profdb__fail(-ENODATA, "%s: the last 8 bytes (at 0x%" PRIx64 ") are not the end "
	                     "marker ff ff ff ff de ad f0 0d: truncated file", in->name,
	                     in->size >= PRE_PACK_END ? in->size - PRE_PACK_END : 0);
	return profdb__tolerate(&db->opts, r, NULL, "the last trace reads to the end of the file");
}

static int read_packed(profdb_hpctkpre *db, uint32_t file)
{
	const profdb__input *in = &db->o.in[file];
	const unsigned char *h, *e;
	uint64_t bytes, stop;
	int r = profdb__range(in, 0, PRE_PACK_HDR, "packed trace header", &h);
	if (r < 0)
		return r;
	uint32_t n = pre_pack_count(h);
	if ((r = profdb__mul(in, n, PRE_PACK_ENTRY, "packed trace offset table", &bytes)) < 0 ||
	    (r = profdb__range(in, PRE_PACK_HDR, bytes, "packed trace offset table", &e)) < 0 ||
	    (r = packed_end(db, in, PRE_PACK_HDR + bytes, &stop)) < 0)
		return r;
	uint64_t prev = PRE_PACK_HDR + bytes;
	for (uint32_t i = 0; i < n; i++, e += PRE_PACK_ENTRY) {
		uint64_t off = pre_pack_offset(e);
		uint64_t end = i + 1 < n ? pre_pack_offset(e + PRE_PACK_ENTRY) : stop;
		pre_xtrace t;
		if (off < prev)
			r = profdb__fail(-EBADMSG, "%s: trace %" PRIu32 " at 0x%" PRIx64 " (offset table "
			                 "entry at 0x%" PRIx64 ") begins before 0x%" PRIx64 ", the end of "
			                 "the %s", in->name, i, off, PRE_PACK_HDR + (uint64_t)i * PRE_PACK_ENTRY, prev,
			                 i ? "trace before it" : "offset table");
		else if (end > stop || end < off)
			r = profdb__fail(-ENODATA, "%s: trace %" PRIu32 " at 0x%" PRIx64 " ends at 0x%"
			                 PRIx64 ", outside the traces [0x%" PRIx64 ", 0x%" PRIx64 ")",
			                 in->name, i, off, end, PRE_PACK_HDR + bytes, stop);
		else
			r = read_header(db, file, off, end, &t);
		if (r < 0) {
			if ((r = damaged(db, r, in->name)) < 0)
				return r;
			continue;
		}
		prev = end;
		t.has_id = 1;
		t.rank = pre_pack_rank(e);
		t.thread = pre_pack_thread(e);
		if ((r = add_trace(db, &t)) < 0)
			return r;
	}
	return 0;
}

int profdb__hpctkpre_old_read_trace(profdb_hpctkpre *db, uint32_t file, int packed)
{
	return packed ? read_packed(db, file) : read_loose(db, file);
}

static int cmp_it(const void *a, const void *b)
{
	const pre_itmap *x = a, *y = b;
	return (x->it > y->it) - (x->it < y->it);
}

static const char *xml_name(const profdb_hpctkpre *db)
{
	return db->in[PRE_META].name ? db->in[PRE_META].name : "experiment.xml";
}

int profdb__hpctkpre_old_finish_traces(profdb_hpctkpre *db)
{
	pre_old *o = &db->o;
	if (o->n_tr == 0)
		return 0;
	/* <TraceDB u>: time units per second */
	o->time_scale = 1;
	if (o->trace_unit > 0 && (o->trace_unit > 1000000000 || 1000000000 % o->trace_unit))
		return profdb__fail(-EPROTONOSUPPORT, "%s: <TraceDB u=\"%" PRId64 "\">: trace times "
		                    "in 1/%" PRId64 " s, which is not a whole number of ns",
		                    xml_name(db), o->trace_unit, o->trace_unit);
	if (o->trace_unit > 0)
		o->time_scale = (uint64_t)(1000000000 / o->trace_unit);
	uint32_t n = 0;
	for (uint32_t i = 0; i < db->n_nodes; i++)
		n += db->nodes[i].trace_id >= 0 && db->nodes[i].trace_id <= UINT32_MAX;
	o->its = malloc((n ? n : 1) * sizeof *o->its);
	if (!o->its)
		return profdb__fail(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < db->n_nodes; i++)
		if (db->nodes[i].trace_id >= 0 && db->nodes[i].trace_id <= UINT32_MAX)
			o->its[o->n_its++] = (pre_itmap){(uint32_t)db->nodes[i].trace_id, i};
	if (o->n_its)
		qsort(o->its, o->n_its, sizeof *o->its, cmp_it);
	for (uint32_t k = 1; k < o->n_its; k++)
		if (o->its[k].it == o->its[k - 1].it)
			return profdb__fail(-EBADMSG, "%s: nodes i=\"%" PRId64 "\" and i=\"%" PRId64 "\" "
			                    "have one trace id, it=\"%" PRIu32 "\"", xml_name(db),
			                    db->nodes[o->its[k - 1].node].id, db->nodes[o->its[k].node].id,
			                    o->its[k].it);
	return 0;
}

/* The node index of trace id @p it: 1 and *node, or 0. */
static int it_node(const pre_old *o, uint32_t it, uint32_t *node)
{
	size_t lo = profdb__lower_u32_field(o->its, sizeof *o->its, offsetof(pre_itmap, it), 0,
	                                    o->n_its, it);
	if (lo == o->n_its || o->its[lo].it != it)
		return 0;
	*node = o->its[lo].node;
	return 1;
}

/* Every sample of @p t: times sorted and in range once scaled, ids of
 * nodes. 0 or -EBADMSG naming the file and the sample's offset. */
static int check_samples(const profdb_hpctkpre *db, const pre_xtrace *t)
{
	const pre_old *o = &db->o;
	const profdb__input *in = &o->in[t->file];
	const unsigned char *p;
	uint32_t node;
	if (t->count == 0)
		return 0;
	/* read_header bounded the samples inside the file */
	int r = profdb__range(in, t->rec_off, t->count * t->rec_size, "trace samples", &p);
	if (r < 0)
		return r;
	uint64_t last = 0, limit = UINT64_MAX / o->time_scale;
	for (uint64_t k = 0; k < t->count; k++, p += t->rec_size) {
		uint64_t time = profdb__hpctrace_time(p), at = t->rec_off + k * t->rec_size;
		uint32_t it = profdb__hpctrace_id(p);
		if (time < last)
			return profdb__fail(-EBADMSG, "%s: trace at 0x%" PRIx64 " is not sorted by time at "
			                    "sample %" PRIu64 " (0x%" PRIx64 ")", in->name, t->offset, k, at);
		if (time > limit)
			return profdb__fail(-EBADMSG, "%s: trace sample %" PRIu64 " (0x%" PRIx64 "): time %"
			                    PRIu64 " overflows 64 bits in ns", in->name, k, at, time);
		if (!it_node(o, it, &node))
			return profdb__fail(-EBADMSG, "%s: trace sample %" PRIu64 " (0x%" PRIx64 ") names "
			                    "node %" PRIu32 ", which is no node's it attribute in %s",
			                    in->name, k, at, it, xml_name(db));
		last = time;
	}
	return 0;
}

int profdb__hpctkpre_old_trace(const profdb_hpctkpre *db, uint32_t p, const pre_xtrace **out)
{
	const pre_old *o = &db->o;
	if (p == 0 || p > o->n_mdb || o->mdb[p - 1].trace == PROFDB_NONE)
		return 0;
	pre_xtrace *t = &o->tr[o->mdb[p - 1].trace];
	unsigned char state = atomic_load_explicit(&t->checked, memory_order_acquire);
	if (state == 0) {
		int r = check_samples(db, t);
		state = 1;
		if (r < 0) {
			r = profdb__tolerate(&db->opts, r, NULL, "the trace of %s", o->mdb[p - 1].label);
			if (r < 0)
				return r;
			state = 2;   /* read as empty from now on */
		}
		atomic_store_explicit(&t->checked, state, memory_order_release);
	}
	if (state != 1)
		return 0;
	*out = t;
	return 1;
}

void profdb__hpctkpre_old_sample(const profdb_hpctkpre *db, const pre_xtrace *t, uint64_t i,
                                 uint64_t *time_ns, int64_t *node_id)
{
	const pre_old *o = &db->o;
	const unsigned char *p = o->in[t->file].base + t->rec_off + i * t->rec_size;
	uint32_t node = 0;
	*time_ns = profdb__hpctrace_time(p) * o->time_scale;
	it_node(o, profdb__hpctrace_id(p), &node);   /* checked: it resolves */
	*node_id = db->nodes[node].id;
}
