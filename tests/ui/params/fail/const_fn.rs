use mcp_runtime::prelude::*;

/// Returns a greeting.
#[tool]
const fn hello() -> &'static str {
    "hello"
}

fn main() {}
