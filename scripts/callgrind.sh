#!/usr/bin/env bash
# Instructions per pipelined stdio `tools/call`, counted by callgrind (docs/performance.md):
# the same count for the same binary and input whatever else the machine does, so a change's
# cost on the per-call path is read here, not timed.
#
#   scripts/callgrind.sh [server binary] [calls]      ROUNDS=5 (default 3)
#       default: bench/'s add-server, built lean (release), and 5,000 calls
#
# Runs the server twice under `valgrind --tool=callgrind`, once answering `initialize` only
# and once answering `initialize` and then `calls` pipelined `tools/call add` requests written
# before any answer is read: (total₂ − total₁) / calls, where start-up, `initialize` and the
# exit cancel out. The whole-process count moves by a few per cent from run to run (which
# runtime thread takes which wake-up), so it does this ROUNDS times and prints each figure and
# their median. Needs valgrind (Debian's package) and Python 3.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ $# -ge 1 && -n "$1" ]]; then
  bin="$1"
else
  (cd "$root" && cargo build --release -q -p mcp-bench --bin add-server)
  bin="$root/target/release/add-server"
fi
calls="${2:-5000}"
[[ -x "$bin" ]] || { echo "callgrind.sh: $bin is not an executable" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "callgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$calls" <<'PY'
import json, sys
work, calls = sys.argv[1], int(sys.argv[2])
init = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "callgrind", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]
def write(name, n):
    with open(f"{work}/{name}", "w") as f:
        for m in init:
            f.write(json.dumps(m) + "\n")
        for i in range(n):
            f.write(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 2}}}) + "\n")
write("none", 0)
write("calls", calls)
PY

count() {
  local input="$1"
  valgrind --tool=callgrind --callgrind-out-file="$work/out.%p" "$bin" <"$input" >"$work/answers" 2>"$work/log" || {
    echo "callgrind.sh: the server failed under valgrind:" >&2; tail -20 "$work/log" >&2; exit 1; }
  grep -oE 'Collected : [0-9]+' "$work/log" | awk '{print $3}' | tail -1
}

figures=()
for _ in $(seq 1 "${ROUNDS:-3}"); do
  base="$(count "$work/none")"
  full="$(count "$work/calls")"
  answered="$(grep -c '"id":' "$work/answers" || true)"
  [[ "$answered" -eq $((calls + 1)) ]] || { echo "callgrind.sh: $answered answers, expected $((calls + 1))" >&2; exit 1; }
  figures+=("$(( (full - base) / calls ))")
done
python3 -c "import statistics, sys; n = int(sys.argv[1]); f = list(map(int, sys.argv[2:])); print(f'{statistics.median(f):.0f} instructions per pipelined call, the median of {f} ({n} calls each)')" "$calls" "${figures[@]}"
