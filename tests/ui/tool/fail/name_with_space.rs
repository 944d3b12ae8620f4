use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(name = "search docs")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
