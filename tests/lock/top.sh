#!/usr/bin/env bash
# frugal lock top, driven through tmux as a user would: the screen shows the
# status lines and rows of the workload's locks, a key press re-sorts them,
# q quits with exit 0, the terminal's settings come back as they were, and
# no BPF program or link of ours is left in the kernel.  On a terminal of
# size 0x0 (a serial console) the rows are drawn at COLUMNS, else 80 wide.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock top" || finish
if ! command -v tmux >/dev/null; then
	skip "lock top" "tmux is not installed (scripts/install-deps.sh installs it)"
	finish
fi
S=frugal-top-$$
W=$_tmp
tmux_ok() { tmux -L "$S" "$@"; }
trap 'for l in "" -zero80 -zero60; do tmux -L "$S$l" kill-server 2>/dev/null; done
      rm -rf "$_tmp"' EXIT

# wait_for WHAT CMD...: poll until CMD succeeds (up to 20 s: a cap, not a bound).
wait_for() {
	local i
	for i in $(seq 200); do "$@" && return 0; sleep 0.1; done
	return 1
}
screen() { tmux_ok capture-pane -p -t top; }

"$FRUGAL" bench lock -T 4 -P 4 -d 60 --delay 0.2 2>/dev/null & b=$!
tmux_ok new-session -d -s top -x 160 -y 30 \
	"stty -g >$W/stty.before; $FRUGAL lock top -a -I 0.5; echo \$? >$W/exit; stty -g >$W/stty.after; sleep 60"
screen_has() { screen | grep -q "$1"; }
check "top: the status line, sorted by total wait" wait_for screen_has 'contentions/s  sort: wait_total'
check "top: the accounting line" wait_for screen_has '^completed [0-9]*: rows [0-9]*, filtered'
check "top: the workload's locks in the rows" wait_for screen_has 'rwsem:W'
pid=$(pgrep -f "^$FRUGAL lock top -a" | head -1)
progs=$(ids_of_pid prog "$pid"); links=$(ids_of_pid link "$pid")

tmux_ok send-keys -t top c
check "top: c sorts by contended" wait_for screen_has 'sort: contended'
sorted() {
	screen | awk '/^ contended/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $1 }' >"$W/counts"
	[ "$(wc -l <"$W/counts")" -ge 3 ] && sort -nrc "$W/counts" 2>/dev/null
}
check "top: the rows are in descending contended order" wait_for sorted
tmux_ok send-keys -t top m
check "top: m sorts by max wait" wait_for screen_has 'sort: wait_max'


tmux_ok send-keys -t top q
check "top: q quits" wait_for test -s "$W/exit"
check "top: exit status 0" test "$(cat "$W/exit" 2>/dev/null)" = 0
check "top: the terminal's settings are back" wait_for cmp -s "$W/stty.before" "$W/stty.after"
check "top: we had programs and links" test -n "$progs" -a -n "$links"
check "top: none left in the kernel" all_gone "$progs" "$links"
# A console that reports no size (a serial console says 0x0): the rows are
# still drawn, cut at COLUMNS when it is set, else at 80 columns (the rows
# of -a are wider than either).  Each on a tmux server of its own: a bare
# -t SESSION was seen to name the newest session of the server instead.
zero_size() { # NAME ENV...: frugal lock top on a 0x0 terminal
	local s=$1; shift
	tmux -L "$S-$s" new-session -d -s top -x 160 -y 30 \
		"stty rows 0 cols 0; env -u COLUMNS -u LINES $* $FRUGAL lock top -a -I 0.5; sleep 60"
}
# widest NAME: the widest line under the two status lines, once rows show.
widest() {
	tmux -L "$S-$1" capture-pane -p -t top |
		awk 'NR > 2 && length($0) > w { w = length($0) }
		     /^ *[0-9]+ +[0-9.]+ [mun]?s / { rows = 1 } END { if (rows) print w }'
}
widest_is() { [ "$(widest "$1")" = "$2" ]; }
zero_size zero80
zero_size zero60 COLUMNS=60
check "top: on a 0x0 terminal, rows cut at 80 columns" wait_for widest_is zero80 80
check "top: on a 0x0 terminal, rows cut at COLUMNS" wait_for widest_is zero60 60
kill $b 2>/dev/null; wait $b 2>/dev/null

expect_exit "top: not with --json" 2 "$FRUGAL" lock top --json
expect_exit "top: without a terminal, one line and exit 1" 1 "$FRUGAL" lock top -a </dev/null
check "top: ... which says so" test "$err" = "frugal lock: top: the standard input is not a terminal"
finish
