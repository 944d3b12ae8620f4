#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned with the
# Node 22 it runs on in package.json / package-lock.json beside this script) against an MCP
# server over Streamable HTTP: the server command is started with `--http 127.0.0.1:<a free
# port>` added, and the suite talks to http://127.0.0.1:<port>/mcp.
#
#   tests/conformance/run.sh [suite options...] -- <server command> [args...]
#   tests/conformance/run.sh -- target/debug/conformance-server --stateless
#
# Without an option that selects scenarios (--requirements, --suite, --scenario,
# --spec-version) it runs what the 2025-11-25 revision of the spec requires, judged against
# baseline.yml beside this script; that is what scripts/test.sh does:
#
#   tests/conformance/run.sh -- target/debug/conformance-server
#   = run.sh --requirements 2025-11-25 --expected-failures tests/conformance/baseline.yml -- ...
#
# Other runs: `--scenario tools-call-error`, `--suite all` (everything this suite version has;
# `--requirements` cannot be combined with `--suite`, `--scenario` or `--spec-version`), and
# with any of them `-o <dir>` (checks.json per scenario), `--verbose`.
# The first run installs the pinned packages here with `npm ci` (again whenever
# package-lock.json changes). SERVER_LOG=<file> keeps the server's stderr.
#
# Exit status: the suite's. With --expected-failures, 1 on a failure the baseline does not
# list and on a listed scenario that passes (a stale baseline). Under --requirements only the
# scenarios the revision scores are judged, so this script also fails when the baseline lists
# a scenario outside that set: the suite would never check it, and it could go stale unseen.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"

args=()
while [[ $# -gt 0 && "$1" != "--" ]]; do args+=("$1"); shift; done
[[ "${1:-}" == "--" ]] && shift
[[ $# -gt 0 ]] || { echo "usage: $0 [suite options...] -- <server command> [args...]" >&2; exit 2; }
selected=""
for arg in ${args[@]+"${args[@]}"}; do
  case "$arg" in --requirements | --suite | --scenario | --spec-version) selected=1 ;; esac
done
[[ -n "$selected" ]] || args+=(--requirements 2025-11-25 --expected-failures "$HERE/baseline.yml")

if ! cmp -s "$HERE/package-lock.json" "$HERE/node_modules/.installed-package-lock.json"; then
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >&2
  cp "$HERE/package-lock.json" "$HERE/node_modules/.installed-package-lock.json"
fi
NODE="$HERE/node_modules/.bin/node"
SUITE="$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js"

# Every baseline entry must name a scenario the requirement set scores.
requirements="" baseline=""
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --requirements) requirements="${args[i + 1]}" ;;
    --expected-failures) baseline="$(cd "$(dirname "${args[i + 1]}")" && pwd)/$(basename "${args[i + 1]}")" ;;
  esac
done
if [[ -n "$requirements" && -n "$baseline" ]]; then
  (cd "$HERE" && "$NODE" --input-type=module - "$requirements" "$baseline") <<'JS'
import { readFileSync, existsSync } from 'node:fs';
import YAML from 'yaml';
const [revision, baseline] = process.argv.slice(2);
const file = `node_modules/@modelcontextprotocol/conformance/requirements/${revision}.yaml`;
if (!existsSync(file)) process.exit(0); // the suite itself reports an unknown revision
const scored = new Set(YAML.parse(readFileSync(file, 'utf8')).server ?? []);
const listed = (YAML.parse(readFileSync(baseline, 'utf8')) ?? {}).server ?? [];
const outside = listed.map(String).filter((entry) => !scored.has(entry.split(':')[0]));
if (outside.length > 0) {
  console.error(`${baseline}: not scored under --requirements ${revision}, so never checked: ${outside.join(', ')}`);
  process.exit(1);
}
JS
fi

# A free port, then the server on it.
port="$("$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')"
"$@" --http "127.0.0.1:$port" 2>"${SERVER_LOG:-/dev/null}" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { echo "$0: the server exited before listening (see SERVER_LOG)" >&2; exit 1; }
  sleep 0.1
done

"$NODE" "$SUITE" server --url "http://127.0.0.1:$port/mcp" "${args[@]}"
