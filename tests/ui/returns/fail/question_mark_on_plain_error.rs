use mcp_runtime::prelude::*;

/// Doubles a number.
#[tool]
fn double(text: String) -> Result<i64, ToolError> {
    let n: i64 = text.parse()?;
    Ok(n * 2)
}

fn main() {}
