use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(annotations(read_only_hint = "yes"))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
