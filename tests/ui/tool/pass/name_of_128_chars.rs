use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;

/// The longest valid name: 128 characters of `A-Za-z0-9_.-`.
#[tool(
    name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.b_c-d.9"
)]
fn long_name() -> String {
    String::new()
}

fn main() {
    assert_eq!(long_name::spec().name.len(), 128);
}
