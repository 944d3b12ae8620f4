use mcp_runtime::prelude::*;

/// Adds two integers.
#[tool(annotations(read_only_hint = true))]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    #[serde(default)]
    b: Option<i64>,
) -> String {
    (a + b.unwrap_or(0)).to_string()
}

fn main() {}
