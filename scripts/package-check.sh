#!/usr/bin/env bash
# Proves the three library crates can be published and used from their own packages, as a user
# of crates.io gets them (called by scripts/test.sh; runs alone too):
#   1. the minimum Rust version: no package the lock file resolves, with every feature on,
#      declares a `rust-version` above the workspace's (clippy's `incompatible_msrv`, run by
#      test.sh's clippy steps, checks our own code against it);
#   2. `cargo publish --dry-run` packages and verifies mcp-runtime-core, mcp-runtime-macros and
#      mcp-runtime in dependency order: each `.crate` compiles alone, from its tarball;
#   3. each `.crate` carries LICENSE-MIT, LICENSE-APACHE and its README;
#   4. a scratch crate outside the workspace, depending on the *unpacked* packages only, builds
#      the README's example and serves one successful and one failing call over stdio; and the
#      unpacked mcp-runtime documents itself with every feature on (what docs.rs builds, less
#      the nightly-only `docsrs` cfg).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CRATES=(mcp-runtime-core mcp-runtime-macros mcp-runtime)
OUT="$ROOT/target/package-check"

echo "-- minimum Rust version"
MSRV="$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)"
[ -n "$MSRV" ] || { echo "Cargo.toml declares no workspace rust-version" >&2; exit 1; }
cargo metadata --format-version 1 --all-features --locked | MSRV="$MSRV" python3 -c '
import json, os, sys
def ver(s):
    parts = [int(p) for p in s.split("+")[0].split(".")]
    return tuple(parts + [0] * (3 - len(parts)))
msrv = os.environ["MSRV"]
packages = json.load(sys.stdin)["packages"]
above = sorted(f"{p['"'"'name'"'"']} {p['"'"'version'"'"']} needs rustc {p['"'"'rust_version'"'"']}"
               for p in packages if p.get("rust_version") and ver(p["rust_version"]) > ver(msrv))
if above:
    print(f"the lock file resolves packages that need more than rust-version {msrv}:", *above,
          "pin an older version (cargo update -p NAME --precise VERSION) or raise rust-version"
          " and say so in CHANGELOG.md", sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"rust-version {msrv}: all {len(packages)} packages of the lock file (every feature) declare support for it or declare none")
'

echo "-- cargo publish --dry-run (package and verify, in dependency order)"
PUBLISH_ARGS=()
for crate in "${CRATES[@]}"; do PUBLISH_ARGS+=(-p "$crate"); done
# The dry run verifies each crate against the others' tarballs through a temporary registry,
# whose sources cargo extracts once per name and version under CARGO_HOME and never again: an
# earlier run's extraction of the same version (from before this tree's changes) would be
# compiled instead of this tree's. None of these versions is on crates.io, so what is there
# is only ever a stale copy of ours: remove it. What was compiled from such a copy would be
# taken as unchanged too (a registry crate of one version never changes), so the dry run
# builds in a target directory of its own, emptied first.
VERIFY="$ROOT/target/package-verify"
rm -rf "$VERIFY"
VERSION="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
for crate in "${CRATES[@]}"; do
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate-$VERSION" \
    "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$crate-$VERSION.crate"
done
# --allow-dirty: test.sh runs in a clean clone on CI, but also on a developer's edited tree.
CARGO_TARGET_DIR="$VERIFY" cargo publish --dry-run --locked --allow-dirty "${PUBLISH_ARGS[@]}"

echo "-- what each package carries"
rm -rf "$OUT"
mkdir -p "$OUT/unpacked"
VERSION="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
for crate in "${CRATES[@]}"; do
  file="$VERIFY/package/$crate-$VERSION.crate"
  [ -f "$file" ] || file="$VERIFY/package/tmp-crate/$crate-$VERSION.crate"
  [ -f "$file" ] || { echo "no $crate-$VERSION.crate under $VERIFY/package after the dry run" >&2; exit 1; }
  listing="$(tar tzf "$file")"
  for member in LICENSE-MIT LICENSE-APACHE README.md; do
    grep -qx "$crate-$VERSION/$member" <<<"$listing" || { echo "$file does not carry $member" >&2; exit 1; }
  done
  tar xzf "$file" -C "$OUT/unpacked"
  echo "$crate $VERSION: $(wc -l <<<"$listing") files, $(du -k "$file" | cut -f1) KiB, with LICENSE-MIT, LICENSE-APACHE, README.md"
