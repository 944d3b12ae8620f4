use mcp_runtime::prelude::*;

/// Writes a note.
#[tool(scopes("notes:read notes:write"))]
fn write_note(text: String) -> String {
    text
}

fn main() {}
