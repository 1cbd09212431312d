/* Fuzz target: gzip-compressed Callgrind profiles.
 *
 * Input format: a flag byte, then the Callgrind text. The target compresses
 * the text with zlib (gzip framing) and opens the result with
 * profdb_cg_open_mem(), so the mutator works on the text while the library
 * reads it through its decompressor. The flag byte:
 *  - bits 0-1, damage done to the compressed stream:
 *      0 none; 1 truncated by 1 + bits 3-7 bytes; 2 one byte of the CRC-32 /
 *      ISIZE trailer flipped; 3 the stream repeated (a second gzip member)
 *      and followed by bits 3-7 garbage bytes;
 *  - bit 2: compression level 1 instead of 9 (different block structure).
 * Invariants: those of the shared driver (drive-callgrind.h). Without
 * damage, and when the text does not itself start with the gzip magic, the
 * text is also opened plain: both opens must agree on the result code and,
 * when they succeed, on every name and cost (fuzz_cg_compare()). With a
 * second member the decompressed text is the text twice, so it is compared
 * with the doubled plain text.
 *
 * The seeds in corpus/fuzz-callgrind-gz/ are those of fuzz-callgrind with a
 * 0x00 flag byte in front (a few with other flags); they run --lenient. *
 * Each open is repeated through the common query interface
 * (profdb_open_inputs(), the shared driver drive-query.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "drive-callgrind.h"
#include "drive-hpctk.h"
#include "drive-query.h"

/* gzip-compress [p, p+n) into a malloc'ed buffer. */
static unsigned char *gzip(const uint8_t *p, size_t n, int level, size_t *out_size)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	CG_CHECK(deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK,
	         "deflateInit2");
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	unsigned char *out = malloc(cap);
	CG_CHECK(out != NULL, "out of memory");
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	CG_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
	*out_size = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (1u << 24))
		return 0;
	uint8_t flags = data[0];
	const uint8_t *text = data + 1;
	size_t n = size - 1, gz_size;
	unsigned damage = flags & 3, extra = flags >> 3;
	unsigned char *gz = gzip(text, n, (flags & 4) ? 1 : 9, &gz_size);

	/* The stream as the library gets it, in an exact-size buffer. */
	size_t len = gz_size;
	if (damage == 1)
		len = gz_size > extra + 1u ? gz_size - extra - 1 : 0;
	if (damage == 3)
		len = 2 * gz_size + extra;
	unsigned char *in = malloc(len ? len : 1);
	CG_CHECK(in != NULL, "out of memory");
	memcpy(in, gz, damage == 1 ? len : gz_size);
	if (damage == 2 && gz_size >= 8)
		in[gz_size - 8 + extra % 8] ^= 0x55;
	if (damage == 3) {
		memcpy(in + gz_size, gz, gz_size);
		memset(in + 2 * gz_size, 'x', extra);
	}
	free(gz);

	profdb_cg *a = NULL;
	int ra = fuzz_cg_run(in, len, 0, &a);
	int nested = n >= 2 && text[0] == 0x1f && text[1] == 0x8b;
	if ((damage == 0 || damage == 3) && !nested && ra != -ENOMEM && ra != -EFBIG) {
		/* The text the library decompressed, in plain. */
		size_t pn = damage == 3 ? 2 * n : n;
		unsigned char *plain = malloc(pn ? pn : 1);
		CG_CHECK(plain != NULL, "out of memory");
		if (n) {
			memcpy(plain, text, n);
			if (damage == 3)
				memcpy(plain + n, text, n);
		}
		profdb_cg *b = NULL;
		int rb = fuzz_cg_run(plain, pn, 1, &b);
		CG_CHECK(ra == rb, "gzip open %d, plain open %d", ra, rb);
		if (a && b)
			fuzz_cg_compare(a, b);
		profdb_cg_close(b);
		free(plain);
	}
	profdb_cg_close(a);
	fuzz_query_run1("callgrind.out.gz", in, len, 0);
	free(in);
	return 0;
}
