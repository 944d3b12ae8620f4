use mcp_runtime::prelude::*;

/// The failure modes of the item store.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// The failure modes of the import queue.
#[contract]
pub enum QueueError {
    #[errors(code = RateLimited, when = "The queue is full.", recovery = "Wait a few seconds, then call this tool again.")]
    QueueFull,
}

/// Imports one item. Its own `queue_full` is the second contract's reason too.
#[tool(contract = (ItemError, QueueError))]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    when = "Too many imports are running.",
    recovery = "Wait until an import finishes, then call import_item again."
)]
fn import_item(ctx: &Ctx<ImportItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(ImportItemError::QueueFull).message(format!("cannot import {id} now")))
}

fn main() {}
