#!/bin/sh
# The ABI gate: the ABI of the built libprofdb.so (its exported functions
# and variables, their symbol versions, the soname and every type of the
# public headers they reach) must equal the committed description
# abi/libprofdb.abi. Any difference fails:
#   - an incompatible change (a removed or changed symbol, a struct whose
#     size or layout changed, an enum value that moved) always;
#   - a compatible one (added functions, variables or types) as long as the
#     baseline was not regenerated with it, so that every change of the
#     public API lands together with a reviewed change of abi/libprofdb.abi.
# doc/ABI.md says what is stable and how the baseline is updated.
#
# Usage: scripts/abi-check.sh [--update] [--build=DIR | --lib=FILE]
#                             [--baseline=FILE] [--headers=DIR]
#   --update    write the description of the library to the baseline
#               instead of comparing (after a deliberate API change, or
#               with the version bump: the soname and the symbol versions
#               are part of the description)
#   --build     build folder (default: build); the shared library is built
#               there first when missing or out of date
#   --lib       an already built libprofdb.so (nothing is built)
#   --baseline  default: abi/libprofdb.abi of the source tree
#   --headers   the public headers (default: include/profdb of the source
#               tree); types not declared there are private and ignored
#
# The description comes from the library's DWARF, so the library needs
# debug information (-g: the debug and debugoptimized build types). Each
# translation unit's path is rewritten relative to the source tree, so the
# folder of the build does not matter. A clang build compares equal to the
# GCC baseline (abidiff filters the differences as harmless), but its file
# differs (another language tag, another order, opaque structs described
# as defined); --update therefore takes a GCC build only, so that the
# committed file changes only when the ABI does.
#
# Exit status: 0 same ABI (or baseline written), 1 the ABI differs,
# 2 usage or tool error, 77 cannot check here (no abigail-tools, no debug
# information, another architecture) with the reason printed.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
update=no build='' lib='' baseline=$src/abi/libprofdb.abi headers=$src/include/profdb
for arg; do
	case $arg in
	--update) update=yes ;;
	--build=*) build=${arg#*=} ;;
	--lib=*) lib=${arg#*=} ;;
	--baseline=*) baseline=${arg#*=} ;;
	--headers=*) headers=${arg#*=} ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "abi-check: unknown argument $arg (see --help)" >&2; exit 2 ;;
	esac
done
if [ -n "$build" ] && [ -n "$lib" ]; then
	echo "abi-check: give --build or --lib, not both" >&2
	exit 2
fi

skip() {
	echo "SKIP: $* (the ABI is not checked)"
	exit 77
}
for tool in abidw abidiff readelf; do
	command -v $tool >/dev/null 2>&1 ||
		skip "$tool not found; Debian and Ubuntu: apt-get install abigail-tools binutils"
done

# The flags that make the description depend on the library and the
# headers only: no source locations, no build paths, no private types.
ABIDW_FLAGS='--drop-private-types --no-show-locs --no-corpus-path --no-comp-dir-path'

if [ -z "$lib" ]; then
	build=${build:-$src/build}
	if [ ! -f "$build/build.ninja" ]; then
		echo "abi-check: $build is not a configured build folder (meson setup $build)" >&2
		exit 2
	fi
	echo "+ meson compile -C $build profdb:shared_library"
	meson compile -C "$build" profdb:shared_library >/dev/null || exit 2
	lib=$build/lib/libprofdb.so
fi
if [ ! -f "$lib" ]; then
	echo "abi-check: no shared library $lib" >&2
	exit 2
fi
if [ ! -d "$headers" ]; then
	echo "abi-check: no header folder $headers" >&2
	exit 2
fi

readelf -S "$lib" | grep -q '\.debug_info' ||
	skip "$lib has no debug information; configure the build with -g (buildtype debug or debugoptimized)"
# The compiler that built the library leaves its name in .comment.
if [ $update = yes ] && readelf -p .comment "$lib" 2>/dev/null | grep -q 'clang version'; then
	echo "abi-check: $lib was built by clang; write the baseline from a GCC build" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/profdb-abi.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # a word list
if ! abidw $ABIDW_FLAGS --headers-dir "$headers" --out-file "$tmp/abidw.abi" "$lib"; then
	echo "abi-check: abidw failed on $lib" >&2
	exit 2
fi
# A unit's path is the compiler's, relative to the build folder
# (../lib/core/view.c, or ../../src/profdb/lib/core/view.c): keep it from
# the library's lib/ folder on.
sed "s|\(<abi-instr [^>]* path='\)[^']*/\(lib/[^']*'\)|\1\2|" "$tmp/abidw.abi" >"$tmp/current.abi" || exit 2
summary() { # FILE: what a description holds
	printf '%s: soname %s, %s functions, %s variables\n' "$1" \
		"$(sed -n "s/.*<abi-corpus .*soname='\([^']*\)'.*/\1/p" "$1" | head -n 1)" \
		"$(grep -c '<elf-symbol name=.* type=.func-type' "$1")" \
		"$(grep -c '<elf-symbol name=.* type=.object-type' "$1")"
}

