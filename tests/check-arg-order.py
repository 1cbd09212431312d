#!/usr/bin/env python3
"""The public headers keep one order of ids (doc/CONVENTIONS.md, "Argument
order"): the profile (or Cube location, or the system item an aggregate
covers), then the place in the tree (context, node, cnode, function, edge),
then the metric. Every PROFDB_EXPORT declaration whose parameters name two
or more of these is checked; a call that breaks the order fails this test.
Usage: check-arg-order.py SOURCE_ROOT"""
import glob
import os
import re
import sys

GROUPS = (
    ("profile", {"profile", "location", "where"}),
    ("place", {"context", "ctx", "ctx_id", "cnode", "node", "function", "fn", "edge"}),
    ("metric", {"metric"}),
)
DECL = re.compile(r"PROFDB_EXPORT\s+[^;{]*?\b(profdb_\w+)\s*\(([^)]*)\)\s*;", re.S)


def rank(name):
    for i, (_, names) in enumerate(GROUPS):
        if name in names:
            return i
    return None


def main(root):
    bad, checked = [], 0
    for path in sorted(glob.glob(os.path.join(root, "include", "profdb", "*.h"))):
        text = open(path, encoding="utf-8").read()
        for m in DECL.finditer(text):
            params = [p.strip() for p in m.group(2).split(",")]
            names = [re.sub(r"\[.*\]", "", p).split()[-1].lstrip("*") for p in params if p]
            ranks = [r for r in (rank(n) for n in names) if r is not None]
            if len(set(ranks)) < 2:
                continue
            checked += 1
            if ranks != sorted(ranks):
                bad.append("%s: %s(%s)" % (os.path.basename(path), m.group(1), ", ".join(names)))
    for b in bad:
        print("out of (profile, context, metric) order:", b)
    print("%d declarations with two or more ids checked: %d out of order" % (checked, len(bad)))
    return 1 if bad or checked < 10 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
