/* `profdb top`'s group table and heap (tool/top-groups.c) on hand-built
 * keys: byte-string keys, borrowed or copied; a function's identity
 * besides its key, namesakes named apart; values combined by each
 * metric's rule; a group no context joins ranks 0; past the first table
 * growth; the best N kept in the order of cmp_row; sort_rows in that
 * order, sort_keys in its; label texts shared. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tool/top.h"

static report_metric cols[3];
static report rep;

/* Three columns: sum, min, max. */
static void setup_report(void)
{
	memset(cols, 0, sizeof cols);
	cols[0].metric.combine = PROFDB_COMBINE_SUM;
	cols[1].metric.combine = PROFDB_COMBINE_MIN;
	cols[2].metric.combine = PROFDB_COMBINE_MAX;
	memset(&rep, 0, sizeof rep);
	rep.m = cols;
	rep.n = 3;
}

Test(tool_top_groups, keys_are_byte_strings)
{
	group_table t;
	memset(&t, 0, sizeof t);
	t.nv = 3;
	int created;
	char buf[8] = "abcXYZ";
	/* "abc" borrowed from a longer buffer, then asked for with a copy */
	ptrdiff_t a = group_lookup(&t, buf, 3, NULL, 1, &created);
	cr_assert_eq(a, 0);
	cr_expect(created);
	cr_expect_eq(t.rows[a].name, buf, "a lasting key is not copied");
	ptrdiff_t b = group_lookup(&t, "abc", 3, NULL, 0, &created);
	cr_expect_eq(b, a, "the same bytes are the same group");
	cr_expect(!created);
	const char *passing = "abcX";
	ptrdiff_t c = group_lookup(&t, passing, 4, NULL, 0, &created);
	cr_expect_neq(c, a, "a longer key is another group");
	cr_expect(created);
	cr_expect_neq(t.rows[c].name, passing, "a passing key is copied");
	cr_expect_eq(memcmp(t.rows[c].name, "abcX", 4), 0);
	ptrdiff_t e = group_lookup(&t, "", 0, NULL, 0, &created);
	cr_expect(created, "the empty key is a group of its own");
	cr_expect_eq(group_lookup(&t, "", 0, NULL, 1, &created), e);
	cr_expect_eq(t.n, 3);
	group_free(&t);
}

static group_ident fn_ident(const char *file, const char *module)
{
	group_ident id = {{NULL, 0}, {file, strlen(file)}, {module, strlen(module)}, 1, 0};
	return id;
}

/* A function is its (module, file, folded name): one key in two objects
 * or two files is two groups, namesakes; equal strings at other addresses
 * are the same identity; a folded name that is not the key (an address
 * the key shortens) is compared too. group_tell_namesakes() names them
 * "name (file) [module]" by base names (and " #ctx" where those still
 * print alike), leaves the others and the groups
 * of no function alone, and the table still finds every group. */
