use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(annotations(read_only = true))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
