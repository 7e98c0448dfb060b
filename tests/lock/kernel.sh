#!/usr/bin/env bash
# What frugal lock asks of the kernel, and how it asks.
#
# tracefs: -U's tracepoints are found under /sys/kernel/tracing, mounted
# there when nothing had mounted it, and never through debugfs's tracing
# directory, whose automount the kernel (6.10+) logs as deprecated.  Each
# case runs in a mount namespace of its own, so the machine's mounts are
# left as they were.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock kernel" || finish

# in_ns SETUP: run SETUP, then frugal lock -U over the workload, in a new
# mount namespace; prints the tracefs mounts (type and place) afterwards.
in_ns() {
	unshare -m --propagation private sh -c "$1"'
		"$0" lock -U -d 1 -- "$0" bench lock -T 2 -d 0.5 >/dev/null 2>"$1" || exit 1
		awk '\''$3 == "tracefs" { print $2 }'\'' /proc/mounts' "$FRUGAL" "$_tmp/ns.err"
}
if ! command -v unshare >/dev/null; then
	skip "lock kernel: tracefs" "no unshare (util-linux)"
elif ! "$FRUGAL" lock -U -d 0.05 >/dev/null 2>&1; then
	skip "lock kernel: tracefs" "-U does not run here: $("$FRUGAL" lock -U -d 0.05 2>&1 | head -1)"
else
	# Neither mounted but debugfs: what a minimal system has.
	m=$(in_ns 'umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		   mount -t debugfs none /sys/kernel/debug || exit 1')
	check "tracefs: mounted at /sys/kernel/tracing when it was not" test "$m" = /sys/kernel/tracing
	# Both mounted, as systemd leaves them: debugfs's tracing is not touched.
	m=$(in_ns 'mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
		   mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug')
	check "tracefs: debugfs's tracing never mounted" test "$m" = /sys/kernel/tracing
fi
finish
