/* Opening a set of hpcrun files: one file, a measurements directory or
 * caller buffers. Files are recognised by their magic; in a directory only
 * *.hpcrun and *.hpctrace are read (hpcrun also leaves .log and all.lm
 * there, which are not profile data). X.hpctrace joins X.hpcrun.
 *
 * Descriptors: each file is opened, mapped and closed in turn
 * (profdb__input_open), so the set holds mappings, never descriptors. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpcrun-internal.h"
#include "../core/table-internal.h"

static const char MAGIC_PROF[] = "HPCRUN-profile____";
static const char MAGIC_TRACE[] = "HPCRUN-trace______";

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int digit2(const unsigned char *p, uint8_t *v)
{
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return -1;
	*v = (uint8_t)((p[0] - '0') * 10 + (p[1] - '0'));
	return 0;
}

/* Magic, version "MM.mm" and the "b" (big-endian) marker. */
static int check_magic(profdb_hpcrun *h, hr_file *f)
{
	const profdb__input *in = &f->in;
	size_t n = in->size < HR_HDR ? (size_t)in->size : HR_HDR;
	int prof = memcmp(in->base, MAGIC_PROF, n < 18 ? n : 18) == 0;
	int trace = memcmp(in->base, MAGIC_TRACE, n < 18 ? n : 18) == 0;
	if (!prof && !trace)
		return profdb__fail(-EPROTONOSUPPORT, "%s: not an hpcrun file: magic at offset 0 is "
		                    "neither \"%s\" nor \"%s\"", in->name, MAGIC_PROF, MAGIC_TRACE);
	if (in->size < HR_HDR)
		return profdb__fail(-ENODATA, "%s: %" PRIu64 " bytes is shorter than the 24-byte "
		                    "header: truncated", in->name, in->size);
	const unsigned char *v = in->base + 18;
	f->is_trace = trace;
	if (digit2(v, &f->major) < 0 || v[2] != '.' || digit2(v + 3, &f->minor) < 0)
		return profdb__fail(-EPROTONOSUPPORT, "%s: version at offset 0x12 is not \"MM.mm\"",
		                    in->name);
	if (v[5] != 'b')
		return profdb__fail(-EPROTONOSUPPORT, "%s: byte order mark at offset 0x17 is '%c', "
		                    "only 'b' (big-endian) is written by hpcrun", in->name,
		                    v[5] >= 0x20 && v[5] < 0x7f ? v[5] : '?');
	int ok = trace ? f->major == 1 : f->major >= 2 && f->major <= 4;
	if (!ok)
		return profdb__fail(-EPROTONOSUPPORT, "%s: %s version %02u.%02u is not supported "
		                    "(%s)", in->name, trace ? "hpctrace" : "hpcrun", f->major, f->minor,
		                    trace ? "01.xx is" : "02.00, 03.00 and 04.00 are");
	if ((trace && f->minor > 1) || (!trace && f->minor > 0))
		profdb__warn(&h->opts, "%s: minor version %02u.%02u is newer than this reader knows; "
		             "reading it as %02u.%02u", in->name, f->major, f->minor, f->major,
		             trace ? 1 : 0);
	return 0;
}

static char *stem_of(const char *name)
{
	size_t n = strlen(name);
	if (has_suffix(name, ".hpcrun"))
		n -= 7;
	else if (has_suffix(name, ".hpctrace"))
		n -= 9;
	return strndup(name, n);
}

/* <prog>-<rank>-<thread>-<hostid hex>-<pid>-<n>: parsed from the right,
 * since the program name may itself contain '-'. */
static void identity(hr_profile *p)
{
	const char *s = p->stem, *end = s + strlen(s);
	int64_t v[5];
	for (int k = 4; k >= 0; k--) {
		const char *dash = end;
		while (dash > s && dash[-1] != '-')
			dash--;
		if (dash == end || dash == s)
			return;
		int64_t x = 0;
		for (const char *c = dash; c < end; c++) {
			int d = *c >= '0' && *c <= '9' ? *c - '0'
			        : k == 2 && *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
			        : k == 2 && *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
			if (d < 0 || x > (INT64_MAX - d) / 16)
				return;
			x = x * (k == 2 ? 16 : 10) + d;
		}
		v[k] = x;
		end = dash - 1;
	}
	p->rank = v[0];
	p->thread = v[1];
	p->host_id = v[2];
	p->pid = v[3];
	p->generation = v[4];
}

