#!/bin/sh
# Packaging check: stage an install with DESTDIR, then build and run a
# consumer that knows nothing but the installed files and pkg-config:
#
#   cc app.c $(pkg-config --cflags --libs profdb)            (shared)
#   cc app.c $(pkg-config --static --cflags --libs profdb)   (static)
#
#   check-install.sh --builddir=DIR --workdir=DIR --prefix=P --libdir=ABS
#       --includedir=ABS --version=X.Y.Z --cc='CC [ARGS]' --app=app.c
#       --source-include=SRC/include --version-h=BUILD/.../profdb-version.h
#       [--ninja=NINJA | --meson=MESON]
#       [--pkg-config=PKGCONFIG] [--nm=NM] [--readelf=READELF]
#       [--flags='EXTRA FLAGS']
#       [--tool=yes|no --bindir=ABS --mandir=ABS [--datadir=ABS] [--rpath=ABS]]
#       [--client=client.c --mksample=PROFDB-MKSAMPLE [--cxx='CXX [ARGS]']]
#
# Needs no network and no root: everything lands in a fresh directory under
# --workdir (removed on success, kept on failure). --flags carries what the
# build imposes on everything that links libprofdb (-fsanitize=... in
# b_sanitize builds, --coverage in b_coverage builds); pkg-config cannot know
# about those and must not.
#
# With --client, client.c reads the writer's sample database (made with
# --mksample), built the same two ways as app.c, as C and, given --cxx, as
# C++: a reading consumer of the headers and libraries as installed.
#
# With --tool=yes the installed profdb program, its man page and (given
# --datadir) its bash completion DATADIR/bash-completion/completions/profdb
# are checked too: the man page names --version, the program's RUNPATH (or
# RPATH) names --rpath (the install libdir; empty when that is a system directory), and
# the staged program runs. Under DESTDIR an absolute RUNPATH points at the
# not-yet-populated real libdir, so the staged run adds the staged libdir
# with LD_LIBRARY_PATH; the RUNPATH itself is what the readelf check proves.
# With --tool=no neither may be installed.
#
# The static consumer is linked against a copy of the staged tree from which
# libprofdb.so* was removed, so the unmodified pkg-config command line has to
# pick libprofdb.a and everything libprofdb.a needs has to come from
# `pkg-config --static`. Dependencies the linker would not notice are checked
# from the archive's undefined symbols (on glibc >= 2.34 the pthread functions
# live in libc, so a missing -pthread would still link there).
set -u

builddir='' workdir='' prefix='' libdir='' includedir='' version='' cc='' app='' src_inc=''
version_h='' soname='' ninja='' meson='' pkgconfig=pkg-config nm=nm
readelf=readelf flags='' tool=no bindir='' mandir='' datadir='' rpath=''
client='' mksample='' cxx=''
for arg; do
	case $arg in
	--builddir=*) builddir=${arg#*=} ;;
	--workdir=*) workdir=${arg#*=} ;;
	--prefix=*) prefix=${arg#*=} ;;
	--libdir=*) libdir=${arg#*=} ;;
	--includedir=*) includedir=${arg#*=} ;;
	--version=*) version=${arg#*=} ;;
	--cc=*) cc=${arg#*=} ;;
	--app=*) app=${arg#*=} ;;
	--source-include=*) src_inc=${arg#*=} ;;
	--version-h=*) version_h=${arg#*=} ;;
	--ninja=*) ninja=${arg#*=} ;;
	--meson=*) meson=${arg#*=} ;;
	--pkg-config=*) pkgconfig=${arg#*=} ;;
	--nm=*) nm=${arg#*=} ;;
	--readelf=*) readelf=${arg#*=} ;;
	--flags=*) flags=${arg#*=} ;;
	--tool=*) tool=${arg#*=} ;;
	--bindir=*) bindir=${arg#*=} ;;
	--mandir=*) mandir=${arg#*=} ;;
	--datadir=*) datadir=${arg#*=} ;;
	--rpath=*) rpath=${arg#*=} ;;
	--client=*) client=${arg#*=} ;;
	--mksample=*) mksample=${arg#*=} ;;
	--cxx=*) cxx=${arg#*=} ;;
	*) echo "check-install: unknown argument $arg" >&2; exit 2 ;;
	esac
