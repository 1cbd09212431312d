#!/bin/sh
# The main job: build profdb, generate a sample HPCToolkit 4.0 database with
# the project's own test-data writer, and look at it with the profdb tool.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${PROFDB_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" >/dev/null
sample="$build/sample.db"
"$build/tests/writer/profdb-mksample" sample "$sample"
profdb="$build/tool/profdb"
set -x
"$profdb" info "$sample"
"$profdb" metrics "$sample"
"$profdb" top -n 10 "$sample"
"$profdb" tree "$sample"
