/* meta.db writer: final layout (notes §4.2-4.3) and 2022 dev-stage layout (notes §5).
 *
 * Every section is built by reserving its zero-filled header and struct arrays first and then
 * appending the strings and patching the pointers in. The whole meta.db is built in memory (it is
 * small even for the synthetic benchmark databases), so patching is a memcpy. */
#include <errno.h>
#include <stdlib.h>

#include "tw-internal.h"

static const char *const default_id_names[] = {
    "SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE",
};

static int in_range(int32_t i, size_t n)
{
    return i >= -1 && (i < 0 || (size_t)i < n);
}

int tw__check_desc(const tw_hpctk4 *d)
{
    if (!d || d->extra > 200)
        return -EINVAL;
    if (d->id_names && d->n_id_names > UINT8_MAX)
        return -EINVAL;
    if ((d->n_scopes && !d->scopes) || d->n_scopes > UINT16_MAX)
        return -EINVAL;
    if ((d->n_metrics && !d->metrics) || d->n_metrics > UINT32_MAX)
        return -EINVAL;
    for (size_t m = 0; m < d->n_metrics; m++) {
        const tw_metric *md = &d->metrics[m];
        if ((md->n_props && !md->props) || (md->n_summaries && !md->summaries))
            return -EINVAL;
        if (md->n_props > UINT16_MAX || md->n_summaries > UINT16_MAX)
            return -EINVAL;
        for (size_t j = 0; j < md->n_props; j++)
            if (md->props[j].scope >= d->n_scopes)
                return -EINVAL;
        for (size_t j = 0; j < md->n_summaries; j++) {
            if (md->summaries[j].scope >= d->n_scopes)
                return -EINVAL;
            if (d->devstage) {
                /* Dev-stage hangs summaries off the {PS} of a propagated metric: the scope must
                 * have one. */
                size_t k = 0;
                while (k < md->n_props && md->props[k].scope != md->summaries[j].scope)
                    k++;
                if (k == md->n_props)
                    return -EINVAL;
            }
        }
    }
    if ((d->n_modules && !d->modules) || d->n_modules > UINT32_MAX)
        return -EINVAL;
    if ((d->n_files && !d->files) || d->n_files > UINT32_MAX)
        return -EINVAL;
    if ((d->n_functions && !d->functions) || d->n_functions > UINT32_MAX)
        return -EINVAL;
    for (size_t f = 0; f < d->n_functions; f++)
        if (!in_range(d->functions[f].module, d->n_modules) ||
            !in_range(d->functions[f].file, d->n_files))
            return -EINVAL;
    if ((d->n_contexts && !d->contexts) || d->n_contexts > INT32_MAX)
        return -EINVAL;
    size_t n_top = 0;
    for (size_t i = 0; i < d->n_contexts; i++) {
        const tw_context *c = &d->contexts[i];
        if (c->parent < -1 || (c->parent >= 0 && (size_t)c->parent >= i))
            return -EINVAL;
        if (!in_range(c->function, d->n_functions) || !in_range(c->file, d->n_files) ||
            !in_range(c->module, d->n_modules))
            return -EINVAL;
        n_top += c->parent < 0;
    }
    if (!d->devstage && n_top > UINT16_MAX)
        return -EINVAL;
    if ((d->n_profiles && !d->profiles) || d->n_profiles > UINT32_MAX)
        return -EINVAL;
    for (size_t p = 0; p < d->n_profiles; p++) {
        const tw_profile *pr = &d->profiles[p];
        if ((pr->n_ids && !pr->ids) || pr->n_ids > UINT16_MAX || (pr->n_values && !pr->values))
            return -EINVAL;
    }
    if ((d->n_traces && !d->traces) || d->n_traces > UINT32_MAX)
        return -EINVAL;
    for (size_t t = 0; t < d->n_traces; t++)
        if (d->traces[t].profile >= d->n_profiles ||
            (d->traces[t].n_samples && !d->traces[t].samples))
            return -EINVAL;
    return 0;
}

