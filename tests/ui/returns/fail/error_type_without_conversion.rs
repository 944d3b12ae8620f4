use mcp_runtime::prelude::*;
use std::num::ParseIntError;

/// Doubles a number.
#[tool]
fn double(text: String) -> Result<i64, ParseIntError> {
    let n: i64 = text.parse()?;
    Ok(n * 2)
}

fn main() {}
