#!/usr/bin/env bash
# Generate a seed corpus for one harness from what the tests already use:
#   fuzz/seeds.sh NAME DIR
# Seeds are made, not committed: a script can always make them again.
set -eu
name=$1 dir=$2
mkdir -p "$dir"
case "$name" in
fuzz_linebuf)
	{ printf '\x10'; head -c 4000 /proc/kallsyms; } >"$dir/kallsyms"
	{ printf '\x03'; cat /proc/self/maps; } >"$dir/maps"
	printf '\x3fone\ntwo\n\nno newline' >"$dir/small"
	;;
fuzz_parse_num)
	for s in 0 1 16384 0x10 010 -1 '' ' 5' 99999999999999999999999 12abc; do
		printf '\x00\xff%s' "$s" >"$dir/$(printf '%s' "$s" | md5sum | cut -c1-8)"
	done
	;;
*)
	if [ -x "fuzz/seeds-$name.sh" ]; then bash "fuzz/seeds-$name.sh" "$dir"; fi
	;;
esac
