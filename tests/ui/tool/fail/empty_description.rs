use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(description = "  ")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
