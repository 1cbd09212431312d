#!/bin/sh
# The whole test suite. Real sample files are used from ../shared/data (or
# $PROFDB_SAMPLE_DATA) when present; tests that need them are skipped otherwise.
#
# The suite is the same whatever configured the build folder before: a
# folder set up by scripts/demo.sh before the test packages were there has
# the Criterion tests, the Python module and profdb-mpi configured out, so
# it is configured again once scripts/deps.sh has installed them, and the
# run stops, naming the part, if one is still out.
#
# Usage: scripts/test.sh [--list]
#   --list  configure and check as above, then list the tests instead of
#           building and running them (what CI compares between two build
#           folders).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh --tests
build=${PROFDB_BUILD:-build}

# Each part the suite needs: a target of the build (name prefix) or a
# dependency found, and what brings it.
parts_missing() {
	info="$build/meson-info"
	for part in \
		"target:test-core:the Criterion unit tests (libcriterion-dev)" \
		"target:profdb-mksample:the test-data writer (tests/writer, libcriterion-dev)" \
		"target:profdb:the profdb tool" \
		"target:_profdb:the Python module (python3-dev, python3-numpy)" \
		"target:profdb-mpi:profdb-mpi (libopenmpi-dev)" \
		"dependency:expat:expat (libexpat1-dev)" \
		"dependency:zlib:zlib (zlib1g-dev)"; do
		kind=${part%%:*}
		rest=${part#*:}
		name=${rest%%:*}
		what=${rest#*:}
		if [ "$kind" = target ]; then
			file="$info/intro-targets.json"
		else
			file="$info/intro-dependencies.json"
		fi
		grep -q "\"name\": \"$name" "$file" || echo "  $what: configured out"
	done
	# A test registered as a SKIP (meson.build found its part missing).
	grep -o 'SKIP: [^"\\]*' "$info/intro-tests.json" | sed 's/^SKIP: /  /' || true
}

# Features the suite needs back at auto (a demo-like folder may have had
# them disabled), the rest of the folder's options kept.
if [ -f "$build/build.ninja" ]; then
	meson setup --reconfigure "$build" -Dtests=auto -Dpython=auto -Dmpi=auto -Dtool=auto \
		-Dbench=auto >/dev/null
else
	meson setup "$build" >/dev/null
fi
missing=$(parts_missing)
if [ -n "$missing" ]; then
	echo "profdb: parts of the suite are configured out in $build:" >&2
	echo "$missing" >&2
	echo "profdb: see $build/meson-logs/meson-log.txt" >&2
	exit 1
fi

if [ "${1:-}" = "--list" ]; then
	meson test -C "$build" --list --no-rebuild 2>/dev/null
	exit 0
fi

ninja -C "$build"
rc=0
meson test -C "$build" --print-errorlogs --num-processes 2 || rc=$?
# The closing line runners print, from meson's own log of this run.
log="$build/meson-logs/testlog.json"
count() { grep -c "\"result\": \"$1\"" "$log" || true; }
ok=$(count OK)
skipped=$(count SKIP)
ran=$(grep -c '"result": ' "$log" || true)
echo "profdb: $ran tests ran"
echo "tests: $ok passed, $((ran - ok - skipped)) failed, $skipped skipped"
exit "$rc"
