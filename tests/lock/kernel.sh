#!/usr/bin/env bash
# What frugal lock asks of the kernel, and how it asks.
#
# A kernel before 5.19, without the lock:contention_* events: every mode
# that needs them is refused in one line, exit 1, with nothing loaded.  It
# is stood in for by this kernel's BTF with the events' btf_trace_*
# typedefs renamed (FRUGAL_VMLINUX_BTF); --user-only does not need them.
#
# tracefs: -U's tracepoints are found under /sys/kernel/tracing, mounted
# there when nothing had mounted it, and never through debugfs's tracing
# directory, whose automount the kernel (6.10+) logs as deprecated.  Each
# case runs in a mount namespace of its own, so the machine's mounts are
# left as they were.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock kernel" || finish

NO_BEGIN="frugal lock: this kernel has no lock:contention_begin event (Linux 5.19 or later has it)"
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip "lock kernel: refusal" "no /sys/kernel/btf/vmlinux to rename the events in"
else
	python3 - "$_tmp/old.btf" <<'PY'
import sys
d = open('/sys/kernel/btf/vmlinux', 'rb').read()
for n in (b'btf_trace_contention_begin\0', b'btf_trace_contention_end\0'):
    assert d.count(n) == 1, n
    d = d.replace(n, n.replace(b'contention', b'xontention'))
open(sys.argv[1], 'wb').write(d)
PY
	for m in -a --raw-tp -U; do
		expect_exit "refusal: lock $m, exit 1" 1 env FRUGAL_VMLINUX_BTF="$_tmp/old.btf" \
			"$FRUGAL" lock $m -d 0.1
		check "refusal: lock $m, one line naming the event" test "$err" = "$NO_BEGIN"
	done
	expect_exit "refusal: -v adds what was probed" 1 env FRUGAL_VMLINUX_BTF="$_tmp/old.btf" \
		"$FRUGAL" lock -v -d 0.1
	check "refusal: ... ending in the one line" test "$(tail -1 <<<"$err")" = "$NO_BEGIN"
	check "refusal: ... after the probe's log" grep -q "contention_begin no" <<<"$err"
	if "$FRUGAL" lock -U -d 0.05 >/dev/null 2>&1; then
		expect_exit "refusal: --user-only still runs" 0 env FRUGAL_VMLINUX_BTF="$_tmp/old.btf" \
			"$FRUGAL" lock --user-only -- sleep 0.1
	fi
fi

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
