#!/usr/bin/env python3
"""profdb convert -t callgrind / -t pprof on every real sample.

For every HPCToolkit (4.0, dev-stage, pre-release), hpcrun, Cube and
Callgrind sample under DATA_DIR:
  - both conversions succeed with the default metrics (every sum metric with
    values); a metric refused for a negative self cost must really have one:
    `profdb top --by context --exclusive` shows it below -0.5 units. Any
    other refusal fails the test (the list printed at the end is empty);
  - the Callgrind file is read back by profdb, whose totals equal its
    totals: line, and by callgrind_annotate, whose PROGRAM TOTALS equal it
    too; each event's total equals profdb's total of the source metric
    (`profdb top --json`, over the non-summary profiles) times the event's
    unit factor, within the rounding allowed (0.5 per cost line);
  - the pprof file is read by `go tool pprof -raw` (its sample values summed
    per type equal the Callgrind totals exactly: the same costs), and the
    first of each source format by `go tool pprof -top`;
  - Callgrind inputs round-trip: reading the source and the output back
    with profdb gives the same self costs per (function, position, event),
    the same call edges (counts and costs) and totals, and the same jumps;
    with --separate, per profile.
Clients that are not installed are skipped with a visible count.

Usage: convert_check.py PROFDB DATA_DIR WORKDIR [--quick] [--big] [--all-clients]
(--big: only the samples under callgrind/big, slow, a test of their own;
without it everything else. --all-clients: callgrind_annotate and go tool
pprof read outputs over 16 MiB too, which takes minutes.)
(PROFDB_SAMPLE_DATA, when set, replaces DATA_DIR.) Exit: 0 ok, 1 a
difference, 77 no data (meson's SKIP).
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict

NOT_PROFILES = ('README.md', 'commands.log')
# Samples profdb refuses to open on purpose (tests/cg_function_check.py)
REJECTED = ('edge/truncated.out', 'callgrind.invalid.version_too_high.out',
            'callgrind.subposition-compression.log', 'callgrind.empty.out')
ROUND_TRIP_MAX = 4 << 20     # bytes of text: larger files get totals only
CLIENT_MAX = 16 << 20        # Callgrind output read by the outside clients
SEPARATE_MAX = 16            # profiles of an input checked with --separate


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def samples(data):
    out = []
    for sub in ('hpctoolkit/v4', 'hpctoolkit/v4-devstage', 'hpctoolkit/prerelease',
                'hpctoolkit/hpcrun'):
        d = os.path.join(data, sub)
        if os.path.isdir(d):
            out += [os.path.join(d, n) for n in sorted(os.listdir(d))]
    d = os.path.join(data, 'cube')
    if os.path.isdir(d):
        out += [os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith('.cubex')]
    d = os.path.join(data, 'callgrind')
    for root, dirs, files in os.walk(d):
        dirs.sort()
        if '/src' in root[len(d):]:
            continue
        out += [os.path.join(root, n) for n in sorted(files) if n not in NOT_PROFILES]
    return out


class Check:
    def __init__(self, profdb, work):
        self.profdb, self.work = profdb, work
        self.failures, self.refused, self.skips = [], [], defaultdict(int)
        self.counts = defaultdict(int)
        env = dict(os.environ)
        env.setdefault('HOME', work)
        env.setdefault('GOCACHE', os.path.join(work, 'gocache'))
        env['HOME'] = env['HOME'] if os.access(env['HOME'], os.W_OK) else work
        self.env = env
        self.annotate = shutil.which('callgrind_annotate')
        self.pprof = pprof_command(env)
        self.top_read = set()        # the source formats whose pprof output -top read

    def fail(self, what):
        self.failures.append(what)
        print('FAIL', what, flush=True)

    def pjson(self, *args):
        r = run([self.profdb] + list(args))
        if r.returncode:
            raise RuntimeError(f'profdb {" ".join(args)}: {r.stderr.strip()}')
        return json.loads(r.stdout)

    # ---- profdb's side ----------------------------------------------------
    def source_totals(self, path, metrics, selection):
        """profdb's total of each metric (id or name), one `top` run."""
        args = ['top', '--json', '-m', ','.join(str(m) for m in metrics), '-n', '1']
        if selection:
            args += ['--profiles', selection]
        return [m['total'] or 0.0 for m in self.pjson(*args, path)['metrics']]

    def negative_self(self, path, metric, limit, selection):
        """Does profdb's own exclusive ranking show a cost below @limit?"""
        args = ['top', '--json', '-m', str(metric), '-n', '0', '--by', 'context', '--exclusive']
        if selection:
            args += ['--profiles', selection]
        rows = self.pjson(*args, path)['rows']
        return any(r['value'] is not None and r['value'] < limit for r in rows)

    # ---- the Callgrind output ------------------------------------------------
    @staticmethod
    def parse_events(rows):
        events, factors, metric = [], {}, {}
        for line in rows:
            if line.startswith('event: '):
                name, _, long = line[7:].partition(' : ')
                m = re.search(r'\(x ([0-9.e+]+) from', long)
                factors[name.strip()] = float(m.group(1)) if m else 1.0
                m = re.search(r'\[metric (\d+)\]', long)
                if m:
                    metric[name.strip()] = int(m.group(1))
            elif line.startswith('events: '):
                events = line[8:].split()
            elif line.startswith(('fn=', 'ob=', 'fl=')):
                break
        return events, factors, metric

    @staticmethod
    def totals_lines(rows):
        return [[int(x) for x in l.split()[1:]] for l in rows if l.startswith('totals:')]

    def annotate_totals(self, path):
        r = run([self.annotate, path])
        if r.returncode:
            return None, r.stderr.strip()[-300:]
        for line in r.stdout.splitlines():
            if 'PROGRAM TOTALS' in line:
                # "1,234 (100.0%)" per event; "." for a zero
                toks = [t for t in line.split('PROGRAM TOTALS')[0].split() if not t.startswith('(')]
                return [0 if t == '.' else int(t.replace(',', '')) for t in toks], None
        return None, 'no PROGRAM TOTALS line'

    def convert(self, path, fmt, out, metrics=None, extra=()):
        args = [self.profdb, 'convert', '-t', fmt, '-o', out] + list(extra)
        if metrics is not None:
            args += ['-m', ','.join(str(m) for m in metrics)]
        return run(args + [path])

    def convert_retrying(self, path, fmt, out, eligible, selection):
        """Convert with the default metrics; a refusal for a negative self
        cost is checked and the metric left out. Returns the metrics used
        (None: the default) or False when refused for another reason."""
        metrics = None
        for _ in range(len(eligible) + 1):
            r = self.convert(path, fmt, out, metrics)
            if r.returncode == 0:
                return metrics
            msg = r.stderr.strip()
            m = re.search(r"metric id (\d+) (?:\('[^']*'\) )?has a negative", msg)
            bad = int(m.group(1)) if m else None
            if bad is None or bad not in eligible:
                self.refused.append((path, fmt, msg))
                print('REFUSED', path, fmt, msg, flush=True)
                return False
            limit = -5e-10 if eligible[bad]['type'] == 'f64' else -0.5
            if not self.negative_self(path, bad, limit, selection):
                self.fail(f'{path}: {fmt} refused metric {bad} as negative, but profdb '
                          f'shows no negative self cost: {msg}')
                return False
            self.counts['negative metrics left out'] += 1
            metrics = [i for i in (metrics or eligible) if i != bad]
            if not metrics:
                return 'none left'

        return False

    # ---- one sample ----------------------------------------------------------
    def eligible(self, path):
        """The metrics the default conversion writes: every sum metric with
        values; for Callgrind every event (doc/CONVERT.md)."""
        ms = self.pjson('metrics', '--json', path)['metrics']
        cg = path.startswith(os.path.join(DATA, 'callgrind'))
        return {m['id']: m for m in ms
                if m['combine'] == 'sum' and m['kind'] not in ('summary', 'derived')
                and m['has_data'] and (m.get('has_values') or cg)}

    def selection(self, path):
        ps = self.pjson('profiles', '--json', path)['profiles']
        idx = [p['index'] for p in ps if not p.get('summary', p.get('is_summary'))]
        if len(idx) == len(ps):
            return None
        return ','.join(str(i) for i in idx)

    def check_sample(self, path, quick):
        base = os.path.join(self.work, re.sub(r'[^A-Za-z0-9_.-]', '_', os.path.relpath(path, '/')))
        try:
            eligible = self.eligible(path)
            sel = self.selection(path)
        except RuntimeError as e:
            self.fail(f'{path}: {e}')
            return
        cg_out = base + '.callgrind'
        if not eligible:            # trace-only measurements, Callgrind without events
            r = self.convert(path, 'callgrind', cg_out)
            if r.returncode == 0 or 'no metric to write' not in r.stderr:
                self.fail(f'{path}: no metric with values, yet: {r.returncode} {r.stderr}')
            self.skips['samples without a metric with values (refusal checked)'] += 1
            return
        used = self.convert_retrying(path, 'callgrind', cg_out, eligible, sel)
        if used is False:
            return
        if used == 'none left':
            self.skips['samples whose every metric has a negative self cost'] += 1
            return
        self.counts['callgrind files'] += 1
        with open(cg_out) as f:
            rows = f.read().splitlines()    # split once: 74 MB from the big profile
        events, factors, metric_of = self.parse_events(rows)
        totals = self.totals_lines(rows)
        if len(totals) != 1 or len(totals[0]) != len(events):
            self.fail(f'{path}: callgrind output has {len(totals)} totals: lines for {events}')
            return
        totals = totals[0]
        lines = sum(1 for l in rows if l[:1].isdigit())    # cost lines, 0x... too
        # profdb reads it back
        if events:
            got = self.source_totals(cg_out, events, None)
            if got != totals:
                self.fail(f'{cg_out}: profdb reads totals {got}, totals: says {totals}')
        # against the source, within the rounding
        ids = []
        for ev in events:
            mid = metric_of.get(ev)
            if mid is None:             # a Callgrind input keeps its event names
                mid = next((i for i, m in eligible.items() if m['name'] == ev), None)
            if mid is None:
                self.fail(f'{path}: event {ev} names no metric')
                return
            ids.append(mid)
        want = self.source_totals(path, ids, sel) if ids else []
        for k, ev in enumerate(events):
            w = want[k] * factors.get(ev, 1.0)
            if abs(w - totals[k]) > 0.5 * lines + 1e-9 * abs(w) + 1e-6:
                self.fail(f'{path}: event {ev}: callgrind total {totals[k]}, profdb total x '
                          f'factor {w}')
            self.counts['event totals'] += 1
        big = os.path.getsize(cg_out) > CLIENT_MAX
        if big:
            self.skips[f'callgrind_annotate and go tool pprof (output over {CLIENT_MAX >> 20} '
                       'MiB: profdb reads it back only)'] += 1
        if big:
            pass
        elif self.annotate:
            got, err = self.annotate_totals(cg_out)
            if got is None:
                self.fail(f'{cg_out}: callgrind_annotate: {err}')
            elif got != totals:
                self.fail(f'{cg_out}: callgrind_annotate PROGRAM TOTALS {got} != {totals}')
            else:
                self.counts['callgrind_annotate'] += 1
        else:
            self.skips['callgrind_annotate (not installed)'] += 1
        self.check_pprof(path, base, used, events, totals, big)
        if path.startswith(os.path.join(DATA, 'callgrind')):
            self.round_trip(path, cg_out, base, quick)

    def check_pprof(self, path, base, used, events, totals, big):
        out = base + '.pb.gz'
        r = self.convert(path, 'pprof', out, used)
        if r.returncode:
            self.refused.append((path, 'pprof', r.stderr.strip()))
            print('REFUSED', path, 'pprof', r.stderr.strip(), flush=True)
            return
        self.counts['pprof files'] += 1
        if big:
            return
        if not self.pprof:
            self.skips['go tool pprof (not installed)'] += 1
            return
        if not events:
            return
        r = run(self.pprof + ['-raw', out], env=self.env)
        if r.returncode:
            self.fail(f'{out}: go tool pprof -raw: {r.stderr.strip()[-300:]}')
            return
        sums = pprof_raw_sums(r.stdout)
        if sums is None or sums != totals:
            self.fail(f'{out}: go tool pprof -raw sums {sums} != callgrind totals {totals}')
            return
        self.counts['go tool pprof -raw'] += 1
        # -top parses the file as -raw does, then ranks: once per source
        # format (the writer's paths differ between formats, not samples).
        family = source_family(path)
        if family in self.top_read:
            return
        r = run(self.pprof + ['-top', out], env=self.env)
        if r.returncode or 'total' not in r.stdout:
            self.fail(f'{out}: go tool pprof -top: {r.stderr.strip()[-300:]}')
            return
        self.top_read.add(family)
        self.counts['go tool pprof -top (one output per source format)'] += 1