if [ $update = yes ]; then
	mkdir -p "$(dirname "$baseline")" || exit 2
	cp "$tmp/current.abi" "$baseline" || exit 2
	echo "baseline written: $(summary "$baseline")"
	echo "review it (git diff $baseline) and commit it with the change of the API"
	exit 0
fi

if [ ! -f "$baseline" ]; then
	echo "abi-check: no baseline $baseline (scripts/abi-check.sh --update writes it)" >&2
	exit 2
fi
arch() { sed -n "s/.*<abi-corpus .*architecture='\([^']*\)'.*/\1/p" "$1" | head -n 1; }
[ "$(arch "$baseline")" = "$(arch "$tmp/current.abi")" ] ||
	skip "the baseline describes $(arch "$baseline"), this library $(arch "$tmp/current.abi")"

echo "baseline: $(summary "$baseline")"
echo "library:  $(summary "$tmp/current.abi") (from $lib)"
abidiff "$baseline" "$tmp/current.abi" >"$tmp/report"
rc=$?
cat "$tmp/report"
# abidiff's status is a bit set: 1 error, 2 usage error, 4 the ABI changed,
# 8 a symbol was removed or changed incompatibly. A type change (a struct
# that grew, a member that moved) is only 4, so the report's summary lines
# ("N Removed, N Changed, N Added") tell the three cases apart.
if [ $rc = 0 ]; then
	echo "PASS: the ABI equals the baseline"
	exit 0
elif [ $((rc & 3)) != 0 ]; then
	echo "abi-check: abidiff failed (status $rc)" >&2
	exit 2
fi
if [ $((rc & 8)) != 0 ] || grep -Eq '[1-9][0-9]* Removed' "$tmp/report"; then
	echo "FAIL: incompatible ABI change (above: a symbol removed or changed incompatibly)."
	echo "Within a soname, no symbol is ever removed; see doc/ABI.md."
	exit 1
elif grep -Eq '[1-9][0-9]* Changed' "$tmp/report" || ! grep -Eq '[1-9][0-9]* Added' "$tmp/report"; then
	echo "FAIL: a public type or signature changed (above). Within a soname the only"
	echo "change allowed is a new field taking a struct's reserved space, its size and"
	echo "the other offsets unchanged (doc/CONVENTIONS.md, \"Growing the API\"); after"
	echo "checking that, record it with scripts/abi-check.sh --update (doc/ABI.md)."
	exit 1
fi
echo "FAIL: the ABI changed (above: additions only) but $baseline was not regenerated."
echo "If the change is meant (new API in the newest version node of lib/libprofdb.sym),"
echo "run scripts/abi-check.sh --update and commit the baseline with it; see doc/ABI.md."
exit 1
