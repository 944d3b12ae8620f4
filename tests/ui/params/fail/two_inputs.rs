use mcp_runtime::prelude::*;

/// What to search for.
#[derive(Deserialize, JsonSchema)]
struct Query {
    /// The text.
    text: String,
}

/// How to page.
#[derive(Deserialize, JsonSchema)]
struct Paging {
    /// The page size.
    limit: u32,
}

/// Searches the docs.
#[tool]
fn search_docs(#[input] query: Query, #[input] paging: Paging) -> String {
    format!("{} ({})", query.text, paging.limit)
}

fn main() {}
