#!/usr/bin/env bash
# Seeds for fuzz_ksyms: slices of this machine's /proc/kallsyms (addresses
# are zero without privilege, which is a case too) and hand-made files with
# modules, aliases, unsorted lines and malformed ones.  The first byte picks
# the harness's type filter.
#   fuzz/seeds-fuzz_ksyms.sh DIR
set -eu
dir=$1
{ printf '\x00'; head -200 /proc/kallsyms; } >"$dir/head" 2>/dev/null || true
{ printf '\x01'; tail -200 /proc/kallsyms; } >"$dir/tail-modules" 2>/dev/null || true
{ printf '\x02'; grep -m 200 ' [dDbB] ' /proc/kallsyms; } >"$dir/data" 2>/dev/null || true
printf '\x00%s\n' \
	'ffffffff81000000 T _stext' 'ffffffff81000000 T _text' \
	'ffffffff81000100 t local_fn' 'ffffffff81000080 W weak_fn' \
	'ffffffffc0000000 t mod_fn	[mod]' '0000000000000000 A fixed_percpu' \
	'ffffffff82000000 D some_data' >"$dir/synthetic"
printf '\x03%s\n' 'ffffffff81000000 T a' 'zz T bad' >"$dir/malformed"
printf '\x00%s\n' '0 T a' '0 t b' >"$dir/hidden"
