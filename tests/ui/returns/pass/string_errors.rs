use mcp_runtime::prelude::*;

/// Doubles a number.
#[tool]
fn double(text: String) -> Result<i64, String> {
    let n: i64 = text.parse().map_err(|e| format!("`{text}` is not a number: {e}"))?;
    Ok(n * 2)
}

/// Halves an even number.
#[tool]
fn halve(n: i64) -> Result<i64, &'static str> {
    if n % 2 == 1 {
        return Err("the number is odd");
    }
    Ok(n / 2)
}

/// A `String` error also converts with `?` in a handler returning `ToolError`.
#[tool]
fn negate(n: i64) -> Result<i64, ToolError> {
    let checked: Result<i64, String> = n.checked_neg().ok_or_else(|| format!("{n} has no negation"));
    Ok(checked?)
}

fn main() {
    let _ = Server::builder("numbers", "1").tool(double).tool(halve).tool(negate);
}
