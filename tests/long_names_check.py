#!/usr/bin/env python3
"""Names are never cut: a Callgrind profile written here holds a function
name of over 5 000 bytes and two names that share their first 400 bytes.
`top --json`, `tree --json`, `top --wide`, `tree --wide`, `diff --json`, `diff --csv` and every
converter (folded, speedscope, callgrind, pprof, svg) must carry each name
whole, and the two look-alike names must stay two functions (in the pprof
output too: its protobuf is decoded here, two function records).
A second profile adds a source file of a 1 500-byte name: `callers` and
`callees` (--wide, --sites, --json), `stats` and --match see every name
and label whole; without --wide the rows still fit 100 columns. A third
profile has an event (metric) of a 4 200-byte name ending in 4-byte
UTF-8 characters: an error message names it whole; a headline and a
column head shortened keep its end. A function name of 3 000 bytes that
are no UTF-8 is shortened in a row as any other, its end kept. An old
experiment.xml database with one trace sample in the long function
gives `trace` its labels, whole in text and JSON.

Usage: long_names_check.py PROFDB WORKDIR. Exit 0 ok, 1 a name cut."""
import csv
import gzip
import io
import json
import os
import struct
import subprocess
import sys
import xml.parsers.expat
from xml.sax.saxutils import quoteattr

LONG = 'ns::holder<' + 'T' * 5200 + '>::the_long_function_end'
PREFIX = 'tmpl<' + 'p' * 400
FIRST, SECOND = PREFIX + 'A>::first', PREFIX + 'B>::second'
NAMES = (LONG, FIRST, SECOND)


def callgrind(k):
    return f"""# callgrind format
version: 1
creator: long_names_check.py
events: Ir
fl=main.c
fn=main
1 {k}
cfn={LONG}
calls=1 2
1 {500 * k}
cfn={FIRST}
calls=1 3
1 {70 * k}
cfn={SECOND}
calls=1 4
1 {30 * k}
fn={LONG}
2 {500 * k}
fn={FIRST}
3 {70 * k}
fn={SECOND}
4 {30 * k}
"""


LONG_FILE = 'src/' + 'f' * 1500 + '_end.c'
BASE = LONG_FILE[4:]


def callgrind_file():
    return f"""# callgrind format
events: Ir
fl={LONG_FILE}
fn=main
1 1
cfn={LONG}
calls=1 2
1 500
fn={LONG}
2 500
"""


def check_calls(run, work, failures):
    """callers, callees and stats on a long name in a long-named file."""
    path = os.path.join(work, 'file.callgrind')
    with open(path, 'w') as f:
        f.write(callgrind_file())
    main_where, long_where = f'main ({BASE})', f'{LONG} ({BASE})'

    def lines(*args):
        return run(*args).decode().split('\n')

    def has(what, found, text):
        ok = any(text in line for line in found)
        print(f'{what}: {len(text)} bytes {"whole" if ok else "cut"}')
        if not ok:
            failures.append(f'{what}: {text[:30]}...{text[-20:]} is not there whole')

    out = lines('callers', '--wide', LONG, path)
    has('callers --wide (headline)', out, f'callers of {LONG}: calls')
    has('callers --wide (section)', out, f'callers of {long_where} (context')
    has('callers --wide (row)', out, f'  {main_where}')
    out = lines('callees', '--wide', 'main', path)
    has('callees --wide (section)', out, f'callees of {main_where} (context')
    has('callees --wide (row)', out, f'  {long_where}')
    out = lines('callees', '--wide', '--sites', 'main', path)
    has('callees --wide --sites (row)', out, f'  {long_where} at {BASE}:1')
    rows = [r for s in json.loads(run('callees', '--json', '--sites', 'main', path))['functions']
            for r in s['rows']]
    has('callees --json --sites (label)', [r['site']['label'] for r in rows], f'{BASE}:1')
    out = lines('stats', path)
    has('stats (line 1)', out, f'  {BASE}:1')
    has('stats (line 2)', out, f'  {BASE}:2')
    # --match sees the whole name: its end is past any buffer's
    rows = json.loads(run('callees', '--json', '--match', '::the_long_function_end$', 'main',
                          path))['functions'][0]['rows']
    if [r['name'] for r in rows] != [LONG]:
        failures.append(f'callees --match: {len(rows)} rows, not the long name')
    # without --wide a row fits 100 columns; a name shortened in the middle
    # keeps its end
    for cmd, end in ((('callers', LONG), f'{BASE[-20:]})'), (('callees', 'main'), ''),
                     (('callees', '--sites', 'main'), '')):
        rows = [line for line in lines(*cmd, path) if line.startswith('    1  ')]
        what = ' '.join(cmd)[:40]
        print(f'{what}: rows of {[len(r) for r in rows]} columns')
        if len(rows) != 1 or len(rows[0]) > 100 or not rows[0].endswith(end):
            failures.append(f'{what}: the row does not fit 100 columns with its end: '
                            f'{[r[-40:] for r in rows]}')