done
for v in builddir workdir prefix libdir includedir version cc app src_inc version_h; do
	eval "val=\$$v"
	if [ -z "$val" ]; then
		echo "check-install: --$v is required" >&2
		exit 2
	fi
done
if [ -z "$pkgconfig" ] || ! command -v "$pkgconfig" >/dev/null 2>&1; then
	echo "SKIP: no pkg-config program found"
	exit 77
fi
if [ -z "$ninja$meson" ]; then
	echo "SKIP: neither ninja nor meson available to install the build"
	exit 77
fi
case $prefix$libdir$includedir in
*' '*) echo "SKIP: installation paths contain spaces; pkg-config output cannot carry them"; exit 77 ;;
esac

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
run() {
	echo "+ $*"
	"$@"
}

mkdir -p "$workdir" || exit 2
T=$(mktemp -d "$workdir/install.XXXXXX") || exit 2
T=$(cd "$T" && pwd) || exit 2
case $T in
*' '*) echo "SKIP: work directory $T contains spaces; pkg-config output cannot carry them"; rm -rf "$T"; exit 77 ;;
esac
trap 'if [ "$failures" = 0 ]; then rm -rf "$T"; else echo "(files kept in $T)"; fi' EXIT

D=$T/stage
L=$D$libdir
I=$D$includedir

# ---- 1. Staged install ----------------------------------------------------
# `ninja install` (preferred) first brings the whole build up to date, since
# `meson test` only rebuilds what the selected tests depend on; it then runs
# `meson install --no-rebuild` with the meson that configured this build.
if [ -n "$ninja" ]; then
	echo "+ DESTDIR=$D $ninja -C $builddir install"
	DESTDIR=$D "$ninja" -C "$builddir" install >"$T/install.log" 2>&1
else
	echo "+ $meson install --destdir $D --no-rebuild -C $builddir"
	# shellcheck disable=SC2086 # $meson may be "python3 meson.py"
	$meson install --destdir "$D" --no-rebuild -C "$builddir" >"$T/install.log" 2>&1
fi
status=$?
if [ $status != 0 ]; then
	cat "$T/install.log"
	fail "install into $D exited with $status"
	exit 1
fi

echo "--- staged files:"
(cd "$D" && find . \( -type f -o -type l \) | sort)

# ---- 2. Installed layout ----------------------------------------------------
for f in "$I/profdb/profdb.h" "$I/profdb/profdb-version.h" \
	"$L/pkgconfig/profdb.pc" "$L/libprofdb.a" "$L/libprofdb.so"; do
	[ -e "$f" ] || fail "not installed: ${f#"$D"}"
done
[ "$failures" = 0 ] || exit 1
cmp "$src_inc/profdb/profdb.h" "$I/profdb/profdb.h" \
	|| fail "installed profdb.h differs from $src_inc/profdb/profdb.h"
cmp "$version_h" "$I/profdb/profdb-version.h" \
	|| fail "installed profdb-version.h differs from $version_h"
