/* Protobuf encoding for the pprof writer (protobuf.c): messages built in
 * a growable buffer, written to a gzip stream (plain without zlib). */
#ifndef PROFDB_CONVERT_PB_INTERNAL_H
#define PROFDB_CONVERT_PB_INTERNAL_H

#include "cost-internal.h"

/* One message being built; the first allocation error sticks in err. */
typedef struct profdb__pbm {
	unsigned char *p;
	size_t len, cap;
	int err;
} profdb__pbm;

void profdb__pbm_reset(profdb__pbm *m);
void profdb__pbm_free(profdb__pbm *m);
size_t profdb__pb_varint_size(uint64_t v);
void profdb__pbm_varint(profdb__pbm *m, uint64_t v);
/* Field @p field as a varint (wire type 0). */
void profdb__pbm_uint(profdb__pbm *m, uint32_t field, uint64_t v);
/* Field @p field as bytes, a string or an embedded message (wire type 2). */
void profdb__pbm_bytes(profdb__pbm *m, uint32_t field, const void *data, size_t len);
/* A packed repeated varint field. */
void profdb__pbm_packed(profdb__pbm *m, uint32_t field, const uint64_t *v, size_t n);

/* The output stream of the top-level message. Its bytes go to the
 * deflater (gzip-out-internal.h) in chunks of this size, cut at the same
 * offsets whatever the pieces and the threads: the deflater's memory
 * stays bounded and its work overlaps the encoding. */
#define PROFDB__PBZ_CHUNK ((size_t)256 * 1024)
struct profdb__pbz;
typedef struct profdb__pbs {
	profdb__cv_out *o;
	struct profdb__pbz *z;
	int err;
} profdb__pbs;

/* A gzip stream into @p o (the protobuf as it is without zlib). @p threaded:
 * a full chunk may be compressed on a thread of its own while the next
 * one fills. */
int profdb__pbs_init(profdb__pbs *s, profdb__cv_out *o, int threaded);
/* While @p hold, full chunks are compressed on the calling thread: the
 * thread the compressor would take does other work. Its thread starts
 * at the first full chunk after. */
void profdb__pbs_hold_thread(profdb__pbs *s, int hold);
/* Bytes of the top-level message. */
void profdb__pbs_put(profdb__pbs *s, const void *data, size_t len);
/* Field @p field holding message @p m. */
void profdb__pbs_msg(profdb__pbs *s, uint32_t field, const profdb__pbm *m);
/* Field @p field holding a message of two packed repeated varint fields:
 * 1 of @p a, 2 of @p b (none when empty); @p scratch builds it when it
 * does not go straight into the stream. Errors stick in s->err or
 * scratch->err. */
void profdb__pbs_packed2(profdb__pbs *s, uint32_t field, const uint64_t *a, size_t na,
                         const uint64_t *b, size_t nb, profdb__pbm *scratch);
/* @p m's bytes as they are (fields of the top-level message). */
void profdb__pbs_raw(profdb__pbs *s, const profdb__pbm *m);
/* End the gzip stream; the first error of the stream or the output. */
int profdb__pbs_finish(profdb__pbs *s);
void profdb__pbs_free(profdb__pbs *s);

#endif