def pprof_command(env):
    """go tool pprof as a command list, or None: the pprof program itself
    when `go env GOTOOLDIR` names it (the go command in front of it costs
    as much as pprof's own run on these small files)."""
    go = shutil.which('go')
    if not go:
        return None
    r = run([go, 'env', 'GOTOOLDIR'], env=env)
    exe = os.path.join(r.stdout.strip(), 'pprof')
    if r.returncode == 0 and os.access(exe, os.X_OK):
        return [exe]
    return [go, 'tool', 'pprof']


def source_family(path):
    """The format folder of a sample: hpctoolkit/v4, cube, callgrind..."""
    rel = os.path.relpath(path, DATA).split(os.sep)
    return '/'.join(rel[:2] if rel[0] == 'hpctoolkit' else rel[:1])


def pprof_raw_sums(text):
    """Sum each sample type's values in `go tool pprof -raw` output."""
    lines = text.splitlines()
    try:
        i = lines.index('Samples:')
    except ValueError:
        return None
    types = lines[i + 1].split()
    sums = [0] * len(types)
    for line in lines[i + 2:]:
        if not line.strip() or not re.match(r'\s+\d', line) or ':' not in line:
            if line.startswith('Locations'):
                break
            continue
        vals = line.split(':')[0].split()
        for t, v in enumerate(vals[:len(types)]):
            sums[t] += int(v)
    return sums