done

echo "-- a scratch crate on the unpacked packages builds the README's example and serves it over stdio"
SCRATCH="$OUT/scratch"
mkdir -p "$SCRATCH/src"
cat >"$SCRATCH/Cargo.toml" <<EOF
[package]
name = "scratch-user"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
mcp-runtime = { path = "../unpacked/mcp-runtime-$VERSION" }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
schemars = "1"
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

# The internal crates are not on crates.io yet: the unpacked packages stand in for them.
[patch.crates-io]
mcp-runtime-core = { path = "../unpacked/mcp-runtime-core-$VERSION" }
mcp-runtime-macros = { path = "../unpacked/mcp-runtime-macros-$VERSION" }

[workspace]
EOF
# The README's first Rust block (`## A tool`), as a user copies it.
awk '/^```rust/{inside=1; next} inside && /^```/{exit} inside{print}' README.md >"$SCRATCH/src/main.rs"
grep -q 'fn main' "$SCRATCH/src/main.rs" || { echo "README.md's first rust block has no main: nothing to build" >&2; exit 1; }
# The workspace's lock, so the scratch crate builds the versions CI already checked (cargo drops
# what it does not need); its build shares the verify step's target directory and dependencies.
cp Cargo.lock "$SCRATCH/Cargo.lock"
CARGO_TARGET_DIR="$VERIFY" cargo build -q --manifest-path "$SCRATCH/Cargo.toml"
BIN="$VERIFY/debug/scratch-user"
REPLY="$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"package-check","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch_items","arguments":{"ids":["a","b"]}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch_items","arguments":{"ids":[]}}}' \
  | timeout 20 "$BIN" 2>"$OUT/scratch-stderr.log")" || { echo "the scratch server failed:" >&2; cat "$OUT/scratch-stderr.log" >&2; exit 1; }
REPLY="$REPLY" python3 -c '
import json, os, sys
replies = {m["id"]: m for m in map(json.loads, os.environ["REPLY"].splitlines()) if "id" in m}
ok = replies[2]["result"]
assert ok.get("isError") is not True and ok["structuredContent"] == {"ids": ["a", "b"]}, ok
failed = replies[3]["result"]
text = failed["content"][0]["text"]
assert failed["isError"] is True and text.startswith("Error: No data for 0 ids\n\nRecovery: Call search_items to discover valid ids, then retry.\n\n(reason no_match"), text
print("served over stdio: fetch_items answered", ok["structuredContent"], "and failed with its declared envelope:", text.splitlines()[0])
'

echo "-- the unpacked mcp-runtime documents itself with every feature (what docs.rs builds)"
DOCS="$OUT/scratch-docs"
mkdir -p "$DOCS/src"
FEATURES="$(python3 -c 'import sys, tomllib; print(", ".join(f"\"{f}\"" for f in tomllib.load(open(sys.argv[1], "rb"))["features"] if f != "default"))' \
  "$OUT/unpacked/mcp-runtime-$VERSION/Cargo.toml")"
sed -e 's/^name = "scratch-user"/name = "scratch-docs"/' \
    -e "s|^mcp-runtime = { path = \(.*\) }|mcp-runtime = { path = \1, features = [$FEATURES] }|" "$SCRATCH/Cargo.toml" >"$DOCS/Cargo.toml"
echo 'fn main() {}' >"$DOCS/src/main.rs"
cp Cargo.lock "$DOCS/Cargo.lock"
grep -q "features = \[" "$DOCS/Cargo.toml" || { echo "could not turn the features on in $DOCS/Cargo.toml" >&2; exit 1; }
CARGO_TARGET_DIR="$VERIFY" RUSTDOCFLAGS=-Dwarnings cargo doc -q --no-deps --manifest-path "$DOCS/Cargo.toml" -p mcp-runtime
echo "mcp-runtime documented with features: $FEATURES"
echo "package check: passed"
