#!/usr/bin/env python3
"""How converters name profiles and placeholder frames, on real samples:
  - speedscope of cube/Score-P-summary.cubex: 64 profiles, 64 different
    names, each the profile's name and its identity as `profdb profiles`
    prints it ("Master thread (rank=3 thread=0 location=3): time");
  - Chrome trace of an hpcrun measurement: process and thread names carry
    the identity values in decimal, as `profdb profiles` prints them (no
    hex host id beside a decimal one);
  - Callgrind output of a GPU database: no empty file name (fl=, fi=, fe=,
    cfi=, cfl=); an unknown file is "???", as valgrind writes it;
  - pprof output of that database: "<gpu kernel>" and "<main thread>" are
    functions with no system name (go tool pprof would read "<...>" as
    C++ template arguments and show "<unknown>"); when go is installed,
    `go tool pprof -top` shows them by name.

Usage: convert_names_check.py PROFDB DATA_DIR WORKDIR. Exit 0 ok, 1 a
difference, 77 no data (meson's SKIP)."""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from long_names_check import fields  # noqa: E402  (the protobuf walker)
from samples import build_lacks  # noqa: E402

SCOREP = 'cube/Score-P-summary.cubex'
HPCRUN = 'hpctoolkit/hpcrun/hpctoolkit-tests-loops-cputime-t.m'
GPU = 'hpctoolkit/v4/cuda-sample-out.d'


def identity_text(p):
    return ' '.join(f'{k}={v}' for k, v in p['identity'])


def main():
    profdb, data, work = sys.argv[1:4]
    data = os.environ.get('PROFDB_SAMPLE_DATA', data)
    os.makedirs(work, exist_ok=True)
    failures, checked = [], 0

    def run(*args):
        r = subprocess.run([profdb, *args], capture_output=True)
        if r.returncode:
            failures.append(f'{args}: exit {r.returncode}: {r.stderr.decode()[-300:]}')
        return r.stdout

    def profiles(path):
        return json.loads(run('profiles', '--json', path))['profiles']

    path = os.path.join(data, SCOREP)
    if os.path.exists(path) and build_lacks(path):
        print(f'skip {SCOREP}: this build has no {build_lacks(path)}')
    elif os.path.exists(path):
        checked += 1
        ss = json.loads(run('convert', '-t', 'speedscope', path))
        names = [p['name'] for p in ss['profiles']]
        want = [f"{p['name']} ({identity_text(p)}): time" for p in profiles(path)
                if not p['summary']]
        if len(set(names)) != len(names) or len(names) != 64:
            failures.append(f'{SCOREP}: speedscope: {len(set(names))} names for '
                            f'{len(names)} profiles')
        if names != want[:len(names)]:
            failures.append(f'{SCOREP}: speedscope names {names[:2]} != {want[:2]}')
    path = os.path.join(data, HPCRUN)
    if os.path.exists(path):
        checked += 1
        trace = json.loads(run('convert', '-t', 'chrome', path))
        meta = [e for e in trace['traceEvents'] if e.get('ph') == 'M']
        want = {p['index']: f"{p['name']} ({identity_text(p)})" for p in profiles(path)}
        for e in meta:
            name = e['args']['name']
            if '0x' in name:
                failures.append(f'{HPCRUN}: chrome {e["name"]} {name!r} has a hex value')
            if e['name'] == 'thread_name' and name != want.get(e['tid']):
                failures.append(f'{HPCRUN}: thread {e["tid"]} is {name!r}, not '
                                f'{want.get(e["tid"])!r}')
            if e['name'] == 'process_name' and not re.fullmatch(r'node=\d+', name):
                failures.append(f'{HPCRUN}: process_name {name!r} is not node=DECIMAL')
        if not meta:
            failures.append(f'{HPCRUN}: chrome trace without names')
    path = os.path.join(data, GPU)
    if os.path.exists(path):
        checked += 1
        cg = run('convert', '-t', 'callgrind', path).decode()
        empty = re.findall(r'^(?:fl|fi|fe|cfi|cfl)=$', cg, re.M)
        if empty:
            failures.append(f'{GPU}: callgrind: {len(empty)} empty file names')
        if not re.search(r'^fl=\(\d+\) \?\?\?$', cg, re.M):
            failures.append(f'{GPU}: callgrind: no "???" file')
        out = os.path.join(work, 'gpu.pb.gz')
        run('convert', '-t', 'pprof', '-o', out, path)
        with open(out, 'rb') as f:
            msg = f.read()
        if msg[:2] == b'\x1f\x8b':     # uncompressed in a build without zlib
            msg = gzip.decompress(msg)
        strings = [v.decode() for n, _, v in fields(msg) if n == 6]
        funcs = [{n: v for n, _, v in fields(v)} for f, _, v in fields(msg) if f == 5]
        for want in ('<gpu kernel>', '<main thread>'):
            mine = [fn for fn in funcs if strings[fn.get(2, 0)] == want]
            if len(mine) != 1 or mine[0].get(3, 0) != 0:
                failures.append(f'{GPU}: pprof: {want}: {len(mine)} functions, '
                                f'system names {[m.get(3, 0) for m in mine]}')
        go = shutil.which('go')
        if go:
            top = subprocess.run([go, 'tool', 'pprof', '-top', out], capture_output=True,
                                 text=True, timeout=300).stdout
            for want in ('<gpu kernel>', '<main thread>'):
                if want not in top:
                    failures.append(f'{GPU}: go tool pprof -top does not show {want}')
        else:
            print('SKIP go tool pprof -top (go not installed)')
    for line in failures:
        print('FAIL', line)
    print(f'{checked} samples checked, {len(failures)} failures')
    if not checked:
        return 77
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
