/* A preloaded allocator that refuses every request above FAIL_ABOVE bytes
 * (environment; unset or 0: none), so a test can make the tool's own
 * allocations for one long name fail while everything else succeeds.
 * glibc's own entry points serve the rest. */
#include <errno.h>
#include <stdlib.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static size_t fail_above(void)
{
	const char *s = getenv("FAIL_ABOVE");
	return s ? (size_t)strtoull(s, NULL, 10) : 0;
}

static int refused(size_t n, size_t size)
{
	size_t limit = fail_above();
	if (limit == 0 || (size && n <= limit / size))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return refused(n, 1) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return refused(n, size) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return refused(n, 1) ? NULL : __libc_realloc(p, n);
}
