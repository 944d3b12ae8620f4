use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;

/// Adds, as sent: `"5"` is refused, not read as 5.
#[tool(repair = false)]
fn add_as_sent(a: i64, b: i64) -> i64 {
    a + b
}

/// Adds; `repair` alone is the default.
#[tool(repair)]
fn add_repaired(a: i64, b: i64) -> i64 {
    a + b
}

/// Adds, with the default.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    assert!(!<add_as_sent as ToolDef>::spec().repair);
    assert!(<add_repaired as ToolDef>::spec().repair);
    assert!(<add as ToolDef>::spec().repair);
}
