use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt]
fn summarize(name: String) -> Content {
    Content::text(format!("Summarize {name}."))
}

fn main() {}
