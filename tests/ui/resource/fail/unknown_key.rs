use mcp_runtime::prelude::*;

/// The index of all notes.
#[resource(uri = "notes://index", mime = "text/markdown")]
fn index() -> &'static str {
    "# Notes"
}

fn main() {}
