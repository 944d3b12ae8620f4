use mcp_runtime::prelude::*;

/// What to search for.
#[derive(Deserialize, JsonSchema)]
struct Query {
    /// The text.
    text: String,
}

/// Searches the docs.
#[tool]
fn search_docs(#[input] query: Query, limit: u32) -> String {
    format!("{} ({limit})", query.text)
}

fn main() {}
