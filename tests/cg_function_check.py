#!/usr/bin/env python3
"""Independent check of profdb's Callgrind function identity.

Reads every Callgrind file under a directory the way KCachegrind's loader
does -- name compression per ID space, fn= binding the current fl= file
and object, cfn= binding the callee -- and counts the distinct (object,
file, name) triples that occur as a function (a cost, calls= or jump line in its fn= block, or
the callee of a calls= line). It also sums the self cost per function name
and per event, and the calls= lines per (caller, callee): count and
inclusive cost per event. Then it opens each file with libprofdb (ctypes)
and compares: the function count, the self cost per name and event, the
totals, and the call edges of the common interface (profdb_edge_*, summed
over call sites and profiles) with the calls= lines.

Usage: cg_function_check.py LIBPROFDB.so DATA_DIR [--verbose] [--without-big]
(PROFDB_SAMPLE_DATA, when set, replaces DATA_DIR, as for the C tests.)
--without-big leaves out callgrind/big: cg_cycles_check.py --big makes
these checks on them with the same reading of the text it needs anyway
(reading the 66 MB profile here takes seconds of CPU).
Exit status: 0 all agree, 1 a difference, 77 no data (meson's SKIP).

The reader here is deliberately small and shares no code with profdb. It
follows the rules of doc/FORMATS.md ("Callgrind"), which follow KCachegrind:
  - ID spaces {ob, cob}, {fl, fi, fe, cfi, cfl, jfi}, {fn, cfn, jfn}; "(id)
    name" defines, "(id)" uses, an undefined id stands for the text "(id)";
    names of unknown key= lines ending in fn/ob/fl/fi/fe are registered;
  - a function is (object, file, name), as KCachegrind's TraceData::
    function(): the file is the fl= in effect at its fn= line ("" without
    any fl=); fi=/fe= only attribute the following cost lines to another
    source file and never change the function;
  - the callee of calls= is bound when cfn= is read: (the cob= given since
    the previous call, else the current ob=; the cfi=/cfl= given since the
    previous call, else the current file: the fl= file, or a fi=/fe= file
    given since fn=; the cfn= name). A cob=, cfi= or cfl= after cfn= does
    not change it. After the call's cost line cob=/cfi= are forgotten, the
    bound callee stays.
"""
import ctypes
import errno
import gzip
import os
import re
import sys

SP_OB, SP_FILE, SP_FN = 0, 1, 2
KEY_SPACE = {
    'ob': SP_OB, 'cob': SP_OB,
    'fl': SP_FILE, 'fi': SP_FILE, 'fe': SP_FILE, 'cfi': SP_FILE, 'cfl': SP_FILE,
    'jfi': SP_FILE,
    'fn': SP_FN, 'cfn': SP_FN, 'jfn': SP_FN,
}
ID_RE = re.compile(rb'^\((\d+)\)\s*(.*)$', re.S)
KEY_VALUE_RE = re.compile(rb'^([A-Za-z]+)=(.*)$', re.S)
HEADER_RE = re.compile(rb'^(\w+):\s*(.*)$', re.S)
# Files that are not Callgrind profiles, and the profiles profdb rejects on
# purpose (doc/FORMATS.md): they are skipped, but must still be rejected.
NOT_PROFILES = ('/src/',)
NOT_PROFILE_NAMES = ('README.md', 'commands.log')
EXPECTED_REJECT = {
    'edge/truncated.out',                                  # -ENODATA
    'public/iai-callgrind/callgrind.invalid.version_too_high.out',  # version: 2
    'public/speedscope/callgrind.subposition-compression.log',      # count "*"
}


