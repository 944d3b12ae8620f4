use mcp_runtime::prelude::*;

/// Fetches one item.
#[tool]
#[errors(
    reason = "no_match",
    code = NotFound,
    thrown_by = database,
    when = "The id does not exist.",
    recovery = "Call search_docs to find a valid id."
)]
fn fetch_item(id: String) -> String {
    id
}

fn main() {}
