# bash completion for profdb                                -*- shell-script -*-
#
# Installed as share/bash-completion/completions/profdb (bash-completion
# loads it the first time "profdb <TAB>" is pressed); or source it.
#
# Nothing is hard-wired that the program knows better: the commands come
# from "profdb --commands" (the program's command table), each command's
# options from its "--help" text (the usage lines and the lines that
# describe an option), so commands and options added later complete
# without touching this file. Option values complete where the help text
# lists them ("--by function|context|file|module|line|loop") or where they
# are a fixed set (--table, --view, --color, --stat); the PATH argument
# completes file and directory names (databases are directories or files).

# The options of command $2 of program $1 (cached per program and command).
_profdb_options()
{
	local key="$1 $2"
	if [[ -z ${_profdb_opt_cache[$key]+set} ]]; then
		_profdb_opt_cache[$key]=$(
			"$1" "$2" --help 2>/dev/null |
				awk 'NR == 1 || /^ +\[/ || /^ +-/' |
				grep -oE -- '(^|[[ ,|])--?[A-Za-z][A-Za-z-]*' |
				sed 's/^[[ ,|]//' | sort -u)
	fi
	printf '%s\n' "${_profdb_opt_cache[$key]}"
}

# The values the help text of command $2 lists for option $3 as "OPT a|b|c".
_profdb_listed_values()
{
	"$1" "$2" --help 2>/dev/null |
		grep -oE -- "$3[ =][a-z][a-z-]*(\|[a-z][a-z-]*)+" | head -n 1 |
		sed "s/^$3.//" | tr '|' '\n'
}

_profdb()
{
	local cur prev prog cmd i w
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	prog=${COMP_WORDS[0]}
	# "--opt=value": bash splits at '=' (COMP_WORDBREAKS).
	if [[ $cur == "=" ]]; then
		cur=
	elif [[ $prev == "=" && COMP_CWORD -ge 2 ]]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	else
		[[ $cur == --*=* ]] && { prev=${cur%%=*}; cur=${cur#*=}; }
	fi

	# The command: the first word after the program that is not an option.
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* || $w == "=" ]] && continue
		[[ ${COMP_WORDS[i-1]} == "=" ]] && continue
		cmd=$w
		break
	done

	# Values of options.
	local values=
	case $prev in
	--color | --colour) values="auto always never" ;;
	--table) values="metrics contexts profiles values traces edges" ;;
	--view) values="top-down bottom-up flat" ;;
	--stat) values="sum mean min max stddev imbalance" ;;
	esac
	if [[ -z $values && -n $cmd && $prev == --* ]]; then
		values=$(_profdb_listed_values "$prog" "$cmd" "$prev")
	fi
	if [[ -n $values ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
		return 0
	fi
	# An option that takes some other value (a number, a metric, a
	# selection): nothing to offer. The help text shows it as "--opt X"
	# or "-m, --metric M", the value in capitals.
	if [[ -n $cmd && $prev == -* ]] && "$prog" "$cmd" --help 2>/dev/null |
		grep -qE -- "(^|[[ ,])$prev[ =][A-Z]"; then
		return 0
	fi

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--help --version --color=" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$("$prog" --commands 2>/dev/null) help" \
				-- "$cur")
		fi
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	if [[ $cmd == help ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" --commands 2>/dev/null)" -- "$cur")
		return 0
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_profdb_options "$prog" "$cmd") --help --color=" \
			-- "$cur")
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return 0
	fi
	# PATH: files and directories.
	if declare -F _filedir >/dev/null; then
		_filedir
	else
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
	return 0
}

declare -gA _profdb_opt_cache 2>/dev/null || declare -A _profdb_opt_cache
complete -F _profdb profdb
