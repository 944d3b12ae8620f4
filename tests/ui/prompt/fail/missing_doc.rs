use mcp_runtime::prelude::*;

#[prompt]
fn summarize(name: String) -> String {
    format!("Summarize {name}.")
}

fn main() {}
