#![deny(warnings)]

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
    recovery = "Wait a few seconds, then call fetch_item again."
)]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    // `queue_full` is declared but never raised here, and not `thrown_by = service`.
    Err(ctx.fail(FetchItemError::NoMatch).message(format!("no item {id}")))
}

fn main() {}
