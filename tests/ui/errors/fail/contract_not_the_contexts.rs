use mcp_runtime::prelude::*;

/// The failure modes of the item tools.
#[contract]
enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// The failure modes of the user tools.
#[contract]
enum UserError {
    #[errors(code = NotFound, when = "The user does not exist.", recovery = "Call list_users to find a valid user.")]
    NoSuchUser,
}

/// Fetches one item.
#[tool(contract = ItemError)]
fn fetch_item(ctx: &Ctx<UserError>, id: String) -> Result<String, ToolError> {
    if id.is_empty() { Err(ctx.fail(UserError::NoSuchUser)) } else { Ok(id) }
}

fn main() {
    let _ = ItemError::NoSuchItem;
}
