#!/usr/bin/env python3
"""Packaging check: the symbols profdb exports, and the ones it must not.

  check-symbols.py exports  --nm NM --so libprofdb.so --sym libprofdb.sym --header profdb.h [--archive libprofdb.a]
  check-symbols.py namespace --nm NM --archive libprofdb.a --sym libprofdb.sym
  check-symbols.py since --sym libprofdb.sym --header DIR --version X.Y.Z

exports:   the dynamic symbols defined by the shared library (every symbol
           type but 'A', the version-node markers; version suffixes stripped)
           == the global: entries of the version script
           == the functions (and objects) declared PROFDB_EXPORT in the header.
           Each exported symbol must carry the version node the script puts it
           in, the header must not declare a function without PROFDB_EXPORT,
           and (with --archive) the static library must define all of them.
namespace: every global symbol the static archive defines is either public
           API (listed in the version script) or an internal profdb__ name.
           A static library cannot hide anything, so any other global would
           collide with the consumer's own symbols. Names reserved to the
           implementation (leading "__", e.g. sanitizer or coverage
           instrumentation) are reported but not counted.
since:     the version nodes follow the policy of doc/ABI.md, and every
           exported function's doc comment says in which version it came:
           the nodes are LIBPROFDB_<major>.<minor> of the library's major
           version, each inheriting the one before, none newer than --version;
           every PROFDB_EXPORT declaration directly follows a /** */ comment
           with one "@since A.B", not newer than --version, and the symbol is
           in node LIBPROFDB_A.B, or in the first node of the major version
           (LIBPROFDB_<major>.0) when A is an older major version.

Exit status: 0 pass, 1 check failed, 2 usage or tool error, 77 no nm (SKIP).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def fail_usage(msg):
    print(f'check-symbols: {msg}', file=sys.stderr)
    sys.exit(2)


def strip_c_comments(text):
    # Good enough for headers: no comment markers inside string literals.
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def version_script_nodes(path):
    """[(node, parent or None)] of a GNU version script, in file order."""
    with open(path, encoding='utf-8') as f:
        text = re.sub(r'#[^\n]*', ' ', strip_c_comments(f.read()))
    return [(m.group(1), m.group(2) or None) for m in
            re.finditer(r'([A-Za-z_][A-Za-z0-9_.]*)\s*\{.*?\}\s*([A-Za-z0-9_.]*)\s*;', text, re.S)]


def parse_version_script(path):
    """{symbol: version node} of the global: entries of a GNU version script."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    text = re.sub(r'#[^\n]*', ' ', strip_c_comments(text))
    if 'extern' in text:
        fail_usage(f'{path}: extern "C++" blocks are not supported by this check')
    symbols = {}
    # NODE { global: a; b; local: *; } [PARENT];
    for m in re.finditer(r'([A-Za-z_][A-Za-z0-9_.]*)\s*\{(.*?)\}\s*[A-Za-z0-9_.]*\s*;', text, re.S):
        node, body = m.group(1), m.group(2)
        scope = 'global'   # entries before any label are global
        for part in re.split(r'(\bglobal\s*:|\blocal\s*:|;)', body):
            part = part.strip()
            if not part or part == ';':
                continue
            if re.fullmatch(r'global\s*:', part):
                scope = 'global'
            elif re.fullmatch(r'local\s*:', part):
                scope = 'local'
            elif scope == 'global':
                if not IDENT.fullmatch(part):
                    fail_usage(f'{path}: global pattern {part!r} is not a plain '
                               'symbol name; this check needs an explicit list')
                if part in symbols:
                    fail_usage(f'{path}: {part} listed twice')
                symbols[part] = node
    if not symbols:
        fail_usage(f'{path}: no global symbols found')
    return symbols


def drop_static_inline(text):
    """Remove static inline function definitions: they are not exported."""
    while True:
        start = text.find('static inline')
        if start < 0:
            return text
        i = text.index('{', start)
        depth = 0
        while True:
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        text = text[:start] + ' ' + text[i:]


def parse_header(path):
    """(exported names, names of functions declared without PROFDB_EXPORT)
    of a header, or of every *.h of a directory of headers."""
    paths = [path]
    if os.path.isdir(path):
        paths = sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith('.h'))
    text = ''
    for one in paths:
        with open(one, encoding='utf-8') as f:
            text += drop_static_inline(strip_c_comments(f.read())) + '\n'
    # Drop preprocessor lines (with continuations): they hold the
    # definition of PROFDB_EXPORT itself and the extern "C" guards.
    text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
    text = text.replace('extern "C" {', ' ')
    # Remove struct/enum bodies, innermost first; then stray braces (the
    # closing brace of extern "C").
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r'\{[^{}]*\}', ' ', text)
    text = text.replace('{', ' ').replace('}', ' ')
    exported, unexported = set(), []
    for stmt in text.split(';'):
        stmt = ' '.join(stmt.split())
        if not stmt or stmt.startswith('typedef '):
            continue
        is_export = re.search(r'\bPROFDB_EXPORT\b', stmt) is not None
        if '(' in stmt:
            head, rest = stmt.split('(', 1)
            m = re.match(r'\s*\*\s*([A-Za-z_]\w*)\s*\)', rest)
            if m:
                # function pointer object "T (*name)(...)"
                name = m.group(1)
            else:
                names = IDENT.findall(head)
                name = names[-1] if names else None
        else:
            if not is_export:
                continue   # enum/struct declarations without a body, etc.
            names = IDENT.findall(stmt.split('=')[0].split('[')[0])
            name = names[-1] if names else None
        if name is None:
            fail_usage(f'{path}: cannot parse declaration {stmt!r}')
        if is_export:
            if name in exported:
                fail_usage(f'{path}: {name} declared twice')
            exported.add(name)
        elif '(' in stmt:
            unexported.append(name)
    if not exported:
        fail_usage(f'{path}: no PROFDB_EXPORT declarations found')
    return exported, unexported


