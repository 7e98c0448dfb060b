#!/usr/bin/env bash
# Seeds for fuzz_dwarf_die: the same as fuzz_dwarf_scan's (same layout).
#   fuzz/seeds-fuzz_dwarf_die.sh DIR
exec bash "$(dirname "$0")/seeds-fuzz_dwarf_scan.sh" "$@"
