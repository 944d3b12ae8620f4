use mcp_runtime::prelude::*;

/// Searches the docs. The tool's name defaults to the fn's name, which must be a valid tool name.
#[tool]
fn recherche_été(query: String) -> String {
    query
}

fn main() {}
