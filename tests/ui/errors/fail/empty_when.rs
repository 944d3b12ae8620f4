use mcp_runtime::prelude::*;

/// Fetches one item.
#[tool]
#[errors(reason = "no_match", code = NotFound, when = "", recovery = "Call search_docs to find a valid id.")]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(FetchItemError::NoMatch).message(format!("no item {id}")))
}

fn main() {}
