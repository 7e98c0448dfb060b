#!/usr/bin/env bash
# The main job on a built-in default: what `make demo` runs.
set -eu
O=${O:-build}
echo "frugal demo: the core library's benchmark"
bash bench/iodir.sh || echo "frugal demo: the iodir benchmark did not run"

echo
echo "frugal demo: frugal lock over frugal bench lock (mmap_lock and pipe mutex contention)"
if [ "$(id -u)" -ne 0 ]; then
	echo "frugal demo: skipping frugal lock: it loads BPF programs, run as root"
	exit 0
fi
"$O/frugal" lock -- "$O/frugal" bench lock -T 4 -P 4 -d 2
