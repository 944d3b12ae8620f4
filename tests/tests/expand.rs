//! Expansion snapshots of `#[tool]`: `tests/expand/*.rs` → `*.expanded.rs`, the code a user
//! reads with `cargo expand`. Review a change to the generated code in the snapshot diff.
//!
//! Needs `cargo-expand` (pinned in `scripts/test.sh`). Under `CI` a missing or different
//! snapshot fails; elsewhere a missing snapshot is written (`MACROTEST=overwrite` rewrites
//! the existing ones).

/// The toolchain the snapshots are written against: rustc's pretty-printer output changes
/// between releases. Bump it together with `PINNED_RUSTC` in `tests/tests/ui.rs`, and
/// regenerate every snapshot in the same commit.
const PINNED_RUSTC: &str = "1.95";

#[test]
fn expand() {
    check_toolchain();
    if std::env::var_os("CI").is_some() {
        macrotest::expand_without_refresh("expand/*.rs");
    } else {
        macrotest::expand("expand/*.rs");
    }
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
        "the expansion snapshots are pinned to rustc {PINNED_RUSTC}, but this is `{}`. Run them with \
         rustc {PINNED_RUSTC}, or bump PINNED_RUSTC in tests/tests/expand.rs and tests/tests/ui.rs and \
         regenerate every snapshot in one commit.",
        version.trim()
    );
}
