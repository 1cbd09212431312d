#!/bin/sh
# The main job: build profdb, then look at profiles the project makes itself,
# with nothing to find or download:
#  1. an HPCToolkit 4.0 database written by the project's test-data writer
#     (tests/writer, the profdb-mksample program);
#  2. where valgrind is installed, a Callgrind profile of the project's own
#     sample program (tool/sample/sample-prog.c), recorded right here.
# Both are read through the same common query interface, so the same
# `profdb top` and `profdb tree` commands work on both, and `profdb convert`
# writes either for flame graphs, Perfetto or KCachegrind, or draws a flame
# graph and a timeline of the traces itself, each one SVG file that a
# browser opens without a network.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${PROFDB_BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
# Only what the demo runs: the tool, the sample writer and the sample program
# (scripts/test.sh builds everything).
ninja -C "$build" tool/profdb tests/writer/profdb-mksample tool/profdb-sample-prog >/dev/null
profdb="$build/tool/profdb"

echo "== 1. HPCToolkit 4.0 sample database (written by tests/writer) =="
sample="$build/sample.db"
"$build/tests/writer/profdb-mksample" sample "$sample"
(
	set -x
	"$profdb" info "$sample"
	"$profdb" metrics "$sample"
	"$profdb" top -n 10 "$sample"
	"$profdb" tree "$sample"
	"$profdb" profiles "$sample"
	"$profdb" stats "$sample"
	# The bridge to other viewers (doc/CONVERT.md): flame-graph stacks,
	# then a Chrome trace for ui.perfetto.dev and a profile for KCachegrind.
	"$profdb" convert -t folded "$sample"
	"$profdb" convert -t chrome -o "$build/sample.trace.json" "$sample"
	"$profdb" convert -t callgrind -o "$build/sample.callgrind" "$sample"
	"$profdb" top -n 5 "$build/sample.callgrind"
	# A flame graph drawn by profdb itself: one self-contained SVG file.
	"$profdb" convert -t svg -o "$build/sample.svg" "$sample"
	# Its trace as a timeline, the function running in each pixel column.
	"$profdb" trace "$sample"
	"$profdb" convert -t timeline -o "$build/sample-trace.svg" "$sample"
)
echo "flame graph of the sample: $build/sample.svg (open it in a browser)"
echo "timeline of its trace: $build/sample-trace.svg"

echo
echo "== 2. Callgrind profile of tool/sample/sample-prog.c =="
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind is not installed: skipping the Callgrind part"
	exit 0
fi
cgout="$build/callgrind.out.sample-prog"
valgrind --tool=callgrind --callgrind-out-file="$cgout" "$build/tool/profdb-sample-prog" \
	2>"$build/callgrind.log" || { cat "$build/callgrind.log"; exit 1; }
# A second run that sorts three times as much, for `profdb diff`.
cgout3="$build/callgrind.out.sample-prog-x3"
valgrind --tool=callgrind --callgrind-out-file="$cgout3" "$build/tool/profdb-sample-prog" 3 \
	2>"$build/callgrind.log" || { cat "$build/callgrind.log"; exit 1; }
(
	set -x
	"$profdb" info "$cgout"
	"$profdb" top -n 10 "$cgout"
	"$profdb" top --by function --inclusive -n 10 "$cgout"
	"$profdb" tree --min-percent 1 "$cgout"
	"$profdb" bottom-up -n 12 "$cgout"
	"$profdb" callers quicksort "$cgout"
	"$profdb" callees main "$cgout"
	"$profdb" diff -n 8 "$cgout" "$cgout3"
	"$profdb" convert -t folded "$cgout" | head -n 5
	"$profdb" convert -t svg -o "$build/sample-prog.svg" "$cgout"
)
echo "flame graph of the sample program: $build/sample-prog.svg (open it in a browser)"
