//! Expansion snapshots of `#[tool]`: `tests/expand/*.rs` → `*.expanded.rs`, the code a user
//! reads with `cargo expand`. Review a change to the generated code in the snapshot diff.
//!
//! Needs `cargo-expand` (pinned in `scripts/test.sh`). Under `CI` a missing or different
//! snapshot fails; elsewhere a missing snapshot is written (`MACROTEST=overwrite` rewrites
//! the existing ones).

#[test]
fn expand() {
    mcp_tests::toolchain::require_pinned_rustc("expansion snapshots");
    if std::env::var_os("CI").is_some() {
        macrotest::expand_without_refresh("expand/*.rs");
    } else {
        macrotest::expand("expand/*.rs");
    }
}
