# The man pages (make man): no warning from man (lintian's own check, every
# groff warning on), the sections a page needs, and each page's options and
# commands against what --help and help print, both ways, and the headings
# --help groups the options under against the page's sub-sections.
source "$(dirname "$0")/../lib.sh"

MAN=$O/man
if ! command -v man >/dev/null || ! command -v col >/dev/null; then
	skip "man" "man-db is not installed (scripts/install-deps.sh)"
	finish
fi
if ! ls "$MAN"/*.1 >/dev/null 2>&1; then
	fail "man/built" "no pages in $MAN: make man"
	finish
fi

# Each command that has options, and the page that lists them.
declare -A PAGE=(
	["lock"]=frugal-lock ["btf encode"]=frugal-btf-encode ["btf diff"]=frugal-btf-diff
	["btf stat"]=frugal-btf-stat ["btf abi"]=frugal-btf-abi ["btf show"]=frugal-btf-show ["bench lock"]=frugal-bench
)
# Each group, and the page that lists its commands.
declare -A GROUP_PAGE=(["."]=frugal ["btf"]=frugal-btf ["bench"]=frugal-bench)

render() { LC_ALL=C MANWIDTH=200 man -l "$MAN/$1.1" 2>/dev/null | col -b; }
# The lines of section $2 of page $1.
section() { render "$1" | awk -v s="$2" '/^[A-Z]/ { on = ($0 == s); next } on'; }
# "-k --key" of every option a page lists, and of every option --help lists.
page_opts() {
	section "$1" OPTIONS | grep -oE '^ {7}(-[A-Za-z0-9], )?--[A-Za-z0-9_.-]+' |
		sed -e 's/^ *//' -e 's/, /\n/' | sort -u
}
help_opts() {
	# shellcheck disable=SC2086
	"$FRUGAL" $1 --help | grep -oE '^ +(-[A-Za-z0-9], )?--[A-Za-z0-9_.-]+' |
		sed -e 's/^ *//' -e 's/, /\n/' | sort -u
}
# The headings --help groups the options under ("Output formats:", each
# just above an option), in order, and the sub-sections of the page's OPTIONS.
help_heads() {
	# shellcheck disable=SC2086
	"$FRUGAL" $1 --help | awk '/^ +-/ && prev ~ /^[^ ].*:$/ { print substr(prev, 1, length(prev) - 1) } { prev = $0 }'
}
page_heads() { section "$1" OPTIONS | grep -E '^ {3}[^ ]' | sed 's/^ *//'; }
# Commands: a group's usage lists them under "Commands:".
help_cmds() {
	# shellcheck disable=SC2086
	"$FRUGAL" ${1#.} help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' | sort
}
page_cmds() { section "$1" COMMANDS | grep -E '^ {7}[a-z]' | awk '{ print $1 }' | grep -vx help | sort; }

for p in "$MAN"/*.1; do
	n=$(basename "$p" .1)
	w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings=w -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 >/dev/null)
	if [ -z "$w" ]; then pass "man/$n-no-warnings"; else fail "man/$n-no-warnings" "$w"; fi
	if lexgrog "$p" >/dev/null; then pass "man/$n-name-parses"; else fail "man/$n-name-parses" "lexgrog finds no NAME line"; fi
	missing=
	for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		render "$n" | grep -qx "$s" || missing="$missing '$s'"
	done
	if [ -z "$missing" ]; then pass "man/$n-sections"; else fail "man/$n-sections" "no$missing"; fi
done

# Every command with options has its page, and the page lists exactly --help's options.
for cmd in "${!PAGE[@]}"; do
	page=${PAGE[$cmd]}
	want=$(help_opts "$cmd") got=$(page_opts "$page")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "man/$page-options-are-${cmd// /-}'s"
	else
		fail "man/$page-options-are-${cmd// /-}'s" \
			"only in --help: $(comm -23 <(echo "$want") <(echo "$got") | paste -sd " "); only in the page: $(comm -13 <(echo "$want") <(echo "$got") | paste -sd " ")"
	fi
	want=$(help_heads "$cmd") got=$(page_heads "$page")
	if [ "$want" = "$got" ]; then
		pass "man/$page-headings-are-${cmd// /-}'s"
	else
		fail "man/$page-headings-are-${cmd// /-}'s" "--help: $(paste -sd "|" <<<"$want"); page: $(paste -sd "|" <<<"$got")"
	fi
done
for g in "${!GROUP_PAGE[@]}"; do
	page=${GROUP_PAGE[$g]}
	want=$(help_cmds "$g") got=$(page_cmds "$page")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "man/$page-commands"
	else
		fail "man/$page-commands" "help: $(paste -sd " " <<<"$want"); page: $(paste -sd " " <<<"$got")"
	fi
	# Each command of the group is a group itself or has a page of options above.
	for c in $want; do
		if [ "$g" = . ]; then path=$c; else path="$g $c"; fi
		[ -n "${GROUP_PAGE[$path]:-}" ] || [ -n "${PAGE[$path]:-}" ] ||
			fail "man/$path-has-a-page" "'frugal $path' is in no page's list (tests/e2e/man.sh)"
	done
done
finish
