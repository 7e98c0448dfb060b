# Replay every input that ever crashed a fuzz harness (fuzz/regress/NAME/*)
# plus each harness's seed corpus: a harness must run them all cleanly.
source "$(dirname "$0")/../lib.sh"
# make check builds every harness first (check-build): none here means the
# replay would check nothing, which is a failure, not a pass.
ls "$O"/fuzz/fuzz_* >/dev/null 2>&1 ||
	fail "fuzz: a harness to replay" "none in $O/fuzz (make check-build builds them)"
for bin in "$O"/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	bash "$TOP/fuzz/seeds.sh" "$name" "$_tmp/$name"
	inputs=$(find "$TOP/fuzz/regress/$name" "$_tmp/$name" -type f 2>/dev/null)
	if [ -z "$inputs" ]; then skip "fuzz/$name" "no seeds or regression inputs"; continue; fi
	# shellcheck disable=SC2086
	if "$bin" -close_fd_mask=2 $inputs >"$_tmp/log" 2>&1; then
		pass "fuzz/$name-replays-$(wc -w <<<"$inputs")-inputs"
	else
		fail "fuzz/$name" "$(grep -m1 -E 'ERROR|SUMMARY|abort' "$_tmp/log")"
	fi
done
finish
