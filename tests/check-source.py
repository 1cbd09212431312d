#!/usr/bin/env python3
"""The architecture rules of lib/ that a reader would otherwise have to
trust (doc/CONVENTIONS.md, "Headers"; the issue "profdb 1.0 API"):

  1. the layers core -> formats -> query -> analysis -> convert: a module
     includes its own files, the public headers, system or generated
     headers and the internals of the layers below it; a format module
     (lib/<format>/) never another format's internals, and query, analysis
     and convert never a format's internals (they know formats only through
     the backend table);
  2. private headers under lib/ are named *-internal.h;
  3. no file under lib/ is longer than 900 lines, and no function body
     (from a "{" to a "}" in column 0) longer than 120.

Usage: check-source.py SOURCE_ROOT"""
import os
import re
import sys

MAX_LINES = 900
MAX_FUNCTION = 120
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def module_of(path, lib):
    return os.path.relpath(path, lib).split(os.sep)[0]


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
    for p in problems:
        print('FAIL:', p)
    print(f'{files} files under lib/ checked: {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
