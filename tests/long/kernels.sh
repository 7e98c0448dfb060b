#!/usr/bin/env bash
# frugal lock on the kernels Debian ships (make check-kernels; not in
# check): each of Debian's cloud kernels (scripts/fetch-kernels.sh) boots
# under qemu with no acceleration, its root an initramfs built from this
# tree (tests/kernels/build-initramfs), runs the commands of
# tests/kernels/guest-init and powers off; tests/kernels/check.py asserts
# on what came back over the serial console.  The 5.10 kernel, older than
# the contention tracepoints, must be refused in one line, and frugal btf
# must still work there.
#
# FRUGAL_KERNELS picks kernels (default "5.10 6.1 6.12 7.x").  Each guest's
# console log and results stay in $O/kernels/NAME/ for a look afterwards.
# Under TCG on two cores a guest takes about a minute and a half; a
# command there runs 10 to 50 times slower than on the host.
. "$(dirname "$0")/../lib.sh"
KERNELS=${FRUGAL_KERNELS:-5.10 6.1 6.12 7.x}
OUT=$O/kernels
QEMU=qemu-system-x86_64

if ! command -v "$QEMU" >/dev/null; then
	skip "kernels" "no $QEMU (qemu-system-x86: scripts/install-deps.sh installs it)"
	finish
fi

# shellcheck disable=SC2086
list=$(bash "$TOP/scripts/fetch-kernels.sh" $KERNELS 2>"$_tmp/fetch.err"); rc=$?
case $rc in
0) ;;
3) skip "kernels" "the Debian archive cannot be reached: $(tail -1 "$_tmp/fetch.err")"; finish ;;
*) fail "kernels: fetched" "$(tail -3 "$_tmp/fetch.err")"; finish ;;
esac

INITRD=$OUT/initramfs.cpio.gz
bash "$TOP/tests/kernels/build-initramfs" "$FRUGAL" "$INITRD" 2>"$_tmp/initrd.err"; rc=$?
case $rc in
0) ;;
3) skip "kernels" "$(tail -1 "$_tmp/initrd.err")"; finish ;;
*) fail "kernels: initramfs built" "$(tail -3 "$_tmp/initrd.err")"; finish ;;
esac
# Said once: without it, the "with debug file" -U checks skip.
[ ! -s "$_tmp/initrd.err" ] || echo "# $(tail -1 "$_tmp/initrd.err")"

# boot NAME DIR: the guest's console into $OUT/NAME/console.log.  The
# timeout is a cap, not a bound: a guest that hangs is a failure, reported
# with the console's tail.  One host thread runs the vCPUs: with a thread
# each (thread=multi), a 6.12 guest once took an int3 oops where the kernel
# had just patched its text for a tracepoint; the patch's int3 was still
# run after it (cross-vCPU code modification, the emulator's to get right).
# The guest is told it is no virtual machine (-hypervisor): under a
# hypervisor bit without paravirtual spinlocks, x86 takes its spinlocks by
# test-and-set, which no tracepoint sees.  A native spinlock's wait is
# traced only when it queues behind another waiter, so four vCPUs (one
# socket: one last-level cache, as the wakeup paths expect).
boot() {
	local t0=$SECONDS
	rm -rf "${OUT:?}/$1"
	mkdir -p "$OUT/$1"
	timeout 900 "$QEMU" -accel tcg,thread=single -smp 4,sockets=1,cores=4 -m 2G \
		-cpu max,-hypervisor \
		-nographic -no-reboot -kernel "$2/vmlinuz" -initrd "$INITRD" \
		-append "console=ttyS0 panic=-1 quiet loglevel=1" \
		</dev/null >"$OUT/$1/console.log" 2>&1
	KERNEL_SECS=$((SECONDS - t0))
	KERNEL_PACKAGE=$(cut -d' ' -f1,2 "$2/PACKAGE")
	export KERNEL_SECS KERNEL_PACKAGE
}

while read -r name dir; do
	case $dir in
	"- "*) skip "$name" "${dir#- }"; continue ;;
	esac
	boot "$name" "$dir"
	old=
	# Older than the contention tracepoints of 5.19: a kernel we expect
	# frugal lock to refuse.
	[ "$name" = 5.10 ] && old=old
	python3 "$TOP/tests/kernels/check.py" "$name" "$OUT/$name/console.log" "$OUT/$name/results" $old ||
		_failed=1
done <<<"$list"
finish
