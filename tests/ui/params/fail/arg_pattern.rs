use mcp_runtime::prelude::*;

/// Adds two integers.
#[tool]
fn add((a, b): (i64, i64)) -> String {
    (a + b).to_string()
}

fn main() {}