Test(tool_top_groups, functions_are_grouped_by_identity)
{
	group_table t;
	memset(&t, 0, sizeof t);
	t.nv = 1;
	int created;
	char libc[] = "/usr/lib/libc.so.6", libc2[] = "/usr/lib/libc.so.6";
	group_ident ld = fn_ident("strlen-sse2.S", "/lib64/ld-linux-x86-64.so.2");
	group_ident c = fn_ident("ifunc-avx2.h", libc), c2 = fn_ident("ifunc-avx2.h", libc2);
	group_ident other_file = fn_ident("strlen.c", libc);
	group_ident m = fn_ident("main.c", "/usr/bin/prog");
	ptrdiff_t a = group_lookup(&t, "strlen", 6, &ld, 0, &created);
	ptrdiff_t mg = group_lookup(&t, "main", 4, &m, 0, &created);
	ptrdiff_t b = group_lookup(&t, "strlen", 6, &c, 0, &created);
	cr_assert(created && b != a, "another module: another group");
	cr_expect_eq(group_lookup(&t, "strlen", 6, &c2, 0, &created), b,
	             "equal strings elsewhere: the same function");
	cr_expect(!created);
	ptrdiff_t f = group_lookup(&t, "strlen", 6, &other_file, 0, &created);
	cr_assert(created && f != b, "another file: another group");
	cr_expect(t.ident[a].namesake && t.ident[b].namesake && t.ident[f].namesake);
	cr_expect(!t.ident[mg].namesake);
	/* addresses: the key "0x10 [x]" stands for the folded names
	 * "0x0010" and "0x010" of one object */
	group_ident h1 = fn_ident("", "/bin/x"), h2 = fn_ident("", "/bin/x");
	h1.fold = (profdb_str){"0x0010", 6};
	h2.fold = (profdb_str){"0x010", 5};
	ptrdiff_t x1 = group_lookup(&t, "0x10 [x]", 8, &h1, 0, &created);
	ptrdiff_t x2 = group_lookup(&t, "0x10 [x]", 8, &h2, 0, &created);
	cr_expect(x1 != x2 && t.ident[x1].namesake && t.ident[x2].namesake);
	h2.fold = (profdb_str){"0x0010", 6};
	cr_expect_eq(group_lookup(&t, "0x10 [x]", 8, &h2, 0, &created), x1);
	/* a group of no function (a label) with the key of a function */
	ptrdiff_t l = group_lookup(&t, "main", 4, NULL, 0, &created);
	cr_expect(created && l != mg && t.ident[l].namesake && t.ident[mg].namesake);
	t.rows[b].pass = 0;
	t.rows[x1].ctx = 7;   /* their first contexts */
	t.rows[x2].ctx = 9;
	size_t n = t.n;
	cr_assert_eq(group_tell_namesakes(&t), 0);
	cr_expect_eq(t.n, n, "no group added");
	const struct { ptrdiff_t g; const char *name; } want[] = {
		{a, "strlen (strlen-sse2.S) [ld-linux-x86-64.so.2]"},
		{b, "strlen (ifunc-avx2.h) [libc.so.6]"},
		{f, "strlen (strlen.c) [libc.so.6]"},
		{mg, "main (main.c) [prog]"},
		/* no file: the module, the address shortened; alike, so the
		 * first context too */
		{x1, "0x10 [x] #7"},
		{x2, "0x10 [x] #9"},
		{l, "main"},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const row *r = &t.rows[want[i].g];
		cr_expect(r->name_len == strlen(want[i].name) &&
		          memcmp(r->name, want[i].name, r->name_len) == 0, "group %td: %.*s, not %s",
		          want[i].g, (int)r->name_len, r->name, want[i].name);
	}
	cr_expect(!t.rows[b].pass && t.rows[a].pass, "the filter's verdict stays");
	cr_expect_eq(group_lookup(&t, want[0].name, strlen(want[0].name), &ld, 0, &created), a,
	             "a group found by its new key");
	cr_expect(!created);
	cr_expect_eq(group_lookup(&t, "main", 4, NULL, 0, &created), l);
	group_free(&t);
}

/* A key is the name's bytes, a NUL or a control byte among them; the
 * groups whose keys print alike ('?' for each control byte, names_show)
 * are namesakes, told apart as above. */
