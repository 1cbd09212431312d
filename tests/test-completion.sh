#!/usr/bin/env bash
# The bash completion (tool/completion/profdb.bash): sourced into a bash,
# its function is asked what it would offer, as bash asks it on TAB.
# usage: test-completion.sh COMPLETION_SCRIPT PROFDB WORKDIR
set -u
script=$1 profdb=$2 work=$3
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
rm -rf "$work" && mkdir -p "$work/db.d" && : >"$work/callgrind.out.1"

# shellcheck disable=SC1090
source "$script" || { echo "FAIL: cannot source $script"; exit 1; }
complete -p profdb >/dev/null 2>&1 || fail "no completion registered for profdb"

# offers WORDS... = EXPECTED: what _profdb offers for the command line
# "profdb WORDS..." with the cursor on the last word (bash splits at '=').
offers() {
	local want=${*: -1} got
	COMP_WORDS=("$profdb" "${@:1:$#-2}")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_profdb
	got="${COMPREPLY[*]}"
	[ "$got" = "$want" ] || fail "profdb ${*:1:$#-2}<TAB>: '$got', want '$want'"
}

# Commands come from the program's table: 'profdb t' offers every command
# starting with t, whatever the table holds.
want_t=$("$profdb" --commands | grep '^t' | tr '\n' ' ' | sed 's/ $//')
[ -n "$want_t" ] || fail "profdb --commands lists no command starting with t"
offers t = "$want_t"
for c in top tree trace; do
	case " $want_t " in *" $c "*) ;; *) fail "'profdb t' does not offer $c" ;; esac
done
offers help t = "$want_t"
offers in = "info"
offers --ver = "--version"
offers --color = '' = "auto always never"
offers --color = always t = "$want_t"
# Values listed in a help text as "OPT a|b|c": the converter formats.
offers convert --to "" = "folded speedscope chrome callgrind pprof svg timeline"
# Options per command, from its --help.
offers dump --t = "--table"
offers dump --table '' = "metrics contexts profiles values traces edges"
offers dump --table = v = "values"
offers value --con = "--context"
offers info -- = "--check --json --values --help --color="
offers tree --view '' = "top-down bottom-up flat"
offers top --by '' = "$("$profdb" top --help | grep -oE -- '--by [a-z|]+' | head -n 1 | sed 's/--by //' | tr '|' ' ')"
# An option taking a number or a name: nothing to offer.
offers tree --depth '' = ""
offers top -m '' = ""
# PATH: files and directories.
offers info "$work/db" = "$work/db.d"
offers top "$work/call" = "$work/callgrind.out.1"

[ "$fails" -eq 0 ] && echo "all completion checks passed"
exit $((fails > 0))
