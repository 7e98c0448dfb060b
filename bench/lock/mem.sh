# What a running process holds, for bench/serve.sh and scripts/serve-soak.sh;
# sourced, never run.
# map_memlock PID: the bytes_memlock of every BPF map PID holds (bpftool, jq).
map_memlock() {
	local ids
	ids=$(sed -n 's/^map_id:\t*//p' /proc/"$1"/fdinfo/* 2>/dev/null | sort -un | paste -sd, -)
	[ -n "$ids" ] || { echo 0; return; }
	bpftool map show --json | jq --argjson ids "[$ids]" \
		'[.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock // 0] | add // 0'
}
# rss_kb PID: its resident set, in KiB.
rss_kb() { awk '/^VmRSS:/ { print $2 }' /proc/"$1"/status; }
