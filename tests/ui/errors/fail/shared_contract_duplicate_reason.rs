use mcp_runtime::prelude::*;

/// The failure modes shared by the item tools.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// Fetches one item. Its own `no_such_item` is the shared contract's reason too.
#[tool(contract = ItemError)]
#[errors(
    reason = "no_such_item",
    code = NotFound,
    when = "No item has this id.",
    recovery = "Call search_items to find a valid id, then retry."
)]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(FetchItemError::NoSuchItem).message(format!("no item {id}")))
}

fn main() {}