def text_of(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data.decode('latin-1')


def jumps(text):
    """(jump lines, their counts, jcnd lines, executed, followed)."""
    j = [0, 0, 0, 0, 0]
    for line in text.splitlines():
        if line.startswith('jump='):
            j[0] += 1
            j[1] += int(line[5:].split()[0])
        elif line.startswith('jcnd='):
            f = line[5:].split()
            if '/' in f[0]:             # valgrind's FOLLOWED/EXECUTED
                followed, executed = (int(x) for x in f[0].split('/'))
            else:                       # the spec's EXECUTED FOLLOWED
                executed, followed = int(f[0]), int(f[1])
            j[2] += 1
            j[3] += executed
            j[4] += followed
    return j


def model(dump, combine):
    """Self costs per (profile, function, position, event) and call edges
    per (caller, callee, site) with counts and costs, keyed by names."""
    metrics = {m['id']: m['name'] for m in dump['metrics']}
    ctx = {c['id']: c for c in dump['contexts']}

    def unknown(f):
        # The Callgrind writer names an unknown file as valgrind does.
        return '' if f == '???' else f

    def fkey(c):
        return (c['module'], unknown(c['file']), c['function'])

    def key(cid):
        if cid is None:
            return None
        c = ctx[cid]
        if c['type'] in ('line', 'instruction'):
            return fkey(ctx[c['parent']]) + (unknown(c['file']), c['line'], c['offset'])
        return fkey(c)
    values = defaultdict(int)
    for p, cid, m, v in dump['values']:
        values[(0 if combine else p, key(cid), metrics[m])] += v
    edges = {}
    for e in dump['edges']:
        costs = {(0 if p is None else p + 1, metrics[m]): v for p, m, v in e['costs']
                 if (p is None) == combine}
        edges[(key(e['caller']), key(e['callee']), key(e['site']))] = (e['count'], costs)
    return dict(values), edges


def compare(what, a, b, fail):
    if a == b:
        return True
    diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)][:3]
    fail(f'{what}: {len(set(a) ^ set(b))} keys differ; e.g. ' +
         '; '.join(f'{k}: {a.get(k)} vs {b.get(k)}' for k in diff))
    return False