Test(tool_top_groups, namesakes_are_the_names_that_print_alike)
{
	group_table t;
	memset(&t, 0, sizeof t);
	t.nv = 1;
	int created;
	static const char anon3[] = "class@anonymous\0/x.php:3$0", anon9[] = "class@anonymous\0/x.php:9$0";
	group_ident x = fn_ident("x.php", ""), y = fn_ident("y.php", "");
	/* Xdebug's anonymous classes: the place after the NUL tells them apart */
	ptrdiff_t a3 = group_lookup(&t, anon3, sizeof anon3 - 1, &x, 0, &created);
	ptrdiff_t a9 = group_lookup(&t, anon9, sizeof anon9 - 1, &x, 0, &created);
	cr_assert(a3 != a9 && created);
	cr_expect(!t.ident[a3].namesake && !t.ident[a9].namesake, "they print differently");
	cr_expect_eq(group_lookup(&t, anon3, sizeof anon3 - 1, &x, 0, &created), a3);
	/* a tab, an ESC and a '?' print alike */
	ptrdiff_t tab = group_lookup(&t, "f\tg", 3, &x, 0, &created);
	ptrdiff_t esc = group_lookup(&t, "f\033g", 3, &x, 0, &created);
	ptrdiff_t q = group_lookup(&t, "f?g", 3, &y, 0, &created);
	cr_assert(tab != esc && esc != q && created, "other bytes: other groups");
	cr_expect(t.ident[tab].namesake && t.ident[esc].namesake && t.ident[q].namesake);
	cr_expect_eq(group_lookup(&t, "f\033g", 3, &x, 0, &created), esc);
	t.rows[a3].ctx = 3;
	t.rows[tab].ctx = 5;
	t.rows[esc].ctx = 6;
	t.rows[q].ctx = 7;
	cr_assert_eq(group_tell_namesakes(&t), 0);
	/* the file tells the '?' apart; the tab and the ESC print alike still */
	static const char anon3_key[] = "class@anonymous\0/x.php:3$0";
	const struct { ptrdiff_t g; const char *name; size_t len; } want[] = {
		{a3, anon3_key, sizeof anon3_key - 1},
		{tab, "f\tg (x.php) #5", 14},
		{esc, "f\033g (x.php) #6", 14},
		{q, "f?g (y.php)", 11},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const row *r = &t.rows[want[i].g];
		cr_expect(r->name_len == want[i].len && memcmp(r->name, want[i].name, want[i].len) == 0,
		          "group %td: %zu bytes, not %zu", want[i].g, r->name_len, want[i].len);
	}
	group_free(&t);
}

Test(tool_top_groups, values_combine_by_the_metric_rule)
{
	setup_report();
	group_table t;
	memset(&t, 0, sizeof t);
	t.nv = rep.n;
	int created;
	double v1[3] = {2, 5, 5}, v2[3] = {3, 1, 9}, v3[3] = {0.5, 7, -1};
	ptrdiff_t g = group_lookup(&t, "f", 1, NULL, 0, &created);
	ptrdiff_t never = group_lookup(&t, "g", 1, NULL, 0, &created);
	group_add(&t, (size_t)g, &rep, v1, 11);
	group_add(&t, (size_t)g, &rep, v2, 7);
	group_add(&t, (size_t)g, &rep, v3, 3);
	group_rows(&t);
	const row *r = &t.rows[g];
	cr_expect_eq(r->v[0], 5.5, "sum");
	cr_expect_eq(r->v[1], 1, "min");
	cr_expect_eq(r->v[2], 9, "max");
	cr_expect_eq(r->n_ctx, 3);
	cr_expect_eq(r->ctx, 11, "the first context added");
	const row *z = &t.rows[never];
	cr_expect_eq(z->n_ctx, 0);
	for (int m = 0; m < 3; m++)
		cr_expect_eq(z->v[m], 0, "a group no context joined ranks 0");
	group_free(&t);
}

Test(tool_top_groups, many_groups_survive_the_growth)
{
	setup_report();
	group_table t;
	memset(&t, 0, sizeof t);
	t.nv = rep.n;
	enum { N = 5000 };
	int created;
	char key[32];
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < N; i++) {
			int n = snprintf(key, sizeof key, "fn_%d", i);
			ptrdiff_t g = group_lookup(&t, key, (size_t)n, NULL, 0, &created);
			cr_assert_eq(g, i, "key %s: group %td", key, g);
			cr_assert_eq(created, pass == 0);
			double v[3] = {i, i, i};
			group_add(&t, (size_t)g, &rep, v, (uint32_t)(pass * N + i));
		}
	group_rows(&t);
	cr_expect_eq(t.n, N);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(t.rows[i].v[0], 2.0 * i);
		cr_assert_eq(t.rows[i].n_ctx, 2);
		cr_assert_eq(t.rows[i].ctx, (uint32_t)i);
	}
	group_free(&t);
}

