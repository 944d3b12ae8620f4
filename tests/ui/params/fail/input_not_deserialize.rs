use mcp_runtime::prelude::*;

/// What to search for.
#[derive(JsonSchema)]
struct Query {
    /// The text.
    text: String,
}

/// Searches the docs.
#[tool]
fn search_docs(#[input] query: Query) -> String {
    query.text
}

fn main() {}
