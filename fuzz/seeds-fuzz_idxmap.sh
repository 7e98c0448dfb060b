#!/usr/bin/env bash
# Seeds for fuzz_idxmap: runs of adds then finds then removals over a few
# hundred keys, under each of the three hashes (the first byte; then each
# command is 3 bytes: operation, key high, key low).
#   fuzz/seeds-fuzz_idxmap.sh DIR
set -eu
dir=$1
for sel in 0 1 2; do
	{
		printf '%b' "\\x0$sel"
		for op in 0 2 4 2 6; do
			for ((k = 0; k < 300; k++)); do
				printf '%b' "$(printf '\\x%02x\\x%02x\\x%02x' "$op" $((k >> 8)) $((k & 255)))"
			done
		done
	} >"$dir/hash$sel"
done
printf '\x01\x07\x00\x00\x00\x00\x01\x00\x00\x01\x04\x00\x01\x02\x00\x01' >"$dir/clear-add-del"