def round_trip(self, path, out, base, quick):
    if len(text_of(path)) > ROUND_TRIP_MAX:
        self.skips['Callgrind round trip (input over 4 MiB: totals only)'] += 1
        return
    src = self.pjson('dump', '--json', path)
    dst = self.pjson('dump', '--json', out)
    va, ea = model(src, True)
    vb, eb = model(dst, True)
    ok = compare(f'{out}: self costs (all profiles)', va, vb, self.fail)
    ok &= compare(f'{out}: call edges (all profiles)', ea, eb, self.fail)
    files = {v for p in src['profiles'] for k, v in p.get('identity', []) if k == 'file'}
    if len(files) <= 1:
        ja, jb = jumps(text_of(path)), jumps(text_of(out))
        if ja != jb:
            self.fail(f'{out}: jumps {jb} != source {ja}')
            ok = False
    self.counts['Callgrind round trips'] += ok
    if len(src['profiles']) < 2 or len(src['profiles']) > SEPARATE_MAX or quick:
        return
    sep = base + '.sep'
    r = run([self.profdb, 'convert', '-t', 'callgrind', '--separate', '-o', sep, path])
    if r.returncode:
        self.fail(f'{path}: --separate: {r.stderr.strip()}')
        return
    va, _ = model(src, False)
    ok = True
    for p in src['profiles']:
        i = p['index']
        dst = self.pjson('dump', '--json', f'{sep}.{i}')
        if len(dst['profiles']) != 1:
            self.fail(f'{sep}.{i}: {len(dst["profiles"])} profiles, expected 1')
            ok = False
            continue
        vb, _ = model(dst, True)
        ok &= compare(f'{sep}.{i}: self costs of profile {i}',
                      {k[1:]: v for k, v in va.items() if k[0] == i},
                      {k[1:]: v for k, v in vb.items()}, self.fail)
    self.counts['Callgrind --separate round trips'] += ok


