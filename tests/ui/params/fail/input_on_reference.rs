use mcp_runtime::prelude::*;

/// Searches the docs.
#[tool]
fn search_docs(#[input] ctx: &Ctx) -> String {
    ctx.request_id().to_owned()
}

fn main() {}
