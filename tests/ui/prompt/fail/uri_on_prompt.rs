use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt(uri = "notes://index")]
fn summarize(name: String) -> String {
    format!("Summarize {name}.")
}

fn main() {}
