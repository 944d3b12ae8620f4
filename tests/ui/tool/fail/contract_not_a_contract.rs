use mcp_runtime::prelude::*;

enum LookupError {
    NoMatch,
}

/// Fetches one item.
#[tool(contract = LookupError)]
fn fetch_item(id: String) -> String {
    id
}

fn main() {}
