use mcp_runtime::prelude::*;

/// Summarizes some notes.
#[prompt]
fn summarize(names: Vec<String>) -> String {
    format!("Summarize {}.", names.join(", "))
}

fn main() {}
