/* profdb-sample-prog: a small program for scripts/demo.sh to profile with
 * `valgrind --tool=callgrind`, so the demo shows a Callgrind profile the
 * project recorded itself. Three kinds of work with different costs: a
 * recursive quicksort, a prime sieve and a small matrix product. The
 * checksum it prints keeps the compiler from dropping the work. An optional
 * argument multiplies the sort's size, so that the demo can compare two
 * runs that differ in one place (`profdb diff`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { N_SORT = 20000, N_SIEVE = 200000, N_MAT = 48 };

static uint32_t next_random(uint32_t *state)
{
	/* xorshift32: deterministic, so every run costs the same */
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static void quicksort(uint32_t *v, long lo, long hi)
{
	while (lo < hi) {
		uint32_t pivot = v[lo + (hi - lo) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				uint32_t t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* recurse into the smaller half, loop on the larger */
		if (j - lo < hi - i) {
			quicksort(v, lo, j);
			lo = i;
		} else {
			quicksort(v, i, hi);
			hi = j;
		}
	}
}

static uint64_t sort_work(long n)
{
	uint32_t *v = malloc((size_t)n * sizeof *v), seed = 2463534242u;
	uint64_t sum = 0;
	if (!v)
		return 0;
	for (long i = 0; i < n; i++)
		v[i] = next_random(&seed);
	quicksort(v, 0, n - 1);
	for (long i = 0; i < n; i += 97)
		sum += v[i];
	free(v);
	return sum;
}

static uint64_t count_primes(void)
{
	unsigned char *composite = calloc(N_SIEVE + 1, 1);
	uint64_t n = 0;
	if (!composite)
		return 0;
	for (long i = 2; i <= N_SIEVE; i++) {
		if (composite[i])
			continue;
		n++;
		for (long k = 2 * i; k <= N_SIEVE; k += i)
			composite[k] = 1;
	}
	free(composite);
	return n;
}

static double dot(const double *a, const double *b, int stride, int n)
{
	double s = 0;
	for (int k = 0; k < n; k++)
		s += a[k] * b[k * stride];
	return s;
}

static double matrix_work(void)
{
	static double a[N_MAT * N_MAT], b[N_MAT * N_MAT], c[N_MAT * N_MAT];
	for (int i = 0; i < N_MAT * N_MAT; i++) {
		a[i] = (double)(i % 7) / 7.0;
		b[i] = (double)(i % 11) / 11.0;
	}
	for (int i = 0; i < N_MAT; i++)
		for (int j = 0; j < N_MAT; j++)
			c[i * N_MAT + j] = dot(a + i * N_MAT, b + j, N_MAT, N_MAT);
	return c[N_MAT * N_MAT / 2];
}

int main(int argc, char **argv)
{
	long factor = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	if (factor < 1 || factor > 100)
		factor = 1;
	uint64_t s = sort_work(N_SORT * factor);
	uint64_t p = count_primes();
	double m = matrix_work();
	printf("sample-prog: checksum %llu, %llu primes, matrix %.3f\n", (unsigned long long)s,
	       (unsigned long long)p, m);
	return 0;
}
