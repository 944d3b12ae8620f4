use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool]
fn search_docs(ctx: &Ctx, again: &Ctx, query: String) -> String {
    let _ = (ctx, again);
    query
}

fn main() {}