/* Section bookkeeping: every section starts 8-aligned; its size excludes the padding after it. */
static uint64_t section_begin(tw__buf *b)
{
    tw__buf_align(b, 8);
    return tw__buf_pos(b);
}

static void section_end(tw__buf *b, unsigned slot, uint64_t start)
{
    /* slot = index of the {size, pointer} pair in the file header */
    tw__buf_set_u64(b, 0x10 + 16 * slot, tw__buf_pos(b) - start);
    tw__buf_set_u64(b, 0x18 + 16 * slot, start);
}

enum {
    SEC_GENERAL, SEC_IDNAMES, SEC_METRICS, SEC_CONTEXT,
    SEC_STRINGS, SEC_MODULES, SEC_FILES, SEC_FUNCTIONS
};

/* Reserves an 8-aligned array of n records; returns its offset, or 0 when n == 0 (meta.db writes
 * null pointers for empty arrays). */
static uint64_t reserve_array(tw__buf *b, size_t n, unsigned stride)
{
    if (n == 0)
        return 0;
    tw__buf_align(b, 8);
    uint64_t off = tw__buf_pos(b);
    tw__buf_zero(b, n * stride);
    return off;
}

static void write_general(const tw_hpctk4 *d, tw__buf *b)
{
    uint64_t start = section_begin(b);
    tw__buf_zero(b, 0x10 + d->extra);
    tw__buf_set_u64(b, start + 0x00, tw__buf_str(b, d->title));
    tw__buf_set_u64(b, start + 0x08, tw__buf_str(b, d->description));
    section_end(b, SEC_GENERAL, start);
}

static void write_id_names(const tw_hpctk4 *d, tw__buf *b)
{
    const char *const *names = d->id_names ? d->id_names : default_id_names;
    size_t n = d->id_names ? d->n_id_names : sizeof default_id_names / sizeof *default_id_names;
    uint64_t start = section_begin(b);
    /* 0x09-byte header; dev-stage hpcprof padded it to 0x10, which the 8-alignment below
     * reproduces. */
    tw__buf_zero(b, 0x09 + d->extra);
    uint64_t arr = reserve_array(b, n, 8);
    tw__buf_set_u64(b, start + 0x00, arr);
    tw__buf_set_u8(b, start + 0x08, (uint8_t)n);
    for (size_t i = 0; i < n; i++)
        tw__buf_set_u64(b, arr + 8 * i, tw__buf_str(b, names[i]));
    section_end(b, SEC_IDNAMES, start);
}