static int cmp_profile(const void *a, const void *b)
{
	const hr_profile *x = a, *y = b;
	int c = strcmp(x->stem, y->stem);
	if (c)
		return c;
	return (x->epoch > y->epoch) - (x->epoch < y->epoch);
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const hr_file *)a)->name, ((const hr_file *)b)->name);
}

/* Parse one file: a trace into h->traces, a profile's epochs appended to
 * h->profiles. On failure nothing of the file stays in the set. */
static int parse_file(profdb_hpcrun *h, hr_file *f)
{
	size_t first = h->n_profiles;
	int r = check_magic(h, f);
	if (r == 0 && f->is_trace) {
		if ((r = profdb__hpcrun_trace_open(h, f, &h->traces[h->n_traces])) == 0)
			h->n_traces++;
		return r;
	}
	if (r == 0)
		r = f->major == 4 ? profdb__hpcrun_parse_v4(h, f) : profdb__hpcrun_parse_v2(h, f);
	if (r < 0) {
		while (h->n_profiles > first)
			profdb__hpcrun_profile_free(&h->profiles[--h->n_profiles]);
		free(f->attrs);
		f->attrs = NULL;
		f->n_attrs = 0;
	}
	return r;
}

/* Parse every file of h->files (inputs already set), then group. In
 * tolerant mode a file that does not parse is reported and left out. */
static int build(profdb_hpcrun *h)
{
	int r;
	qsort(h->files, h->n_files, sizeof *h->files, cmp_file);
	for (size_t i = 1; i < h->n_files; i++)
		if (strcmp(h->files[i].name, h->files[i - 1].name) == 0)
			return profdb__fail(-EINVAL, "two inputs are named \"%s\"", h->files[i].name);
	h->traces = calloc(h->n_files ? h->n_files : 1, sizeof *h->traces);
	if (!h->traces)
		return profdb__fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < h->n_files; i++) {
		hr_file *f = &h->files[i];
		size_t first = h->n_profiles;
		if ((r = parse_file(h, f)) < 0) {
			if (!(h->opts.flags & PROFDB_OPEN_TOLERANT) || r == -ENOMEM)
				return r;
			profdb__warn(&h->opts, "%s (tolerant mode: %s left out of the set)",
			             profdb_error_message(), f->name);
			continue;
		}
		if (f->is_trace)
			continue;
		for (size_t k = first; k < h->n_profiles; k++)
			if (!(h->profiles[k].stem = stem_of(f->name)))
				return profdb__fail(-ENOMEM, "out of memory");
		if (!h->any_profile) {
			h->any_profile = 1;
			h->major = f->major;
			h->minor = f->minor;
		} else if (!h->mixed && (f->major != h->major || f->minor != h->minor)) {
			h->mixed = 1;
			profdb__warn(&h->opts, "%s: version %02u.%02u differs from %02u.%02u of the "
			             "first .hpcrun file; each profile is read with its own version",
			             f->in.name, f->major, f->minor, h->major, h->minor);
		}
	}
	/* Join traces by stem; a trace alone becomes a trace-only profile. */
	size_t n_real = h->n_profiles;
	for (size_t i = 0; i < h->n_traces; i++) {
		hr_trace *t = &h->traces[i];
		char *stem = stem_of(t->file->name);
		if (!stem)
			return profdb__fail(-ENOMEM, "out of memory");
		hr_profile *owner = NULL;
		for (size_t k = 0; k < n_real && !owner; k++)
			if (strcmp(h->profiles[k].stem, stem) == 0)
				owner = &h->profiles[k];  /* epoch 0: the first one of the file */
		if (owner && owner->trace) {
			free(stem);
			return profdb__fail(-EINVAL, "%s: a second trace for profile \"%s\"",
			                    t->file->name, owner->stem);
		}
		if (!owner) {
			profdb__warn(&h->opts, "%s: no matching .hpcrun file; opened as a trace-only "
			             "profile (CCT ids cannot be resolved)", t->file->in.name);
			if (!(owner = profdb__hpcrun_new_profile(&h->profiles, &h->n_profiles,
			                                                 &h->cap_profiles, NULL))) {
				free(stem);
				return -ENOMEM;
			}
			owner->n_epochs = 1;
			owner->stem = stem;
		} else {
			free(stem);
		}
		owner->trace = t;
	}
	if (h->n_profiles == 0)
		return profdb__fail(-ENOENT, "no .hpcrun or .hpctrace input");
	qsort(h->profiles, h->n_profiles, sizeof *h->profiles, cmp_profile);
	for (size_t i = 0; i < h->n_profiles; i++) {
		identity(&h->profiles[i]);
		profdb__once_init(&h->profiles[i].tree_once);
		profdb__once_init(&h->profiles[i].incl_once);
		profdb__once_init(&h->profiles[i].dense_once);
	}
	h->ready = 1;
	return 0;
}

