//! A crate that denies missing docs: the items `#[tool]` generates for public tools are
//! documented.
#![deny(missing_docs)]

use mcp_runtime::prelude::*;

/// Fetches one item.
#[tool]
#[errors(
    reason = "no_match",
    code = NotFound,
    when = "The id does not exist.",
    recovery = "Call search_docs to find a valid id."
)]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    when = "The queue is full.",
    recovery = "Wait a few seconds, then call fetch_item again.",
    thrown_by = service
)]
pub fn fetch_item(
    ctx: &Ctx<FetchItemError>,
    /// The id.
    id: String,
) -> Result<String, ToolError> {
    Err(ctx.fail(FetchItemError::NoMatch).message(format!("no item {id}")))
}

/// What to search for.
#[derive(Deserialize, JsonSchema)]
pub struct Query {
    /// The text.
    pub text: String,
}

/// Searches the docs.
#[tool]
pub async fn search_docs(#[input] query: Query) -> String {
    query.text
}

/// A module of tools.
pub mod more {
    use mcp_runtime::prelude::*;

    /// Says hello.
    #[tool]
    pub fn hello() -> &'static str {
        "hello"
    }
}

fn main() {
    let server =
        Server::builder("ui", "0.0.0").tool(fetch_item).tool(search_docs).tool(more::hello).build().expect("the server builds");
    let names: Vec<String> = server.tool_descriptors().iter().map(|d| d["name"].to_string()).collect();
    assert_eq!(names, ["\"fetch_item\"", "\"search_docs\"", "\"hello\""]);
}
