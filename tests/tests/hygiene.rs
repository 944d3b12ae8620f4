//! A user crate that denies clippy's pedantic lints and missing docs (issue 34 item 3): the
//! items `#[tool]`, `#[resource]`, `#[prompt]` and `#[contract]` generate trip none of them,
//! including `missing_errors_doc` and `missing_panics_doc` on handlers whose doc the macro
//! writes. `cargo clippy --workspace --all-targets -- -D warnings` checks it; the lint levels
//! below, in the source, win over the workspace's allow-list.
//!
//! The tests check what the model reads: the doc comment without its `# Errors`, `# Panics` and
//! `# Safety` sections, which are written for Rust readers.
#![deny(clippy::pedantic, clippy::missing_errors_doc, clippy::missing_panics_doc, missing_docs)]

use mcp_runtime::prelude::*;
use serde_json::json;

/// The failures of the notes tools.
#[contract]
pub enum NoteErrors {
    /// No note has the name.
    #[errors(code = NotFound, when = "No note has that name.", recovery = "Call list_notes to see every name.")]
    NoSuchNote,
}

/// Reads one note.
///
/// # Errors
///
/// `no_such_note` when no note has the name.
#[tool]
pub fn read_note(ctx: &Ctx<NoteErrors>, name: String) -> Result<String, ToolError> {
    if name == "ideas" { Ok("fly".to_owned()) } else { Err(ctx.fail(NoteErrors::NoSuchNote)) }
}

/// Counts the notes whose names are given.
///
/// # Panics
///
/// Never: the count fits.
///
/// # Examples
///
/// Call it with `["a", "b"]`.
#[tool]
pub fn count_notes(names: Vec<String>) -> u32 {
    u32::try_from(names.iter().filter(|n| !n.is_empty()).count()).expect("fewer than 2^32 names")
}

/// Deletes a note.
#[tool]
#[errors(
    reason = "read_only",
    code = Forbidden,
    when = "The notes are read-only.",
    recovery = "Ask the user to enable writing, then call delete_note again."
)]
pub async fn delete_note(ctx: &Ctx<DeleteNoteError>, name: String) -> Result<String, ToolError> {
    tokio::task::yield_now().await;
    if name.is_empty() { Err(ctx.fail(DeleteNoteError::ReadOnly)) } else { Ok(format!("Deleted {name}.")) }
}

/// One note, by name.
///
/// # Errors
///
/// When the name is empty.
#[resource(uri_template = "notes://{name}")]
pub fn note(name: String) -> Result<String, ToolError> {
    if name.is_empty() { Err(ToolError::invalid_params("empty name")) } else { Ok(name) }
}

/// Asks for a summary of a note.
#[prompt]
pub fn summarise(name: String) -> String {
    format!("Summarise the note {name}.")
}

fn server() -> Server {
    Server::builder("hygiene", "0.0.0")
        .tool(read_note)
        .tool(count_notes)
        .tool(delete_note)
        .resource(note)
        .prompt(summarise)
        .build()
        .expect("server")
}

#[test]
fn descriptions_leave_out_the_sections_for_rust_readers() {
    let descriptions: Vec<String> =
        server().tool_descriptors().iter().map(|t| t["description"].as_str().unwrap_or_default().to_owned()).collect();
    assert_eq!(
        descriptions,
        [
            "Reads one note.",
            "Counts the notes whose names are given.\n\n# Examples\n\nCall it with `[\"a\", \"b\"]`.",
            "Deletes a note."
        ]
    );
}

#[tokio::test]
async fn the_tools_serve() {
    let server = server();
    assert_eq!(server.call("read_note", json!({"name": "ideas"})).await.first_text(), Some("fly"));
    assert_eq!(
        server.call("count_notes", json!({"names": ["a", "", "b"]})).await.first_text(),
        Some(r#"{"result":2}"#)
    );
    let refused = server.call("delete_note", json!({"name": ""})).await;
    assert_eq!(refused.is_error, Some(true));
    let read = server.read_resource("notes://ideas").await.expect("read");
    assert_eq!(read["contents"][0]["text"], "ideas");
}
