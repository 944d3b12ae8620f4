use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt]
fn summarize(#[input] name: String) -> String {
    format!("Summarize {name}.")
}

fn main() {}
