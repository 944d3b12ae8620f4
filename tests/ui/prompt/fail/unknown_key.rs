use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt(titel = "Summarize")]
fn summarize(name: String) -> String {
    format!("Summarize {name}.")
}

fn main() {}
