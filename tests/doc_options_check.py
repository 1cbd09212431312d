#!/usr/bin/env python3
"""Every option the tool's help names is documented: each short and long
option in `profdb --help` and in every `profdb COMMAND --help` appears in
doc/TOOL.md (as `-x` or `--name` in code) and in the man page
tool/profdb.1.in (as \\-x or \\-\\-name).

Usage: doc_options_check.py PROFDB SOURCE_DIR. Exit 0 ok, 1 an option
undocumented."""
import os
import re
import subprocess
import sys

# An option where the help writes one: after a blank, a bracket, a quote,
# a bar or a slash, never inside a word ("call-site", "x-y").
OPTION = re.compile(r"(?:^|(?<=[\s\[(|'/]))(--[a-z][a-z-]*[a-z]|-[a-zA-Z])(?![\w-])")


def help_text(profdb, *args):
    r = subprocess.run([profdb, *args], capture_output=True, text=True, check=True)
    return r.stdout


def options(profdb):
    found = {}
    texts = [("profdb --help", help_text(profdb, "--help"))]
    for cmd in help_text(profdb, "--commands").split():
        texts.append((f"profdb {cmd} --help", help_text(profdb, cmd, "--help")))
    for where, text in texts:
        for opt in OPTION.findall(text):
            found.setdefault(opt, where)
    return found


def in_markdown(opt, text):
    # inside a code span: `-m`, `-m M`, `--depth N`, `[--wide]`, `--by function`
    return re.search(r"`[^`]*(?<![\w-])" + re.escape(opt) + r"(?![\w-])[^`]*`", text) is not None


def in_man(opt, text):
    roff = opt.replace("-", "\\-")
    return re.search(re.escape(roff) + r"(?![\w]|\\-)", text) is not None


def main():
    profdb, src = sys.argv[1], sys.argv[2]
    with open(os.path.join(src, "doc", "TOOL.md")) as f:
        tool_md = f.read()
    with open(os.path.join(src, "tool", "profdb.1.in")) as f:
        man = f.read()
    found = options(profdb)
    missing = []
    for opt, where in sorted(found.items()):
        if not in_markdown(opt, tool_md):
            missing.append(f"{opt} ({where}) is not in doc/TOOL.md")
        if not in_man(opt, man):
            missing.append(f"{opt} ({where}) is not in tool/profdb.1.in")
    for m in missing:
        print(m)
    print(f"{len(found)} options checked, {len(missing)} gaps")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