static void write_metrics_final(const tw_hpctk4 *d, tw__buf *b)
{
    const unsigned x = d->extra;
    const unsigned sz_md = 0x20 + x, sz_psi = 0x10 + x, sz_ss = 0x18 + x, sz_ps = 0x10 + x;
    uint64_t start = section_begin(b);
    tw__buf_zero(b, 0x1b + x);
    uint64_t ps = reserve_array(b, d->n_scopes, sz_ps);
    uint64_t md = reserve_array(b, d->n_metrics, sz_md);

    tw__buf_set_u64(b, start + 0x00, md);
    tw__buf_set_u32(b, start + 0x08, (uint32_t)d->n_metrics);
    tw__buf_set_u8(b, start + 0x0c, (uint8_t)sz_md);
    tw__buf_set_u8(b, start + 0x0d, (uint8_t)sz_psi);
    tw__buf_set_u8(b, start + 0x0e, (uint8_t)sz_ss);
    tw__buf_set_u64(b, start + 0x10, ps);
    /* nScopes is u16 on disk although hpcprof's C struct says u8 */
    tw__buf_set_u16(b, start + 0x18, (uint16_t)d->n_scopes);
    tw__buf_set_u8(b, start + 0x1a, (uint8_t)sz_ps);

    for (size_t s = 0; s < d->n_scopes; s++) {
        uint64_t r = ps + s * sz_ps;
        tw__buf_set_u64(b, r + 0x00, tw__buf_str(b, d->scopes[s].name));
        tw__buf_set_u8(b, r + 0x08, d->scopes[s].type);
        tw__buf_set_u8(b, r + 0x09, d->scopes[s].prop_index);
    }
    for (size_t m = 0; m < d->n_metrics; m++) {
        const tw_metric *mt = &d->metrics[m];
        uint64_t psi = reserve_array(b, mt->n_props, sz_psi);
        uint64_t ss = reserve_array(b, mt->n_summaries, sz_ss);
        uint64_t r = md + m * sz_md;
        tw__buf_set_u64(b, r + 0x00, tw__buf_str(b, mt->name));
        tw__buf_set_u64(b, r + 0x08, psi);
        tw__buf_set_u64(b, r + 0x10, ss);
        tw__buf_set_u16(b, r + 0x18, (uint16_t)mt->n_props);
        tw__buf_set_u16(b, r + 0x1a, (uint16_t)mt->n_summaries);
        for (size_t j = 0; j < mt->n_props; j++) {
            uint64_t q = psi + j * sz_psi;
            tw__buf_set_u64(b, q + 0x00, ps + (uint64_t)mt->props[j].scope * sz_ps);
            tw__buf_set_u16(b, q + 0x08, mt->props[j].prop_metric_id);
        }
        for (size_t j = 0; j < mt->n_summaries; j++) {
            const tw_summary *su = &mt->summaries[j];
            uint64_t q = ss + j * sz_ss;
            tw__buf_set_u64(b, q + 0x00, ps + (uint64_t)su->scope * sz_ps);
            tw__buf_set_u64(b, q + 0x08, tw__buf_str(b, su->formula));
            tw__buf_set_u8(b, q + 0x10, su->combine);
            tw__buf_set_u16(b, q + 0x12, su->stat_metric_id);
        }
    }
    section_end(b, SEC_METRICS, start);
}

static void write_metrics_dev(const tw_hpctk4 *d, tw__buf *b)
{
    const unsigned x = d->extra;
    const unsigned sz_md = 0x18 + x, sz_ps = 0x18 + x, sz_ss = 0x10 + x;
    uint64_t start = section_begin(b);
    tw__buf_zero(b, 0x0f + x);
    uint64_t md = reserve_array(b, d->n_metrics, sz_md);
    tw__buf_set_u64(b, start + 0x00, md);
    tw__buf_set_u32(b, start + 0x08, (uint32_t)d->n_metrics);
    tw__buf_set_u8(b, start + 0x0c, (uint8_t)sz_md);
    tw__buf_set_u8(b, start + 0x0d, (uint8_t)sz_ps);
    tw__buf_set_u8(b, start + 0x0e, (uint8_t)sz_ss);

    for (size_t m = 0; m < d->n_metrics; m++) {
        const tw_metric *mt = &d->metrics[m];
        uint64_t ps = reserve_array(b, mt->n_props, sz_ps);
        uint64_t r = md + m * sz_md;
        tw__buf_set_u64(b, r + 0x00, tw__buf_str(b, mt->name));
        tw__buf_set_u16(b, r + 0x08, (uint16_t)mt->n_props);
        tw__buf_set_u64(b, r + 0x10, ps);
        for (size_t j = 0; j < mt->n_props; j++) {
            uint16_t scope = mt->props[j].scope;
            /* A summary belongs to the first {PS} of its scope (tw__check_desc guarantees one
             * exists). */
            size_t first = 0;
            while (mt->props[first].scope != scope)
                first++;
            size_t k = 0;
            if (first == j)
                for (size_t s = 0; s < mt->n_summaries; s++)
                    k += mt->summaries[s].scope == scope;
            uint64_t ss = reserve_array(b, k, sz_ss);
            uint64_t q = ps + j * sz_ps;
            tw__buf_set_u64(b, q + 0x00, tw__buf_str(b, d->scopes[scope].name));
            tw__buf_set_u16(b, q + 0x08, (uint16_t)k);
            tw__buf_set_u16(b, q + 0x0a, mt->props[j].prop_metric_id);
            tw__buf_set_u64(b, q + 0x10, ss);
            if (k == 0)
                continue;
            for (size_t s = 0, i = 0; s < mt->n_summaries; s++) {
                const tw_summary *su = &mt->summaries[s];
                if (su->scope != scope)
                    continue;
                uint64_t t = ss + i++ * sz_ss;
                tw__buf_set_u64(b, t + 0x00, tw__buf_str(b, su->formula));
                tw__buf_set_u8(b, t + 0x08, su->combine);
                tw__buf_set_u16(b, t + 0x0a, su->stat_metric_id);
            }
        }
    }
    section_end(b, SEC_METRICS, start);
}