# Headers only under include/profdb/, and exactly the public ones: every
# header of the source include/profdb/ plus the generated version header.
stray=$(cd "$D" && find . -name '*.h' ! -path ".$includedir/profdb/*")
[ -z "$stray" ] || fail "headers installed outside ${includedir}/profdb/: $stray"
# (plus libprofdb-mpi's header, mpi/profdb-mpi.h, in a build with -Dmpi)
expected=$( (cd "$src_inc/profdb" && ls ./*.h; basename "$version_h"
	if [ -f "$I/profdb/profdb-mpi.h" ] && cmp -s "$src_inc/../mpi/profdb-mpi.h" "$I/profdb/profdb-mpi.h"; then
		echo profdb-mpi.h
	fi) | sed 's|^\./||' | sort -u)
installed=$(cd "$I/profdb" && find . -type f | sed 's|^\./||' | sort)
if [ "$expected" != "$installed" ]; then
	fail "installed headers differ from the public ones"
	echo "expected: $expected" | tr '\n' ' '; echo
	echo "installed: $installed" | tr '\n' ' '; echo
fi
# Shared library: SONAME and the symlink chain the linker and loader use.
if command -v "$readelf" >/dev/null 2>&1; then
	soname=$("$readelf" -d "$L/libprofdb.so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
	echo "SONAME: $soname"
	# The soname is the major version (doc/ABI.md); the chain is
	# libprofdb.so -> libprofdb.so.MAJOR -> libprofdb.so.VERSION, a file.
	major=${version%%.*}
	[ "$soname" = "libprofdb.so.$major" ] \
		|| fail "libprofdb.so has SONAME '$soname', expected libprofdb.so.$major (version $version)"
	[ -e "$L/$soname" ] || fail "SONAME $soname not installed in ${libdir}"
	[ -L "$L/libprofdb.so" ] || fail "${libdir}/libprofdb.so is not a symlink (development link)"
	[ -L "$L/libprofdb.so.$major" ] || fail "${libdir}/libprofdb.so.$major is not a symlink"
	if [ ! -f "$L/libprofdb.so.$version" ] || [ -L "$L/libprofdb.so.$version" ]; then
		fail "${libdir}/libprofdb.so.$version is not the library file"
	fi
	for link in libprofdb.so libprofdb.so.$major; do
		target=$(readlink -f "$L/$link")
		[ "$target" = "$(readlink -f "$L/libprofdb.so.$version")" ] \
			|| fail "${libdir}/$link leads to ${target#"$D"}, not libprofdb.so.$version"
	done
else
	readelf=
	echo "note: no readelf; SONAME and NEEDED checks skipped"
fi

# ---- 2b. The tool: program, man page, RUNPATH --------------------------------
if [ "$tool" = yes ]; then
	P=$D$bindir/profdb
	M=$D$mandir/man1/profdb.1
	[ -x "$P" ] || fail "not installed: ${P#"$D"}"
	if [ -f "$M" ]; then
		head -n 1 "$M" | grep -q "\"profdb $version\"" \
			|| fail "man page ${M#"$D"} does not say version $version: $(head -n 1 "$M")"
	else
		fail "not installed: ${M#"$D"}"
	fi
	C=$D$datadir/bash-completion/completions/profdb
	[ -z "$datadir" ] || grep -q 'complete -F _profdb profdb' "$C" 2>/dev/null \
		|| fail "bash completion not installed as ${C#"$D"}"
	if [ -x "$P" ]; then
		if [ -n "$readelf" ]; then
			runpath=$("$readelf" -d "$P" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\].*/\2/p')
			echo "installed profdb RUNPATH: '$runpath' (expected: '$rpath')"
			if [ -n "$rpath" ]; then
				case :$runpath: in
				*:"$rpath":*) ;;
				*) fail "installed profdb has RUNPATH '$runpath', which does not name $rpath" ;;
				esac
			fi
			case :$runpath: in
			*"$builddir"*) fail "installed profdb keeps a build-directory RUNPATH: $runpath" ;;
			esac
		fi
		echo "+ LD_LIBRARY_PATH=$L $P --version"
		out=$(LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$P" --version)
		status=$?
		echo "$out"
		[ $status = 0 ] || fail "installed profdb --version exited with $status"
		[ "$out" = "profdb $version" ] || fail "installed profdb --version printed '$out'"
	fi
else
	[ -z "$bindir" ] || [ ! -e "$D$bindir/profdb" ] || fail "profdb installed although the tool is disabled"
	[ -z "$mandir" ] || [ ! -e "$D$mandir/man1/profdb.1" ] || fail "man page installed although the tool is disabled"
	[ -z "$datadir" ] || [ ! -e "$D$datadir/bash-completion/completions/profdb" ] \
		|| fail "bash completion installed although the tool is disabled"
fi

# profdb-mpi (a build with -Dmpi and the tool): its man page comes with it.
if [ -n "$bindir" ] && [ -x "$D$bindir/profdb-mpi" ]; then
	M=$D$mandir/man1/profdb-mpi.1
	head -n 1 "$M" 2>/dev/null | grep -q "\"profdb $version\"" \
		|| fail "profdb-mpi installed without its man page ${M#"$D"} (version $version)"
fi

# ---- 3. profdb.pc -------------------------------------------------------------
PKG_CONFIG_PATH=$L/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$D
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
echo "--- $L/pkgconfig/profdb.pc:"
cat "$L/pkgconfig/profdb.pc"
echo "---"

if "$pkgconfig" --help 2>&1 | grep -q -- --validate; then
	run "$pkgconfig" --validate profdb || fail "pkg-config --validate profdb"
fi
pc_version=$("$pkgconfig" --modversion profdb) || { fail "pkg-config cannot find the staged profdb.pc"; exit 1; }
[ "$pc_version" = "$version" ] || fail "profdb.pc has Version $pc_version, the project is $version"

cflags=$("$pkgconfig" --cflags profdb) || fail "pkg-config --cflags profdb"
libs=$("$pkgconfig" --cflags --libs profdb) || fail "pkg-config --cflags --libs profdb"
static_libs=$("$pkgconfig" --static --cflags --libs profdb) || fail "pkg-config --static --cflags --libs profdb"
echo "--cflags --libs:          $libs"
echo "--static --cflags --libs: $static_libs"
# No overlinking: a shared consumer gets -L/-lprofdb and nothing private.
for w in $("$pkgconfig" --libs profdb); do
	case $w in
	-L*|-lprofdb) ;;
	*) fail "pkg-config --libs profdb has '$w'; private dependencies belong in Libs.private/Requires.private" ;;
	esac
