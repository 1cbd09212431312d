/* tests/fixtures-hpctk4.h */
#include <criterion/criterion.h>
#include <string.h>

#include "fixtures-hpctk4.h"

#ifdef HAVE_TEST_WRITER
profdb *tc_hpctk4_open(const tw_hpctk4 *d, tc_hpctk4_files *f)
{
	static const char *const names[TW_NFILES] = {"meta.db", "profile.db", "cct.db", "trace.db"};
	tw_hpctk4 sample;
	if (!d) {
		tw_hpctk4_sample(&sample);
		d = &sample;
	}
	memset(f, 0, sizeof *f);
	cr_assert_eq(tw_hpctk4_write(d, f->b), 0);
	for (int k = 0; k < TW_NFILES; k++)
		if (f->b[k].data)
			f->in[f->n++] = (profdb_input){names[k], f->b[k].data, f->b[k].size};
	profdb *db;
	cr_assert_eq(profdb_open_inputs(&db, f->in, f->n, NULL), 0, "%s", profdb_error_message());
	return db;
}

void tc_hpctk4_free(tc_hpctk4_files *f)
{
	for (int k = 0; k < TW_NFILES; k++)
		tw_blob_free(&f->b[k]);
}
#endif