static const char *entry_name(const tw_context *c)
{
    if (c->pretty_name)
        return c->pretty_name;
    switch (c->entry_point) {
    case 1: return "main thread";
    case 2: return "application thread";
    default: return "unknown entry";
    }
}

/* Offsets shared between the sections that reference each other. */
typedef struct meta_refs {
    uint64_t *mod_str, *file_str, *func_str, *entry_str;
    uint64_t modules, files, functions; /* array offsets */
    unsigned sz_module, sz_file, sz_function;
} meta_refs;

static void write_strings(const tw_hpctk4 *d, tw__buf *b, meta_refs *r)
{
    uint64_t start = section_begin(b);
    for (size_t i = 0; i < d->n_modules; i++)
        r->mod_str[i] = tw__buf_str(b, d->modules[i].path);
    for (size_t i = 0; i < d->n_files; i++)
        r->file_str[i] = tw__buf_str(b, d->files[i].path);
    for (size_t i = 0; i < d->n_functions; i++)
        r->func_str[i] = d->functions[i].name ? tw__buf_str(b, d->functions[i].name) : 0;
    for (size_t i = 0; i < d->n_contexts; i++) {
        const tw_context *c = &d->contexts[i];
        r->entry_str[i] = !d->devstage && c->parent < 0 ? tw__buf_str(b, entry_name(c)) : 0;
    }
    section_end(b, SEC_STRINGS, start);
}

/* Modules, Files and Functions share one header shape: {pArray u64, n u32, sz u16}. */
static uint64_t table_section(const tw_hpctk4 *d, tw__buf *b, unsigned slot, size_t n,
                              unsigned stride)
{
    uint64_t start = section_begin(b);
    tw__buf_zero(b, 0x0e + d->extra);
    uint64_t arr = reserve_array(b, n, stride);
    tw__buf_set_u64(b, start + 0x00, arr);
    tw__buf_set_u32(b, start + 0x08, (uint32_t)n);
    tw__buf_set_u16(b, start + 0x0c, (uint16_t)stride);
    section_end(b, slot, start);
    return arr;
}

static void write_tables(const tw_hpctk4 *d, tw__buf *b, meta_refs *r)
{
    r->sz_module = 0x10 + d->extra;
    r->sz_file = 0x10 + d->extra;
    r->sz_function = 0x28 + d->extra;
    r->modules = table_section(d, b, SEC_MODULES, d->n_modules, r->sz_module);
    for (size_t i = 0; i < d->n_modules; i++)
        tw__buf_set_u64(b, r->modules + i * r->sz_module + 0x08, r->mod_str[i]);
    r->files = table_section(d, b, SEC_FILES, d->n_files, r->sz_file);
    for (size_t i = 0; i < d->n_files; i++) {
        uint64_t q = r->files + i * r->sz_file;
        tw__buf_set_u32(b, q + 0x00, d->files[i].flags);
        tw__buf_set_u64(b, q + 0x08, r->file_str[i]);
    }
    r->functions = table_section(d, b, SEC_FUNCTIONS, d->n_functions, r->sz_function);
    for (size_t i = 0; i < d->n_functions; i++) {
        const tw_function *f = &d->functions[i];
        uint64_t q = r->functions + i * r->sz_function;
        tw__buf_set_u64(b, q + 0x00, r->func_str[i]);
        uint64_t mod = f->module >= 0 ? r->modules + (uint64_t)f->module * r->sz_module : 0;
        uint64_t file = f->file >= 0 ? r->files + (uint64_t)f->file * r->sz_file : 0;
        tw__buf_set_u64(b, q + 0x08, mod);
        tw__buf_set_u64(b, q + 0x10, f->offset);
        tw__buf_set_u64(b, q + 0x18, file);
        tw__buf_set_u32(b, q + 0x20, f->line);
    }
}

