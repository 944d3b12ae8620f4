//! Compile-error tests of `#[tool]`, `#[errors]` and `#[contract]`: every mistake a user can
//! make has a case under `tests/ui/<topic>/fail/` with the exact diagnostic in its `.stderr`,
//! and every accepted shape a case under `tests/ui/<topic>/pass/`.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p mcp-tests --test compile_time ui` and
//! read the diff.

#[test]
fn ui() {
    mcp_tests::toolchain::require_pinned_rustc("ui snapshots");
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*/fail/*.rs");
    t.pass("ui/*/pass/*.rs");
}
