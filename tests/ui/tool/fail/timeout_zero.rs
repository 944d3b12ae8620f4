use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(timeout_ms = 0)]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
