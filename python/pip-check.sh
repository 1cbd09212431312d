#!/bin/sh
# python/pip-check.sh — the pip install of the module, as a user does it on
# Debian 12 (for .ci/run): doc/PYTHON.md's block that runs `venv/bin/pip
# install`, as written, in a copy of the source tree (a venv with the
# system site packages, numpy from Debian, meson-python); then the installed
# module opens a sample the test-data writer makes and reads it back.
# Checks that the install holds the package alone and that the module
# needs no libprofdb.so.
#
#   python/pip-check.sh MKSAMPLE [WORKDIR]
#
# MKSAMPLE is build/tests/writer/profdb-mksample. Exit 0 ok, 1 failure,
# 77 when /usr/bin/python3 lacks numpy, venv or meson-python.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
mksample=$1
work=${2:-${TMPDIR:-/tmp}/profdb-pip-check}
py=/usr/bin/python3

if ! "$py" -c 'import numpy, mesonpy, venv, ensurepip' 2>/dev/null; then
	echo "SKIP: $py lacks numpy, meson-python or venv"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
"$mksample" sample "$work/sample" >/dev/null
# meson-python 0.12 writes its native file into the source tree: build
# from a copy so the checkout stays clean.
git -C "$src" ls-files -z | (cd "$src" && xargs -0 tar cf -) | (mkdir -p "$work/src" && tar xf - -C "$work/src")
# The document's block: the one ```sh block that runs venv/bin/pip install.
block=$(awk '/^```sh$/ { in_block = 1; text = ""; next }
	/^```$/ && in_block { in_block = 0; if (text ~ /venv\/bin\/pip install/) { n++; out = text } next }
	in_block { text = text $0 "\n" }
	END { if (n == 1) printf "%s", out }' "$src/doc/PYTHON.md")
if [ -z "$block" ]; then
	echo "FAIL: doc/PYTHON.md has not exactly one sh block running venv/bin/pip install"
	exit 1
fi
if ! (cd "$work/src" && sh -eu -c "$block") >"$work/install.log" 2>&1; then
	echo "FAIL: doc/PYTHON.md's pip commands, run as written in $work/src:"
	printf '%s\n' "$block" | sed 's/^/    /'
	tail -n 30 "$work/install.log"
	exit 1
fi
venv=$work/src/venv
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
extra=$(cd "$site" && ls -d *profdb* lib*profdb* 2>/dev/null | grep -v '^profdb$' | grep -v '^profdb-.*\.dist-info$' || true)
if [ -n "$extra" ]; then
	echo "FAIL: the pip install put more than the package into site-packages: $extra"
	exit 1
fi
if ldd "$site"/profdb/_profdb*.so | grep -q libprofdb; then
	echo "FAIL: the pip-installed module links libprofdb.so"
	exit 1
fi
cd "$work"
"$venv/bin/python" - "$work/sample" <<'PY'
import sys
import profdb
with profdb.open(sys.argv[1]) as db:
    n = sum(len(v.records) for v in db.all_values())
    assert n == db.counts.values > 0, (n, db.counts)
print("pip-check: profdb %s from %s reads %d values" % (profdb.__version__, profdb.__file__, n))
PY
rm -rf "$work"