static unsigned flex_words(const tw_context *c)
{
    return (c->function >= 0) + 2u * (c->file >= 0) + 2u * (c->module >= 0);
}

static int is_entry(const tw_hpctk4 *d, const tw_context *c)
{
    return !d->devstage && c->parent < 0;
}

static unsigned record_size(const tw_hpctk4 *d, const tw_context *c)
{
    if (is_entry(d, c))
        return 0x20 + d->extra; /* szEntryPoint */
    return (d->devstage ? 0x18 : 0x20) + 8 * flex_words(c);
}

/* Encodes one {Ctx} / {Entry} into rec[]; returns its size. */
static unsigned encode_context(const tw_hpctk4 *d, const meta_refs *r, size_t i, uint64_t children,
                               uint64_t sz_children, unsigned char *rec)
{
    const tw_context *c = &d->contexts[i];
    unsigned size = record_size(d, c);
    memset(rec, 0, size);
    tw__le64(rec + 0x00, sz_children);
    tw__le64(rec + 0x08, children);
    tw__le32(rec + 0x10, c->id);
    if (is_entry(d, c)) {
        tw__le16(rec + 0x14, c->entry_point);
        tw__le64(rec + 0x18, r->entry_str[i]);
        return size;
    }
    uint8_t flags = (uint8_t)((c->function >= 0) | (c->file >= 0) << 1 | (c->module >= 0) << 2);
    rec[0x14] = flags;
    rec[0x15] = c->relation;
    rec[0x16] = c->lexical_type;
    rec[0x17] = (unsigned char)flex_words(c);
    unsigned char *flex = rec + 0x18;
    if (!d->devstage) {
        tw__le16(rec + 0x18, c->propagation);
        flex = rec + 0x20;
    }
    /* Packing order: pFunction; pFile, line (u32 in the low half of its word); pModule, offset. */
    if (c->function >= 0) {
        tw__le64(flex, r->functions + (uint64_t)c->function * r->sz_function);
        flex += 8;
    }
    if (c->file >= 0) {
        tw__le64(flex, r->files + (uint64_t)c->file * r->sz_file);
        tw__le32(flex + 8, c->line);
        flex += 16;
    }
    if (c->module >= 0) {
        tw__le64(flex, r->modules + (uint64_t)c->module * r->sz_module);
        tw__le64(flex + 8, c->offset);
    }
    return size;
}

