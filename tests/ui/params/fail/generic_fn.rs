use mcp_runtime::prelude::*;

/// Echoes its argument.
#[tool]
fn echo<T: Into<String>>(text: String) -> String {
    text
}

fn main() {}
