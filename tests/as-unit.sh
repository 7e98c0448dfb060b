#!/usr/bin/env bash
# as-unit.sh UNIT CMD...: run CMD as the systemd unit UNIT would run its
# service, without systemd (a test machine or container whose PID 1 is not
# systemd): the unit's User=, AmbientCapabilities=, CapabilityBoundingSet=
# and NoNewPrivileges=, and, in a mount namespace of its own, the file
# system its Protect*=, Private*= settings make (read-only system, hidden
# homes and /tmp, a /dev of a few nodes, read-only /sys and /proc/sys, no
# /proc/kallsyms, /proc/kcore, /proc/kmsg or modules, other users'
# processes hidden).  Each part is applied only when the unit has the
# setting, so a test run through it fails when the unit asks for more than
# the service can live with, or when the service needs what the unit takes
# away.  Not emulated: the system call filter and the other seccomp-based
# settings (RestrictAddressFamilies=, MemoryDenyWriteExecute=...),
# RestrictNamespaces=, resource limits.  Needs root and util-linux's
# unshare and setpriv.
set -eu
unit=$1
shift
val() { sed -n "s/^$1=//p" "$unit" | tail -1; }
# "CAP_BPF CAP_PERFMON" -> "+bpf,+perfmon"
caps() { tr 'A-Z' 'a-z' <<<"$1" | sed -e 's/cap_/+/g' -e 's/  */,/g' -e 's/^,//' -e 's/,$//'; }
user=$(val User)
group=$(val Group)
[ -n "$user" ] || { echo "as-unit: $unit has no User=" >&2; exit 2; }
# The user's own group when Group= is not set, as systemd does.
[ -n "$group" ] || group=$(id -gn "$user")
amb=$(caps "$(val AmbientCapabilities)")
bnd=$(caps "$(val CapabilityBoundingSet)")
nnp=
[ "$(val NoNewPrivileges)" = yes ] && nnp=--no-new-privs

# One process from here: unshare and setpriv exec, so the caller's $! is
# the service's pid (a signal to it reaches the service).  What the mounts
# are made from is staged in a tmpfs on /tmp that only the namespace sees.
AS_UNIT=$(cat "$unit")
export AS_UNIT
# shellcheck disable=SC2016
exec unshare --mount --propagation private bash -eu -c '
	stage=/tmp
	has() { grep -qx "$1" <<<"$AS_UNIT"; }
	mount -t tmpfs -o mode=700 tmpfs "$stage"
	: >"$stage/inaccessible" && chmod 000 "$stage/inaccessible"
	mkdir -m 000 "$stage/inaccessible.d"
	hide() { [ -e "$1" ] || return 0; if [ -d "$1" ]; then mount --bind "$stage/inaccessible.d" "$1"; else mount --bind "$stage/inaccessible" "$1"; fi; }
	ro() { mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"; }
	# Every mount point under $1 (itself too), read-only.
	ro_tree() { awk -v p="$1" "\$5 == p || index(\$5, p \"/\") == 1 { print \$5 }" /proc/self/mountinfo |
		while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null || true; done; }
	if has PrivateDevices=yes; then
		mkdir "$stage/dev" && mount -t tmpfs -o mode=755,nosuid tmpfs "$stage/dev"
		for n in null zero full random urandom tty; do
			: >"$stage/dev/$n"; mount --bind "/dev/$n" "$stage/dev/$n"
		done
		mkdir "$stage/dev/pts" "$stage/dev/shm"
		mount --move "$stage/dev" /dev
	fi
	if has ProtectProc=invisible; then
		mount -t proc -o hidepid=invisible,nosuid,nodev,noexec proc /proc
	fi
	if has ProtectSystem=strict; then
		awk "{ print \$5 }" /proc/self/mountinfo | grep -vE "^/(proc|sys|dev)(/|$)" |
			while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null || true; done
	fi
	if has ProtectHome=yes; then for d in /home /root /run/user; do hide "$d"; done; fi
	if has ProtectKernelTunables=yes; then
		ro_tree /sys; ro /proc/sys; hide /proc/sysrq-trigger
		hide /proc/kallsyms; hide /proc/kcore
	fi
	has ProtectControlGroups=yes && ro_tree /sys/fs/cgroup
	has ProtectKernelModules=yes && hide /usr/lib/modules
	has ProtectKernelLogs=yes && hide /proc/kmsg
	umount -l "$stage"
	if has PrivateTmp=yes; then
		mount -t tmpfs -o mode=1777 tmpfs /tmp; mount -t tmpfs -o mode=1777 tmpfs /var/tmp
	fi
	exec "$@"
' as-unit setpriv --reuid="$user" --regid="$group" --init-groups $nnp \
	--inh-caps="-all${amb:+,$amb}" --ambient-caps="-all${amb:+,$amb}" \
	--bounding-set="-all${bnd:+,$bnd}" -- "$@"
