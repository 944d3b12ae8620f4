use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(nmae = "search")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
