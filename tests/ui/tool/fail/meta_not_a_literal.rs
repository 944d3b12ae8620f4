use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(meta(owner = docs_team))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
