#!/bin/sh
# `profdb top` by function reads a Callgrind profile's function table
# directly instead of asking for every context of the tree in tree order
# (tool/cmd-top.c, rank_graph). It must print what the walk prints:
# `--focus 0` (the root's subtree, i.e. every context) takes the walk, so
# both are run on every real sample under callgrind/ (gzip included), with
# several metrics, profiles, filters and row counts, and compared byte for
# byte: standard output (the JSON whole; the text from its second line, as
# the first names the focus), standard error and exit status.
# usage: top-fast-check.sh PROFDB SAMPLE_DATA
set -u
tool=$1
data=${PROFDB_SAMPLE_DATA:-$2}
dir="$data/callgrind"
if [ ! -d "$dir" ]; then
	echo "SKIP: $dir not found"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/top-fast.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
files=0
runs=0
bad=0
ranked=0

# compare FILE SKIP_LINES ARGS...: fast path against the walk
compare() {
	f=$1
	skip=$2
	shift 2
	"$tool" top "$@" "$f" >"$tmp/a.out" 2>"$tmp/a.err"
	ra=$?
	"$tool" top --focus 0 "$@" "$f" >"$tmp/b.out" 2>"$tmp/b.err"
	rb=$?
	runs=$((runs + 1))
	[ "$ra" = 0 ] && ranked=$((ranked + 1))
	tail -n "+$skip" "$tmp/b.out" >"$tmp/b.tail"
	if [ "$ra" != "$rb" ] || ! cmp -s "$tmp/a.err" "$tmp/b.err" ||
	   ! tail -n "+$skip" "$tmp/a.out" | cmp -s - "$tmp/b.tail"; then
		echo "FAIL $f: top $* differs from the walk (exit $ra vs $rb)"
		tail -n "+$skip" "$tmp/a.out" | diff - "$tmp/b.tail" | head -6
		bad=$((bad + 1))
	fi
}

for f in $(find "$dir" -type f ! -name 'README*' ! -name '.*' | sort); do
	files=$((files + 1))
	compare "$f" 1 --json -n 0
	compare "$f" 1 --json -n 0 --inclusive
	case $f in */big/*) continue ;; esac   # tens of MB: the two above only
	compare "$f" 2 -n 30 --wide
	compare "$f" 1 --json -n 15 -m all
	compare "$f" 1 --json -n 0 --min-percent 0.5
	compare "$f" 1 --json -n 10 --match '^[a-m_]' --exclude 'alloc'
	compare "$f" 1 --json -n 10 --profile 1
	compare "$f" 1 --json -n 10 --profiles 1-3 -m all
	compare "$f" 2 -n 25 --inclusive -m all --match '^[^m]'
	compare "$f" 1 --json -n 10 --inclusive --profile 2
done
echo "$files samples, $runs rankings ($ranked ranked, the rest refused alike): $bad differ"
[ "$files" -gt 0 ] && [ "$ranked" -gt 0 ] && [ "$bad" -eq 0 ]
