#![deny(warnings)]

use mcp_runtime::__private::ToolDef;
use mcp_runtime::Contract;
use mcp_runtime::prelude::*;

/// The failure modes shared by the item tools.
#[contract]
enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
    #[errors(
        reason = "locked_item",
        code = Conflict,
        when = "The item is locked.",
        recovery = "Wait until the lock is released, then call this tool again."
    )]
    Locked,
}

/// Fetches one item.
#[tool(contract = ItemError)]
fn fetch_item(ctx: &Ctx<ItemError>, id: String) -> Result<String, ToolError> {
    if id.is_empty() { Err(ctx.fail(ItemError::NoSuchItem)) } else { Ok(id) }
}

/// Deletes one item. Its context names the contract, so `contract = ItemError` is implied.
#[tool]
fn delete_item(ctx: &Ctx<ItemError>, id: String) -> Result<String, ToolError> {
    if id.is_empty() { Err(ctx.fail(ItemError::Locked)) } else { Ok(id) }
}

fn main() {
    assert_eq!(ItemError::NoSuchItem.as_str(), "no_such_item");
    assert_eq!(ItemError::Locked.as_str(), "locked_item");
    assert_eq!(fetch_item::spec().contract, <ItemError as Contract>::ENTRIES);
    assert_eq!(delete_item::spec().contract, <ItemError as Contract>::ENTRIES);
}
