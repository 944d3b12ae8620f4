//! The toolchain gate of the snapshot tests (trybuild `.stderr` files, macrotest
//! expansions): rustc's wording and expansion details change between releases, so the
//! snapshots are written against one toolchain.

/// The toolchain the snapshots are written against. Bumping it is one commit: change this
/// line, regenerate with `TRYBUILD=overwrite` and `MACROTEST=overwrite`, review every diff.
pub const PINNED_RUSTC: &str = "1.95";

/// Fails (rather than skips) on any other toolchain: a skipped test would read as a pass.
///
/// # Panics
/// When `rustc` cannot be run or is not [`PINNED_RUSTC`].
pub fn require_pinned_rustc(snapshots: &str) {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{} --version`: {e}", rustc.to_string_lossy()));
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.starts_with(&format!("rustc {PINNED_RUSTC}.")),
        "the {snapshots} are pinned to rustc {PINNED_RUSTC}, but this is `{}`. Run them with rustc \
         {PINNED_RUSTC}, or bump PINNED_RUSTC in tests/src/toolchain.rs and regenerate every snapshot \
         (`TRYBUILD=overwrite`, `MACROTEST=overwrite`) in one commit.",
        version.trim()
    );
}
