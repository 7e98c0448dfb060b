#!/usr/bin/env bash
# The main job on a built-in default: what `make demo` runs.
set -eu
O=${O:-build}
echo "frugal demo: nothing to run yet beyond the core library's benchmark"
bash bench/iodir.sh
