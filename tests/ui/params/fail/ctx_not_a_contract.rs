use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool]
fn search_docs(ctx: &Ctx<String>, query: String) -> String {
    let _ = ctx;
    query
}

fn main() {}
