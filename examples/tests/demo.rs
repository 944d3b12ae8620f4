//! The demo is the README's "run the main job" command: keep it working. It runs once
//! against itself in server mode (what `cargo run --bin demo` does) and once against the
//! built `notes-server` binary (`NOTES_SERVER`), which checks that binary over real stdio.

use std::process::Command;

fn run_demo(notes_server: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_demo"));
    if let Some(bin) = notes_server {
        cmd.env("NOTES_SERVER", bin);
    }
    let out = cmd.output().expect("run demo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "demo failed ({}):\n{stdout}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    stdout
}

fn assert_session(stdout: &str) {
    for expected in [
        "← 5 tools:",
        "│ Error: There is no note named \"grocery\".",
        "The closest existing name is \"groceries\".",
        "│ (reason no_such_note · not retryable · request ",
        "│ Error: Invalid arguments for tool write_note: text: missing required field, body: unknown key",
        "\"created\": true",
        "  notes://ideas  (34 bytes)",
        "\"code\": -32002,",
        "\"uri\": \"notes://idea\",",
        "\"hasMore\": false",
        "\"type\": \"resource\",",
        "\"supportedVersions\": [",
        "\"resultType\": \"complete\"",
        "← the server asks: elicitation/create {\"message\":\"Delete the note \\\"reading-list\\\"? This cannot be undone.\"",
        "│ Deleted note \"reading-list\".",
        "│ (reason not_confirmed · not retryable · request ",
        "\"resultType\": \"input_required\"",
        "✓ reading-list and standup were deleted with consent; groceries, declined, is still there",
        "✓ every step got the expected answer",
    ] {
        assert!(stdout.contains(expected), "demo output lacks {expected:?}:\n{stdout}");
    }
}

#[test]
fn the_demo_passes_against_itself_in_server_mode() {
    assert_session(&run_demo(None));
}

#[test]
fn the_demo_passes_against_the_notes_server_binary() {
    let bin = env!("CARGO_BIN_EXE_notes-server");
    let stdout = run_demo(Some(bin));
    assert!(stdout.contains(&format!("server command:  {bin} ")), "the demo did not drive {bin}:\n{stdout}");
    assert_session(&stdout);
}

#[test]
fn notes_server_refuses_to_start_without_a_directory() {
    let out = Command::new(env!("CARGO_BIN_EXE_notes-server")).env_remove("NOTES_DIR").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: notes-server <DIR>"));
}
