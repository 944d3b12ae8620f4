use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool]
struct SearchDocs {
    query: String,
}

fn main() {}
