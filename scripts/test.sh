#!/usr/bin/env bash
# Runs every test of the workspace on a fresh machine, installing what the tests need:
# cargo-expand (pinned, for the expansion snapshots), a Python venv with the official `mcp`
# client, the official TypeScript SDK, and the conformance suite with the Node 22 it runs on
# (pinned in tests/conformance/, installed there by its run.sh). Fails loudly when anything
# is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

CARGO_EXPAND_VERSION=1.0.127
PY_MCP_VERSION=2.3.0

step() { printf '\n==> %s\n' "$*"; }

step "tools: cargo-expand $CARGO_EXPAND_VERSION"
if ! cargo expand --version 2>/dev/null | grep -q "cargo-expand $CARGO_EXPAND_VERSION"; then
  cargo install cargo-expand --version "$CARGO_EXPAND_VERSION" --locked
fi
cargo expand --version

step "tools: Python venv with mcp $PY_MCP_VERSION"
VENV="$ROOT/target/interop-venv"
if ! "$VENV/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$PY_MCP_VERSION'" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$PY_MCP_VERSION"
fi

step "tools: TypeScript SDK (npm)"
(cd tests/interop/ts && npm ci --no-audit --no-fund --loglevel=error)

step "static checks: fmt, clippy, doc"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps

step "build the servers"
cargo build --workspace --bins

step "interop: official Python client"
"$VENV/bin/python" tests/interop/python/test_fixture.py "$ROOT/target/debug/fixture-server"

step "interop: official TypeScript client"
node tests/interop/ts/test_fixture.mjs "$ROOT/target/debug/fixture-server"

step "conformance: official MCP conformance suite (what spec revision 2025-11-25 requires)"
bash tests/conformance/run.sh --requirements 2025-11-25 --expected-failures tests/conformance/baseline.yml \
  -- "$ROOT/target/debug/conformance-server"

step "cargo tests (unit, integration over stdio, trybuild, expansion snapshots, doctests)"
CI="${CI:-true}" cargo test --workspace --no-fail-fast
