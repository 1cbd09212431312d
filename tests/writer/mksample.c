/* profdb-mksample: writes test databases with the tests/writer library.
 *
 *   profdb-mksample sample DIR
 *   profdb-mksample synth DIR PROFILES CONTEXTS METRICS DENSITY SAMPLES [SEED]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

static int usage(void)
{
    fputs("usage: profdb-mksample sample DIR\n"
          "       profdb-mksample synth DIR PROFILES CONTEXTS METRICS DENSITY SAMPLES [SEED]\n"
          "  sample  the hand-made database documented in tests/writer/writer.h\n"
          "  synth   a synthetic database: PROFILES thread profiles (+ summary),\n"
          "          CONTEXTS tree nodes, METRICS metrics (3 propagated ids each),\n"
          "          DENSITY in [0,1] of (context, metric) pairs stored per thread,\n"
          "          SAMPLES trace samples per thread, SEED (default 1)\n",
          stderr);
    return 2;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    errno = 0;
    uintmax_t v = strtoumax(s, &end, 0);
    if (errno || *end || v > max)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "sample") == 0) {
        tw_hpctk4 d;
        tw_hpctk4_sample(&d);
        int err = tw_hpctk4_write_dir(&d, argv[2]);
        if (err) {
            fprintf(stderr, "profdb-mksample: %s: %s\n", argv[2], strerror(-err));
            return 1;
        }
        return 0;
    }
    if ((argc == 8 || argc == 9) && strcmp(argv[1], "synth") == 0) {
        uint64_t profiles, contexts, metrics, samples, seed = 1;
        char *end;
        double density = strtod(argv[6], &end);
        if (parse_u64(argv[3], UINT32_MAX - 1, &profiles) ||
            parse_u64(argv[4], UINT32_MAX, &contexts) || parse_u64(argv[5], UINT16_MAX, &metrics) ||
            parse_u64(argv[7], UINT64_MAX, &samples) ||
            (argc == 9 && parse_u64(argv[8], UINT64_MAX, &seed)) || *end || end == argv[6])
            return usage();
        int err = tw_hpctk4_synth_dir(argv[2], (uint32_t)profiles, (uint32_t)contexts,
                                      (uint16_t)metrics, density, samples, seed);
        if (err) {
            fprintf(stderr, "profdb-mksample: %s: %s\n", argv[2], strerror(-err));
            return 1;
        }
        return 0;
    }
    return usage();
}
