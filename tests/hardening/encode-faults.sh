#!/usr/bin/env bash
# frugal btf encode when writing its output fails: the disk is full (a
# 64 KB tmpfs), the device reports EIO (an LD_PRELOAD shim failing pwrite,
# copy_file_range or fsync on the output), or the encoder is killed halfway
# through a write.  Each time: exit 1 with one line naming the file, the
# input byte-identical, and no output file -- neither the target nor a
# half-written temporary -- left in the directory.
. "$(dirname "$0")/../lib.sh"

FX=$TOP/tests/btf/fixtures
W=$_tmp
if ! gcc -g -O2 -c "$FX/types.c" -o "$W/in.o" 2>"$W/cc.err"; then
	fail "build the fixture" "$(head -1 "$W/cc.err")"
	finish
fi

# ls_dir DIR: every entry, hidden ones too (a temporary is ".NAME.XXXXXX").
ls_dir() { ls -A "$1" | tr '\n' ' '; }

# after NAME DIR INPUT ORIG LEFT: the checks every fault ends with.  LEFT is
# what DIR must hold afterwards (the input alone, or nothing).
after() {
	local name=$1 dir=$2 in=$3 orig=$4 left=$5 rc=$6 err=$7
	check "$name: exit 1 (got $rc)" test "$rc" -eq 1
	check "$name: one line naming the file" test "$(wc -l <"$err")" -eq 1 -a \
		"$(grep -c -F "$dir/" "$err")" -eq 1
	check "$name: input byte-identical" cmp -s "$in" "$orig"
	if [ "$(ls_dir "$dir")" = "$left" ]; then pass "$name: nothing else left in the directory"
	else fail "$name: nothing else left in the directory" "holds: $(ls_dir "$dir")"; fi
}

# ---- ENOSPC on a full tmpfs -----------------------------------------------
if [ "$(id -u)" -eq 0 ] && mkdir "$W/mnt" && mount -t tmpfs -o size=64k none "$W/mnt" 2>/dev/null; then
	trap 'umount "$W/mnt" 2>/dev/null; rm -rf "$_tmp"' EXIT
	M=$W/mnt
	cp "$W/in.o" "$M/in.o"
	dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null	# until the disk is full
	# detached output into the full file system
	"$FRUGAL" btf encode --btf_encode_detached="$M/out.btf" "$W/in.o" 2>"$W/err"
	rc=$?
	check "ENOSPC detached: the message says why" grep -q "No space left on device" "$W/err"
	after "ENOSPC detached" "$M" "$W/in.o" "$W/in.o" "fill in.o " $rc "$W/err"
	# in place: the ELF on the full file system is rewritten through a copy
	"$FRUGAL" btf encode "$M/in.o" 2>"$W/err"
	rc=$?
	after "ENOSPC in place" "$M" "$M/in.o" "$W/in.o" "fill in.o " $rc "$W/err"
	umount "$M"
	trap 'rm -rf "$_tmp"' EXIT
else
	skip "ENOSPC" "needs root to mount a tmpfs"
fi

# ---- EIO through a write shim ---------------------------------------------
# FAULT_PATH: a substring of the output's path; FAULT_OP: which call fails
# (pwrite, copy_file_range, fsync) or "stall" (half a pwrite, then sleep).
cat >"$W/shim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int targeted(int fd, const char *op)
{
	char link[64], path[4096];
	const char *want = getenv("FAULT_PATH"), *which = getenv("FAULT_OP");
	ssize_t n;

	if (!want || !which || strcmp(which, op))
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return 0;
	path[n] = '\0';
	return strstr(path, want) != NULL;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	if (targeted(fd, "pwrite")) {
		errno = EIO;
		return -1;
	}
	if (targeted(fd, "stall") && len > 1) {
		real(fd, buf, len / 2, off);
		close(open(getenv("FAULT_MARK"), O_CREAT | O_WRONLY, 0600));
		sleep(60);
	}
	return real(fd, buf, len, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) __attribute__((alias("pwrite")));

ssize_t copy_file_range(int in, off_t *ioff, int out, off_t *ooff, size_t len, unsigned int fl)
{
	static ssize_t (*real)(int, off_t *, int, off_t *, size_t, unsigned int);

	if (!real)
		real = (ssize_t (*)(int, off_t *, int, off_t *, size_t, unsigned int))
			dlsym(RTLD_NEXT, "copy_file_range");
	if (targeted(out, "copy_file_range")) {
		errno = EIO;
		return -1;
	}
	return real(in, ioff, out, ooff, len, fl);
}

int fsync(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (targeted(fd, "fsync")) {
		errno = EIO;
		return -1;
	}
	return real(fd);
}
EOF
if ! gcc -shared -fPIC -O2 -o "$W/shim.so" "$W/shim.c" -ldl 2>"$W/cc.err"; then
	fail "EIO: build the write shim" "$(head -1 "$W/cc.err")"
	finish
fi
mkdir "$W/d"
for op in pwrite fsync copy_file_range; do
	cp "$W/in.o" "$W/d/in.o"
	if [ $op = copy_file_range ]; then
		args=("$W/d/in.o")			# in place: the copy of the ELF
	else
		args=(--btf_encode_detached="$W/d/out.btf" "$W/in.o")
	fi
	FAULT_PATH=$W/d/ FAULT_OP=$op LD_PRELOAD=$W/shim.so "$FRUGAL" btf encode "${args[@]}" 2>"$W/err"
	rc=$?
	check "EIO in $op: the message says why" grep -q "Input/output error" "$W/err"
	after "EIO in $op" "$W/d" "$W/d/in.o" "$W/in.o" "in.o " $rc "$W/err"
done
# Sanity: the shim leaves other files alone, so the same runs succeed.
FAULT_PATH=/nonexistent/ FAULT_OP=pwrite LD_PRELOAD=$W/shim.so \
	"$FRUGAL" btf encode --btf_encode_detached="$W/d/out.btf" "$W/in.o" 2>"$W/err"
check "EIO shim idle: encoding succeeds ($(head -1 "$W/err"))" test -s "$W/d/out.btf"
rm -f "$W/d/out.btf"

# ---- SIGKILL halfway through a write --------------------------------------
for mode in detached in-place; do
	cp "$W/in.o" "$W/d/in.o"
	rm -f "$W/mark"
	if [ $mode = detached ]; then args=(--btf_encode_detached="$W/d/out.btf" "$W/in.o")
	else args=("$W/d/in.o"); fi
	FAULT_PATH=$W/d/ FAULT_OP=stall FAULT_MARK=$W/mark LD_PRELOAD=$W/shim.so \
		"$FRUGAL" btf encode "${args[@]}" 2>/dev/null &
	pid=$!
	for i in $(seq 100); do [ -e "$W/mark" ] && break; sleep 0.05; done
	check "SIGKILL $mode: killed halfway through a write" test -e "$W/mark"
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "SIGKILL $mode: input byte-identical" cmp -s "$W/d/in.o" "$W/in.o"
	check "SIGKILL $mode: no output at the target" test ! -e "$W/d/out.btf"
	# A temporary that was being written is half a file: it must not stay.
	if [ "$(ls_dir "$W/d")" = "in.o " ]; then pass "SIGKILL $mode: no partial file left"
	else fail "SIGKILL $mode: no partial file left" "holds: $(ls_dir "$W/d")"; fi
	rm -f "$W/d"/.in.o.* "$W/d"/.out.btf.*
done
finish
