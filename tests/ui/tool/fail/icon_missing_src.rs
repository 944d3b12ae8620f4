use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool(icons(icon(mime_type = "image/png")))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
