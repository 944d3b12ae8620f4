use mcp_runtime::prelude::*;

/// What to search for.
#[derive(Deserialize, JsonSchema)]
struct Query {
    /// The text.
    text: String,
}

/// The hits.
#[derive(Serialize, JsonSchema)]
struct Hits {
    /// One line per hit.
    hits: Vec<String>,
}

/// Searches the docs.
#[tool]
async fn search_docs(ctx: &Ctx, #[input] query: Query) -> Hits {
    let _ = ctx.request_id();
    Hits { hits: vec![query.text] }
}

fn main() {}