def run_nm(nm, args, path):
    try:
        out = subprocess.run([nm, '-P'] + args + [path], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, 'stderr', '') or ''
        fail_usage(f'{nm} {" ".join(args)} {path} failed: {e} {err.strip()}')
    return out


def dynamic_exports(nm, so):
    """{name: version or None} of the defined dynamic symbols of a DSO,
    plus the set of version nodes it defines."""
    exports, nodes = {}, set()
    for line in run_nm(nm, ['-D', '--defined-only'], so).splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in ('A', 'a'):
            nodes.add(name)   # version node definition, not a symbol
            continue
        version = None
        m = re.fullmatch(r'([^@]+)@@?(.+)', name)
        if m:
            name, version = m.group(1), m.group(2)
        if name in exports:
            fail_usage(f'{so}: {name} exported twice (several versions?)')
        exports[name] = version
    return exports, nodes


def archive_globals(nm, archive):
    """{name: member} of the global symbols defined in a static archive."""
    symbols, member = {}, '?'
    for line in run_nm(nm, ['-g', '--defined-only'], archive).splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith(':'):
            m = re.search(r'\[(.*)\]:$', line)
            member = m.group(1) if m else line[:-1]
            continue
        name = line.split()[0]
        if name in symbols and symbols[name] != member:
            print(f'FAIL: {name} is defined in both {symbols[name]} and {member} '
                  'of the archive')
        symbols[name] = member
    return symbols


def report(title, names):
    print(f'FAIL: {title}:')
    for n in sorted(names):
        print(f'    {n}')


def check_exports(a):
    script = parse_version_script(a.sym)
    header, unexported = parse_header(a.header)
    exports, nodes = dynamic_exports(a.nm, a.so)
    script_set, so_set = set(script), set(exports)
    ok = True
    print(f'{len(script_set)} global symbols in {a.sym}')
    print(f'{len(header)} PROFDB_EXPORT declarations in {a.header}')
    print(f'{len(so_set)} defined dynamic symbols in {a.so}')

    for title, names in [
            (f'exported by {a.so} but not listed in {a.sym}', so_set - script_set),
            (f'listed in {a.sym} but not exported by {a.so} '
             '(missing definition or PROFDB_EXPORT?)', script_set - so_set),
            (f'declared PROFDB_EXPORT in {a.header} but not listed in {a.sym}',
             header - script_set),
            (f'listed in {a.sym} but not declared PROFDB_EXPORT in {a.header}',
             script_set - header),
            (f'exported by {a.so} but not declared in {a.header}', so_set - header),
            (f'functions declared in {a.header} without PROFDB_EXPORT', set(unexported)),
            ('public names outside the profdb_ namespace (or in the internal '
             'profdb__ one)', {n for n in script_set | header
                               if not n.startswith('profdb_') or n.startswith('profdb__')}),
    ]:
        if names:
            ok = False
            report(title, names)

    # Symbol versions: each export carries the node the script lists it in.
    if any(v is not None for v in exports.values()):
        wrong = {f'{n}: has {exports[n]!r}, {a.sym} says {script[n]!r}'
                 for n in so_set & script_set if exports[n] != script[n]}
        if wrong:
            ok = False
            report('exported with the wrong symbol version', wrong)
        missing_nodes = set(script.values()) - nodes
        if missing_nodes:
            ok = False
            report(f'version nodes of {a.sym} not defined by {a.so}', missing_nodes)
    else:
        print(f'note: {a.nm} printed no symbol versions; version nodes not checked')

    if a.archive:
        arch = archive_globals(a.nm, a.archive)
        missing = script_set - set(arch)
        print(f'{len(arch)} global symbols defined in {a.archive}')
        if missing:
            ok = False
            report(f'public API missing from the static library {a.archive}', missing)
    return ok


