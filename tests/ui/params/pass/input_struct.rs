use mcp_runtime::__private::{InputSpec, ToolDef};
use mcp_runtime::prelude::*;

/// What to search for.
#[derive(Deserialize, JsonSchema)]
struct Query {
    /// The text.
    text: String,
    /// The page size.
    #[serde(default)]
    limit: Option<u32>,
}

/// Searches the docs: `#[input]` makes one struct the whole input.
#[tool]
fn search_docs(ctx: &Ctx, #[input] Query { text, limit }: Query) -> String {
    let _ = ctx;
    format!("{text} ({})", limit.unwrap_or(10))
}

fn main() {
    assert!(matches!(search_docs::spec().input, InputSpec::Whole(_)));
    let server = Server::builder("ui", "0.0.0").tool(search_docs).build().expect("server");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let r = rt.block_on(server.call("search_docs", serde_json::json!({"text": "q"})));
    assert_eq!(r.first_text(), Some("q (10)"));
}