def read_text(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return data


class Reader:
    def __init__(self):
        self.funcs = set()          # (object, file, name)
        self.self_by_name = {}      # name -> {event: sum}
        self.self_by_fn = {}        # (object, file, name) -> {event: sum}
        self.events = []            # the first part's events: names, in order
        self.totals = {}            # event -> sum
        self.calls = {}             # (caller, callee) -> [count, {event: inclusive}]

    def read(self, data):
        ids = [{}, {}, {}]
        ob = fn = fl = fn_fl = cur = b''   # cur: KCachegrind's currentFile
        have_fn = False
        cob = cfi = callee = None
        fn_key = None                      # the function whose sums per_fn holds
        pending = False
        events = []
        npos = 1
        own = {}        # self costs per function of this text: to the tables at the end
        for raw in data.split(b'\n'):
            line = raw.rstrip(b'\r').rstrip(b' \t')
            c = line[:1]
            if not c or c == b'#':
                continue
            # Cost lines first (most lines; none starts as a line tested
            # below does).
            if c in b'0123456789+-*':
                tok = line.split()
                if pending:                     # the call's inclusive cost
                    pending = False
                    cob = cfi = None
                    ent = self.calls.setdefault(call_key, [0, {}])
                    ent[0] += call_count
                    for ev, t in zip(events, tok[npos:]):
                        v = 0 if t[:1] == b'-' else int(t, 0)
                        ent[1][ev] = ent[1].get(ev, 0) + v
                    continue
                if not have_fn:
                    continue
                if fn_key != (ob, fn_fl, fn):   # the function's sums, once per fn= block
                    fn_key = (ob, fn_fl, fn)
                    self.funcs.add(fn_key)
                    per_fn = own.setdefault(fn_key, {})
                for ev, t in zip(events, tok[npos:]):
                    per_fn[ev] = per_fn.get(ev, 0) + (0 if t[:1] == b'-' else int(t, 0))
                continue
            if line.startswith(b'==== NEW PROFILING FILE'):
                ids = [{}, {}, {}]
                continue
            if line.startswith((b'events:', b'part:', b'thread:', b'pid:', b'positions:')):
                # a new part: KCachegrind forgets the current names
                ob = fn = fl = fn_fl = cur = b''
                have_fn = False
                cob = cfi = callee = None
            m = KEY_VALUE_RE.match(line)
            if m:
                key, val = m.group(1).decode(), m.group(2).lstrip(b' \t')
                if key == 'calls':
                    if callee is not None and have_fn:
                        self.funcs.add((ob, fn_fl, fn))
                        self.funcs.add(callee)
                        pending = True
                        call_key = ((ob, fn_fl, fn), callee)
                        c0 = val.split()[0] if val.split() else b'0'
                        call_count = 0 if c0.startswith(b'-') else int(c0, 0)
                    continue
                if key in ('jump', 'jcnd'):
                    if have_fn:
                        self.funcs.add((ob, fn_fl, fn))
                    continue
                sp = KEY_SPACE.get(key)
                if sp is None:                  # rec=, frfn=, bb=, cfni=, ...
                    sfx = key[-2:]
                    sp2 = {'fn': SP_FN, 'ob': SP_OB, 'fl': SP_FILE,
                           'fi': SP_FILE, 'fe': SP_FILE}.get(sfx)
                    mm = ID_RE.match(val)
                    if sp2 is not None and mm and mm.group(2):
                        ids[sp2][int(mm.group(1))] = mm.group(2)
                    continue
                name = self.resolve(ids[sp], val)
                if key == 'ob':
                    ob = name
                elif key == 'fl':
                    fl = cur = name
                elif key in ('fi', 'fe'):
                    cur = name
                elif key == 'fn':
                    fn, fn_fl, cur, have_fn = name, fl, fl, True
                elif key == 'cob':
                    cob = name
                elif key in ('cfi', 'cfl'):
                    cfi = name
                elif key == 'cfn':
                    callee = (cob if cob is not None else ob,
                              cfi if cfi is not None else cur, name)
                continue
            m = HEADER_RE.match(line)
            if m:
                key, val = m.group(1), m.group(2)
                if key == b'events':
                    events = [e.decode('utf-8', 'replace') for e in val.split()]
                    self.events = self.events or events
                elif key == b'positions':
                    npos = max(1, len(val.split()))
        # Per name and in total: the sums of the functions' sums (exact,
        # integers).
        for f, d in own.items():
            per = self.self_by_name.setdefault(f[2], {})
            per_fn = self.self_by_fn.setdefault(f, {})
            for ev, v in d.items():
                per[ev] = per.get(ev, 0) + v
                per_fn[ev] = per_fn.get(ev, 0) + v
                self.totals[ev] = self.totals.get(ev, 0) + v
        return self

    @staticmethod
    def resolve(table, val):
        m = ID_RE.match(val)
        if not m:
            return val
        i = int(m.group(1))
        if m.group(2):
            table[i] = m.group(2)
            return m.group(2)
        return table.get(i, b'(%d)' % i)


class Str(ctypes.Structure):
    _fields_ = [('ptr', ctypes.c_void_p), ('len', ctypes.c_size_t)]

    def bytes(self):
        return ctypes.string_at(self.ptr, self.len) if self.len else b''


class Func(ctypes.Structure):
    _fields_ = [('name', Str), ('object', Str), ('file', Str),
                ('self', ctypes.POINTER(ctypes.c_uint64)), ('reserved', ctypes.c_uint64 * 4)]


class Event(ctypes.Structure):
    _fields_ = [('name', Str), ('long_name', Str), ('formula', Str),
                ('reserved', ctypes.c_uint64 * 4)]


def profdb_read(lib, path):
    cg = ctypes.c_void_p()
    r = lib.profdb_cg_open(ctypes.byref(cg), path.encode(), None)
    if r < 0:
        return r, None
    try:
        ne = lib.profdb_cg_event_count(cg)
        evs = []
        for e in range(ne):
            ev = Event()
            lib.profdb_cg_event_get(cg, e, ctypes.byref(ev))
            evs.append(None if ev.formula.len else ev.name.bytes().decode('utf-8', 'replace'))
        nf = lib.profdb_cg_function_count(cg)
        pairs, by_name = set(), {}
        for i in range(nf):
            f = Func()
            lib.profdb_cg_function_get(cg, i, ctypes.byref(f))
            pairs.add((f.object.bytes(), f.file.bytes(), f.name.bytes()))
            per = by_name.setdefault(f.name.bytes(), {})
            for e, ev in enumerate(evs):
                if ev is not None and f.self[e]:
                    per[ev] = per.get(ev, 0) + f.self[e]
        return 0, {'count': nf, 'pairs': pairs, 'self': by_name}
    finally:
        lib.profdb_cg_close(cg)


class Edge(ctypes.Structure):
    _fields_ = [('caller', ctypes.c_uint32), ('callee', ctypes.c_uint32),
                ('site', ctypes.c_uint32), ('has_count', ctypes.c_int),
                ('count', ctypes.c_uint64), ('reserved', ctypes.c_uint64 * 2)]


class Input(ctypes.Structure):
    _fields_ = [('name', ctypes.c_char_p), ('data', ctypes.c_char_p), ('size', ctypes.c_size_t)]


class Number(ctypes.Structure):
    _fields_ = [('type', ctypes.c_int), ('u64', ctypes.c_uint64)]


def profdb_edges(lib, path):
    """The common interface's call edges summed per (caller, callee):
    {(caller triple, callee triple): [count, {event: inclusive}]}."""
    # The file alone, as the reader above reads it (profdb_open would add
    # its --separate-threads or dump-series siblings).
    with open(path, 'rb') as f:
        data = f.read()
    inp = Input(os.path.basename(path).encode(), data, len(data))
    db = ctypes.c_void_p()
    r = lib.profdb_open_inputs(ctypes.byref(db), ctypes.byref(inp), 1, None)
    if r < 0:
        return r, None
    try:
        cg = lib.profdb_get_cg(db)
        ne = lib.profdb_cg_event_count(cg)
        evs, fns = [], {}
        for e in range(ne):
            ev = Event()
            lib.profdb_cg_event_get(cg, e, ctypes.byref(ev))
            evs.append(None if ev.formula.len else ev.name.bytes().decode('utf-8', 'replace'))

        def fn(ctx):
            if ctx not in fns:
                f = Func()
                lib.profdb_cg_function_get(cg, ctx - 1, ctypes.byref(f))
                fns[ctx] = (f.object.bytes(), f.file.bytes(), f.name.bytes())
            return fns[ctx]
        n = lib.profdb_edge_count(db)
        if n < 0:
            return n, None
        out = {}
        for i in range(n):
            e, v = Edge(), Number()
            lib.profdb_edge_at(db, i, ctypes.byref(e))
            ent = out.setdefault((fn(e.caller), fn(e.callee)), [0, {}])
            ent[0] += e.count
            for m, ev in enumerate(evs):
                if ev is not None and lib.profdb_edge_inclusive(db, 0xffffffff, i, m,
                                                                ctypes.byref(v)) == 1:
                    ent[1][ev] = ent[1].get(ev, 0) + v.u64
        return 0, out
    finally:
        lib.profdb_close(db)


def same_calls(want, got):
    """Differences between the calls= lines and the edges (zero costs
    dropped on both sides)."""
    def norm(d):
        return {k: (c, {e: x for e, x in costs.items() if x}) for k, (c, costs) in d.items()}
    w, g = norm(want), norm(got)
    return [k for k in set(w) | set(g) if w.get(k) != g.get(k)]


def setup(lib):
    """The argument and result types of the calls made here."""
    lib.profdb_cg_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_void_p]
    lib.profdb_cg_close.argtypes = [ctypes.c_void_p]
    for fn in ('profdb_cg_event_count', 'profdb_cg_function_count'):
        getattr(lib, fn).argtypes = [ctypes.c_void_p]
        getattr(lib, fn).restype = ctypes.c_int64
    lib.profdb_cg_function_get.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    lib.profdb_cg_event_get.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    lib.profdb_open_inputs.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.c_void_p]
    lib.profdb_close.argtypes = [ctypes.c_void_p]
    lib.profdb_get_cg.argtypes = [ctypes.c_void_p]
    lib.profdb_get_cg.restype = ctypes.c_void_p
    lib.profdb_edge_count.argtypes = [ctypes.c_void_p]
    lib.profdb_edge_count.restype = ctypes.c_int64
    lib.profdb_edge_at.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p]
    lib.profdb_edge_inclusive.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64,
                                          ctypes.c_uint32, ctypes.c_void_p]


