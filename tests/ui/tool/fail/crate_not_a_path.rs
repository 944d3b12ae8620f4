use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(crate = "mcp_runtime")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