static int write_context(const tw_hpctk4 *d, tw__buf *b, const meta_refs *r)
{
    size_t n = d->n_contexts;
    int32_t *first = NULL, *last = NULL, *next = NULL, *queue = NULL;
    uint64_t *pos = NULL, *arr = NULL, *arr_size = NULL;
    int err = -ENOMEM;
    size_t alloc = n ? n : 1;
    first = malloc(alloc * sizeof *first);
    last = malloc(alloc * sizeof *last);
    next = malloc(alloc * sizeof *next);
    queue = malloc(alloc * sizeof *queue);
    pos = malloc(alloc * sizeof *pos);
    arr = calloc(alloc, sizeof *arr);
    arr_size = calloc(alloc, sizeof *arr_size);
    if (!first || !last || !next || !queue || !pos || !arr || !arr_size)
        goto out;

    /* Children lists in array order; top-level nodes collected separately. */
    size_t n_top = 0;
    int32_t top_first = -1, top_last = -1;
    for (size_t i = 0; i < n; i++)
        first[i] = last[i] = next[i] = -1;
    for (size_t i = 0; i < n; i++) {
        int32_t p = d->contexts[i].parent;
        int32_t *f = p < 0 ? &top_first : &first[p], *l = p < 0 ? &top_last : &last[p];
        if (*l < 0)
            *f = (int32_t)i;
        else
            next[*l] = (int32_t)i;
        *l = (int32_t)i;
        n_top += p < 0;
    }

    uint64_t start = section_begin(b);
    tw__buf_zero(b, (d->devstage ? 0x10u : 0x0bu) + d->extra);

    /* Children arrays breadth-first, then the top-level array last (where hpcprof puts it). */
    size_t head = 0, tail = 0;
    for (int32_t c = top_first; c >= 0; c = next[c])
        queue[tail++] = c;
    while (head < tail) {
        int32_t v = queue[head++];
        if (first[v] < 0)
            continue;
        tw__buf_align(b, 8);
        uint64_t at = tw__buf_pos(b), acc = 0;
        for (int32_t c = first[v]; c >= 0; c = next[c]) {
            pos[c] = at + acc;
            acc += record_size(d, &d->contexts[c]);
            queue[tail++] = c;
        }
        tw__buf_zero(b, (size_t)acc);
        arr[v] = at;
        arr_size[v] = acc;
    }
    uint64_t top = 0, top_size = 0;
    if (n_top) {
        tw__buf_align(b, 8);
        top = tw__buf_pos(b);
        for (int32_t c = top_first; c >= 0; c = next[c]) {
            pos[c] = top + top_size;
            top_size += record_size(d, &d->contexts[c]);
        }
        tw__buf_zero(b, (size_t)top_size);
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char rec[0x20 + 5 * 8 + 256];
        unsigned size = encode_context(d, r, i, arr[i], arr_size[i], rec);
        tw__buf_patch(b, pos[i], rec, size);
    }
    if (d->devstage) {
        tw__buf_set_u64(b, start + 0x00, top_size);
        tw__buf_set_u64(b, start + 0x08, top);
    } else {
        tw__buf_set_u64(b, start + 0x00, top);
        tw__buf_set_u16(b, start + 0x08, (uint16_t)n_top);
        tw__buf_set_u8(b, start + 0x0a, (uint8_t)(0x20 + d->extra));
    }
    section_end(b, SEC_CONTEXT, start);
    err = 0;
out:
    free(first);
    free(last);
    free(next);
    free(queue);
    free(pos);
    free(arr);
    free(arr_size);
    return err;
}

int tw__meta_write(const tw_hpctk4 *d, tw__buf *b)
{
    int err = tw__check_desc(d);
    if (err)
        return err;
    meta_refs r;
    memset(&r, 0, sizeof r);
    r.mod_str = malloc((d->n_modules + 1) * sizeof *r.mod_str);
    r.file_str = malloc((d->n_files + 1) * sizeof *r.file_str);
    r.func_str = malloc((d->n_functions + 1) * sizeof *r.func_str);
    r.entry_str = malloc((d->n_contexts + 1) * sizeof *r.entry_str);
    err = -ENOMEM;
    if (!r.mod_str || !r.file_str || !r.func_str || !r.entry_str)
        goto out;

    tw__file_magic(b, "meta", d->minor);
    tw__buf_zero(b, 0x90 - 0x10); /* section table, filled by section_end() */
    write_general(d, b);
    write_id_names(d, b);
    if (d->devstage)
        write_metrics_dev(d, b);
    else
        write_metrics_final(d, b);
    write_strings(d, b, &r);
    write_tables(d, b, &r);
    err = write_context(d, b, &r);
    if (err)
        goto out;
    tw__buf_align(b, 8);
    tw__buf_put(b, "_meta.db", 8);
    err = b->err;
out:
    free(r.mod_str);
    free(r.file_str);
    free(r.func_str);
    free(r.entry_str);
    return err;
}