Check.round_trip = round_trip
DATA = ''


def main():
    global DATA, CLIENT_MAX
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    profdb, DATA, work = sys.argv[1], os.environ.get('PROFDB_SAMPLE_DATA') or sys.argv[2], sys.argv[3]
    quick = '--quick' in sys.argv[4:]
    big = '--big' in sys.argv[4:]           # only callgrind/big (a test of its own)
    if '--all-clients' in sys.argv[4:]:     # the clients read every output (slow:
        CLIENT_MAX = 1 << 62                # ~30 s of callgrind_annotate on 74 MB)
    if not os.path.isdir(DATA):
        print(f'SKIP: no sample data at {DATA}')
        return 77
    os.makedirs(work, exist_ok=True)
    c = Check(profdb, work)
    files = [f for f in samples(DATA)
             if ('/callgrind/big/' in f) == big]
    for path in files:
        rel = os.path.relpath(path, DATA)
        if any(rel.endswith(x) for x in REJECTED):
            r = run([profdb, 'info', path])
            if r.returncode == 0:
                c.fail(f'{path}: expected profdb to refuse it')
            c.skips['inputs profdb refuses on purpose'] += 1
            continue
        # A build without zlib or expat answers -ENOTSUP for
        # what needs them: not this checker's business (the open tests
        # check that message), counted as a skip.
        r = run([profdb, 'info', path])
        if r.returncode and 'this build of' in r.stderr:
            c.skips['not readable by this build (no zlib or expat)'] += 1
            continue
        t0 = time.time()
        c.check_sample(path, quick)
        if time.time() - t0 > 2:
            print(f'slow: {path}: {time.time() - t0:.1f} s', flush=True)
    for k, v in sorted(c.counts.items()):
        print(f'checked: {k}: {v}')
    for k, v in sorted(c.skips.items()):
        print(f'SKIPPED: {k}: {v}')
    print(f'refused (file, format, message): {len(c.refused)}')
    for r in c.refused:
        print('  ', r)
    if c.failures or c.refused:
        print(f'{len(c.failures)} failures, {len(c.refused)} refused')
        return 1
    print(f'ok: {len(files)} samples')
    return 0


if __name__ == '__main__':
    sys.exit(main())