def check_namespace(a):
    script = parse_version_script(a.sym)
    arch = archive_globals(a.nm, a.archive)
    public = set(script)
    reserved = {n for n in arch if n.startswith('__')}
    bad = {f'{n}  ({arch[n]})' for n in arch
           if n not in public and not n.startswith('profdb__') and n not in reserved}
    print(f'{len(arch)} global symbols defined in {a.archive}: '
          f'{len(public & set(arch))} public, '
          f'{sum(1 for n in arch if n.startswith("profdb__"))} internal profdb__')
    if reserved:
        print('note: ignoring implementation-reserved symbols: ' + ', '.join(sorted(reserved)))
    if bad:
        report(f'global symbols of {a.archive} that are neither public API '
               '(listed in the version script) nor internal profdb__ names; '
               'make them static or rename them profdb__*', bad)
        return False
    return True


NODE = re.compile(r'LIBPROFDB_(\d+)\.(\d+)')
EXPORT_DECL = re.compile(r'^PROFDB_EXPORT\b[^;(]*?\b([A-Za-z_]\w*)\s*\(', re.M)


def exported_since(path):
    """[(header, name, [A.B of each @since in its doc comment] or None)] of
    the PROFDB_EXPORT functions of every *.h of a directory; None when the
    declaration does not directly follow a /** */ comment."""
    found = []
    for name in sorted(n for n in os.listdir(path) if n.endswith('.h')):
        with open(os.path.join(path, name), encoding='utf-8') as f:
            text = f.read()
        for m in EXPORT_DECL.finditer(text):
            before = text[:m.start()].rstrip()
            comment = before[before.rfind('/*'):] if before.endswith('*/') else ''
            since = (re.findall(r'@since\s+(\d+\.\d+)\b', comment)
                     if comment.startswith('/**') else None)
            found.append((name, m.group(1), since))
    return found


def check_since(a):
    m = re.fullmatch(r'(\d+)\.(\d+)\.\d+', a.version or '')
    if not m:
        fail_usage(f'--version {a.version!r} is not X.Y.Z')
    major, current = int(m.group(1)), (int(m.group(1)), int(m.group(2)))
    script = parse_version_script(a.sym)
    nodes = version_script_nodes(a.sym)
    problems = []
    previous = None
    for node, parent in nodes:
        n = NODE.fullmatch(node)
        if not n:
            problems.append(f'{a.sym}: node {node} is not LIBPROFDB_<major>.<minor>')
        elif int(n.group(1)) != major:
            problems.append(f'{a.sym}: node {node} belongs to another major version than '
                            f'{a.version} (a new major version starts with one node '
                            f'LIBPROFDB_{major}.0)')
        elif (int(n.group(1)), int(n.group(2))) > current:
            problems.append(f'{a.sym}: node {node} is newer than the library, {a.version}')
        if parent != previous:
            problems.append(f'{a.sym}: node {node} inherits {parent}, expected {previous}')
        previous = node
    if nodes and NODE.fullmatch(nodes[0][0]) and major >= 1 and nodes[0][0] != f'LIBPROFDB_{major}.0':
        problems.append(f'{a.sym}: the first node of major version {major} is '
                        f'{nodes[0][0]}, expected LIBPROFDB_{major}.0')
    decls = exported_since(a.header)
    for header, name, since in decls:
        where = f'{header}: {name}'
        if since is None:
            problems.append(f'{where}: no /** */ doc comment right before the declaration')
            continue
        if len(since) != 1:
            problems.append(f'{where}: {len(since)} @since tags in its doc comment, expected one')
            continue
        smaj, smin = (int(x) for x in since[0].split('.'))
        if (smaj, smin) > current:
            problems.append(f'{where}: @since {since[0]} is newer than the library, {a.version}')
        want = f'LIBPROFDB_{since[0]}' if smaj == major else f'LIBPROFDB_{major}.0'
        if script.get(name) != want:
            problems.append(f'{where}: @since {since[0]}, so node {want}; {a.sym} has '
                            f'{script.get(name) or "no entry"}')
    print(f'{len(nodes)} version nodes in {a.sym}; {len(decls)} exported functions '
          f'in {a.header}; library version {a.version}')
    if problems:
        report('version nodes and @since tags', problems)
        return False
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    p.add_argument('mode', choices=['exports', 'namespace', 'since'])
    p.add_argument('--nm', default='nm')
    p.add_argument('--so')
    p.add_argument('--archive')
    p.add_argument('--sym', required=True)
    p.add_argument('--header')
    p.add_argument('--version')
    a = p.parse_args()
    if a.mode == 'since':
        if not a.header or not os.path.isdir(a.header) or not a.version:
            p.error('since needs --header DIR and --version')
        ok = check_since(a)
        print('PASS' if ok else 'FAILED')
        return 0 if ok else 1
    if not a.nm or not shutil.which(a.nm):
        print(f'SKIP: no nm program ({a.nm!r}); nothing is installed for this check')
        return 77
    if a.mode == 'exports':
        if not a.so or not a.header:
            p.error('exports needs --so and --header')
        ok = check_exports(a)
    else:
        if not a.archive:
            p.error('namespace needs --archive')
        ok = check_namespace(a)
    print('PASS' if ok else 'FAILED')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
