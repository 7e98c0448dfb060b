# The include check: no file of lib/, cli/ or a tool includes a header of a
# layer above it or beside it, nor a stage's private header, as the layers
# of docs/ARCHITECTURE.md say (its ```layers block, read by layers.py).
source "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null; then
	skip "layers" "python3 is not installed (scripts/install-deps.sh)"
	finish
fi
python3 "$TOP/tests/e2e/layers.py" "$TOP" || _failed=1
finish
