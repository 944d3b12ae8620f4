use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(
    name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
