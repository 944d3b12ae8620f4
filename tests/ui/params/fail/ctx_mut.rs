use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool]
fn search_docs(ctx: &mut Ctx, query: String) -> String {
    let _ = ctx;
    query
}

fn main() {}
