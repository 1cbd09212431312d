#!/usr/bin/env python3
"""The architecture rules of lib/ that a reader would otherwise have to
trust (doc/CONVENTIONS.md, "Headers"):

  1. the layers core -> formats -> query -> analysis -> convert: a module
     includes its own files, the public headers, system or generated
     headers and the internals of the layers below it; a format module
     (lib/<format>/) never another format's internals, and query, analysis
     and convert never a format's internals (they know formats only through
     the backend table);
  2. private headers under lib/ are named *-internal.h;
  3. no file under lib/ is longer than 900 lines, and no function body
     (from a "{" to a "}" in column 0) longer than 120;
  4. no format branch above the formats: in lib/query (registry.c and
     api.c, which hold the registry, the format names and the native-handle
     accessors, excepted), lib/analysis, lib/convert, tool/, python/ and
     mpi/, no
     PROFDB_FORMAT_ constant, no call of a format's own API
     (profdb_{cg,cube,hpctk,hpctkpre,hpcrun}_*, profdb_get_<format>) and no
     include of a format header (profdb/callgrind.h, cube.h, hpctk.h,
     hpctkpre.h, hpcrun.h, or the umbrella profdb/profdb.h): what they need
     from one format comes through the backend table
     (lib/core/backend-internal.h);
  5. the combination rules live in lib/analysis: no PROFDB_COMBINE_
     constant in tool/, python/ or mpi/;
  6. profdb-mpi links the tool's shared code: mpi/meson.build names no
     source file of tool/.
Rule 5 lists the files that still break it (KNOWN_COMBINE below, each
with where its code belongs; empty): such a file must break its rule (a
fixed file leaves the list) and no other may. Rule 4 has no exceptions.

Usage: check-source.py SOURCE_ROOT"""
import os
import re
import sys

MAX_LINES = 900
MAX_FUNCTION = 120
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def module_of(path, lib):
    return os.path.relpath(path, lib).split(os.sep)[0]


# Files that still break rule 5 (none: add none).
KNOWN_COMBINE = {}
FORMAT_API = re.compile(r'\bPROFDB_FORMAT_[A-Z0-9_]+|\bprofdb_(?:cg|cube|hpctk|hpctkpre|hpcrun)_\w+\s*\(|'
                        r'\bprofdb_get_(?:cg|cube|hpctk|hpctkpre|hpcrun)\s*\(|'
                        r'#\s*include\s*[<"]profdb/(?:callgrind|cube|hpctk|hpctkpre|hpcrun|profdb)\.h[>"]')
COMBINE = re.compile(r'\bPROFDB_COMBINE_[A-Z]+')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def layering(root):
    """Rules 4, 5 and 6: the problems found."""
    problems, hits = [], {FORMAT_API: set(), COMBINE: set()}
    known = {FORMAT_API: {}, COMBINE: KNOWN_COMBINE}
    scopes = [('lib/query', FORMAT_API, {'registry.c', 'api.c'}), ('lib/analysis', FORMAT_API, set()),
              ('lib/convert', FORMAT_API, set()), ('tool', FORMAT_API, set()),
              ('python', FORMAT_API, set()), ('mpi', FORMAT_API, set()),
              ('tool', COMBINE, set()), ('python', COMBINE, set()), ('mpi', COMBINE, set())]
    for folder, rule, exempt in scopes:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(('.c', '.h', '.py')) or name in exempt:
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding='utf-8') as f:
                    code = COMMENT.sub('', f.read()) if name.endswith(('.c', '.h')) else f.read()
                found = sorted(set(m.group(0).rstrip('( ') for m in rule.finditer(code)))
                if not found:
                    continue
                hits[rule].add(rel)
                if rel not in known[rule]:
                    what = 'a format branch' if rule is FORMAT_API else 'a combination rule'
                    problems.append(f'{rel}: {what} outside the formats and lib/analysis: '
                                    f'{", ".join(found[:4])}')
    for rule, names in known.items():
        for rel in sorted(set(names) - hits[rule]):
            problems.append(f'{rel}: no longer breaks its layering rule; remove it from the list')
    with open(os.path.join(root, 'mpi', 'meson.build'), encoding='utf-8') as f:
        build = COMMENT.sub('', re.sub(r'#[^\n]*', '', f.read()))
    for src in re.findall(r"'([^']*tool/[^']*\.c)'", build):
        problems.append(f'mpi/meson.build: compiles {src}; link tool/meson.build\'s tool_shared')
    return problems


def main():
    root = sys.argv[1]
    lib = os.path.join(root, 'lib')
    modules = sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
    layers = ['core', 'query', 'analysis', 'convert']
    formats = [m for m in modules if m not in layers]
    rank = {m: layers.index(m) for m in layers}
    problems = []
    files = 0
    for dirpath, _, names in os.walk(lib):
        for name in sorted(names):
            if not name.endswith(('.c', '.h')):
                continue
            files += 1
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            mod = module_of(path, lib)
            with open(path, encoding='utf-8') as f:
                text = f.read()
            n = text.count('\n')
            if n > MAX_LINES:
                problems.append(f'{rel}: {n} lines (at most {MAX_LINES})')
            start = None
            for i, line in enumerate(text.split('\n')):
                if line.startswith('{'):
                    start = i
                elif line.startswith('}') and start is not None:
                    if i - start + 1 > MAX_FUNCTION:
                        problems.append(f'{rel}:{start + 1}: a function of {i - start + 1} '
                                        f'lines (at most {MAX_FUNCTION})')
                    start = None
            if name.endswith('.h') and not name.endswith('-internal.h'):
                problems.append(f'{rel}: a private header must be named *-internal.h')
            for inc in INCLUDE.findall(text):
                if inc.startswith('profdb/') or '/' not in inc and not inc.endswith('-internal.h'):
                    continue   # public header, or a generated/system header
                target = os.path.normpath(os.path.join(dirpath, inc))
                if not os.path.exists(target):
                    target = os.path.normpath(os.path.join(lib, inc))
                if not os.path.exists(target):
                    problems.append(f'{rel}: includes "{inc}", which is not under lib/')
                    continue
                dep = module_of(target, lib)
                if mod == dep or dep == 'core':
                    continue
                if mod in rank and dep in formats:
                    problems.append(f'{rel}: lib/{mod} reaches into {dep}\'s internals '
                                    f'("{inc}"); it knows formats only through backends')
                    continue
                if mod in rank and dep in rank and rank[dep] < rank[mod]:
                    continue
                problems.append(f'{rel}: module {mod} includes "{inc}" of module {dep}')
    problems += layering(root)
    for p in problems:
        print('FAIL:', p)
    print(f'{files} files under lib/ checked: {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
