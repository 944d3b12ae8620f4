#!/usr/bin/env bash
# Cold start (spawn -> initialize response) of fixture-server and rmcp's server, measured
# with the shared load generator's `--mode cold`, interleaved, RUNS times each (default 30);
# prints the median and the minimum in ms. compare.sh's own cold-start column is one sample
# per round, taken right after the previous server's load run, and swings with the machine.
# Needs the load generator and rmcp's server built by the comparison harness's compare.sh
# (outside this repository) in $MCP_PERF_HOME (default ~/.cache/mcp-perf).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
perf="${MCP_PERF_HOME:-$HOME/.cache/mcp-perf}/target/release"
runs="${RUNS:-30}"
for bin in loadgen rmcp-server; do
  [[ -x "$perf/$bin" ]] || { echo "cold-start.sh: $perf/$bin is missing; run the comparison harness (compare.sh) once first" >&2; exit 1; }
done
(cd "$root" && cargo build --release -q -p mcp-tests --bin fixture-server)
servers=("$root/target/release/fixture-server" "$perf/rmcp-server")
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for _ in $(seq 1 "$runs"); do
  for i in "${!servers[@]}"; do
    "$perf/loadgen" --mode cold -- "${servers[$i]}" >> "$out/$i"
  done
done
for i in "${!servers[@]}"; do
  python3 - "$out/$i" "${servers[$i]##*/}" <<'PY'
import json, statistics, sys
ms = [json.loads(line)["cold_start_ms"] for line in open(sys.argv[1])]
print(f"{sys.argv[2]:<16} median {statistics.median(ms):5.2f} ms   min {min(ms):5.2f} ms   ({len(ms)} runs)")
PY
done
