/* profdb-mksample: writes test databases with the tests/writer library.
 *
 *   profdb-mksample sample DIR
 *   profdb-mksample nan DIR
 *   profdb-mksample signs DIR
 *   profdb-mksample kinds DIR
 *   profdb-mksample namesakes DIR
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
          "       profdb-mksample nan DIR\n"
          "       profdb-mksample signs DIR\n"
          "       profdb-mksample kinds DIR\n"
          "       profdb-mksample namesakes DIR\n"
          "       profdb-mksample synth DIR PROFILES CONTEXTS METRICS DENSITY SAMPLES [SEED]\n"
          "  sample  the hand-made database documented in tests/writer/writer.h\n"
          "  nan     the same with special doubles (see nan_sample())\n"
          "  signs   the same with negative values and a NaN (see signs_sample())\n"
          "  kinds   the same contexts and metrics, profiles identified by every kind\n"
          "          (see kinds_sample())\n"
          "  namesakes  the same with two functions of one name (see namesakes_sample())\n"
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

static double f64_of_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The sample, its three profiles' values copied into @p vals (freed by
 * the caller) so that a variant can change them: 0 or -ENOMEM. */
static int own_values(tw_hpctk4 *d, tw_profile prof[3], tw_value *vals[3])
{
    tw_hpctk4_sample(d);
    for (size_t p = 0; p < 3; p++) {
        prof[p] = d->profiles[p];
        vals[p] = malloc((prof[p].n_values + 1) * sizeof *vals[p]);
        if (!vals[p])
            return -ENOMEM;
        memcpy(vals[p], prof[p].values, prof[p].n_values * sizeof *vals[p]);
        prof[p].values = vals[p];
    }
    d->profiles = prof;
    return 0;
}

/* The sample with special doubles in thread profiles 1 and 2 (the tool's
 * exact-output tests read them back bit for bit):
 *   profile 1 (13, 3) NaN with payload 0x7ff800000000beef
 *   profile 1 (13, 4) negative quiet NaN 0xfff8000000000000
 *   profile 2 (0, 3)  signalling NaN 0x7ff0000000000001
 *   profile 2 (13, 3) +inf,  profile 2 (13, 4) -0.0 */
static int nan_sample(tw_hpctk4 *d, tw_profile prof[3], tw_value *vals[3])
{
    static const struct {
        uint32_t profile, ctx;
        uint16_t metric;
        uint64_t bits;
    } special[] = {
        {1, 13, 3, 0x7ff800000000beefULL}, {1, 13, 4, 0xfff8000000000000ULL},
        {2, 0, 3, 0x7ff0000000000001ULL},  {2, 13, 3, 0x7ff0000000000000ULL},
        {2, 13, 4, 0x8000000000000000ULL},
    };
    int r = own_values(d, prof, vals);
    for (size_t p = 0; r == 0 && p < 3; p++)
        for (size_t i = 0; i < prof[p].n_values; i++)
            for (size_t k = 0; k < sizeof special / sizeof *special; k++)
                if (special[k].profile == p && special[k].ctx == vals[p][i].ctx &&
                    special[k].metric == vals[p][i].metric)
                    vals[p][i].value = f64_of_bits(special[k].bits);
    return r;
}

/* The sample with values of either sign, for the tool's cuts by
 * percentage (whose order is the values'):
 *   profile 0 (summary) (10, 1) -0.5: one negative row, the total above 0
 *   profile 1 (10, 1) -0.5 and (14, 1) NaN
 *   profile 2 every value negated: the total below 0 */
static int signs_sample(tw_hpctk4 *d, tw_profile prof[3], tw_value *vals[3])
{
    int r = own_values(d, prof, vals);
    for (size_t p = 0; r == 0 && p < 3; p++)
        for (size_t i = 0; i < prof[p].n_values; i++) {
            tw_value *v = &vals[p][i];
            if (p == 2)
                v->value = -v->value;
            else if (v->ctx == 10 && v->metric == 1)
                v->value = -0.5;
            else if (p == 1 && v->ctx == 14 && v->metric == 1)
                v->value = f64_of_bits(0x7ff8000000000000ULL);
        }
    return r;
}

/* The sample's contexts, metrics and traces with seven thread profiles
 * identified by every kind the library names (CPU threads, GPU streams,
 * cores) and by stored kind names that a selection spells differently
 * ("MY KIND" and "A=B" print as my_kind and a_b). Values repeat the
 * sample's two thread profiles. */
