use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool]
#[tool(title = "Search")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