done

# What libprofdb.a needs from outside libc, and what must then be in the
# --static output (via Libs.private or Requires.private).
undefined=$("$nm" -u "$L/libprofdb.a" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u)
need() { # need LABEL SYMBOL-REGEX FLAG...
	label=$1 re=$2
	shift 2
	used=$(printf '%s\n' "$undefined" | grep -E "$re" | head -n 3 | tr '\n' ' ')
	[ -n "$used" ] || return 0
	for flag; do
		for w in $static_libs; do
			[ "$w" = "$flag" ] && return 0
		done
	done
	fail "libprofdb.a uses $label ($used) but 'pkg-config --static --libs profdb' has none of: $*"
}
need pthreads '^pthread_' -pthread -lpthread
need zlib '^(inflate|deflate|crc32|adler32|gz[a-z_]+|compress|uncompress)' -lz
need expat '^XML_' -lexpat
need libm '^(sqrt|exp|log|pow|floor|ceil|fmod|round|lround)f?$' -lm

# ---- 4. Shared consumer -----------------------------------------------------
cp "$app" "$T/app.c" || exit 2
cd "$T" || exit 2

# The reading clients (--client): client.c as C and a copy as C++, each
# built by `clients SUFFIX LINK-FLAGS` and run on the writer's database;
# the shared ones load libprofdb from the directory given as LIBDIR.
sample_db=''
if [ -n "$client" ] && [ -n "$mksample" ]; then
	cp "$client" client.c && cp "$client" client.cpp || exit 2
	if run "$mksample" sample "$T/sample.d" >/dev/null; then
		sample_db=$T/sample.d
	else
		fail "$mksample sample $T/sample.d"
	fi
	[ -n "$cxx" ] || echo "note: no C++ compiler; the C++ client is not built"
else
	echo "note: no --client/--mksample; the reading clients are not built"
