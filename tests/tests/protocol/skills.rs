//! The skills extension over a real process (`fixture-server`): its own skills directory
//! (tests/skills: two skills, one with a file in a subfolder) listed, read and browsed in
//! the client's era, and an invalid `FIXTURE_SKILLS_DIR` that stops the server before it
//! serves, the file and the reason on stderr.

use std::time::Duration;

use mcp_tests::client::Client;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");

/// A result without what a 2026-07-28 result adds to every one (`resultType`, the cache
/// hints, the server's name in `_meta`).
fn body(mut result: Value) -> Value {
    if let Some(map) = result.as_object_mut() {
        for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
            map.remove(key);
        }
    }
    result
}

#[test]
fn the_fixture_serves_its_skills_directory() {
    let mut c = Client::spawn(SERVER, &[]);
    c.initialize();
    let listed = c.roundtrip("skills/list", json!({}));
    let code_review = json!({
        "uri": "skill://code-review/SKILL.md",
        "frontmatter": {
            "name": "code-review",
            "description": "Review a change for correctness, tests and documentation, in that order.",
            "metadata": {"owner": "fixture"},
        },
        "resources": [
            {"uri": "skill://code-review/SKILL.md", "digest": "sha256:0f5c4760a956e0f5cb1cc26d44ea457321fcc302a0606c5cc658303990c70ff6", "size": 203},
            {"uri": "skill://code-review/checklists/REVIEW.md", "digest": "sha256:7bdb1c33f4eaf01ac2a33d4784c13adf2ffacb667e5dfe6675793715ddffc57b", "size": 118},
        ],
    });
    let release_notes = json!({
        "uri": "skill://release-notes/SKILL.md",
        "frontmatter": {
            "name": "release-notes",
            "description": "Write the release notes of a version from the changelog's Unreleased section.",
        },
        "resources": [
            {"uri": "skill://release-notes/SKILL.md", "digest": "sha256:2cec83493fb40676bfd5af42297bec885b1868fd85c7ebf4eda4354063b475c7", "size": 242},
        ],
    });
    assert_eq!(body(listed["result"].clone()), json!({"skills": [code_review, release_notes]}), "{listed}");

    let folder = c.roundtrip("resources/directory/read", json!({"uri": "skill://code-review/checklists"}));
    assert_eq!(
        body(folder["result"].clone()),
        json!({"resources": [{"uri": "skill://code-review/checklists/REVIEW.md", "name": "REVIEW.md", "mimeType": "text/markdown", "size": 118}]}),
        "{folder}"
    );
    let read = c.roundtrip("resources/read", json!({"uri": "skill://code-review/checklists/REVIEW.md"}));
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/skills/code-review/checklists/REVIEW.md"))
        .unwrap();
    assert_eq!(
        body(read["result"].clone()),
        json!({"contents": [{"uri": "skill://code-review/checklists/REVIEW.md", "mimeType": "text/markdown", "text": text}]}),
        "{read}"
    );
    let unknown = c.roundtrip("skills/get", json!({"uri": "skill://nothing/SKILL.md"}));
    assert_eq!(unknown["error"]["code"], json!(-32602), "{unknown}");
}

#[test]
fn an_invalid_skills_directory_stops_the_fixture_naming_the_file_and_the_reason() {
    let dir = std::env::temp_dir().join(format!("fixture-skills-invalid-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("notes/SKILL.md"), "---\nname: notes\n---\n").unwrap();
    // Over stdio whatever MCP_TEST_TRANSPORT says: the server never gets to listen.
    let env = [("FIXTURE_SKILLS_DIR", dir.to_str().unwrap())];
    let mut c = Client::spawn_with(SERVER, &env, mcp_tests::client::Pipes::default());
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(1), "{}", c.stderr());
    let expected = format!(
        "fixture-server: skill file `{}/notes/SKILL.md`: frontmatter field `description` is missing (required)\n",
        dir.display()
    );
    assert!(c.wait_for_stderr(&expected, 1), "{}", c.stderr());
    let _ = std::fs::remove_dir_all(&dir);
}
