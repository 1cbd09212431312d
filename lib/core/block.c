/* Per-block state bytes of the HPCToolkit databases (core-internal.h). */
#include <stdlib.h>

#include "core-internal.h"

int profdb__block_state_alloc(profdb__block_state *s, uint64_t n_profiles, uint64_t n_ctxs,
                              uint64_t n_traces)
{
	uint64_t n[3] = {n_profiles, n_ctxs, n_traces};
	_Atomic unsigned char **a[3] = {&s->profile, &s->ctx, &s->trace};
	for (int k = 0; k < 3; k++) {
		if (n[k] > SIZE_MAX || !(*a[k] = calloc(n[k] ? (size_t)n[k] : 1, 1)))
			return profdb__fail(-ENOMEM, "out of memory (%llu block states)",
			                    (unsigned long long)n[k]);
	}
	return 0;
}

void profdb__block_state_free(profdb__block_state *s)
{
	free((void *)s->profile);
	free((void *)s->ctx);
	free((void *)s->trace);
	s->profile = s->ctx = s->trace = NULL;
}
