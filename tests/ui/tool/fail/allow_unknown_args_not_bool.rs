use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(allow_unknown_args = "yes")]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
