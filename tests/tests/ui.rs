//! Compile-error tests of `#[tool]`, `#[errors]` and `#[contract]`: every mistake a user can
//! make has a case under `tests/ui/<topic>/fail/` with the exact diagnostic in its `.stderr`,
//! and every accepted shape a case under `tests/ui/<topic>/pass/`.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p mcp-tests --test ui` and
//! read the diff.

/// The toolchain the `.stderr` snapshots are written against. rustc's wording changes
/// between releases, so the snapshots are only meaningful on this one. Bumping it is one
/// commit: change this line, regenerate with `TRYBUILD=overwrite`, review every diff.
const PINNED_RUSTC: &str = "1.95";

#[test]
fn ui() {
    check_toolchain();
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*/fail/*.rs");
    t.pass("ui/*/pass/*.rs");
}

/// Fails (rather than skips) on any other toolchain: a skipped test would read as a pass.
fn check_toolchain() {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{} --version`: {e}", rustc.to_string_lossy()));
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.starts_with(&format!("rustc {PINNED_RUSTC}.")),
        "the ui snapshots are pinned to rustc {PINNED_RUSTC}, but this is `{}`. Run the ui tests with \
         rustc {PINNED_RUSTC}, or bump PINNED_RUSTC in tests/tests/ui.rs and regenerate every snapshot \
         (`TRYBUILD=overwrite`) in one commit.",
        version.trim()
    );
}
