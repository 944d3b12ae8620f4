use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(title = "Search", title = "Search the docs")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