Test(tool_top_groups, the_heap_keeps_the_best_in_order)
{
	/* values 0..99 in a scrambled order, names on ties: keep the best 10 */
	enum { N = 100, CAP = 10 };
	static double vals[N];
	static char names[N][8];
	row heap[CAP];
	size_t n = 0;
	for (int i = 0; i < N; i++) {
		int j = (i * 37) % N;
		vals[i] = j / 2;   /* pairs of equal values: the names decide */
		snprintf(names[i], sizeof names[i], "n%02d", j);
		row r = {vals[i], &vals[i], (uint32_t)i, 1, names[i], strlen(names[i]), 1};
		double *out = heap_offer(heap, &n, CAP, r);
		cr_assert(out == NULL || (out >= vals && out < vals + N));
	}
	cr_assert_eq(n, CAP);
	qsort(heap, n, sizeof *heap, cmp_row);
	for (int i = 0; i < CAP; i++) {
		int j = N - 2 - 2 * (i / 2) + i % 2;   /* 98, 99, 96, 97, ... */
		char want[8];
		snprintf(want, sizeof want, "n%02d", j);
		cr_expect_eq(heap[i].key, j / 2);
		cr_expect_eq(memcmp(heap[i].name, want, 3), 0, "row %d: %.3s, not %s", i, heap[i].name,
		             want);
	}
}

/* sort_rows against qsort with cmp_row: context rows with ties, negative
 * values, infinities and both zeros (its radix sort, which writes the
 * rows over from their keys and the rest gathered: each keeps its values
 * and label), and rows with a NaN or with names (qsort). */
Test(tool_top_groups, sort_rows_is_cmp_rows_order)
{
	enum { N = 5000 };
	static row a[N], b[N];
	static char names[N][8];
	static double vals[N];
	const double odd[] = {-0.0, 0.0, INFINITY, -INFINITY, -1.5, 1e300, -1e-300, 4.0};
	for (int pass = 0; pass < 3; pass++) {
		uint64_t s = 42;
		for (int i = 0; i < N; i++) {
			s = s * 6364136223846793005u + 1442695040888963407u;
			double v = (double)((s >> 33) % 50) - 10;   /* many ties */
			if (i % 97 == 0)
				v = odd[(s >> 20) % 8];
			if (pass == 1 && i == N / 2)
				v = NAN;
			/* contexts distinct, not in value order */
			vals[i] = v;
			a[i] = (row){v, &vals[i], (uint32_t)((i * 7919u) % 100003u), 1, NULL, 0, 1,
			             (uint32_t)i + 1};
			if (pass == 2) {
				snprintf(names[i], sizeof names[i], "n%d", (int)(s >> 40) % 300);
				a[i].name = names[i];
				a[i].name_len = strlen(names[i]);
			}
			b[i] = a[i];
		}
		sort_rows(a, N);
		qsort(b, N, sizeof *b, cmp_row);
		for (int i = 0; i < N; i++) {
			if (pass == 1 && isnan(b[i].key)) {
				cr_assert(isnan(a[i].key), "pass %d, row %d", pass, i);
				continue;
			}
			cr_assert(a[i].key == b[i].key && a[i].ctx == b[i].ctx && a[i].name == b[i].name,
			          "pass %d, row %d: %g #%u, not %g #%u", pass, i, a[i].key, a[i].ctx,
			          b[i].key, b[i].ctx);
			cr_assert(a[i].v == b[i].v && a[i].label == b[i].label && a[i].n_ctx == b[i].n_ctx &&
			          a[i].pass == b[i].pass && a[i].name_len == b[i].name_len,
			          "pass %d, row %d: values or label of another row", pass, i);
		}
	}
	sort_rows(a, 0);
	sort_rows(a, 1);
	cr_assert_eq(a[0].ctx, b[0].ctx);
}