static profdb_hpcrun *alloc_set(const profdb_options *opts, size_t n)
{
	profdb_hpcrun *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	profdb__options_copy(&h->opts, opts);
	h->files = calloc(n ? n : 1, sizeof *h->files);
	if (!h->files) {
		free(h);
		return NULL;
	}
	return h;
}

PROFDB_EXPORT void profdb_hpcrun_close(profdb_hpcrun *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_profiles; i++) {
		/* the once objects exist only after a successful build */
		if (h->ready) {
			profdb__once_destroy(&h->profiles[i].tree_once);
			profdb__once_destroy(&h->profiles[i].incl_once);
			profdb__once_destroy(&h->profiles[i].dense_once);
		}
		profdb__hpcrun_profile_free(&h->profiles[i]);
	}
	free(h->profiles);
	for (size_t i = 0; i < h->n_files; i++) {
		profdb__input_close(&h->files[i].in);
		free(h->files[i].attrs);
		free(h->files[i].name);
	}
	free(h->files);
	free(h->traces);
	free(h);
}

static int finish(profdb_hpcrun **ret, profdb_hpcrun *h)
{
	int r = build(h);
	if (r < 0) {
		profdb_hpcrun_close(h);
		return r;
	}
	*ret = h;
	return 0;
}

PROFDB_EXPORT int profdb_hpcrun_open_inputs(profdb_hpcrun **ret, const profdb_input *inputs,
                                            size_t n, const profdb_options *opts)
{
	if (!ret)
		return profdb__fail(-EINVAL, "profdb_hpcrun_open_inputs: NULL output");
	*ret = NULL;
	if (!inputs && n)
		return profdb__fail(-EINVAL, "profdb_hpcrun_open_inputs: NULL inputs");
	int opts_ok = profdb__options_check(opts, "profdb_hpcrun_open_inputs");
	if (opts_ok < 0)
		return opts_ok;
	profdb_hpcrun *h = alloc_set(opts, n);
	if (!h)
		return profdb__fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		hr_file *f = &h->files[h->n_files];
		char buf[64];
		if (!inputs[i].data)
			continue;
		if (inputs[i].name) {
			f->name = strdup(inputs[i].name);
		} else {
			snprintf(buf, sizeof buf, "input-%zu", i);
			f->name = strdup(buf);
		}
		if (!f->name) {
			profdb_hpcrun_close(h);
			return profdb__fail(-ENOMEM, "out of memory");
		}
		h->n_files++;
		profdb__input_mem(&f->in, inputs[i].data, inputs[i].size, f->name);
	}
	return finish(ret, h);
}

/* Open one file into h->files[h->n_files]. */
static int open_one(profdb_hpcrun *h, const char *path, const char *name)
{
	hr_file *f = &h->files[h->n_files];
	if (!(f->name = strdup(name)))
		return profdb__fail(-ENOMEM, "out of memory");
	int r = profdb__input_open(&f->in, path, f->name, h->opts.flags);
	if (r < 0) {
		free(f->name);
		f->name = NULL;
		return r;
	}
	h->n_files++;
	return 0;
}

