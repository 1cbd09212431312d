#!/bin/sh
# The ABI gate can fail: scripts/abi-check.sh against changes made in a
# scratch directory, never in the tree.
#
#   check-abi-gate.sh --script=scripts/abi-check.sh --cc='CC [ARGS]' --workdir=DIR
#       [--ninja=NINJA --builddir=DIR --target=lib/libprofdb.so.X.Y.Z
#        --sym=lib/libprofdb.sym --baseline=abi/libprofdb.abi --headers=include/profdb]
#
# 1. A small library with a public struct and two functions: its own
#    baseline, then
#      the same library rebuilt                          -> pass (0)
#      a function removed from its version script        -> fail (1), removed
#      a field of the public struct widened              -> fail (1), size change
#      a function added, baseline not regenerated        -> fail (1), added
#      the same after --update                           -> pass (0)
# 2. (given --ninja) libprofdb itself, relinked from this build's objects
#    with one symbol left out of the version script, against the committed
#    baseline -> fail (1), naming the symbol.
# Exit 0 when the gate behaved as above, 1 otherwise, 77 without abigail-tools.
set -u
script='' cc='' workdir='' ninja='' builddir='' target='' sym='' baseline='' headers=''
for arg; do
	case $arg in
	--script=*) script=${arg#*=} ;;
	--cc=*) cc=${arg#*=} ;;
	--workdir=*) workdir=${arg#*=} ;;
	--ninja=*) ninja=${arg#*=} ;;
	--builddir=*) builddir=${arg#*=} ;;
	--target=*) target=${arg#*=} ;;
	--sym=*) sym=${arg#*=} ;;
	--baseline=*) baseline=${arg#*=} ;;
	--headers=*) headers=${arg#*=} ;;
	*) echo "check-abi-gate: unknown argument $arg" >&2; exit 2 ;;
	esac
done
for tool in abidw abidiff; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "SKIP: $tool not found (apt-get install abigail-tools); the ABI gate is not tested"
		exit 77
	fi
done
# abi-check.sh writes a baseline from a GCC build only, and this test
# writes the small library's: under a clang build it takes GCC for that
# library (part 2 compares clang's libprofdb with the committed baseline,
# as the gate allows).
case $($cc --version 2>/dev/null | head -n 1) in
*clang*)
	if ! command -v gcc >/dev/null 2>&1; then
		echo "SKIP: the small library's baseline needs GCC, and this build uses clang"
		exit 77
	fi
	cc=gcc ;;
esac
mkdir -p "$workdir" || exit 2
T=$(mktemp -d "$workdir/abi-gate.XXXXXX") || exit 2
failures=0
trap 'if [ $failures = 0 ]; then rm -rf "$T"; else echo "(files kept in $T)"; fi' EXIT
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# expect STATUS PATTERN LABEL ARGS...: abi-check.sh ARGS exits STATUS and,
# for a failure, its report matches the extended regex PATTERN. Returns 0
# when it did, 1 when not (counted), 77 when abi-check.sh could not compare.
expect() {
	want=$1 pattern=$2 label=$3
	shift 3
	sh "$script" "$@" >"$T/out" 2>&1
	got=$?
	sed 's/^/    /' "$T/out"
	if [ $got = 77 ] && [ "$want" != 77 ]; then
		return 77
	elif [ $got != "$want" ]; then
		fail "$label: abi-check.sh exited $got, expected $want"
		return 1
	elif [ -n "$pattern" ] && ! grep -Eq "$pattern" "$T/out"; then
		fail "$label: the report does not say /$pattern/"
		return 1
	fi
	echo "ok: $label (exit $got)"
}

# ---- 1. A small library ----------------------------------------------------
mkdir -p "$T/mini/include/mini" || exit 2
write_mini() { # FIELD-TYPE EXTRA-FUNCTION(yes|no) EXPORT-LIST
	cat >"$T/mini/include/mini/mini.h" <<EOF
#include <stdint.h>
typedef struct mini_point { uint32_t id; $1 weight; uint64_t reserved[2]; } mini_point;
int mini_get(uint32_t id, mini_point *out);
int mini_count(void);
$([ "$2" = yes ] && echo 'int mini_extra(void);')
EOF
	cat >"$T/mini/mini.c" <<EOF
#include "mini/mini.h"
#include <string.h>
int mini_get(uint32_t id, mini_point *out) { memset(out, 0, sizeof *out); out->id = id; return 1; }
int mini_count(void) { return 1; }
$([ "$2" = yes ] && echo 'int mini_extra(void) { return 2; }')
EOF
	printf 'MINI_1.0 {\nglobal:\n%s\nlocal:\n\t*;\n};\n' "$3" >"$T/mini/mini.sym"
	# shellcheck disable=SC2086 # a word list
	$cc -g -O1 -fPIC -shared -I"$T/mini/include" -Wl,--version-script="$T/mini/mini.sym" \
		-Wl,-soname,libmini.so.1 "$T/mini/mini.c" -o "$T/mini/libmini.so" ||
		{ echo "check-abi-gate: $cc cannot build the small library" >&2; exit 2; }
}
mini() {
	expect "$1" "$2" "$3" --lib="$T/mini/libmini.so" --baseline="$T/mini/mini.abi" \
		--headers="$T/mini/include/mini" ${4:+"$4"}
	[ $? != 77 ] || fail "$3: abi-check.sh could not compare the small library"
}

both='	mini_get;
	mini_count;'
write_mini uint32_t no "$both"
mini 0 '' 'baseline of the small library' --update
write_mini uint32_t no "$both"
mini 0 'PASS' 'the same library rebuilt'
write_mini uint32_t no '	mini_get;'
mini 1 'incompatible ABI change' 'a function removed'
write_mini uint64_t no "$both"
mini 1 'type or signature changed' 'a field of a public struct widened'
write_mini uint32_t yes "$both
	mini_extra;"
mini 1 'additions only.*not regenerated' 'a function added'
mini 0 '' 'the added function recorded with --update' --update
mini 0 'PASS' 'the same library against the regenerated baseline'

# ---- 2. libprofdb without one of its symbols ----------------------------------
if [ -z "$ninja" ]; then
	echo "note: no ninja; libprofdb is not relinked without a symbol"
else
	link=$("$ninja" -C "$builddir" -t commands "$target" | tail -n 1)
	case $link in
	*"--version-script=$sym"*"-o $target"* | *"-o $target"*"--version-script=$sym"*) ;;
	*) fail "cannot find the link command of $target in $builddir: $link"; exit 1 ;;
	esac
	removed=profdb_profile_count
	grep -q "^	$removed;" "$sym" || { fail "$sym does not list $removed"; exit 1; }
	grep -v "^	$removed;\$" "$sym" >"$T/less.sym"
	link=$(printf '%s\n' "$link" | sed "s|--version-script=$sym|--version-script=$T/less.sym|; s| -o $target | -o $T/libprofdb.so |")
	echo "+ (cd $builddir && $link)"
	(cd "$builddir" && eval "$link") || { fail "relinking libprofdb without $removed"; exit 1; }
	if expect 1 'incompatible ABI change' "libprofdb without $removed, against the committed baseline" \
		--lib="$T/libprofdb.so" --baseline="$baseline" --headers="$headers"; then
		grep -q "$removed@@LIBPROFDB_" "$T/out" || fail "the report does not name $removed"
	elif [ $? = 77 ]; then
		echo "note: abi-check.sh cannot compare this build's libprofdb (above); only the small library was checked"
	fi
fi

if [ $failures != 0 ]; then
	echo "FAILED ($failures)"
	exit 1
fi
echo "PASS"
exit 0
