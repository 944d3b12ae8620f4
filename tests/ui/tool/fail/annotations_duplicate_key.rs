use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(annotations(read_only_hint = true, open_world_hint = false, read_only_hint = false))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