/* X.hpctrace for X.hpcrun and the reverse (malloc'ed); NULL for any other
 * name or without memory. */
static char *partner_path(const char *path)
{
	size_t n = strlen(path);
	const char *from = has_suffix(path, ".hpcrun") ? ".hpcrun"
	                   : has_suffix(path, ".hpctrace") ? ".hpctrace" : NULL;
	if (!from)
		return NULL;
	const char *to = from[4] == 'r' ? ".hpctrace" : ".hpcrun";
	size_t stem = n - strlen(from);
	char *p = malloc(stem + strlen(to) + 1);
	if (p) {
		memcpy(p, path, stem);
		strcpy(p + stem, to);
	}
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int open_dir(profdb_hpcrun **ret, const char *path, const profdb_options *opts)
{
	DIR *d = opendir(path);
	if (!d) {
		int e = -errno;
		return profdb__fail(e, "%s: cannot open directory: %s", path, strerror(-e));
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!has_suffix(de->d_name, ".hpcrun") && !has_suffix(de->d_name, ".hpctrace"))
			continue;
		if (profdb__grow((void **)&names, &cap, n + 1, sizeof *names) < 0) {
			r = -ENOMEM;
			break;
		}
		if (!(names[n] = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	profdb_hpcrun *h = r < 0 ? NULL : alloc_set(opts, n);
	if (!h) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return profdb__fail(-ENOMEM, "%s: out of memory", path);
	}
	if (n == 0) {
		free(names);
		profdb_hpcrun_close(h);
		return profdb__fail(-ENOENT, "%s: no .hpcrun or .hpctrace file in the directory", path);
	}
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n && r >= 0; i++) {
		size_t len = strlen(path) + strlen(names[i]) + 2;
		char *full = malloc(len);
		if (!full) {
			r = profdb__fail(-ENOMEM, "out of memory");
			break;
		}
		snprintf(full, len, "%s/%s", path, names[i]);
		r = open_one(h, full, names[i]);
		free(full);
		/* thousands of files: say how far, and let the caller cancel */
		if (r >= 0 && (i & 255) == 255 && h->opts.progress &&
		    h->opts.progress(i + 1, n, h->opts.progress_userdata))
			r = profdb__fail(-ECANCELED, "%s: cancelled by the progress callback", path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (r < 0) {
		profdb_hpcrun_close(h);
		return r;
	}
	return finish(ret, h);
}

PROFDB_EXPORT int profdb_hpcrun_open(profdb_hpcrun **ret, const char *path,
                                     const profdb_options *opts)
{
	struct stat st;
	if (!ret || !path)
		return profdb__fail(-EINVAL, "profdb_hpcrun_open: NULL argument");
	*ret = NULL;
	int opts_ok = profdb__options_check(opts, "profdb_hpcrun_open");
	if (opts_ok < 0)
		return opts_ok;
	if (stat(path, &st) < 0) {
		int e = -errno;
		return profdb__fail(e, "%s: %s", path, strerror(-e));
	}
	if (S_ISDIR(st.st_mode))
		return open_dir(ret, path, opts);
	/* One file, and its partner next to it: X.hpctrace for X.hpcrun, and
	 * the reverse, so a profile comes with its trace. */
	char *partner = partner_path(path);
	struct stat pst;
	int with_partner = partner && stat(partner, &pst) == 0 && S_ISREG(pst.st_mode);
	profdb_hpcrun *h = alloc_set(opts, with_partner ? 2 : 1);
	if (!h) {
		free(partner);
		return profdb__fail(-ENOMEM, "out of memory");
	}
	int r = open_one(h, path, profdb__base_name(path));
	if (r >= 0 && with_partner)
		r = open_one(h, partner, profdb__base_name(partner));
	free(partner);
	if (r < 0) {
		profdb_hpcrun_close(h);
		return r;
	}
	return finish(ret, h);
}
