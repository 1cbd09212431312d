#!/bin/sh
# The tool's own allocations failing: a Callgrind text whose function and
# event names are 300 000 bytes long, run with tests/fail-malloc.c
# preloaded to refuse any request above 200 000 bytes. The library reads
# the names in place; the tool's labels and column heads of them are
# refused, and every command must say "profdb: out of memory" (exit 1),
# not another message.
# usage: test-tool-oom.sh PROFDB FAIL_MALLOC_SO WORKDIR
set -u
profdb=$1 shim=$2 work=$3
mkdir -p "$work"
LC_ALL=C
export LC_ALL
fails=0
fn=f$(printf '%0300000d' 0)
ev=E$(printf '%0300000d' 0)
text=$work/long-names.callgrind
printf 'events: %s\nfn=main\n1 10\ncfn=%s\ncalls=1 2\n2 5\nfn=%s\n3 5\n' "$ev" "$fn" "$fn" >"$text"

# Without the refusals every command succeeds.
for cmd in top tree bottom-up 'callees #1' stats; do
	# shellcheck disable=SC2086
	if ! "$profdb" $cmd "$text" >/dev/null 2>"$work/err"; then
		echo "FAIL $cmd without refusals:"; cat "$work/err"; fails=$((fails + 1))
	fi
done
for cmd in top tree bottom-up 'callees #1' stats; do
	# shellcheck disable=SC2086
	FAIL_ABOVE=200000 LD_PRELOAD=$shim "$profdb" $cmd "$text" >/dev/null 2>"$work/err"
	got=$?
	if [ "$got" -ne 1 ] || [ "$(cat "$work/err")" != "profdb: out of memory" ]; then
		echo "FAIL $cmd: exit $got, want 1 and 'profdb: out of memory'; stderr:"
		head -c 300 "$work/err"; echo
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ] && echo "tool-oom: all passed"
exit $((fails > 0))
