use mcp_runtime::prelude::*;

/// Fetches one item.
#[tool]
#[errors(
    reason = "no_match",
    code = NotFound,
    when = "The id does not exist.",
    recovery = "Call search_docs to find a valid id."
)]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(FetchItemError::NoMatch).message(format!("no item {id}")))
}

/// Deletes one item.
#[tool]
#[errors(
    reason = "locked",
    code = Conflict,
    when = "The item is locked.",
    recovery = "Wait until the lock is released, then call delete_item again."
)]
fn delete_item(ctx: &Ctx<DeleteItemError>, id: String) -> Result<String, ToolError> {
    if id.is_empty() {
        return Err(ctx.fail(DeleteItemError::Locked));
    }
    // A reason of another tool: `ctx.fail` takes only this tool's reasons.
    Err(ctx.fail(FetchItemError::NoMatch))
}

fn main() {}
