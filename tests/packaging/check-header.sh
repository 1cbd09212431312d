#!/bin/sh
# Packaging check: the public header exactly as shipped, compiled by a strict
# consumer, then linked against the built shared library and run.
#
#   check-header.sh --lang=c|c++ --cc='COMPILER [ARGS]' --include=SRC/include
#       --version-h=BUILD/include/profdb/profdb-version.h --lib=.../libprofdb.so
#       --source=FILE --workdir=DIR [--flags='EXTRA FLAGS']
#
# The header comes from the source tree (SRC/include/profdb/profdb.h) and the
# generated profdb-version.h from the build tree, nothing else: no project
# include directories, no project flags. --flags carries what the build
# itself imposes on every object that links libprofdb (the -fsanitize= and
# --coverage flags of b_sanitize/b_coverage builds). An empty --cc with
# --lang=c++ means no C++ compiler was found: exit 77 (SKIP).
set -u

lang='' cc='' inc='' version_h='' lib='' src='' workdir='' flags=''
for arg; do
	case $arg in
	--lang=*) lang=${arg#*=} ;;
	--cc=*) cc=${arg#*=} ;;
	--include=*) inc=${arg#*=} ;;
	--version-h=*) version_h=${arg#*=} ;;
	--lib=*) lib=${arg#*=} ;;
	--source=*) src=${arg#*=} ;;
	--workdir=*) workdir=${arg#*=} ;;
	--flags=*) flags=${arg#*=} ;;
	*) echo "check-header: unknown argument $arg" >&2; exit 2 ;;
	esac
done

case $lang in
c)   ext=c std='-std=c11 -pedantic -Wall -Wextra -Werror -Wundef -Wstrict-prototypes -Wshadow -Wconversion -Wsign-conversion' ;;
c++) ext=cpp std='-std=c++11 -pedantic -Wall -Wextra -Werror -Wundef -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast -Wzero-as-null-pointer-constant' ;;
*) echo "check-header: --lang must be c or c++" >&2; exit 2 ;;
esac
if [ -z "$cc" ]; then
	echo "SKIP: no $lang compiler found (nothing is installed for this check)"
	exit 77
fi
for f in "$inc/profdb/profdb.h" "$version_h" "$lib" "$src"; do
	if [ ! -f "$f" ]; then
		echo "check-header: missing $f" >&2
		exit 2
	fi
done
# A stray profdb-version.h next to the source header would shadow the
# generated one ("..." includes look in the including file's directory first).
if [ -e "$inc/profdb/profdb-version.h" ]; then
	echo "FAIL: $inc/profdb/profdb-version.h exists in the source tree and shadows the generated header" >&2
	exit 1
fi

version_dir=$(dirname "$(dirname "$version_h")")
libdir=$(cd "$(dirname "$lib")" && pwd) || exit 2
mkdir -p "$workdir" || exit 2
out=$(mktemp -d "$workdir/header-$lang.XXXXXX") || exit 2
ok=0
trap 'if [ $ok = 1 ]; then rm -rf "$out"; else echo "(files kept in $out)"; fi' EXIT

run() {
	echo "+ $*"
	"$@"
}

# 1. Compile only, as a consumer that defines PROFDB_STATIC_BUILD would.
# shellcheck disable=SC2086 # $cc, $std and $flags are word lists
run $cc $std $flags -DPROFDB_STATIC_BUILD -I"$inc" -I"$version_dir" \
	-c "$src" -o "$out/static-build.o" || { echo "FAIL: $lang compile (PROFDB_STATIC_BUILD)"; exit 1; }

# 1b. Every public header compiles alone (the umbrella is only a list).
for h in "$inc"/profdb/*.h; do
	name=$(basename "$h")
	printf '#include <profdb/%s>\n#include <profdb/%s>\nint main(void) { return 0; }\n' \
		"$name" "$name" >"$out/alone-$name.$ext"
	# shellcheck disable=SC2086
	run $cc $std $flags -I"$inc" -I"$version_dir" -c "$out/alone-$name.$ext" \
		-o "$out/alone.o" || { echo "FAIL: $lang: profdb/$name does not compile alone"; exit 1; }
done

# 2. Compile, link against the built shared library, run.
# shellcheck disable=SC2086
run $cc $std $flags -I"$inc" -I"$version_dir" "$src" -o "$out/prog" "$lib" \
	|| { echo "FAIL: $lang compile/link against $lib"; exit 1; }
echo "+ LD_LIBRARY_PATH=$libdir $out/prog"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$out/prog" \
	|| { echo "FAIL: $lang program exited with $?"; exit 1; }

ok=1
echo "PASS"
exit 0