static void kinds_sample(tw_hpctk4 *d, tw_profile prof[8])
{
    static const char *const id_names[] = {"SUMMARY",    "NODE",      "RANK", "THREAD",
                                           "GPUDEVICE",  "GPUCONTEXT", "GPUSTREAM", "CORE",
                                           "MY KIND",    "A=B"};
    enum { NODE = 1, RANK, THREAD, GPUDEVICE, GPUCONTEXT, GPUSTREAM, CORE, MY_KIND, A_B };
#define ID(kind, v) {kind, 0, v, v}
#define HOST {NODE, 1, 0, 0x7f000101}
    static const tw_id thread0[] = {HOST, ID(RANK, 0), ID(THREAD, 0)};
    static const tw_id thread1[] = {HOST, ID(RANK, 0), ID(THREAD, 1)};
    static const tw_id stream7[] = {HOST, ID(RANK, 0), ID(GPUDEVICE, 0), ID(GPUCONTEXT, 1),
                                    ID(GPUSTREAM, 7)};
    static const tw_id stream8[] = {HOST, ID(RANK, 0), ID(GPUDEVICE, 0), ID(GPUCONTEXT, 1),
                                    ID(GPUSTREAM, 8)};
    static const tw_id dev1[] = {HOST, ID(RANK, 1), ID(GPUDEVICE, 1), ID(GPUCONTEXT, 2),
                                 ID(GPUSTREAM, 7)};
    static const tw_id core3[] = {ID(RANK, 1), ID(CORE, 3), ID(MY_KIND, 3)};
    static const tw_id odd[] = {ID(RANK, 1), ID(MY_KIND, 2), ID(A_B, 5)};
#undef HOST
#undef ID
    static const struct {
        const tw_id *ids;
        size_t n;
    } tuples[] = {{thread0, 3}, {thread1, 3}, {stream7, 5}, {stream8, 5},
                  {dev1, 5},    {core3, 3},   {odd, 3}};
    tw_hpctk4_sample(d);
    prof[0] = d->profiles[0];
    for (size_t p = 0; p < sizeof tuples / sizeof *tuples; p++) {
        prof[p + 1] = d->profiles[1 + p % 2];
        prof[p + 1].ids = tuples[p].ids;
        prof[p + 1].n_ids = tuples[p].n;
    }
    d->n_profiles = 8;
    d->profiles = prof;
    d->n_id_names = sizeof id_names / sizeof *id_names;
    d->id_names = id_names;
}

/* The sample with function 2 ("helper", no module, file src/util.h)
 * named "memcpy" as function 3 is (module libc.so.6, no file): two
 * functions of one name, which a ranking by function keeps apart. */
static void namesakes_sample(tw_hpctk4 *d, tw_function fns[5])
{
    tw_hpctk4_sample(d);
    memcpy(fns, d->functions, 5 * sizeof *fns);
    fns[2].name = "memcpy";
    d->functions = fns;
}

/* The exit status of a sample written to @p dir (err from the writer). */
static int done(const char *dir, int err)
{
    if (err) {
        fprintf(stderr, "profdb-mksample: %s: %s\n", dir, strerror(-err));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "namesakes") == 0) {
        tw_hpctk4 d;
        tw_function fns[5];
        namesakes_sample(&d, fns);
        return done(argv[2], tw_hpctk4_write_dir(&d, argv[2]));
    }
    if (argc == 3 && strcmp(argv[1], "kinds") == 0) {
        tw_hpctk4 d;
        tw_profile prof[8];
        kinds_sample(&d, prof);
        return done(argv[2], tw_hpctk4_write_dir(&d, argv[2]));
    }
    if (argc == 3 && (strcmp(argv[1], "nan") == 0 || strcmp(argv[1], "signs") == 0)) {
        tw_hpctk4 d;
        tw_profile prof[3];
        tw_value *vals[3] = {NULL, NULL, NULL};
        int err = argv[1][0] == 'n' ? nan_sample(&d, prof, vals) : signs_sample(&d, prof, vals);
        if (!err)
            err = tw_hpctk4_write_dir(&d, argv[2]);
        for (int p = 0; p < 3; p++)
            free(vals[p]);
        return done(argv[2], err);
    }
    if (argc == 3 && strcmp(argv[1], "sample") == 0) {
        tw_hpctk4 d;
        tw_hpctk4_sample(&d);
        return done(argv[2], tw_hpctk4_write_dir(&d, argv[2]));
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
        return done(argv[2], err);
    }
    return usage();
}
