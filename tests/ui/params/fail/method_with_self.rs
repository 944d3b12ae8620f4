use mcp_runtime::prelude::*;

struct Docs;

impl Docs {
    /// Searches the docs.
    #[tool]
    fn search_docs(&self, query: String) -> String {
        query
    }
}

fn main() {}
