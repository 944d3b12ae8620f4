use mcp_runtime::prelude::*;

/// The failure modes shared by the item tools.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// Another contract, that this tool does not take.
#[contract]
pub enum QueueError {
    #[errors(code = RateLimited, when = "The queue is full.", recovery = "Wait a few seconds, then call this tool again.")]
    QueueFull,
}

/// Fetches one item.
#[tool(contract = ItemError)]
#[errors(
    reason = "locked",
    code = Conflict,
    when = "The item is locked.",
    recovery = "Wait until the lock is released, then call fetch_item again."
)]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    if id.is_empty() {
        return Err(ctx.fail(FetchItemError::Locked));
    }
    Err(ctx.fail(QueueError::QueueFull))
}

fn main() {}