METRIC = 'ev_' + 'x' * 4200 + '_\U0001d522\U0001d52b\U0001d521'


def check_metric(profdb, run, work, failures):
    """A long metric name: whole in a message, its end kept where shortened."""
    path = os.path.join(work, 'metric.callgrind')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(f"""# callgrind format
events: {METRIC} Ir
fl=main.c
fn=main
1 1 2
cfn=f
calls=1 2
1 500 3
fn=f
2 500 4
""")
    end = METRIC[-4:]
    r = subprocess.run([profdb, 'top', '--stat', 'mean', '--inclusive', '-m', METRIC, path],
                       capture_output=True)
    err = r.stderr.decode('utf-8', 'replace')
    ok = r.returncode == 2 and f"metric '{METRIC}' has no stored inclusive" in err
    print(f'top --stat (message): {len(METRIC.encode())} bytes {"whole" if ok else "cut"}')
    if not ok:
        failures.append(f'top --stat: exit {r.returncode}, the metric is not named whole: '
                        f'{err[:40]}...{err[-80:]}')
    for cmd, heads in ((('top',), 1), (('tree',), 2), (('callers', 'f'), 1)):
        lines = run(*cmd, '-m', 'all', path).decode().split('\n')
        what = ' '.join(cmd)
        headline = lines[0].split('; ')[0]
        if cmd[0] != 'callers' and not headline.endswith(end):
            failures.append(f'{what}: the headline does not end as the metric: {headline[-30:]}')
        cols = [line for line in lines if ' id ' in line and '%' in line]
        got = [c for c in cols[0].split('  ') if end in c] if cols else []
        print(f'{what}: headline and {len(got)} column heads with the end of the metric')
        if len(got) != heads or any(len(c.strip()) > 20 for c in got):
            failures.append(f'{what}: {len(got)} column heads of the metric end, want {heads} '
                            f'(each shortened): {cols[:1]}')


def check_stray_bytes(profdb, work, failures):
    """A function name of 3 000 bytes that are no UTF-8 (each a column on a
    terminal): a table row shortens it to 100 columns and keeps its end."""
    name = b'f' + b'\x80' * 3000 + b'_end'
    path = os.path.join(work, 'stray.callgrind')
    with open(path, 'wb') as f:
        f.write(b'# callgrind format\nevents: Ir\nfl=a.c\nfn=main\n1 5\ncfn=' + name +
                b'\ncalls=1 2\n1 10\nfn=' + name + b'\n2 10\n')
    for cmd in (('top',), ('tree',), ('callees', 'main')):
        out = subprocess.run([profdb, *cmd, path], capture_output=True).stdout
        rows = [r for r in out.split(b'\n') if b'_end' in r]
        print(f'{" ".join(cmd)}: rows of {[len(r) for r in rows]} bytes with the name\'s end')
        if len(rows) != 1 or len(rows[0]) > 100:
            failures.append(f'{" ".join(cmd)}: no row of at most 100 columns keeps the end of '
                            f'a name of stray bytes')


def experiment_xml():
    """An old HPCToolkit database's tree: a statement at line 6 of the long
    file in the long function, whose trace node (`it`) is 3."""
    return f"""<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2">
<Header n="long"><Info/></Header>
<SecCallPathProfile i="0" n="long">
<SecHeader>
<MetricTable>
<Metric i="1" n="time (E)" v="final" t="exclusive" show="1"><Info/></Metric>
</MetricTable>
<TraceDBTable><TraceDB i="0" u="1000000000"/></TraceDBTable>
<LoadModuleTable><LoadModule i="1" n="/usr/bin/app"/></LoadModuleTable>
<FileTable><File i="0" n={quoteattr(LONG_FILE)}/></FileTable>
<ProcedureTable><Procedure i="10" n={quoteattr(LONG)}/></ProcedureTable>
</SecHeader>
<SecCallPathProfileData>
<PF i="2" n="10" s="10" f="0" l="3" lm="1">
<S i="3" it="3" f="0" l="6" s="3"/>
</PF>
</SecCallPathProfileData>
</SecCallPathProfile>
</HPCToolkitExperiment>
"""