fi
clients() { # SUFFIX LINK-FLAGS [LIBDIR]
	[ -n "$sample_db" ] || return 0
	for lang in c cpp; do
		comp=$cc
		if [ $lang = cpp ]; then
			[ -n "$cxx" ] || continue
			comp=$cxx
		fi
		prog=client-$lang-$1
		# shellcheck disable=SC2086 # word lists
		run $comp $flags client.$lang $2 -o "$prog" || { fail "$prog does not build"; continue; }
		if [ -n "$readelf" ] && [ -z "${3:-}" ] && "$readelf" -d "$prog" | grep -q 'NEEDED.*libprofdb'; then
			fail "$prog needs a shared libprofdb"
		fi
		echo "+ ./$prog $sample_db"
		LD_LIBRARY_PATH=${3:-}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "./$prog" "$sample_db" >"$prog.txt"
		status=$?
		cat "$prog.txt"
		[ $status = 0 ] || fail "$prog exited with $status"
		grep -q "^profdb $version, .*: 3 profiles" "$prog.txt" || fail "$prog did not read the sample"
	done
}
# The headers the compiler reads must be the staged ones.
# shellcheck disable=SC2086,SC2020 # word lists; space and backslash -> newline
deps=$($cc $flags -M app.c $cflags | tr ' \134' '\n\n' | grep 'profdb')
for h in profdb.h profdb-version.h; do
	p=$(printf '%s\n' "$deps" | grep "/profdb/$h\$" | head -n 1)
	case $p in
	"$I/profdb/$h") ;;
	'') fail "app.c did not read $h" ;;
	*) fail "app.c read $p instead of the staged $I/profdb/$h" ;;
	esac
done

# shellcheck disable=SC2086
run $cc $flags app.c $libs -o app-shared || fail "shared consumer does not build"
if [ -x app-shared ]; then
	if [ -n "$readelf" ]; then
		"$readelf" -d app-shared | grep -q "NEEDED.*\[$soname\]" \
			|| fail "app-shared does not need $soname"
	fi
	if command -v ldd >/dev/null 2>&1; then
		resolved=$(LD_LIBRARY_PATH=$L ldd ./app-shared | awk '/libprofdb/ { print $3 }')
		case $resolved in
		"$L"/libprofdb.so*) echo "app-shared loads $resolved" ;;
		*) fail "app-shared resolves libprofdb to '$resolved', not the staged ${libdir}" ;;
		esac
	fi
	echo "+ LD_LIBRARY_PATH=$L ./app-shared $T/no-such-dir/db"
	LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ./app-shared "$T/no-such-dir/db" >out-shared.txt
	status=$?
	cat out-shared.txt
	[ $status = 0 ] || fail "app-shared exited with $status"
	grep -q "^profdb $version " out-shared.txt || fail "app-shared did not print version $version"
fi
clients shared "$libs" "$L"

# ---- 5. Static consumer ------------------------------------------------------
S=$T/stage-static
cp -PR "$D" "$S" || exit 2
rm -f "$S$libdir"/libprofdb.so*
PKG_CONFIG_PATH=$S$libdir/pkgconfig${PKG_CONFIG_PATH#"$L/pkgconfig"}
PKG_CONFIG_SYSROOT_DIR=$S
static_libs=$("$pkgconfig" --static --cflags --libs profdb) || fail "pkg-config --static (static tree)"
# shellcheck disable=SC2086
run $cc $flags app.c $static_libs -o app-static || fail "static consumer does not build"
if [ -x app-static ]; then
	if [ -n "$readelf" ] && "$readelf" -d app-static | grep -q 'NEEDED.*libprofdb'; then
		fail "app-static still needs a shared libprofdb"
	fi
	"$nm" app-static | grep -q ' T profdb_hpctk_open$' \
		|| fail "app-static does not contain profdb_hpctk_open"
	echo "+ ./app-static $T/no-such-dir/db"
	./app-static "$T/no-such-dir/db" >out-static.txt
	status=$?
	cat out-static.txt
	[ $status = 0 ] || fail "app-static exited with $status"
	grep -q "^profdb $version " out-static.txt || fail "app-static did not print version $version"
fi
clients static "$static_libs"

if [ "$failures" != 0 ]; then
	echo "FAILED ($failures)"
	exit 1
fi
echo "PASS"
exit 0
