#!/bin/sh
# The whole test suite. Real sample files are used from ../shared/data (or
# $PROFDB_SAMPLE_DATA) when present; tests that need them are skipped otherwise.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh --tests
build=${PROFDB_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build"
meson test -C "$build" --print-errorlogs --num-processes 2