def check_trace(run, work, failures):
    """trace: a sample's label and function, whole."""
    if 'expat' in os.environ.get('PROFDB_BUILD_LACKS', '').split():
        print('trace: skipped (a build without expat reads no experiment.xml)')
        return
    db = os.path.join(work, 'trace.d')
    os.makedirs(db, exist_ok=True)
    with open(os.path.join(db, 'experiment.xml'), 'w') as f:
        f.write(experiment_xml())
    with open(os.path.join(db, 'app-000000-000-0-1-0.hpctrace'), 'wb') as f:
        f.write(b'HPCRUN-trace______01.01b' + struct.pack('>QQI', 0, 1000, 3))
    want = f'{BASE}:6 in {LONG}'
    text = run('trace', db).decode()
    ok = f'  {want}\n' in text
    print(f'trace: {len(want)} bytes {"whole" if ok else "cut"}')
    if not ok:
        failures.append(f'trace: {want[:30]}...{want[-20:]} is not there whole')
    contexts = json.loads(run('trace', '--json', db))['contexts']
    got = [(c['label'], c['function']) for c in contexts]
    print(f'trace --json: {[(len(a), len(b)) for a, b in got]} bytes')
    if got != [(f'{BASE}:6', LONG)]:
        failures.append('trace --json: the label and function are not whole')


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of a protobuf message."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f'wire type {w}')
        yield f, w, v


def pprof_function_names(data):
    """The names of profile.proto's Function records (field 5; name: field
    2, an index into the string table, field 6)."""
    # gzip-compressed as pprof writes it; uncompressed in a build without zlib
    msg = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    strings = [v.decode() for f, w, v in fields(msg) if f == 6]
    names = []
    for f, w, v in fields(msg):
        if f == 5:
            names += [strings[x] for g, _, x in fields(v) if g == 2]
    return names


def main():
    profdb, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    a, b = os.path.join(work, 'a.callgrind'), os.path.join(work, 'b.callgrind')
    with open(a, 'w') as f:
        f.write(callgrind(1))
    with open(b, 'w') as f:
        f.write(callgrind(2))
    failures = []

    def run(*args):
        r = subprocess.run([profdb, *args], capture_output=True)
        if r.returncode:
            failures.append(f'{args}: exit {r.returncode}: {r.stderr.decode()[-300:]}')
        return r.stdout

    def expect(what, found):
        for n in NAMES:
            if n not in found:
                failures.append(f'{what}: the {len(n)}-byte name {n[:20]}...{n[-12:]} '
                                f'is not there whole')
        print(f'{what}: {sum(n in found for n in NAMES)} of {len(NAMES)} names whole')

    top = json.loads(run('top', '--json', a))
    expect('top --json', {r['name'] for r in top['rows']})
    expect('top --wide', run('top', '--wide', a).decode())
    expect('tree --wide', run('tree', '--wide', a).decode())
    tree = json.loads(run('tree', '--json', a))
    expect('tree --json', {n['name'] for n in tree['nodes']})
    diff = json.loads(run('diff', '--json', a, b))
    expect('diff --json', {p for r in diff['rows'] for p in r['path']})
    rows = list(csv.reader(io.StringIO(run('diff', '--csv', a, b).decode())))
    expect('diff --csv', {p for r in rows[1:] for p in r[-1].split(' > ')})

    out = os.path.join(work, 'out')
    run('convert', '-t', 'folded', '-o', out, a)
    with open(out) as f:
        expect('convert -t folded', {fr for line in f for fr in line.rsplit(' ', 1)[0].split(';')})
    run('convert', '-t', 'speedscope', '-o', out, a)
    with open(out) as f:
        expect('convert -t speedscope', {fr['name'] for fr in json.load(f)['shared']['frames']})
    run('convert', '-t', 'callgrind', '-o', out, a)
    back = json.loads(run('top', '--json', out))
    expect('convert -t callgrind, read back', {r['name'] for r in back['rows']})
    run('convert', '-t', 'svg', '-o', out, a)
    svg_names = set()
    parser = xml.parsers.expat.ParserCreate()
    parser.StartElementHandler = lambda tag, at: svg_names.add(at.get('data-n'))
    with open(out, 'rb') as f:
        parser.ParseFile(f)
    expect('convert -t svg (data-n)', svg_names)
    run('convert', '-t', 'pprof', '-o', out, a)
    with open(out, 'rb') as f:
        names = pprof_function_names(f.read())
    expect('convert -t pprof', set(names))
    if len(names) != len(set(names)) or names.count(FIRST) != 1 or names.count(SECOND) != 1:
        failures.append(f'convert -t pprof: {len(names)} function records, '
                        f'{len(set(names))} names: the look-alike names are not two functions')
    check_calls(run, work, failures)
    check_metric(profdb, run, work, failures)
    check_stray_bytes(profdb, work, failures)
    check_trace(run, work, failures)
    for line in failures:
        print('FAIL', line)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