static int cmp_sort_key(const void *a, const void *b)
{
	const sort_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

/* sort_keys against qsort: keys of every byte width, long runs of one key
 * (sorted by their contexts, down to the last byte), each key keeping its
 * `at`; and values through descending_bits and back. */
Test(tool_top_groups, sort_keys_is_key_then_context_order)
{
	enum { N = 200000 };
	static sort_key a[N], b[N];
	uint64_t s = 7;
	for (int i = 0; i < N; i++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		/* the bits of values (no NaN's): 6 to 62 low bits vary */
		uint64_t key = (uint64_t)1 << 62 | s >> (2 + 8 * (i % 8));
		if (i % 3 == 0)
			key = descending_bits(1000);      /* a third: one key */
		uint32_t ctx = (uint32_t)(s >> 17) ^ (uint32_t)i << 8;
		a[i] = b[i] = (sort_key){key, ctx, (uint32_t)i};
	}
	sort_keys(a, N);
	qsort(b, N, sizeof *b, cmp_sort_key);
	for (int i = 0; i < N; i++)
		cr_assert(a[i].key == b[i].key && a[i].ctx == b[i].ctx && a[i].at == b[i].at,
		          "key %d: %llx #%u @%u, not %llx #%u @%u", i, (unsigned long long)a[i].key,
		          a[i].ctx, a[i].at, (unsigned long long)b[i].key, b[i].ctx, b[i].at);
	sort_keys(a, 0);
	const double v[] = {1.5, -2.25, 1e300, -INFINITY, 4.0, 0.0};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		cr_assert_eq(from_descending_bits(descending_bits(v[i])), v[i]);
		if (i)
			cr_assert_eq(descending_bits(v[i]) < descending_bits(v[i - 1]), v[i] > v[i - 1],
			             "%g against %g", v[i], v[i - 1]);
	}
	cr_assert_eq(descending_bits(-0.0), descending_bits(0.0));
	cr_assert(isnan(from_descending_bits(descending_bits(NAN))));
}

/* A label text is stored once however often it is asked for, and texts
 * that differ in any part (the pointer, the length, the type, the offset
 * flag, the high bits of the number) are told apart, past the growth of
 * the table. */
Test(tool_top_groups, label_texts_are_shared)
{
	static const char files[] = "a.c b.c libx.so";
	label_texts s;
	memset(&s, 0, sizeof s);
	uint32_t id[1000];
	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < 1000; i++) {
			label_text x = {files + (i % 3) * 4, 3 + (i % 5 == 0), (unsigned char)(1 + i % 2),
			                (unsigned char)(i % 7 == 0), i / 4};
			uint32_t got = label_text_find(&s, &x);
			cr_assert(got > 0);
			if (round)
				cr_assert_eq(got, id[i], "text %u: %u, first %u", i, got, id[i]);
			else
				id[i] = got;
			const label_text *t = &s.t[got - 1];
			cr_assert(t->ptr == x.ptr && t->len == x.len && t->type == x.type &&
			          t->has_offset == x.has_offset && t->num_hi == x.num_hi);
		}
	cr_assert_eq(s.n, 1000u, "%zu texts", s.n);   /* every part differs somewhere */
	label_text one = {files + 4, 3, 2, 0, 0};   /* text 1's, asked twice in a row */
	cr_assert_eq(label_text_find(&s, &one), id[1]);
	cr_assert_eq(label_text_find(&s, &one), id[1]);
	cr_assert_eq(s.n, 1000u);
	label_texts_free(&s);
	cr_assert(s.t == NULL && s.n == 0);
}

/* With a NaN value, sort_keys orders the keys as sort_rows orders the
 * same rows (qsort by cmp_row's rule, from the same order). */
Test(tool_top_groups, sort_keys_with_a_nan_is_sort_rows_order)
{
	enum { N = 3000 };
	static row a[N];
	static sort_key k[N];
	static double vals[N];
	uint64_t s = 99;
	for (int i = 0; i < N; i++) {
		s = s * 6364136223846793005u + 1442695040888963407u;
		double v = (double)((s >> 33) % 40) - 5;
		if (i % 500 == 7)
			v = NAN;
		vals[i] = v;
		uint32_t ctx = (uint32_t)((i * 7919u) % 100003u);
		a[i] = (row){v, &vals[i], ctx, 1, NULL, 0, 1, 0};
		k[i] = (sort_key){descending_bits(v), ctx, (uint32_t)i};
	}
	sort_rows(a, N);
	sort_keys(k, N);
	for (int i = 0; i < N; i++) {
		cr_assert_eq(k[i].ctx, a[i].ctx, "key %d: #%u, not #%u", i, k[i].ctx, a[i].ctx);
		cr_assert_eq(&vals[k[i].at], a[i].v, "key %d: the place of another row", i);
	}
}
