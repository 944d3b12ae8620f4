use mcp_runtime::prelude::*;

// Every mistake in the attribute is reported in the same build.
#[tool(name = "search docs", nmae = "x", timeout_ms = 0, annotations(read_only = true))]
fn search_docs(query: String) -> String {
    query
}

fn main() {}