def compare(lib, path, got, want, verbose=False):
    """The differences between profdb's reading of @path (@got, from
    profdb_read, and its call edges) and the reader's (@want), as
    messages; [] when they agree."""
    msgs = []
    if got['count'] != len(want.funcs):
        msgs.append('functions: profdb %d, checker %d' % (got['count'], len(want.funcs)))
        if verbose:
            for x in sorted(got['pairs'] - want.funcs)[:5]:
                msgs.append('  only profdb: %r' % (x,))
            for x in sorted(want.funcs - got['pairs'])[:5]:
                msgs.append('  only checker: %r' % (x,))
    ws = {k: {e: v for e, v in d.items() if v} for k, d in want.self_by_name.items()}
    ws = {k: d for k, d in ws.items() if d}
    gs = {k: d for k, d in got['self'].items() if d}
    if ws != gs:
        diff = [k for k in set(ws) | set(gs) if ws.get(k) != gs.get(k)]
        msgs.append('self cost differs for %d names, e.g. %r: profdb %r, checker %r'
                    % (len(diff), diff[0], gs.get(diff[0]), ws.get(diff[0])))
    re_, edges = profdb_edges(lib, path)
    if re_ < 0 and (got['count'] or want.calls):   # an empty file has no format
        msgs.append('edges: profdb %d' % re_)
    elif re_ >= 0:
        diff = same_calls(want.calls, edges)
        if diff:
            k = diff[0]
            msgs.append('calls differ for %d (caller, callee) pairs, e.g. %r: profdb %r, '
                        'calls= lines %r' % (len(diff), k, edges.get(k), want.calls.get(k)))
    return msgs


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    verbose = '--verbose' in argv
    without_big = '--without-big' in argv
    lib = ctypes.CDLL(argv[1])
    setup(lib)
    root = os.path.join(os.environ.get('PROFDB_SAMPLE_DATA') or argv[2], 'callgrind')
    if not os.path.isdir(root):
        print('SKIP: no sample data at %s' % root)
        return 77
    paths = []
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if any(s in p for s in NOT_PROFILES) or f in NOT_PROFILE_NAMES:
                continue
            if without_big and os.path.relpath(p, root).startswith('big' + os.sep):
                continue
            paths.append(p)
    if without_big:
        print('callgrind/big: checked by cg_cycles_check.py --big, which reads them once')
    bad = unreadable = 0
    for p in sorted(paths):
        rel = os.path.relpath(p, root)
        r, got = profdb_read(lib, p)
        if r < 0:
            if rel in EXPECTED_REJECT:
                print('%-60s rejected (%d), as expected' % (rel, r))
            elif r == -errno.ENOTSUP and p.endswith('.gz'):
                # A build without zlib cannot read compressed files; the
                # library says so with -ENOTSUP (doc/CONVENTIONS.md).
                print('%-60s SKIP: this build has no zlib' % rel)
                unreadable += 1
            else:
                print('%-60s FAIL: profdb open %d' % (rel, r))
                bad += 1
            continue
        want = Reader().read(read_text(p))
        msgs = compare(lib, p, got, want, verbose)
        print('%-60s %6d functions %6d call pairs%s' % (rel, got['count'], len(want.calls),
                                                      ' FAIL' if msgs else ''))
        for m in msgs:
            print('    ' + m)
        bad += bool(msgs)
    print('%d files, %d differ, %d not readable by this build' % (len(paths), bad, unreadable))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
