use mcp_runtime::prelude::*;

/// The index of all notes.
#[resource(mime_type = "text/markdown")]
fn index() -> &'static str {
    "# Notes"
}

fn main() {}
