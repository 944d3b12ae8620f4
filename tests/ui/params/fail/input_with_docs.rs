use mcp_runtime::prelude::*;

/// What to search for.
#[derive(Deserialize, JsonSchema)]
struct Query {
    /// The text.
    text: String,
}

/// Searches the docs.
#[tool]
fn search_docs(
    /// The query.
    #[input]
    query: Query,
) -> String {
    query.text
}

fn main() {}
