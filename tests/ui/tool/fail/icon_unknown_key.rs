use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(icons(icon(src = "https://example.com/search.png", size = "48x48")))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
