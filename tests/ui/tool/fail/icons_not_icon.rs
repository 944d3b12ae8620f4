use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(icons(src = "https://example.com/search.png"))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
