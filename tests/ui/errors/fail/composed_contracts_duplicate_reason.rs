use mcp_runtime::prelude::*;

/// The failure modes of the item store.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// The failure modes of the archive, which declares `no_such_item` too.
#[contract]
pub enum ArchiveError {
    #[errors(code = NotFound, when = "The id is not archived.", recovery = "Call list_archive to see the archived ids.")]
    NoSuchItem,
}

/// Restores one item.
#[tool(contract = (ItemError, ArchiveError))]
fn restore_item(ctx: &Ctx<RestoreItemError>, id: String) -> Result<String, ToolError> {
    Err(ctx.fail(ItemError::NoSuchItem).message(format!("no item {id}")))
}

fn main() {}
