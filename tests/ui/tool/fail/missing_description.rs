use mcp_runtime::prelude::*;

#[tool]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
