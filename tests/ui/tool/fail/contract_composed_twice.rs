use mcp_runtime::prelude::*;

/// The failure modes of the item store.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// Fetches one item.
#[tool(contract = (ItemError, ItemError))]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(ItemError::NoSuchItem).message(format!("no item {id}")))
}

fn main() {}
