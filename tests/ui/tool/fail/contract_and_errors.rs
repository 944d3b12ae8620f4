use mcp_runtime::prelude::*;

#[contract]
enum LookupError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_docs to find a valid id.")]
    NoMatch,
}

/// Fetches one item.
#[tool(contract = LookupError)]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    when = "The queue is full.",
    recovery = "Wait a few seconds, then call fetch_item again."
)]
fn fetch_item(ctx: &Ctx<LookupError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(LookupError::NoMatch).message(format!("no item {id}")))
}

fn main() {}
