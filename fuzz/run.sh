#!/usr/bin/env bash
# `make fuzz`: run every harness for FUZZ_TIME seconds (default 60) on a
# corpus seeded by fuzz/seeds.sh, FUZZ_JOBS (default: the CPU count) at a
# time.  A crash is copied into fuzz/regress/NAME/, which `make check`
# replays forever after; the run then fails.
set -u
O=${O:-build}
FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
# UBSan reports and continues unless told to stop: a report is a finding.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# Run one harness; its summary goes to $O/fuzz/NAME.summary, exit 1 on a finding.
run_harness() {
	local bin=$1 name corpus art rc execs cov
	name=$(basename "$bin")
	corpus=$O/fuzz/corpus/$name
	bash fuzz/seeds.sh "$name" "$corpus"
	art=$O/fuzz/artifacts/$name/
	mkdir -p "$art" "fuzz/regress/$name"
	"$bin" -max_total_time="$FUZZ_TIME" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
		-artifact_prefix="$art" -print_final_stats=1 "$corpus" \
		>"$O/fuzz/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$O/fuzz/$name.log")
	cov=$(grep -o 'cov: [0-9]*' "$O/fuzz/$name.log" | tail -1)
	{
		printf '%-22s %10s execs  %-10s exit %d\n' "$name" "${execs:-?}" "${cov:-}" "$rc"
		if [ "$rc" -ne 0 ]; then
			for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
				[ -f "$f" ] && cp "$f" "fuzz/regress/$name/" &&
					echo "  new regression input: fuzz/regress/$name/$(basename "$f")"
			done
			tail -30 "$O/fuzz/$name.log" | sed 's/^/  /'
		fi
	} >"$O/fuzz/$name.summary"
	[ "$rc" -eq 0 ]
}

status=0 running=0
for bin in "$O"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	if [ "$running" -ge "$FUZZ_JOBS" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
	run_harness "$bin" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
cat "$O"/fuzz/fuzz_*.summary
exit $status
