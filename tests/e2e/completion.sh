# bash's completion of frugal (make completion), driven as bash drives it:
# COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set, _frugal called,
# COMPREPLY read.  Commands and options against help and --help, and each
# word offered for a value accepted by frugal's own parser.
# shellcheck disable=SC2046	# lists of words, split on purpose
source "$(dirname "$0")/../lib.sh"

BC=/usr/share/bash-completion/bash_completion
COMP=$O/completion/frugal
if [ ! -f "$BC" ]; then
	skip "completion" "bash-completion is not installed (scripts/install-deps.sh)"
	finish
fi
if [ ! -f "$COMP" ]; then
	fail "completion/built" "no $COMP: make completion"
	finish
fi
set +u		# bash-completion reads variables it may not have set
# shellcheck disable=SC1090
source "$BC"
# shellcheck disable=SC1090
source "$COMP"
set -u
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'	# bash's own, which a script does not get

# Complete LINE with the cursor at its end, as bash would: words split at
# blanks and at '=' and ':', a trailing '=' or ':' a word of its own and the
# cursor in it (what bash 5.2 gives a completion function; seen under tmux).
# Prints COMPREPLY, one a line, sorted.
comp() {
	local line=$1 tok
	local -a toks COMP_WORDS=()
	read -ra toks <<<"$line"
	for tok in "${toks[@]}"; do
		while [[ $tok =~ ^([^=:]*)([=:]+)(.*)$ ]]; do
			[ -n "${BASH_REMATCH[1]}" ] && COMP_WORDS+=("${BASH_REMATCH[1]}")
			COMP_WORDS+=("${BASH_REMATCH[2]}")
			tok=${BASH_REMATCH[3]}
		done
		[ -n "$tok" ] && COMP_WORDS+=("$tok")
	done
	[[ $line == *" " ]] && COMP_WORDS+=("")
	(
		set +u
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line
		COMP_POINT=${#line}
		COMPREPLY=()
		_frugal frugal "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
		printf '%s\n' "${COMPREPLY[@]}" | sort -u | grep .
	)
}
# expect NAME LINE WORD...: completing LINE offers exactly the WORDs.
expect() {
	local name=$1 line=$2 got want; shift 2
	got=$(comp "$line" | paste -sd " ")
	want=$(printf '%s\n' "$@" | sort -u | paste -sd " ")
	if [ "$got" = "$want" ]; then pass "completion/$name"; else fail "completion/$name" "'$line': got '$got', want '$want'"; fi
}
# offers NAME LINE WORD...: completing LINE offers at least the WORDs.
offers() {
	local name=$1 line=$2 got w missing=; shift 2
	got=$(comp "$line")
	for w in "$@"; do grep -qxF -- "$w" <<<"$got" || missing="$missing $w"; done
	if [ -z "$missing" ]; then pass "completion/$name"; else fail "completion/$name" "'$line': no$missing among: $(paste -sd " " <<<"$got")"; fi
}
help_opts() {
	# shellcheck disable=SC2086
	"$FRUGAL" $1 --help | grep -oE '^ +(-[A-Za-z0-9], )?--[A-Za-z0-9_.-]+' | sed -e 's/^ *//' -e 's/, /\n/'
}
help_cmds() {
	# shellcheck disable=SC2086
	"$FRUGAL" $1 help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

expect "option-prefix" "frugal lock --ty" --type-filter
expect "option-prefix-top" "frugal lock top --ty" --type-filter
expect "option-after-a-value" "frugal lock -k wait_max --js" --json
expect "commands" "frugal " $(help_cmds "") help
expect "btf-commands" "frugal btf " $(help_cmds btf) help
expect "help-commands" "frugal btf help " $(help_cmds btf)
expect "group-options" "frugal btf -" -h --help
# Every option of --help, and nothing else, for each command with options.
for cmd in "lock" "lock top" "btf encode" "btf diff" "btf stat" "btf show" "bench lock"; do
	expect "options-of-${cmd// /-}" "frugal $cmd -" $(help_opts "${cmd% top}")
done

# Values: every word offered is one frugal's parser takes.
offers "lock-types" "frugal lock -Y " spinlock rwsem rwsem:W mutex mutex-spin percpu-rwsem pthread_mutex
offers "lock-types-long" "frugal lock --type-filter=" spinlock mutex
expect "lock-type-mode" "frugal lock -Y rwsem:" R W
offers "lock-types-list" "frugal lock -Y mutex,sp" mutex,spinlock
expect "sort-keys" "frugal lock -k " contended wait_total wait_max wait_min avg_wait
offers "fields-list" "frugal lock -F contended,wait_m" contended,wait_max contended,wait_min
expect "weight" "frugal lock --weight " wait contended
offers "btf-features" "frugal btf encode --btf_features=" default all var float global_var
expect "btf-features-list" "frugal btf encode --btf_features=var,fl" var,float
offers "diff-kinds" "frugal btf diff --kinds " struct func all
bad=
for w in $(comp "frugal lock -Y "); do "$FRUGAL" lock -Y "$w" -h >/dev/null 2>&1 || bad="$bad -Y:$w"; done
for w in $(comp "frugal lock -k "); do "$FRUGAL" lock -k "$w" -h >/dev/null 2>&1 || bad="$bad -k:$w"; done
for w in $(comp "frugal lock -F "); do "$FRUGAL" lock -F "$w" -h >/dev/null 2>&1 || bad="$bad -F:$w"; done
for w in $(comp "frugal lock --weight "); do "$FRUGAL" lock --weight "$w" -h >/dev/null 2>&1 || bad="$bad --weight:$w"; done
for w in $(comp "frugal btf diff --kinds "); do "$FRUGAL" btf diff --kinds "$w" -h >/dev/null 2>&1 || bad="$bad --kinds:$w"; done
# Strict features are checked once the options are read: a known one gets
# as far as the missing file (exit 1).
for w in $(comp "frugal btf encode --btf_features="); do
	"$FRUGAL" btf encode --btf_features_strict="$w" "$_tmp/none" >/dev/null 2>&1
	[ $? -eq 1 ] || bad="$bad --btf_features:$w"
done
if [ -z "$bad" ]; then pass "completion/values-accepted"; else fail "completion/values-accepted" "refused:$bad"; fi

# Files and directories.
mkdir -p "$_tmp/dir/sub"
touch "$_tmp/dir/file.svg"
expect "svg-file" "frugal lock --svg $_tmp/dir/fi" "$_tmp/dir/file.svg"
expect "output-file" "frugal lock --output=$_tmp/dir/fi" "$_tmp/dir/file.svg"
expect "encode-operand-file" "frugal btf encode -J $_tmp/dir/fi" "$_tmp/dir/file.svg"
expect "detached-file" "frugal btf encode --btf_encode_detached $_tmp/dir/fi" "$_tmp/dir/file.svg"
expect "debug-dir-directories" "frugal lock --debug-dir $_tmp/dir/" "$_tmp/dir/sub"
# A command to run, after --.
offers "command-after-dashes" "frugal lock -- bas" bash
finish
