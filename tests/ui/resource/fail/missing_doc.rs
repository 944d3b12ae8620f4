use mcp_runtime::prelude::*;

#[resource(uri = "notes://index")]
fn index() -> &'static str {
    "# Notes"
}

fn main() {}
