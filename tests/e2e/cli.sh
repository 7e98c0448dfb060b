# The command layer: --version, help, unknown commands and options, exit codes.
source "$(dirname "$0")/../lib.sh"

expect_exit "cli/version" 0 "$FRUGAL" --version
check "cli/version-output" grep -Eq '^frugal [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"

expect_exit "cli/no-arguments-is-usage-error" 2 "$FRUGAL"
check "cli/no-arguments-prints-usage" grep -q '^usage: frugal' <<<"$err"

expect_exit "cli/help" 0 "$FRUGAL" help
check "cli/help-lists-usage" grep -q '^usage: frugal' <<<"$out"
expect_exit "cli/--help" 0 "$FRUGAL" --help

expect_exit "cli/unknown-command" 2 "$FRUGAL" frobnicate
check "cli/unknown-command-message" test "$err" = "frugal: unknown command 'frobnicate' (see 'frugal help')"
expect_exit "cli/unknown-option" 2 "$FRUGAL" --frobnicate
check "cli/unknown-option-message" test "$err" = "frugal: unknown option '--frobnicate' (see 'frugal help')"
expect_exit "cli/help-unknown-command" 2 "$FRUGAL" help frobnicate

# Every listed command answers --help on stdout with exit 0, and
# `frugal help CMD` prints the same text.
for cmd in $("$FRUGAL" help | awk '/^  [a-z]/ {print $1}'); do
	expect_exit "cli/$cmd---help" 0 "$FRUGAL" "$cmd" --help
	check "cli/$cmd---help-says-usage" grep -qi 'usage' <<<"$out"
	a=$out
	expect_exit "cli/help-$cmd" 0 "$FRUGAL" help "$cmd"
	check "cli/help-$cmd-same-as---help" test "$a" = "$out"
	expect_exit "cli/$cmd-unknown-option" 2 "$FRUGAL" "$cmd" --no-such-option
	check "cli/$cmd-unknown-option-message" grep -q "^frugal $cmd: " <<<"$err"
done
# Called through a link named pahole, by full path as a kernel build does
# (make PAHOLE=/path/to/pahole), it answers as pahole.
ln -s "$FRUGAL" "$_tmp/pahole"
expect_exit "cli/pahole-link-by-path-version" 0 "$_tmp/pahole" --version
check "cli/pahole-link-answers-in-pahole-format" grep -Eq '^v[0-9]+\.[0-9]+$' <<<"$out"
finish
