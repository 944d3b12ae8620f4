use mcp_runtime::prelude::*;

/// Fetches one item.
#[tool]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    retryable = "yes",
    when = "The queue is full.",
    recovery = "Wait a few seconds, then call fetch_item again."
)]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(FetchItemError::QueueFull).message(format!("no room for {id}")))
}

fn main() {}
