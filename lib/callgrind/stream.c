/* Callgrind: a gzip text scanned while it is inflated. One thread inflates
 * into a buffer that never moves (address space reserved up to the limit,
 * filled in place); the calling thread scans every complete line as soon
 * as it is there. The result is that of inflating first and scanning
 * after (api.c): an inflate error wins over anything the scan met, and
 * the scan's warnings are held back until the whole text inflated, then
 * given in order (dropped when inflating failed, as the scan would never
 * have run). */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>

#include "scan-internal.h"
#include "core/gunzip-internal.h"

#ifdef PROFDB_HAVE_ZLIB
typedef struct stream {
	profdb_cg *cg;
	cg_file *f;
	const unsigned char *src;
	uint64_t n, limit;
	unsigned char *buf;      /* limit + 1 bytes reserved */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t avail;          /* bytes inflated (under mu) */
	int done;                /* inflating ended (under mu) */
	int rc;                  /* its result */
	char msg[512];           /* its message when rc < 0 */
	/* warnings held back */
	char **warn;
	size_t n_warn, cap_warn;
	int warn_oom;
} stream;

static void publish(stream *st, uint64_t avail, int done)
{
	pthread_mutex_lock(&st->mu);
	st->avail = avail;
	st->done = done;
	pthread_cond_signal(&st->cv);
	pthread_mutex_unlock(&st->mu);
}

/* Room for the next slice of 256 KiB of the fixed buffer; first it
 * publishes what the last slice brought, for the scanning thread. */
static int slice_room(void *ud, uint64_t done, unsigned char **out, size_t *space)
{
	stream *st = ud;
	publish(st, done, 0);
	if (done >= st->limit)
		return profdb__fail(-EFBIG, "%s: decompressed text exceeds the limit of %" PRIu64
		                    " bytes (options.max_memory)", st->f->label, st->limit);
	uint64_t left = st->limit - done;
	*out = st->buf + done;
	*space = left > (1u << 18) ? (1u << 18) : (size_t)left;
	return 0;
}

/* The inflater: the whole text into the fixed buffer, slice by slice. */
static void *inflater(void *arg)
{
	stream *st = arg;
	uint64_t done = 0;
	int r = profdb__gunzip(st->src, st->n, st->f->label, slice_room, st, &done);
	st->rc = r;
	if (r < 0)
		snprintf(st->msg, sizeof st->msg, "%s", profdb__message());
	publish(st, done, 1);
	return NULL;
}

static void hold_warning(const char *msg, void *userdata)
{
	stream *st = userdata;
	char *copy = strdup(msg);
	if (!copy || profdb__grow((void **)&st->warn, &st->cap_warn, st->n_warn + 1,
	                          sizeof *st->warn) < 0) {
		free(copy);
		st->warn_oom = 1;
		return;
	}
	st->warn[st->n_warn++] = copy;
}

/* Waits until more than @p seen bytes are inflated or inflating ended. */
static void wait_more(stream *st, uint64_t seen, uint64_t *avail, int *done)
{
	pthread_mutex_lock(&st->mu);
	while (!st->done && st->avail <= seen)
		pthread_cond_wait(&st->cv, &st->mu);
	*avail = st->avail;
	*done = st->done;
	pthread_mutex_unlock(&st->mu);
}

/* The scan of the lines complete so far, as they come; 0 once inflating
 * ended (f->size is then the whole text), < 0 a scan error. */
static int scan_while_inflating(stream *st, parser *ps, cg_build *b, uint32_t fi, uint64_t *off)
{
	cg_file *f = st->f;
	uint64_t avail = 0;
	int done = 0, r;
	/* begin: the content check reads up to 2047 bytes */
	do
		wait_more(st, avail, &avail, &done);
	while (!done && avail < 2048);
	f->text = (const char *)st->buf;
	f->size = avail;
	if (done)
		return 0;
	if ((r = profdb__cgs_begin(ps, st->cg, fi, b)) < 0)
		return r;
	/* dense id arrays sized for an estimate of the text: ids are the
	 * same either way (large ids go to a hash index) */
	ps->ids.limit = st->n * 4 > 65536 ? st->n * 4 : 65536;
	if (ps->ids.limit > ((uint64_t)1 << 26))
		ps->ids.limit = (uint64_t)1 << 26;
	for (;;) {
		uint64_t stop = avail;
		while (stop > *off && st->buf[stop - 1] != '\n')
			stop--;
		if (stop > *off) {
			f->size = avail;
			ps->at.safe_end = stop;
			if ((r = profdb__cgs_lines(ps, *off, stop)) < 0)
				return r;
			*off = stop;
		}
		wait_more(st, avail, &avail, &done);
		if (done)
			return 0;
	}
}

int profdb__cg_parse_gz(profdb_cg *cg, uint32_t fi, cg_build *b, const unsigned char *src,
                        uint64_t n, uint64_t limit)
{
	cg_file *f = &cg->files[fi];
	stream st;
	memset(&st, 0, sizeof st);
	st.cg = cg;
	st.f = f;
	st.src = src;
	st.n = n;
	st.limit = limit;
	void *m = mmap(NULL, (size_t)limit + 1, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return 1;   /* api.c inflates first, then scans */
	st.buf = m;
	pthread_mutex_init(&st.mu, NULL);
	pthread_cond_init(&st.cv, NULL);
	pthread_t th;
	if (pthread_create(&th, NULL, inflater, &st) != 0) {
		munmap(m, (size_t)limit + 1);
		pthread_cond_destroy(&st.cv);
		pthread_mutex_destroy(&st.mu);
		return 1;
	}
	/* the handle owns the text from here (profdb_cg_close unmaps it) */
	f->inflated = st.buf;
	f->inflated_map = (size_t)limit + 1;

	profdb_warn_fn warn = cg->opts.warn;
	void *warn_ud = cg->opts.warn_userdata;
	if (warn) {
		cg->opts.warn = hold_warning;
		cg->opts.warn_userdata = &st;
	}
	parser ps;
	memset(&ps, 0, sizeof ps);
	uint64_t off = 0;
	int r = scan_while_inflating(&st, &ps, b, fi, &off);
	pthread_join(th, NULL);
	cg->opts.warn = warn;
	cg->opts.warn_userdata = warn_ud;
	if (st.rc < 0) {
		r = profdb__fail(st.rc, "%s", st.msg);   /* inflating failed first */
	} else {
		for (size_t i = 0; i < st.n_warn; i++)
			profdb__warn(&cg->opts, "%s", st.warn[i]);
		if (st.warn_oom)
			r = profdb__fail(-ENOMEM, "callgrind: out of memory");
		f->size = st.avail;
		if (r >= 0 && !ps.cg) {   /* short text: inflated before the scan began */
			r = profdb__cgs_begin(&ps, cg, fi, b);
			off = 0;
		} else if (r >= 0) {
			ps.at.safe_end = f->size;
			while (ps.at.safe_end > off && st.buf[ps.at.safe_end - 1] != '\n')
				ps.at.safe_end--;
		}
		if (r >= 0)
			r = profdb__cgs_lines(&ps, off, f->size);
		if (r >= 0)
			r = profdb__cgs_end(&ps);
	}
	profdb__cgs_keep_ids(&ps, r);
	for (size_t i = 0; i < st.n_warn; i++)
		free(st.warn[i]);
	free(st.warn);
	pthread_cond_destroy(&st.cv);
	pthread_mutex_destroy(&st.mu);
	return r < 0 ? r : 0;
}
#endif
